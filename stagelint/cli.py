"""The command line: `stagelint check | run | rule | rules`."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from stagelint import __version__
from stagelint.config import ConfigError, load_settings

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _codes(text: str) -> tuple[str, ...]:
    from stagelint.config import is_code_selector

    codes = tuple(c.strip().upper() for c in text.split(",") if c.strip())
    for c in codes:
        if not is_code_selector(c):
            raise argparse.ArgumentTypeError(f"{c!r} is not a stagelint code or prefix (e.g. STG, STG1, STG201)")
    return codes


def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of processes")
    return n


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stagelint",
        description="Find tf.function staging pitfalls: statically (check) and by running your tests (run).",
    )
    parser.add_argument("--version", action="version", version=f"stagelint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser("check", help="static analysis of Python files and directories")
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH", help='files or directories (default: ".")')
    check.add_argument("--select", type=_codes, help="comma list of codes or prefixes to report (e.g. STG1,STG201)")
    check.add_argument("--ignore", type=_codes, help="comma list of codes or prefixes to leave out")
    check.add_argument("--output-format", choices=("full", "concise", "json", "sarif", "github"), default="full",
                       help="full (default), concise (one line each), json, sarif (SARIF 2.1.0), github (workflow annotations)")
    check.add_argument("--config", metavar="FILE", help="configuration file (default: nearest pyproject.toml with [tool.stagelint])")
    check.add_argument("--statistics", action="store_true", help="print the number of findings per rule instead of the findings")
    check.add_argument("--fix", action="store_true", help="apply the safe fixes (where a rule has one), then report what is left")
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff instead of applying them; exit 1 if there are any")
    check.add_argument("--jobs", type=_jobs, metavar="N", help="worker processes (default: the number of CPUs)")
    check.add_argument("--no-cache", action="store_true",
                       help="neither read nor write the result cache (.stagelint_cache/ in the project root)")
    check.add_argument("--verbose", action="store_true", help="show tracebacks of internal errors")

    run = sub.add_parser("run", help="run a test module in graph and eager mode and confirm findings", add_help=False)
    run.add_argument("args", nargs=argparse.REMAINDER)

    rule = sub.add_parser("rule", help="show the documentation of one rule")
    rule.add_argument("code", metavar="CODE")
    sub.add_parser("rules", help="list all rules")
    sub.add_parser("server", help="the language server (LSP over standard input and output), for editors")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "run":
        from stagelint.runtime.cli import main as run_main

        return run_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "check":
        return _check(args)
    if args.command == "rule":
        return _rule(args.code)
    if args.command == "rules":
        return _rules()
    if args.command == "server":
        from stagelint.server import main as server_main

        return server_main()
    parser.print_help()
    return EXIT_ERROR


def _check(args) -> int:
    from stagelint.engine import check_paths
    from stagelint.report import FORMATS

    start = args.paths[0] if args.paths else "."
    try:
        settings = load_settings(start, args.config)
    except ConfigError as e:
        print(f"stagelint: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    # As in ruff: --select starts the selection afresh (the configured select and ignore give
    # way to it); --ignore adds to whatever ignore is left.
    if args.select is not None:
        settings = settings.with_overrides(select=args.select, ignore=())
    if args.ignore is not None:
        settings = settings.with_overrides(ignore=settings.ignore + args.ignore)
    result = check_paths(args.paths, settings, jobs=args.jobs, cache=_cache(args, settings), whole_project=True)
    if args.diff:
        return _diff(result)
    if args.fix:
        result = _fix(args, settings, result)
    status = EXIT_FINDINGS if result.findings else EXIT_OK
    for path, reason in result.skipped:
        print(f"stagelint: error: {path}: {reason}", file=sys.stderr)
        status = EXIT_ERROR
    for path, where, tb in result.errors:
        print(f"stagelint: internal error in {where} on {path}" + ("" if args.verbose else " (--verbose for the traceback)"), file=sys.stderr)
        if args.verbose:
            print(tb, file=sys.stderr)
        status = EXIT_ERROR
    if args.statistics:
        _statistics(result, args.output_format)
    else:
        FORMATS[args.output_format](result, sys.stdout)
    return status


def _cache(args, settings):
    from stagelint.cache import Cache, cache_root

    return Cache(cache_root(settings), enabled=not args.no_cache)


def _diff(result) -> int:
    from stagelint import fix

    outcome = fix.plan(result.findings)
    sys.stdout.write(fix.unified_diff(outcome))
    for path, reason in outcome.refused:
        print(f"stagelint: {path}: {reason}", file=sys.stderr)
    n = outcome.fixed
    print(f"Would fix {n} finding{'s' if n != 1 else ''}." if n else "No fixes available.", file=sys.stderr)
    if result.skipped or result.errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if outcome.changed else EXIT_OK


def _fix(args, settings, result):
    """Apply the fixes, pass after pass while fixes that overlapped wait, then re-check."""
    from stagelint import fix
    from stagelint.engine import check_paths

    fixed, files = 0, set()
    for _ in range(fix.MAX_PASSES):
        outcome = fix.plan(result.findings)
        fix.write(outcome)
        for path, reason in outcome.refused:
            print(f"stagelint: {path}: {reason}", file=sys.stderr)
        if not outcome.changed:
            break
        fixed += outcome.fixed
        files.update(outcome.changed)
        result = check_paths(args.paths, settings, jobs=args.jobs, cache=_cache(args, settings), whole_project=True)
        if not outcome.deferred:
            break
    if fixed:
        print(f"Fixed {fixed} finding{'s' if fixed != 1 else ''} in {len(files)} file{'s' if len(files) != 1 else ''}.",
              file=sys.stderr)
    return result


def _statistics(result, output_format: str = "full") -> None:
    counts = Counter((f.code, f.name) for f in result.findings)
    fixable = Counter(f.code for f in result.findings if f.fixable)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if output_format == "json":
        import json

        data = [{"code": code, "name": name, "count": n, "fixable": fixable[code]} for (code, name), n in rows]
        print(json.dumps(data, indent=2))
        return
    for (code, name), n in rows:
        print(f"{n:>5}  {code}  {name}")
    print(f"{sum(counts.values()):>5}  total")


def _rule(code: str) -> int:
    from stagelint.docs import render_rule
    from stagelint.rules.base import get_rule

    rule = get_rule(code)
    if rule is None:
        print(f"stagelint: error: unknown rule {code!r}; `stagelint rules` lists them", file=sys.stderr)
        return EXIT_ERROR
    sys.stdout.write(render_rule(rule))
    return EXIT_OK


def _rules() -> int:
    from stagelint.rules.base import all_rules

    rules = all_rules()
    width = max(len(r.name) for r in rules)
    for r in rules:
        tag = " (runtime)" if r.runtime_only else ""
        print(f"{r.code}  {r.name:<{width}}  {r.summary()}{tag}")
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
