"""Every shell command of README.md and docs/*.md, run as printed in a fresh clone.

Usage (from the repository root):

    python bench/docs_commands.py [--slow] [--only TEXT] [--keep] [--timeout SECONDS]

It clones the repository's committed HEAD into a temporary folder, makes a virtual environment
for the commands (its `pip install` commands install there; the packages of the interpreter
that runs this script are visible to it, so they need no download) and puts it first on PATH.
Then it runs, in the clone's root and in the order of the pages (README.md first, then docs/
by name), each command of a `sh` code block and each `$ ` line of a `text` block, with bash.
A command passes when it exits 0, or 1 for a checker (`stagelint check`/`run`, flake8: 1 means
findings). It prints one line per command and a summary, and exits 1 when a command failed.

Not run as printed, by the reviewed lists below:

- PLACEHOLDERS: what stands for the user's own (the repository's URL, a clone's path) is put in
  for the clone; commands on the user's own files (a notebook, tests, a project with its hook
  installed) are not run (the integration tests run those paths on real projects).
- SLOW: the measurements of docs/performance.md, reliability.md and accuracy.md (minutes to
  hours each, on corpora fetched from the network) and the development install with the full
  test suite; `--slow` runs them too.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: What the pages write for the user's own, and what stands for it here ({clone}; {work}, the
#: temporary folder, for a scratch path the page chose).
PLACEHOLDERS = {
    "https://github.com/stagelint/stagelint": "file://{clone}",
    "/path/to/stagelint": "{clone}",
    "/home/me/src/stagelint": "{clone}",
    "/tmp/x": "{work}/x",
    "/tmp/tfdocs": "{work}/tfdocs",
}

#: The tools a page assumes the user has (they run in the commands' environment).
TOOLS = ("flake8", "pre-commit", "pytest")

#: (pattern, why it is not run): the user's own files or repository. A pattern is searched in
#: the command, and in "PAGE: COMMAND" (for one page's command).
SKIP = [
    (r"demo\.ipynb", "the user's notebook (tests/integrations/test_notebooks.py checks one)"),
    (r"tests/test_model\.py", "the user's tests (tests/runtime/ runs stagelint run on real test suites)"),
    (r"^git commit\b", "a commit in the user's repository with the hook installed (tests/integrations/test_precommit.py)"),
    (r"^pre-commit (autoupdate|install)\b", "in the user's repository with its .pre-commit-config.yaml (tests/integrations/test_precommit.py runs them)"),
    (r"^echo \$\?$", "the status of the command before it"),
    (r"/tmp/x/bin/flake8 --select STG \.$", "on the page's example project (trainer/), the user's"),
    (r"^docs/integrations\.md: flake8 --select STG \.$", "the page's mistaken configuration in the user's project (tests/integrations/test_flake8_plugin.py runs it)"),
]

#: (pattern, why): long measurements and installs, run with --slow.
SLOW = [
    (r'-e "\.\[dev\]"', "installs TensorFlow, JAX and the test tools (over 1 GB), then the whole test suite"),
    (r"bench/(corpus|speed|selection|one_answer|editor|runtime_bench|jax_cost|fuzz|crawl|audit)\.py",
     "a measurement on fetched corpora (minutes to hours)"),
    (r"tensorflow/docs|/tmp/tfdocs", "the tensorflow/docs notebook sweep (a clone from the network)"),
    (r"analyze_source\(p", "times files of the development install's site-packages (after .[dev])"),
]

CHECKERS = re.compile(r"(^|/|\s)(stagelint (check|run)|flake8)\b")


@dataclass
class Command:
    page: str
    line: int
    text: str


def commands(pages: list[Path]) -> list[Command]:
    """The shell commands of the pages' code blocks, in order: the lines of `sh`/`bash`/`shell`
    blocks (a command continued over lines, by an open quote or a backslash, is one), and the
    `$ ` lines of `text`/`console` blocks (their output lines are not commands)."""
    found = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for block in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
            lang, body = block.group(1), block.group(2)
            first = text.count("\n", 0, block.start()) + 2
            if lang in ("sh", "bash", "shell"):
                pending, start = "", 0
                for n, line in enumerate(body.splitlines()):
                    if not pending and (not line.strip() or line.lstrip().startswith("#")):
                        continue
                    start = start if pending else first + n
                    pending += line + "\n"
                    if _complete(pending):
                        found.append(Command(str(page.relative_to(ROOT)), start, pending.rstrip("\n")))
                        pending = ""
            elif lang in ("text", "console"):
                for n, line in enumerate(body.splitlines()):
                    if line.startswith("$ "):
                        found.append(Command(str(page.relative_to(ROOT)), first + n, line[2:]))
    return found


def _complete(text: str) -> bool:
    if text.rstrip("\n").endswith("\\"):
        return False
    try:
        shlex.split(text, comments=True)
    except ValueError:  # an open quote: the command goes on
        return False
    return True


def why_not(cmd: Command, slow: bool) -> str | None:
    for pattern, reason in SKIP + ([] if slow else SLOW):
        if re.search(pattern, cmd.text, re.M) or re.search(pattern, f"{cmd.page}: {cmd.text}", re.M):
            return reason
    return None


def environment(work: Path) -> dict:
    """A virtual environment for the commands, seeing this interpreter's packages, first on PATH."""
    venv = work / "venv"
    # A current pip: pip 23 takes `name @ git+file:///...` for a path.
    subprocess.run([sys.executable, "-m", "venv", "--upgrade-deps", str(venv)], check=True, capture_output=True)
    inner = subprocess.run([venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           capture_output=True, text=True, check=True).stdout.strip()
    Path(inner, "outer.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    for tool in TOOLS:  # this interpreter's scripts, run by the environment's Python
        script = Path(sys.executable).parent / tool
        if script.is_file():
            lines = script.read_text().splitlines(keepends=True)
            (venv / "bin" / tool).write_text(f"#!{venv / 'bin' / 'python'}\n" + "".join(lines[1:]))
            (venv / "bin" / tool).chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    env["VIRTUAL_ENV"] = str(venv)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", action="store_true", help="run the long measurements and installs too")
    parser.add_argument("--only", help="run only the commands whose text or page holds this")
    parser.add_argument("--keep", action="store_true", help="keep the temporary clone")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per command (default 900)")
    args = parser.parse_args(argv)

    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    work = Path(tempfile.mkdtemp(prefix="docs-commands-"))
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    env = environment(work)
    # stagelint from the clone, as README's "Installing" does (so that --only works on its own;
    # the pages' own pip commands install it again).
    subprocess.run([Path(env["VIRTUAL_ENV"]) / "bin" / "pip", "install", "-q", "--no-deps", str(clone)],
                   check=True, env=env, cwd=clone)
    failed, ran, skipped = [], 0, []
    for cmd in commands(pages):
        where = f"{cmd.page}:{cmd.line}"
        if args.only and args.only not in cmd.text and args.only not in cmd.page:
            continue
        reason = why_not(cmd, args.slow)
        if reason:
            skipped.append((where, cmd.text, reason))
            print(f"skip  {where}: {cmd.text.splitlines()[0][:90]}  ({reason})", flush=True)
            continue
        text = cmd.text
        for placeholder, actual in PLACEHOLDERS.items():
            text = text.replace(placeholder, actual.format(clone=clone, work=work))
        started = time.perf_counter()
        try:
            done = subprocess.run(["bash", "-c", text], cwd=clone, env=env, capture_output=True, text=True,
                                  timeout=args.timeout)
            status, output = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired:
            status, output = "timeout", ""
        seconds = time.perf_counter() - started
        ran += 1
        allowed = (0, 1) if CHECKERS.search(text) else (0,)
        ok = status in allowed
        print(f"{'ok' if ok else 'FAIL':5} {where}: {cmd.text.splitlines()[0][:90]}  (exit {status}, {seconds:.1f} s)",
              flush=True)
        if not ok:
            failed.append((where, cmd.text, status, output))
            print("      " + "\n      ".join(output.strip().splitlines()[-8:]), flush=True)
    print(f"\n{ran} commands run, {len(failed)} failed, {len(skipped)} not run (reasons above)")
    for where, text, status, _ in failed:
        print(f"  failed: {where}: {text.splitlines()[0]} (exit {status})")
    if args.keep:
        print(f"clone kept in {clone}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
