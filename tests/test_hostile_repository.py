"""A hostile repository (issue 27): stagelint runs on code it did not write (CI on strangers'
pull requests, pre-commit, editors). What such a repository holds must not make it print a file
from outside the project, read without end, block, or parse what its budget refuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from stagelint.engine import check_paths

STAGED_PRINT = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n"
#: A made-up credential, in a file outside the project that does not parse as Python.
TOKEN = "ghp_made_up_token_Zq7Xv93LkP0s"
FORMATS = ("full", "concise", "json", "sarif", "github", "gitlab", "junit")


def _run(*args, cwd, timeout=180, **kw):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=env, **kw)


def _hostile_project(tmp_path: Path) -> Path:
    """A project whose links lead to a secret outside it: a file link (`pkg/creds.py ->
    ~/.git-credentials`), a folder link, and a notebook link."""
    home = tmp_path / "home"
    (home / "private").mkdir(parents=True)
    secret = home / ".git-credentials"
    secret.write_text(f"https://user:{TOKEN}@github.com (\n")  # a syntax error on the token's line
    (home / "private" / "keys.py").write_text(f"{TOKEN} = unique_leak_marker(\n")
    (home / "private" / "nb.ipynb").write_text(json.dumps({"cells": [{"cell_type": "code", "source": f"{TOKEN} = (",
                                                                     "metadata": {}, "outputs": []}],
                                                           "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "ok.py").write_text(STAGED_PRINT)
    os.symlink(secret, project / "pkg" / "creds.py")
    os.symlink(home / "private", project / "pkg" / "vendored")
    os.symlink(home / "private" / "nb.ipynb", project / "notebook.ipynb")
    return project


def test_a_link_out_of_the_project_is_never_read_nor_shown(tmp_path, monkeypatch):
    project = _hostile_project(tmp_path)
    refused = ["notebook.ipynb", "pkg/creds.py", "pkg/vendored"]
    for fmt in FORMATS:
        for paths in (["."], ["pkg/creds.py", "pkg/ok.py", "notebook.ipynb", "pkg/vendored/keys.py"]):
            proc = _run("-m", "stagelint", "check", "--no-cache", "--output-format", fmt, *paths, cwd=project)
            out = proc.stdout + proc.stderr
            assert TOKEN not in out and "unique_leak_marker" not in out, (fmt, paths, out)
            assert proc.returncode == 2, (fmt, paths, out)
            assert "ok.py" in proc.stdout, (fmt, out)
            shown = sorted(line.split(": ")[2] for line in proc.stderr.splitlines() if "not read: a symbolic link out of" in line)
            assert shown == (refused if paths == ["."] else ["notebook.ipynb", "pkg/creds.py", "pkg/vendored/keys.py"]), out
    # --statistics and --diff read the same files
    for extra in (["--statistics"], ["--diff"]):
        proc = _run("-m", "stagelint", "check", "--no-cache", *extra, ".", cwd=project)
        assert TOKEN not in proc.stdout + proc.stderr and proc.returncode == 2
    # The flake8 plugin (flake8 reads the link itself; stagelint's findings and messages never show it).
    proc = _run("-m", "flake8", "--select", "STG", ".", cwd=project)
    assert TOKEN not in proc.stdout + proc.stderr and "STG101" in proc.stdout
    # In this process, the engine as the plugin and the server run it, with and without workers.
    monkeypatch.chdir(project)
    for jobs in (0, 1):
        result = check_paths(["."], jobs=jobs, whole_project=True)
        assert [(f.path, f.code) for f in result.findings] == [("pkg/ok.py", "STG101")]
        assert sorted(p for p, _ in result.skipped) == refused


def test_the_link_is_refused_before_it_is_opened(tmp_path, monkeypatch):
    """The outside file is not opened at all (not read and then hidden)."""
    import builtins

    project = _hostile_project(tmp_path)
    monkeypatch.chdir(project)
    opened = []
    real_os_open, real_open = os.open, builtins.open

    def os_open(path, *a, **kw):
        opened.append(os.path.realpath(path))
        return real_os_open(path, *a, **kw)

    def open_(file, *a, **kw):
        if isinstance(file, (str, bytes, os.PathLike)):
            opened.append(os.path.realpath(file))
        return real_open(file, *a, **kw)

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(builtins, "open", open_)
    result = check_paths(["."], jobs=0, whole_project=True)
    monkeypatch.undo()
    assert str(project / "pkg" / "ok.py") in opened and [(f.path, f.code) for f in result.findings] == [
        ("pkg/ok.py", "STG101")]
    assert [p for p in opened if p.startswith(str(tmp_path / "home"))] == [], opened


def test_a_link_to_the_root_folder_is_not_walked(tmp_path):
    """A repository holding `up -> /` (and a loop, and a link above the project): `check .`
    ends at once, checks the project and names the links it did not follow."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    os.symlink("/", tmp_path / "up")
    os.symlink("..", tmp_path / "parent")
    os.symlink(tmp_path, tmp_path / "loop")
    proc = _run("-m", "stagelint", "check", "--no-cache", "--output-format", "concise", ".", cwd=tmp_path, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert sorted(line.split(": ")[2] for line in proc.stderr.splitlines()) == ["parent", "up"], proc.stderr
    assert "ok.py:5:5: STG101" in proc.stdout and "1 finding" in proc.stdout


#: The bounds the reading tests hold stagelint to: its address space (workers inherit the limit),
#: its peak memory (of the process and its workers) and its wall time. A read without end, or a
#: parse of 100 MB, breaks them.
MEMORY = 800 * 2**20
PEAK = 300 * 2**20
TIMEOUT = 60


#: Runs a command and says, last on standard error, the peak resident memory (KiB) of it and of
#: every process of its own it waited for (stagelint's workers).
_PEAK_OF = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
            "print('peak-kib', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
            "sys.exit(code)")


