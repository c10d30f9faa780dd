"""`[tool.stagelint]` in pyproject.toml -> Settings. Unknown keys and wrong types are errors
that name the file and the key; nothing is silently ignored."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


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
    #: Where the settings came from (None: defaults).
    source: str | None = None
    #: The directory relative paths in the config are taken from.
    root: str = "."

    def with_overrides(self, **changes) -> Settings:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _str_list(path: Path, key: str, value) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: [tool.stagelint] {key} must be a list of strings, got {value!r}")
    return tuple(value)


def _codes(path: Path, key: str, value) -> tuple[str, ...]:
    codes = _str_list(path, key, value)
    for c in codes:
        if not (c == "ALL" or (c.startswith("STG") and c[3:].isdigit() or c == "STG")):
            raise ConfigError(f"{path}: [tool.stagelint] {key}: {c!r} is not a stagelint code or prefix (e.g. STG1, STG201)")
    return codes


def _bool(path: Path, key: str, value) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{path}: [tool.stagelint] {key} must be true or false, got {value!r}")
    return value


def _per_file(path: Path, key: str, value) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: [tool.stagelint] {key} must be a table of glob = [codes], got {value!r}")
    return tuple((glob, _codes(path, f"{key}.{glob!r}", codes)) for glob, codes in value.items())


_KEYS = {
    "select": ("select", _codes),
    "ignore": ("ignore", _codes),
    "extend-select": ("select", _codes),
    "per-file-ignores": ("per_file_ignores", _per_file),
    "staging-decorators": ("staging_decorators", _str_list),
    "keras-methods": ("keras_methods", _bool),
    "exclude": ("exclude", _str_list),
}


def parse_table(path: Path, table: dict) -> Settings:
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.stagelint] must be a table")
    values = {}
    for key, value in table.items():
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(f"{path}: unknown key [tool.stagelint] {key!r} (known keys: {known})")
        attr, convert = _KEYS[key]
        converted = convert(path, key, value)
        if key == "extend-select":
            converted = values.get("select", Settings.select) + converted
        values[attr] = converted
    return Settings(source=str(path), root=str(path.parent), **values)


def read_config(path: Path, required: bool = True) -> Settings | None:
    """Settings from one TOML file; None when it has no [tool.stagelint] and is not required."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read configuration: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: configuration is not UTF-8: {e}") from e
    try:
        data = tomllib.loads(text)
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


def find_config(start: str | os.PathLike) -> Path | None:
    """The nearest pyproject.toml with a [tool.stagelint] table, from `start` upwards."""
    here = Path(start).resolve()
    if here.is_file():
        here = here.parent
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                text = candidate.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            if "[tool.stagelint" in text:
                return candidate
    return None


def load_settings(start: str | os.PathLike = ".", config: str | os.PathLike | None = None) -> Settings:
    if config is not None:
        path = Path(config)
        if not path.exists():
            raise ConfigError(f"{path}: configuration file does not exist")
        return read_config(path, required=True)
    found = find_config(start)
    if found is None:
        return Settings()
    return read_config(found, required=False) or Settings()
