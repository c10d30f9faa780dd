"""Colours: on when standard output is a terminal (a real pseudo-terminal here), off in a pipe;
`NO_COLOR` turns them off, `FORCE_COLOR` on, `NO_COLOR` winning; never in `--output-file`."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from integration_support import stagelint, write_tree

SOURCE = """
import tensorflow as tf


@tf.function
def step(x):
    print("tracing", x)
    return x
"""
ESC = "\x1b["


def _on_a_terminal(cwd, *args, env=None) -> str:
    """What `stagelint check` prints with its stdout on a pseudo-terminal."""
    master, slave = pty.openpty()
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    environ.update(env or {})
    proc = subprocess.Popen([sys.executable, "-m", "stagelint", "check", *args], cwd=cwd, stdout=slave,
                            stderr=subprocess.PIPE, env=environ)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=300) == 1, proc.stderr.read()
    return b"".join(chunks).decode()


def test_colours_on_a_terminal_and_not_in_a_pipe(tmp_path):
    write_tree(tmp_path, {"m.py": SOURCE})
    tty = _on_a_terminal(tmp_path, "m.py")
    assert f"{ESC}1;31mSTG101{ESC}0m" in tty and f"{ESC}1mm.py{ESC}0m" in tty
    plain = stagelint("check", "m.py", cwd=tmp_path, env={"NO_COLOR": "", "FORCE_COLOR": ""})
    assert ESC not in plain.stdout and plain.stdout.startswith("m.py:6:5: STG101 [trace-time-side-effect]")
    # The same text, once the colours are taken out.
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", tty).replace("\r\n", "\n") == plain.stdout


def test_no_color_and_force_color(tmp_path):
    write_tree(tmp_path, {"m.py": SOURCE})
    assert ESC not in _on_a_terminal(tmp_path, "m.py", env={"NO_COLOR": "1"})
    assert ESC not in _on_a_terminal(tmp_path, "m.py", env={"TERM": "dumb"})
    forced = stagelint("check", "--output-format", "concise", "m.py", cwd=tmp_path, env={"FORCE_COLOR": "1"})
    assert f"{ESC}1;31mSTG101{ESC}0m" in forced.stdout
    both = stagelint("check", "m.py", cwd=tmp_path, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert ESC not in both.stdout
    # A report written to a file, or in a machine format, has no colours even when forced.
    stagelint("check", "--output-file", "out.txt", "m.py", cwd=tmp_path, env={"FORCE_COLOR": "1"})
    assert "STG101" in (tmp_path / "out.txt").read_text() and ESC not in (tmp_path / "out.txt").read_text()
    assert ESC not in _on_a_terminal(tmp_path, "--output-format", "json", "m.py")
