"""The command line of `stagelint run`: its own options, the tests to run, and what goes to pytest.

`stagelint run` takes what `pytest` takes (files, directories, node ids, `-k`, `-m`, ...) and
checks, before any run starts (so before TensorFlow is imported anywhere), what it can: the test
paths exist, the `--report` file can be written, and no option asks for something two recorded
pytest processes cannot do (`-n`, `--pdb`, `--lf`, ...).
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path

#: stagelint's own options that take a value (everything else that starts with `-` is pytest's).
OWN_VALUE_OPTIONS = ("--output-format", "--report", "--timeout", "--select", "--ignore", "--keep-records",
                     "--script", "--steps", "--cache-dir")
OWN_FLAGS = ("-h", "--help", "--compare", "--no-cache", "--preview", "--no-preview")

#: pytest's (and its common plugins') options that take a value as the next argument, so that the
#: value is not taken for a test path.
PYTEST_SHORT_VALUE = ("-k", "-m", "-r", "-W", "-c", "-p", "-o", "-n")
PYTEST_LONG_VALUE = frozenset("""
--maxfail --pdbcls --capture --lfnf --last-failed-no-failures --durations --durations-min --verbosity
--report-chars --tb --show-capture --color --code-highlight --pastebin --junit-xml --junitxml
--junit-prefix --junitprefix --pythonwarnings --max-warnings --ignore-glob --deselect --confcutdir
--import-mode --doctest-report --doctest-glob --config-file --rootdir --basetemp --override-ini --assert
--log-level --log-format --log-date-format --log-cli-level --log-cli-format --log-cli-date-format
--log-file --log-file-mode --log-file-level --log-file-format --log-file-date-format --log-auto-indent
--log-disable --hypothesis-profile --hypothesis-verbosity --hypothesis-seed --numprocesses --maxprocesses
--max-worker-restart --dist --tx --px --rsyncdir --rsyncignore --testrunuid --maxschedchunk
--cov --cov-report --cov-config --cov-fail-under --randomly-seed
""".split())

_ONE_PROCESS = ("stagelint records one pytest process per mode, so the graph and eager calls can be joined "
                "test by test")
_NO_CACHE = "stagelint runs pytest without its cache (both runs must run the same tests)"
_NO_TESTS = "it runs no tests, so there is nothing to compare"
_NO_TERMINAL = "the runs have no terminal to debug in"

#: Options refused, with why: {option: reason}. `-n 0` (xdist off) is allowed.
REFUSED = {
    **dict.fromkeys(("-n", "--numprocesses", "--maxprocesses", "--dist", "-d", "--tx", "--px", "-f",
                     "--looponfail"), _ONE_PROCESS),
    **dict.fromkeys(("--lf", "--last-failed", "--ff", "--failed-first", "--nf", "--new-first", "--sw",
                     "--stepwise", "--sw-skip", "--stepwise-skip", "--sw-reset", "--stepwise-reset",
                     "--cache-show", "--cache-clear", "--lfnf", "--last-failed-no-failures"), _NO_CACHE),
    **dict.fromkeys(("--collect-only", "--co", "--setup-only", "--setup-plan", "--fixtures", "--funcargs",
                     "--fixtures-per-test", "--markers", "-V", "--version"), _NO_TESTS),
    **dict.fromkeys(("--pdb", "--trace", "--pdbcls"), _NO_TERMINAL),
}
#: Plugins that cannot be loaded with `-p`, with why.
REFUSED_PLUGINS = {"xdist": _ONE_PROCESS, "xdist.plugin": _ONE_PROCESS, "xdist.looponfail": _ONE_PROCESS}


class UsageError(Exception):
    """A command line `stagelint run` cannot honour: exit code 2, before anything runs."""


@dataclass
class RunArguments:
    #: The test paths and node ids, as given (`tests/test_x.py::TestA::test_b`, `tests/`).
    targets: list[str]
    #: Everything that goes to pytest besides the targets, in the order given.
    pytest_args: list[str]
    output_format: str = "full"
    report: str | None = None
    #: Seconds per run; None: the automatic limit (executor.auto_limit).
    timeout: float | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    keep_records: str | None = None
    #: `--script PROGRAM`: run a program instead of tests; its arguments come after `--`.
    script: str | None = None
    script_args: list[str] = field(default_factory=list)
    #: `--script`: stop after this many staged calls (None: when the program ends or times out).
    steps: int | None = None
    #: `--script`: also run the program in eager mode and compare.
    compare: bool = False
    #: The static check's result cache, as `stagelint check`'s: off with --no-cache, elsewhere with --cache-dir.
    no_cache: bool = False
    cache_dir: str | None = None
    #: `--preview` / `--no-preview`: the static findings' preview tier; None: the configuration's.
    preview: bool | None = None

    @property
    def module(self) -> str:
        """What the report names as the run's subject: the targets, space-separated."""
        return " ".join(self.targets)


