"""Processes the tests leave running (issue 27, point 8): a child that starts its own session
(`os.setsid()`) or a daemon that forks twice leaves the run's process group, and outlived
`stagelint run`. They are ended when the runs end, and the report names them. Real processes
throughout; the test modules import no framework, so each run costs a plain pytest start."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from stagelint.runtime import executor
from stagelint.runtime.leftovers import COMMAND_CHARS, PR_GET_CHILD_SUBREAPER, Leftovers

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a child subreaper is Linux's")

#: Each test module's processes: the pid file and a marker in the sleepers' command lines, so the
#: test's own clean-up can never signal a process that is not one of them.
SLEEPER = """
    import os
    import subprocess
    import sys

    PIDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pids.txt")
    MARK = "stagelint-leftover-{mark}"


    def sleep_forever():
        with open(PIDS, "a") as f:
            f.write(f"{os.getpid()}\\n")
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(90)", MARK])


    def daemon(then):
        \"\"\"Fork twice, the middle process exits: the grandchild is an orphan at once.\"\"\"
        child = os.fork()
        if child == 0:
            if os.fork() == 0:
                os.setsid()
                then()
            os._exit(0)
        os.waitpid(child, 0)
"""

LEAVES = SLEEPER + """

    def test_children_in_sessions_of_their_own():
        for _ in range(2):
            if os.fork() == 0:
                os.setsid()
                sleep_forever()


    def test_daemons():
        daemon(sleep_forever)
        daemon(sleep_forever)


    def test_a_daemon_that_ends_by_itself():
        daemon(lambda: os._exit(0))
"""

LEAVES_NOTHING = SLEEPER + """

    def test_a_subprocess_waited_for():
        assert subprocess.run([sys.executable, "-c", "print('hi')"], capture_output=True).returncode == 0


    def test_a_daemon_that_ends_by_itself():
        daemon(lambda: os._exit(0))
"""

PROGRAM = """
    import os
    import sys

    if os.fork() == 0:
        os.setsid()
        with open("pids.txt", "a") as f:
            f.write(f"{os.getpid()}\\n")
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(90)", "stagelint-leftover-{mark}"])
    print("trained")
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _project(tmp_path, name: str, text: str):
    (tmp_path / name).write_text(textwrap.dedent(text.replace("{mark}", tmp_path.name)).lstrip("\n"))


def _stagelint(tmp_path, args: list[str], fork: bool = True):
    """`stagelint run ARGS` in the project; then the pids its sleepers wrote (killing, after the
    assertions, any still running whose command line holds this project's marker)."""
    env = dict(os.environ, STAGELINT_RUN_FORK="1" if fork else "0")
    proc = subprocess.run([sys.executable, "-m", "stagelint", "run", *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env=env)
    pids_file = tmp_path / "pids.txt"
    pids = [int(p) for p in pids_file.read_text().split()] if pids_file.exists() else []
    survivors = [p for p in pids if _alive(p)]
    for pid in survivors:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if f"stagelint-leftover-{tmp_path.name}".encode() in f.read():
                    os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return proc, pids, survivors


def _said(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if " left " in line]


def test_a_forked_run_ends_what_the_tests_left_and_says_so(tmp_path):
    _project(tmp_path, "test_leaves.py", LEAVES)
    page = tmp_path / "run.html"
    proc, pids, survivors = _stagelint(tmp_path, ["test_leaves.py", "--output-format", "json", "--report", str(page)])
    assert proc.returncode == 0, proc.stderr
    # Four, all from the graph run (the eager run does not run again tests that stage nothing), and
    # none outlived stagelint.
    assert len(pids) == 4 and survivors == []
    report = json.loads(proc.stdout)
    assert sorted(p["pid"] for p in report["processes_left"]) == sorted(pids)
    command = f"{sys.executable} -c import time; time.sleep(90) stagelint-leftover-{tmp_path.name}"
    shown = command if len(command) <= COMMAND_CHARS else command[:COMMAND_CHARS - 3] + "..."
    assert {(p["command"], p["ended"]) for p in report["processes_left"]} == {(shown, True)}
    assert report["tests"]["passed"] == 3  # the daemon that ended by itself is not named: it was not running
    (line,) = _said(proc.stderr)
    assert line.startswith("stagelint run: the tests left 4 processes running after the runs ended (pid ")
    assert line.endswith(", 1 more); stagelint ended them")
    assert "The tests left 4 processes running after the runs ended" in page.read_text()


def test_two_subprocess_runs_end_what_the_tests_left_and_say_so(tmp_path):
    _project(tmp_path, "test_leaves.py", LEAVES)
    proc, pids, survivors = _stagelint(tmp_path, ["test_leaves.py"], fork=False)
    assert proc.returncode == 0, proc.stderr
    assert len(pids) == 4 and survivors == []
    (note,) = [line for line in proc.stdout.splitlines() if " left " in line]
    assert note.startswith("The tests left 4 processes running after the runs ended (pid ")
    assert sum(f"pid {p} `" in note for p in pids) == 3  # and the fourth as "1 more"
    assert note.endswith(", 1 more); stagelint ended them.")
    assert _said(proc.stderr) == ["stagelint run: " + note[0].lower() + note[1:-1]]


def test_a_script_run_ends_what_the_program_left(tmp_path):
    _project(tmp_path, "train.py", PROGRAM)
    proc, pids, survivors = _stagelint(tmp_path, ["--script", "train.py"])
    assert proc.returncode == 0, proc.stderr
    (pid,) = pids
    assert survivors == []
    assert (f"The program left a process running after the run ended (pid {pid} `{sys.executable} -c import time;"
            in proc.stdout)


def test_a_suite_that_leaves_nothing_running_says_nothing(tmp_path):
    _project(tmp_path, "test_clean.py", LEAVES_NOTHING)
    proc, pids, survivors = _stagelint(tmp_path, ["test_clean.py", "--output-format", "json"])
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["tests"]["passed"] == 2 and report["processes_left"] == []
    assert _said(proc.stderr) == [] and (pids, survivors) == ([], [])


def _subreaper() -> int:
    import ctypes

    flag = ctypes.c_int(-1)
    assert ctypes.CDLL(None).prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0
    return flag.value


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(p) for p in f.read().split()]