def _bounded(*args, cwd, stdin=None):
    """`stagelint check ARGS` under the memory limit and the timeout (`subprocess.TimeoutExpired`
    fails the test); its peak memory under `PEAK`; its output says nothing of a MemoryError."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    proc = _run("-c", _PEAK_OF, sys.executable, "-m", "stagelint", "check", "--no-cache", "--output-format", "concise",
                *args, cwd=cwd, timeout=TIMEOUT, preexec_fn=limit, stdin=stdin)
    proc.stderr, _, peak = proc.stderr.rstrip("\n").rpartition("\n")
    assert peak.startswith("peak-kib"), peak
    assert "MemoryError" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert int(peak.split()[1]) * 1024 < PEAK, peak
    return proc


def _errors(proc) -> list[str]:
    return sorted(line.removeprefix("stagelint: error: ") for line in proc.stderr.splitlines())


def test_devices_and_standard_input_are_read_at_most_to_the_budget(tmp_path):
    """`/dev/zero` named, a link to it, and `check - < /dev/zero`: one line each, at once."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    os.symlink("/dev/zero", tmp_path / "zero.py")
    proc = _bounded("/dev/zero", "zero.py", "ok.py", cwd=tmp_path)
    assert proc.returncode == 2 and "ok.py:5:5: STG101" in proc.stdout
    assert _errors(proc) == ["/dev/zero: not read: a character device, not a regular file",
                             f"zero.py: not read: a symbolic link out of the project root {tmp_path} (name its target to check it)"]
    with open("/dev/zero", "rb") as zero:
        proc = _bounded("-", cwd=tmp_path, stdin=zero)
    assert proc.returncode == 2
    assert _errors(proc) == ["-: skipped: more than 5,000,000 bytes, over the size budget (5,000,000 bytes; max-file-size)"]
    # Text over the budget that stages nothing (the screen would pass it over): said, not "All checks passed!".
    (tmp_path / "big.txt").write_text("import tensorflow as tf\n" + "x = 1\n" * 1_000_000)
    with open(tmp_path / "big.txt", "rb") as text:
        proc = _bounded("-", cwd=tmp_path, stdin=text)
    assert proc.returncode == 2 and "All checks passed" not in proc.stdout
    assert _errors(proc) == ["-: skipped: more than 5,000,000 bytes, over the size budget (5,000,000 bytes; max-file-size)"]
    proc = _bounded("--config", "/dev/zero", "ok.py", cwd=tmp_path)  # a configuration is read the same way
    assert proc.returncode == 2 and _errors(proc) == ["/dev/zero: not read: a character device, not a regular file"]