def _codes(text: str) -> tuple[str, ...]:
    return tuple(c.strip().upper() for c in text.split(",") if c.strip())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stagelint run", usage="stagelint run [OPTIONS] TEST_PATH [TEST_PATH ...] [PYTEST_ARGS ...]",
        description="Run tests twice (graph mode and eager mode), confirm the static findings in the code "
                    "they exercise, and report eager/graph divergences. TEST_PATH is what pytest takes: a "
                    "file, a directory, a node id (tests/test_x.py::test_a, tests/test_x.py::TestA::test_b). "
                    "Options the command does not know (or everything after --) go to pytest (-k, -m, -x, "
                    "...); -n, --pdb, --lf and options that run no tests are refused.")
    parser.add_argument("targets", metavar="TEST_PATH", nargs="*", help="test files, directories or node ids")
    parser.add_argument("--output-format", choices=("full", "json"), default="full")
    parser.add_argument("--report", metavar="FILE.html", help="also write a self-contained HTML report")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="stop a run that takes longer than this (default: automatic, from the tests' "
                             "progress and the other run's time)")
    parser.add_argument("--select", type=_codes, default=None, metavar="CODES", help="comma list of codes or prefixes")
    parser.add_argument("--ignore", type=_codes, default=None, metavar="CODES",
                        help="comma list of codes or prefixes (pytest's --ignore=PATH goes after --)")
    parser.add_argument("--keep-records", metavar="DIR", help="keep the two runs' JSON-lines records in DIR")
    parser.add_argument("--script", metavar="PROGRAM.py",
                        help="run a program (a training script) under the recorder instead of tests, in graph "
                             "mode only (unless --compare), for --timeout seconds (default 300) or --steps staged "
                             "calls; its arguments go after --")
    parser.add_argument("--steps", type=int, default=None, metavar="N",
                        help="with --script: stop after N calls of staged functions")
    parser.add_argument("--compare", action="store_true",
                        help="with --script: also run it in eager mode and compare, as for tests")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the static check's result cache (.stagelint_cache/ in the "
                             "project root, shared with stagelint check)")
    parser.add_argument("--cache-dir", metavar="DIR",
                        help="keep the result cache in DIR (default: $STAGELINT_CACHE_DIR, else .stagelint_cache/ "
                             "in the project root)")
    parser.add_argument("--preview", action="store_true", default=None,
                        help="also judge the static findings of the preview tier (as `stagelint check --preview`); "
                             "default: the configuration's preview, else off")
    parser.add_argument("--no-preview", dest="preview", action="store_false",
                        help="judge the default tier's findings only, whatever the configuration says")
    return parser


def split(argv: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(stagelint's own options with their values, test paths, pytest's arguments)."""
    if "--" in argv:
        cut = argv.index("--")
        argv, forwarded = argv[:cut], argv[cut + 1:]
    else:
        forwarded = []
    own, targets, pytest_args = [], [], []
    i = 0
    while i < len(argv):
        arg = argv[i]
        name = arg.split("=", 1)[0]
        takes_value = "=" not in arg and i + 1 < len(argv)
        if name in OWN_VALUE_OPTIONS or arg in OWN_FLAGS:
            own.append(arg)
            if name in OWN_VALUE_OPTIONS and takes_value:
                own.append(argv[i + 1])
                i += 1
        elif arg.startswith("-") and arg != "-":
            pytest_args.append(arg)
            if takes_value and (arg in PYTEST_SHORT_VALUE or name in PYTEST_LONG_VALUE):
                pytest_args.append(argv[i + 1])
                i += 1
        else:
            targets.append(arg)
        i += 1
    return own, targets, pytest_args + forwarded


def _option_value(args: list[str], i: int) -> tuple[str, str | None, int]:
    """(option name, its value or None, index of the next argument) for pytest's args[i]."""
    arg = args[i]
    if arg.startswith("--"):
        if "=" in arg:
            name, value = arg.split("=", 1)
            return name, value, i + 1
        if arg in PYTEST_LONG_VALUE and i + 1 < len(args):
            return arg, args[i + 1], i + 2
        return arg, None, i + 1
    short = arg[:2]
    if short in PYTEST_SHORT_VALUE:
        if len(arg) > 2:  # -n2, -pxdist, -k=expr
            return short, arg[2:].removeprefix("="), i + 1
        return short, args[i + 1] if i + 1 < len(args) else None, i + 2
    return arg, None, i + 1


def refused(pytest_args: list[str]) -> str | None:
    """Why the pytest arguments cannot be honoured, or None."""
    i = 0
    while i < len(pytest_args):
        if not pytest_args[i].startswith("-") or pytest_args[i] == "-":
            i += 1
            continue
        name, value, i = _option_value(pytest_args, i)
        if name in ("-n", "--numprocesses") and value is not None and value.strip() == "0":
            continue  # xdist explicitly off: what a configuration that adds -n needs
        if name == "-p" and value is not None:
            plugin = value.strip()
            if plugin in REFUSED_PLUGINS:
                return f"-p {plugin} cannot be honoured: {REFUSED_PLUGINS[plugin]}"
            continue
        if name in REFUSED:
            shown = f"{name} {value}" if value is not None else name
            hint = " (pass -n 0 after -- if your configuration adds -n)" if name in ("-n", "--numprocesses") else ""
            return f"{shown} cannot be honoured: {REFUSED[name]}{hint}"
    return None


def target_path(target: str) -> str:
    """The file or directory part of a target (`tests/test_x.py::TestA::test_b` -> `tests/test_x.py`)."""
    return target.split("::", 1)[0]


def check_targets(targets: list[str]) -> None:
    if not targets:
        raise UsageError("name the tests to run: a file, a directory or a node id (tests/test_x.py::test_a)")
    for target in targets:
        path = target_path(target)
        if not path:
            raise UsageError(f"{target}: a node id starts with its file (tests/test_x.py{target})")
        if not os.path.exists(path):
            what = "no such test module" if path.endswith(".py") else "no such file or directory"
            hint = "" if path.endswith(".py") or "/" in path else " (an option's value? write --option=VALUE)"
            raise UsageError(f"{path}: {what}{hint}")
        if "::" in target and not os.path.isfile(path):
            raise UsageError(f"{target}: a node id names a test file, and {path} is not a file")


def check_report(report: str | None) -> None:
    """The HTML report can be written where asked: checked before the runs, not after."""
    if not report:
        return
    if os.path.isdir(report):
        raise UsageError(f"--report {report}: is a directory; name the HTML file to write")
    folder = os.path.dirname(os.path.abspath(report))
    if not os.path.isdir(folder):
        raise UsageError(f"--report {report}: the folder {os.path.dirname(report) or folder} does not exist")
    if os.path.exists(report) and not os.access(report, os.W_OK):
        raise UsageError(f"--report {report}: the file is not writable")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"--report {report}: the folder {os.path.dirname(report) or folder} is not writable")