def test_what_ran_below_the_process_before_is_never_touched():
    """`stagelint run` inside another program (the runtime tests run it in-process): that
    program's own children, and what they start meanwhile, are not the tests' to end."""
    was = _subreaper()
    mine = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; time.sleep(0.5); "
                             "subprocess.run([sys.executable, '-c', 'import time; time.sleep(30)'])"])
    leftovers = Leftovers.watch()
    try:
        assert leftovers.watching and _subreaper() == 1
        # A process that starts a child in a session of its own and exits: the child is an orphan.
        # (It lets go of the pipes, or `run` would wait for it.)
        orphan = subprocess.run([sys.executable, "-c", "import os, time\nchild = os.fork()\nif child == 0:\n"
                                 " os.setsid()\n os.dup2(os.open(os.devnull, os.O_WRONLY), 1)\n os.dup2(1, 2)\n"
                                 " time.sleep(30)\n os._exit(0)\nprint(child)"], capture_output=True, text=True,
                                timeout=20)
        pid = int(orphan.stdout)
        deadline = time.monotonic() + 10
        while not _children(mine.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        (grandchild,) = _children(mine.pid)  # started by `mine` after `watch`
        ended = leftovers.end()
        assert [p["pid"] for p in ended] == [pid]
        shown, start = ended[0]["command"], f"{sys.executable} -c import os, time child = os.fork()"
        # (shown up to COMMAND_CHARS: a checkout in a long path cuts it inside `start`)
        assert shown.startswith(start) or (len(shown) == COMMAND_CHARS and start.startswith(shown[:-3]))
        assert not _alive(pid)
        assert mine.poll() is None and _alive(grandchild)
        assert leftovers.end() == []
    finally:
        leftovers.close()
        for p in _children(mine.pid):
            os.kill(p, signal.SIGKILL)
        mine.kill()
        mine.wait()
    assert _subreaper() == was  # the setting is given back


def test_without_a_subreaper_a_run_s_process_group_is_ended_with_it(tmp_path):
    """Off Linux (no subreaper): what the tests left in the run's process group is killed when the
    run ends, with `end_group` only."""
    for end_group, survives in ((True, False), (False, True)):
        pidfile = tmp_path / f"sleep-{end_group}.pid"
        proc = subprocess.Popen(["sh", "-c", f"sleep 60 & echo $! > {pidfile}"], start_new_session=True)
        child = executor.Child("graph", str(tmp_path), time.monotonic(), proc=proc, end_group=end_group)
        while child.poll() is None:
            time.sleep(0.01)
        pid = int(pidfile.read_text())
        time.sleep(0.1)
        try:
            assert (_alive(pid) and not _zombie(pid)) is survives
        finally:
            if survives:
                os.kill(pid, signal.SIGKILL)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False
