"""Helpers for the integration tests: real tools (stagelint, flake8, git, pre-commit) run as
users run them, in subprocesses, on files written to temporary folders."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
PROJECT = FIXTURES / "project"
BIN = Path(sys.executable).parent

#: A staged function that binds one name 3,000 times: its analysis takes a dozen seconds and more
#: (libcst's scope model links each read of the name to every binding of it in the scope; the
#: tests give it a `file-timeout` of 2 s), however fast the machine.
SLOW_TO_ANALYSE = ("import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    y = x\n" + "    y = y + 1\n" * 3000
                   + "    return y\n")
#: The skip line of a file over a 2-second `file-timeout`, in every host.
OVER_TWO_SECONDS = "skipped: the analysis took longer than 2 s (file-timeout)"

#: `path:line:col: CODE ...` as both `stagelint check --output-format concise` and flake8 print it.
LINE_RE = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) ", re.M)


def run(cmd, cwd, env=None, timeout=300, input=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=full_env, input=input)


def stagelint(*args, cwd, **kw):
    return run([sys.executable, "-m", "stagelint", *args], cwd, **kw)


def flake8(*args, cwd, **kw):
    return run([sys.executable, "-m", "flake8", *args], cwd, **kw)


def reported(output: str, codes=("STG",)) -> set[tuple[str, int, int, str]]:
    """(path, line, column, code) for each finding line of concise or flake8 output."""
    return {
        (os.path.normpath(m["path"]), int(m["line"]), int(m["col"]), m["code"])
        for m in LINE_RE.finditer(output)
        if m["code"].startswith(tuple(codes))
    }


def marked_in(root: Path) -> set[tuple[str, int, str]]:
    """(path, line, code) marked bugbear-style with trailing `# STG101` comments under root."""
    out = set()
    for path in sorted(root.rglob("*.py")):
        for n, line in enumerate(path.read_text().splitlines(), start=1):
            m = re.search(r"#\s*((?:STG\d{3}[\s,]*)+)$", line)
            if m:
                for code in re.findall(r"STG\d{3}", m.group(1)):
                    out.add((path.relative_to(root).as_posix(), n, code))
    return out


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root