def parse(argv: list[str]) -> RunArguments:
    """The checked command line. Raises SystemExit for --help and argparse's usage errors, and
    UsageError for what `stagelint run` refuses."""
    if "--script" in [a.split("=", 1)[0] for a in (argv[:argv.index("--")] if "--" in argv else argv)]:
        return _parse_script(argv)
    own, targets, pytest_args = split(argv)
    args = build_parser().parse_args(own)
    if args.steps is not None or args.compare:
        raise UsageError("--steps and --compare go with --script PROGRAM")
    result = RunArguments(targets + args.targets, pytest_args, args.output_format, args.report, args.timeout,
                          args.select, args.ignore, args.keep_records, no_cache=args.no_cache,
                          cache_dir=args.cache_dir, preview=args.preview)
    if result.timeout is not None and result.timeout <= 0:
        raise UsageError("--timeout must be positive")
    why = refused(result.pytest_args)
    if why:
        raise UsageError(why)
    if "--pyargs" in result.pytest_args:  # the targets are package names, which pytest resolves
        if not result.targets:
            raise UsageError("name the tests to run: with --pyargs, a package or module name")
    else:
        check_targets(result.targets)
    check_report(result.report)
    return result


def _parse_script(argv: list[str]) -> RunArguments:
    """`--script PROGRAM [OPTIONS] [-- PROGRAM_ARGS]`: everything after `--` is the program's."""
    cut = argv.index("--") if "--" in argv else len(argv)
    mine, program_args = argv[:cut], argv[cut + 1:]
    args, unknown = build_parser().parse_known_args(mine)
    if args.targets or unknown:
        given = " ".join(a for a in mine if a in args.targets or a in unknown)
        raise UsageError(f"--script runs a program, not tests: put its arguments after -- "
                         f"(stagelint run --script {args.script} -- {given})")
    if not os.path.isfile(args.script):
        raise UsageError(f"--script {args.script}: no such file")
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if args.steps is not None and args.steps <= 0:
        raise UsageError("--steps must be a positive whole number")
    check_report(args.report)
    return RunArguments([args.script], [], args.output_format, args.report, args.timeout, args.select, args.ignore,
                        args.keep_records, args.script, program_args, args.steps, args.compare, args.no_cache,
                        args.cache_dir, args.preview)


# Which files to lint for the targets -------------------------------------------------------------

_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", "site-packages", ".tox", ".nox", "build",
              "dist", ".eggs"}


def test_files(targets: list[str]) -> list[str]:
    """The test modules the targets name: files as given, directories searched for pytest's
    default `test_*.py` / `*_test.py` files."""
    out: dict[str, None] = {}
    for target in targets:
        path = Path(target_path(target))
        if path.is_file():
            out[str(path)] = None
        elif path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.endswith(".egg-info"))
                for name in sorted(files):
                    if name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")):
                        out[os.path.join(root, name)] = None
    return list(out)
