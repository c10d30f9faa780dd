"""`[tool.stagelint]` in pyproject.toml -> Settings. Unknown keys and wrong types are errors
that name the file and the key; nothing is silently ignored."""

from __future__ import annotations

import difflib
import fnmatch
import math
import os
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from stagelint import iniconfig

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


#: A configuration file larger than this is not read (no pyproject.toml comes near it).
MAX_CONFIG_SIZE = 10_000_000


class ConfigError(Exception):
    """A configuration problem; the message names the file and, where there is one, the key."""


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ("STG",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    staging_decorators: tuple[str, ...] = ()
    keras_methods: bool = True
    exclude: tuple[str, ...] = ()
    #: Patterns excluded in addition to `exclude` (ruff's `extend-exclude`): a project keeps its
    #: own list here while `--exclude` on the command line replaces `exclude`.
    extend_exclude: tuple[str, ...] = ()
    #: Whether `--fix` / `--diff` apply the unsafe fixes too (`--unsafe-fixes` on the command line).
    unsafe_fixes: bool = False
    #: Report the preview tier too (`--preview`): rules and rule steps marked `preview` in their
    #: class, whose evidence is not yet good enough for the default (docs/model.md).
    preview: bool = False
    #: Not a configuration key: whether a rule held back in one framework's code
    #: (`Rule.preview_under`) stays out of the report there without `preview`. `stagelint run`
    #: turns it off: what a run observes gives such a finding its verdict (confirmed, not
    #: reproduced, not exercised), and a counter it confirms explains a test that counts traces.
    framework_tiers: bool = True
    #: Per-file budgets (`stagelint.pipeline.budget`): larger files, and files whose analysis takes
    #: longer (seconds, in a worker process), are reported as skipped.
    max_file_size: int = 5_000_000
    file_timeout: float = 120.0
    #: The page a report links each rule to (`stagelint.ruleurls`): a template with `{code}`;
    #: empty, no link.
    rule_url: str = ""
    #: Where the settings came from (None: defaults).
    source: str | None = None
    #: Other files in the same folder with a stagelint section, passed over for `source`
    #: (said as a warning: never silently ignored).
    shadowed: tuple[str, ...] = ()
    #: The directory relative paths in the config are taken from.
    root: str = "."

    def with_overrides(self, **changes) -> Settings:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def relative(self, path: str | os.PathLike) -> str:
        """`path` relative to the configuration's folder, with `/`; as given if outside it."""
        try:
            return Path(path).resolve().relative_to(Path(self.root).resolve()).as_posix()
        except ValueError:
            return Path(path).as_posix()

    def is_excluded(self, path: str | os.PathLike) -> bool:
        rel = self.relative(path)
        return any(path_matches(rel, p) for p in self.exclude + self.extend_exclude)

    def ignored_for(self, path: str | os.PathLike, code: str) -> bool:
        """Whether `per-file-ignores` turns `code` off in this file."""
        if not self.per_file_ignores:
            return False
        rel = self.relative(path)
        return any(
            path_matches(rel, pattern) and any(c == "ALL" or code.startswith(c) for c in codes)
            for pattern, codes in self.per_file_ignores
        )


def path_matches(rel: str, pattern: str) -> bool:
    """Glob semantics of `exclude` and `per-file-ignores`: a pattern with a `/` matches the path
    relative to the configuration's folder (or a folder, and so everything below it); one
    without matches any single file or folder name on the way (`build`, `test_*.py`).
    `*` crosses `/`, as in flake8; `**/` also matches no folder."""
    pattern = pattern.strip()
    if pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = pattern.rstrip("/")
    if not pattern:
        return False
    if "/" in pattern:
        # `**/` may also stand for no folder at all (`src/**/x.py` matches src/x.py).
        variants = {pattern, pattern.replace("**/", "")}
        return any(fnmatch.fnmatchcase(rel, v) or fnmatch.fnmatchcase(rel, v + "/*") for v in variants)
    return any(fnmatch.fnmatchcase(part, pattern) for part in rel.split("/"))


def _str_list(path: Path, key: str, value) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: [tool.stagelint] {key} must be a list of strings, got {value!r}")
    return tuple(value)


#: A code (STG101) or a prefix of codes (STG, STG1, STG10), or ALL: what --select takes too.
CODE_RE = re.compile(r"(?:STG[0-9]{0,3}|ALL)")


def is_code_selector(text: str) -> bool:
    return CODE_RE.fullmatch(text) is not None


def _codes(path: Path, key: str, value) -> tuple[str, ...]:
    # Case-insensitive, as on the command line: `stg101` is STG101.
    codes = tuple(c.strip().upper() for c in _str_list(path, key, value))
    for c in codes:
        if not is_code_selector(c):
            raise ConfigError(f"{path}: [tool.stagelint] {key}: {c!r} is not a stagelint code or prefix (e.g. STG, STG1, STG201)")
    return codes


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _dotted_names(path: Path, key: str, value) -> tuple[str, ...]:
    names = _str_list(path, key, value)
    for n in names:
        if not _DOTTED.fullmatch(n):
            raise ConfigError(
                f"{path}: [tool.stagelint] {key}: {n!r} is not a dotted name; write the decorator's "
                "full import path, e.g. \"mylib.utils.compiled\""
            )
    return names


def _bool(path: Path, key: str, value) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{path}: [tool.stagelint] {key} must be true or false, got {value!r}")
    return value


def _seconds(path: Path, key: str, value) -> float:
    """A positive, finite number (TOML's `inf` and `nan` are floats too)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or not value > 0:
        raise ConfigError(f"{path}: [tool.stagelint] {key} must be a positive number of seconds, got {value!r}")
    return float(value)


def _bytes(path: Path, key: str, value) -> int:
    """A positive whole number: `0.5` would round to 0, which no budget means; `5e6` is fine."""
    whole = isinstance(value, int) or (isinstance(value, float) and math.isfinite(value) and value.is_integer())
    if isinstance(value, bool) or not whole or not value > 0:
        raise ConfigError(f"{path}: [tool.stagelint] {key} must be a positive whole number of bytes, got {value!r}")
    return int(value)


def _per_file(path: Path, key: str, value) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: [tool.stagelint] {key} must be a table of glob = [codes], got {value!r}")
    return tuple((glob, _codes(path, f"{key} {glob!r}", codes)) for glob, codes in value.items())


def _url_template(path: Path, key: str, value) -> str:
    from stagelint.ruleurls import FIELDS

    if not isinstance(value, str):
        raise ConfigError(f"{path}: [tool.stagelint] {key} must be a string, got {value!r}")
    try:
        value.format(**{f: "" for f in FIELDS})
    except (KeyError, IndexError, ValueError) as e:
        raise ConfigError(f"{path}: [tool.stagelint] {key}: {value!r} is not a template of "
                          f"{', '.join('{' + f + '}' for f in FIELDS)} ({type(e).__name__}: {e})") from None
    if value and "{code}" not in value:
        raise ConfigError(f"{path}: [tool.stagelint] {key}: {value!r} has no {{code}}, so every rule would get the same page")
    return value


_KEYS = {
    "select": ("select", _codes),
    "ignore": ("ignore", _codes),
    "extend-select": ("select", _codes),
    "per-file-ignores": ("per_file_ignores", _per_file),
    "staging-decorators": ("staging_decorators", _dotted_names),
    "keras-methods": ("keras_methods", _bool),
    "exclude": ("exclude", _str_list),
    "extend-exclude": ("extend_exclude", _str_list),
    "unsafe-fixes": ("unsafe_fixes", _bool),
    "preview": ("preview", _bool),
    "max-file-size": ("max_file_size", _bytes),
    "file-timeout": ("file_timeout", _seconds),
    "rule-url": ("rule_url", _url_template),
}


def key_kinds() -> dict[str, str]:
    """Each key's kind of value ("list", "table", "bool", "number", "text"), for files that hold
    text."""
    kinds = {}
    for key, (_, convert) in _KEYS.items():
        kinds[key] = ("list" if convert in (_codes, _str_list, _dotted_names) else "table" if convert is _per_file
                      else "bool" if convert is _bool else "number" if convert in (_bytes, _seconds) else "text")
    return kinds


def parse_table(path: Path, table: dict) -> Settings:
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.stagelint] must be a table")
    values = {}
    for key, value in table.items():
        if key not in _KEYS:
            close = difflib.get_close_matches(key.replace("_", "-"), list(_KEYS), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (known keys: {', '.join(sorted(_KEYS))})"
            raise ConfigError(f"{path}: unknown key [tool.stagelint] {key!r}{hint}")
        attr, convert = _KEYS[key]
        values[key] = convert(path, key, value)
    if "extend-select" in values:  # in whichever order the two keys are written
        values["select"] = values.get("select", Settings.select) + values.pop("extend-select")
    kwargs = {_KEYS[k][0]: v for k, v in values.items()}
    return Settings(source=str(path), root=str(path.parent), **kwargs)


def _config_text(path: Path) -> str:
    """The text of a configuration file, read as every file is (`files.read_source`), or a
    ConfigError that names the file."""
    from stagelint.pipeline.files import NotRead, read_source

    try:
        return read_source(path, MAX_CONFIG_SIZE).decode("utf-8")
    except NotRead as e:  # a FIFO or `/dev/zero` given as --config: refused, not read without end
        raise ConfigError(f"{path}: {e}") from e
    except OSError as e:
        raise ConfigError(f"{path}: cannot read configuration: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: configuration is not UTF-8: {e}") from e


def _read_ini(path: Path, required: bool) -> Settings | None:
    """Settings from the `[stagelint]` section of a setup.cfg / tox.ini (`stagelint.iniconfig`)."""
    try:
        table = iniconfig.read_section(path, _config_text(path), key_kinds())
    except iniconfig.IniError as e:
        raise ConfigError(f"{path}: [stagelint] {e}") from e
    if table is None:
        if required:
            raise ConfigError(f"{path}: no [stagelint] section")
        return None
    try:
        return parse_table(path, table)
    except ConfigError as e:  # the same checks as the TOML table; say which section it is
        raise ConfigError(str(e).replace("[tool.stagelint]", "[stagelint]")) from e


def read_config(path: Path, required: bool = True) -> Settings | None:
    """Settings from one file (TOML, or setup.cfg / tox.ini / another `.cfg`/`.ini` with a
    `[stagelint]` section); None when it has no stagelint table and is not required."""
    if path.suffix in (".cfg", ".ini"):
        return _read_ini(path, required)
    try:
        data = tomllib.loads(_config_text(path))
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from e
    if path.name == "pyproject.toml" or "tool" in data:
        table = data.get("tool", {}).get("stagelint") if isinstance(data.get("tool"), dict) else None
    else:  # a dedicated stagelint.toml: the table is the file
        table = data
    if table is None:
        if required:
            raise ConfigError(f"{path}: no [tool.stagelint] table")
        return None
    return parse_table(path, table)


def _has_table(candidate: Path) -> bool:
    from stagelint.pipeline.files import read_source

    try:
        text = read_source(candidate, MAX_CONFIG_SIZE).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if "stagelint" not in text:  # most pyproject.toml files: no TOML parse needed
        return False
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        # It names stagelint, so it may well hold our table: say so rather than skip it.
        raise ConfigError(f"{candidate}: invalid TOML: {e}") from e
    tool = data.get("tool")
    return isinstance(tool, dict) and "stagelint" in tool


def _has_section(candidate: Path) -> bool:
    from stagelint.pipeline.files import read_source

    try:
        return iniconfig.mentions_section(read_source(candidate, MAX_CONFIG_SIZE).decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return False


#: The files the settings can come from, in each folder, in precedence order: pyproject.toml's
#: [tool.stagelint], then setup.cfg's and tox.ini's [stagelint] (as flake8 reads its own section
#: from those two). The server watches the same names.
CONFIG_FILES = ("pyproject.toml", *iniconfig.FILES)


def find_configs(start: str | os.PathLike) -> list[Path]:
    """In the nearest folder from `start` upwards that has any: its files (`CONFIG_FILES`) with a
    stagelint table, in precedence order."""
    here = Path(start).resolve()
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        found = [directory / name for name in CONFIG_FILES if (directory / name).is_file()
                 and (_has_table if name == "pyproject.toml" else _has_section)(directory / name)]
        if found:
            return found
    return []


def load_settings(start: str | os.PathLike = ".", config: str | os.PathLike | None = None) -> Settings:
    if config is not None:
        path = Path(config)
        if not path.exists():
            raise ConfigError(f"{path}: configuration file does not exist")
        return read_config(path, required=True)
    found = find_configs(start)
    if not found:
        return Settings()
    settings = read_config(found[0], required=False) or Settings()
    return replace(settings, shadowed=tuple(str(p) for p in found[1:])) if len(found) > 1 else settings