def test_a_fifo_is_refused_without_blocking_and_the_rest_is_checked(tmp_path):
    """pre-commit and editors pass names: a FIFO among them (or named like a module in a folder
    walked) is one line; the files named with it are still checked."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(STAGED_PRINT)
    os.mkfifo(tmp_path / "pipe.py")
    os.mkfifo(tmp_path / "pkg" / "pipe.py")
    proc = _bounded("pipe.py", "ok.py", cwd=tmp_path)
    assert proc.returncode == 2 and "ok.py:5:5: STG101" in proc.stdout
    assert _errors(proc) == ["pipe.py: not read: a named pipe (FIFO), not a regular file"]
    proc = _bounded("--config", "pipe.py", "ok.py", cwd=tmp_path)
    assert proc.returncode == 2 and _errors(proc) == ["pipe.py: not read: a named pipe (FIFO), not a regular file"]
    proc = _bounded(".", cwd=tmp_path)
    assert proc.returncode == 2 and "ok.py:5:5: STG101" in proc.stdout and "pkg/m.py:5:5: STG101" in proc.stdout
    assert _errors(proc) == ["pipe.py: not read: a named pipe (FIFO), not a regular file",
                             "pkg/pipe.py: not read: a named pipe (FIFO), not a regular file"]


def test_the_size_budget_is_decided_before_the_file_is_read(tmp_path):
    """A 100 MB module and a 20 MB one that stages nothing: skipped at once, by their size, and
    said (not "All checks passed!"), in every output format."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    line = "x = [1, 2, 3]\n"
    for name, size in (("huge.py", 100_000_000), ("generated.py", 20_000_000)):
        with open(tmp_path / name, "w") as fh:
            chunk = line * (1_000_000 // len(line))
            for _ in range(size // len(chunk) + 1):
                fh.write(chunk)
    sizes = {name: os.path.getsize(tmp_path / name) for name in ("huge.py", "generated.py")}
    expected = sorted(f"{name}: skipped: {size:,} bytes, over the size budget (5,000,000 bytes; max-file-size)"
                      for name, size in sizes.items())
    for fmt in FORMATS:
        proc = _bounded("--output-format", fmt, ".", cwd=tmp_path)
        assert proc.returncode == 2 and _errors(proc) == expected, proc.stderr
        assert "All checks passed" not in proc.stdout and "ok.py" in proc.stdout
    proc = _bounded("generated.py", cwd=tmp_path)  # named alone: no finding, and not "all clear" either
    assert proc.returncode == 2 and "All checks passed" not in proc.stdout and "could not be checked" in proc.stdout


def test_budgets_in_the_configuration_are_finite_positive_numbers(tmp_path):
    """`max-file-size = inf` was an OverflowError traceback (exit 1), `0.5` switched the budget
    off: each is one line naming the file and the key, exit 2; a whole number written as a
    float (`5e6`) is fine."""
    from stagelint.config import load_settings

    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    config = tmp_path / "pyproject.toml"
    bad = {"max-file-size": ("inf", "-inf", "nan", "0.5", "1e400", "0", "-5", "true", '"5"'),
           "file-timeout": ("inf", "nan", "1e400", "0", "-1", "false")}
    for key, values in bad.items():
        unit = "whole number of bytes" if key == "max-file-size" else "number of seconds"
        for value in values:
            config.write_text(f"[tool.stagelint]\n{key} = {value}\n")
            proc = _run("-m", "stagelint", "check", "--no-cache", "ok.py", cwd=tmp_path)
            assert proc.returncode == 2 and proc.stdout == "", (key, value, proc.stderr)
            assert proc.stderr.startswith(f"stagelint: error: {config}: [tool.stagelint] {key} must be a positive {unit}, got "), (
                key, value, proc.stderr)
            assert "Traceback" not in proc.stderr
    config.write_text("[tool.stagelint]\nmax-file-size = 5e6\nfile-timeout = 2\n")
    settings = load_settings(str(tmp_path))
    assert (settings.max_file_size, type(settings.max_file_size), settings.file_timeout) == (5_000_000, int, 2.0)


def _notebook(**changes) -> dict:
    nb = {"cells": [{"cell_type": "code", "source": "x = 1\n", "metadata": {}, "outputs": [], "execution_count": None}],
          "metadata": {"kernelspec": {"name": "python3", "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    for where, value in changes.items():
        *path, last = where.split("__")
        target = nb
        for key in path:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[int(last) if isinstance(target, list) else last] = value
    return nb


NOTEBOOKS = {
    "kernelspec.ipynb": (_notebook(metadata__kernelspec=5), "its metadata.kernelspec is the number 5, not a table"),
    "language_info.ipynb": (_notebook(metadata__language_info="python"), "its metadata.language_info is text, not a table"),
    "language.ipynb": (_notebook(metadata__kernelspec__language=5), "its metadata.kernelspec names its language with the number 5"),
    "source.ipynb": (_notebook(cells__0__source=5), "the source of its cell 1 is the number 5, not text"),
    "source_list.ipynb": (_notebook(cells__0__source=["x = 1\n", 5]), "not a notebook"),
    "metadata.ipynb": (_notebook(metadata=5), "not a notebook"),
    "cell.ipynb": (_notebook(cells=[5]), "not a notebook"),
    "top_level_list.ipynb": ([1, 2], "not a notebook (no list of cells)"),
    "top_level_number.ipynb": (5, "not a notebook (no list of cells)"),
    "deep.ipynb": ("[" * 100_000 + "]" * 100_000, "not a notebook (its JSON nests deeper than a notebook does)"),
    "deep_cells.ipynb": ('{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}", "not a notebook (its JSON nests deeper"),
}


def test_notebook_json_of_any_shape_is_one_notebook_worded_syntax_finding(tmp_path, monkeypatch):
    """A kernelspec of 5, a cell source of 5, 100,000-deep JSON, ...: one STG000 that says what
    is wrong with the notebook (was: an internal error, or "Python's parser refuses it"), in a
    worker and in this process (flake8's workers, an editor)."""
    for name, (content, _) in NOTEBOOKS.items():
        (tmp_path / name).write_text(content if isinstance(content, str) else json.dumps(content))
    monkeypatch.chdir(tmp_path)
    for jobs in (0, 1):
        result = check_paths(list(NOTEBOOKS), jobs=jobs)
        assert not result.errors and not result.skipped, (result.errors, result.skipped)
        got = {f.path: (f.code, f.line, f.message) for f in result.findings}
        assert sorted(got) == sorted(NOTEBOOKS)
        for name, (_, reason) in NOTEBOOKS.items():
            code, line, message = got[name]
            assert (code, line) == ("STG000", 1) and reason in message and "Python's parser" not in message, (name, message)


def test_a_notebook_cell_over_the_expression_budget_is_skipped_at_once(tmp_path, monkeypatch):
    """The budget measures a notebook's code (its cells), not its JSON: a cell holding a
    30,000-term expression is skipped before libcst takes minutes over it."""
    chain = "x = 1" + " + 1" * 30_000 + "\n"
    (tmp_path / "gen.ipynb").write_text(json.dumps(_notebook(cells__0__source=chain)))
    monkeypatch.chdir(tmp_path)
    for jobs in (0, 1):
        result = check_paths(["gen.ipynb"], jobs=jobs)
        assert [(path, reason.startswith("skipped: an expression nested") and "deeper than the parser handles" in reason)
                for path, reason in result.skipped] == [("gen.ipynb", True)], result.skipped
        assert not result.findings and not result.errors
