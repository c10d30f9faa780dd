"""`[stagelint]` in `setup.cfg` or `tox.ini`: the keys of `[tool.stagelint]`, written the way
flake8 users write their own section.

Lists are comma- or newline-separated (`select = STG1,STG201`, or one a line), booleans
`true`/`false` (also `yes`/`no`, `on`/`off`, `1`/`0`), `per-file-ignores` flake8's way (one
`glob: CODES` a line), and a key may be spelled with `_` (`per_file_ignores`). The values then
go through the same checks as the TOML table, so a mistake names the file and the key."""

from __future__ import annotations

import configparser
import re
from pathlib import Path

SECTION = "stagelint"
#: Where the section is looked for, in each folder, after pyproject.toml: flake8's own files.
FILES = ("setup.cfg", "tox.ini")

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


class IniError(Exception):
    pass


def _list(text: str) -> list[str]:
    return [v for v in re.split(r"[,\s]+", text.strip()) if v]


def _per_file(text: str) -> dict[str, list[str]]:
    table: dict[str, list[str]] = {}
    for line in text.strip().splitlines():
        line = line.strip()
        if not line:
            continue
        glob, sep, codes = line.rpartition(":")
        if not sep or not glob.strip():
            raise IniError(f"per-file-ignores: {line!r} is not `glob: CODES`")
        table.setdefault(glob.strip(), []).extend(_list(codes))
    return table


def _value(kind: str, text: str):
    if kind == "list":
        return _list(text)
    if kind == "table":
        return _per_file(text)
    if kind == "bool":
        low = text.strip().lower()
        if low in _TRUE or low in _FALSE:
            return low in _TRUE
        return text.strip()  # refused by the table's own check, with the key named
    if kind == "number":
        try:
            return float(text) if "." in text or "e" in text.lower() else int(text)
        except ValueError:
            return text.strip()
    return text


def read_section(path: Path, text: str, kinds: dict[str, str]) -> dict | None:
    """The `[stagelint]` section of `text` (the file at `path`) as a `[tool.stagelint]`-like
    table, or None when there is none; `kinds` is each key's kind of value
    (`config.key_kinds()`: this module reads text, the configuration knows the keys). Raises
    IniError for a file configparser cannot read."""
    parser = configparser.RawConfigParser(interpolation=None)
    try:
        parser.read_string(text, source=str(path))
    except configparser.Error as e:
        raise IniError(f"not a valid INI file: {' '.join(str(e).split())}") from e
    if not parser.has_section(SECTION):
        return None
    table = {}
    for raw_key, text in parser.items(SECTION):
        key = raw_key.replace("_", "-")
        table[key] = _value(kinds.get(key, "text"), text)
    return table


def mentions_section(text: str) -> bool:
    return re.search(rf"^\s*\[{SECTION}\]\s*$", text, re.M) is not None
