"""The command line: `stagelint check | run | rule | rules`."""

from __future__ import annotations

import argparse
import gc
import sys
from collections import Counter

from stagelint import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _codes(text: str) -> tuple[str, ...]:
    from stagelint.config import is_code_selector

    codes = tuple(c.strip().upper() for c in text.split(",") if c.strip())
    for c in codes:
        if not is_code_selector(c):
            raise argparse.ArgumentTypeError(f"{c!r} is not a stagelint code or prefix (e.g. STG, STG1, STG201)")
    return codes


def _patterns(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.split(",") if p.strip())


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

    check = sub.add_parser("check", help="static analysis of Python files, notebooks and directories")
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                       help='files (.py, .ipynb) or directories (default: "."); "-" reads one file from stdin')
    # Repeated, these add up (`--select STG1 --select STG201` is `--select STG1,STG201`).
    check.add_argument("--select", type=_codes, action="append",
                       help="comma list of codes or prefixes to report (e.g. STG1,STG201), instead of the configured ones")
    check.add_argument("--extend-select", type=_codes, action="append", metavar="CODES",
                       help="codes or prefixes to report in addition to the selected ones")
    check.add_argument("--ignore", type=_codes, action="append", help="comma list of codes or prefixes to leave out")
    check.add_argument("--exclude", type=_patterns, action="append", metavar="PATTERNS",
                       help="comma list of globs of files and folders to leave out, instead of the configured "
                            "exclude (extend-exclude still applies)")
    check.add_argument("--extend-exclude", type=_patterns, action="append", metavar="PATTERNS",
                       help="globs to leave out in addition to the configured ones")
    check.add_argument("--show-settings", action="store_true",
                       help="print the settings that apply to the first PATH, and where they come from; check nothing")
    check.add_argument("--show-files", action="store_true", help="print the files that would be checked; check nothing")
    check.add_argument("--output-format", choices=("full", "concise", "json", "sarif", "github", "gitlab", "junit"),
                       default="full",
                       help="full (default), concise (one line each), json, sarif (SARIF 2.1.0), github (workflow "
                            "annotations), gitlab (GitLab Code Quality), junit (JUnit XML)")
    check.add_argument("--output-file", metavar="FILE", help="write the report to FILE instead of stdout")
    check.add_argument("--stdin-filename", metavar="PATH",
                       help='with "-": the path the source on stdin stands for (its settings and package apply)')
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--quiet", "-q", action="store_true",
                       help="print the findings and errors only (no summary, no fix counts)")
    check.add_argument("--config", metavar="FILE", help="configuration file (default: nearest pyproject.toml with [tool.stagelint])")
    check.add_argument("--statistics", action="store_true", help="print the number of findings per rule instead of the findings")
    check.add_argument("--fix", action="store_true", help="apply the safe fixes (where a rule has one), then report what is left")
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff instead of applying them; exit 1 if there are any")
    check.add_argument("--add-noqa", action="store_true",
                       help="add `# noqa: CODE` to every line with a finding (merged into an existing noqa), "
                            "so the check passes from now on; prints nothing else")
    check.add_argument("--unsafe-fixes", action="store_true", default=None,
                       help="with --fix or --diff, apply the unsafe fixes too (fixes that can change what a value is "
                            "or where output goes); default: the configuration's unsafe-fixes, else off")
    check.add_argument("--no-unsafe-fixes", dest="unsafe_fixes", action="store_false",
                       help="apply the safe fixes only, whatever the configuration says")
    check.add_argument("--preview", action="store_true", default=None,
                       help="report the preview tier too: rules and rule steps whose evidence is not yet good enough "
                            "for the default (`stagelint rules` marks them); default: the configuration's preview, else off")
    check.add_argument("--no-preview", dest="preview", action="store_false",
                       help="report the stable rules only, whatever the configuration says")
    check.add_argument("--jobs", type=_jobs, metavar="N", help="worker processes (default: the number of CPUs)")
    check.add_argument("--no-cache", action="store_true",
                       help="neither read nor write the result cache (.stagelint_cache/ in the project root)")
    check.add_argument("--cache-dir", metavar="DIR",
                       help="keep the result cache in DIR (default: $STAGELINT_CACHE_DIR, else .stagelint_cache/ in "
                            "the folder of the nearest pyproject.toml, setup.cfg or .git)")
    check.add_argument("--verbose", action="store_true", help="show tracebacks of internal errors")

    run = sub.add_parser("run", help="run a test module in graph and eager mode and confirm findings", add_help=False)
    run.add_argument("args", nargs=argparse.REMAINDER)

    rule = sub.add_parser("rule", help="show the documentation of one rule")
    rule.add_argument("code", metavar="CODE")
    sub.add_parser("server", help="the language server (LSP over standard input and output), for editors")
    rules = sub.add_parser("rules", help="list all rules")
    rules.add_argument("--output-format", choices=("text", "json"), default="text",
                       help="text (default: a table) or json (code, name, summary, fixable, runtime, url)")
    return parser


def main(argv: list[str] | None = None) -> int:
    from_command_line = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "run":
        from stagelint.runtime.cli import main as run_main

        return run_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    #: this process's own command (not a caller's in-process call): it ends after the check
    args.ends_after = from_command_line
    try:
        if args.command == "check":
            return _check(args, parser)
        if args.command == "rule":
            return _rule(args.code)
        if args.command == "rules":
            return _rules(args.output_format)
        if args.command == "server":
            from stagelint.server import main as server_main

            return server_main()
        parser.print_help()
        return EXIT_ERROR
    except BrokenPipeError:
        return _closed_pipe(EXIT_OK)


def _closed_pipe(status: int) -> int:
    """The reader went away (`stagelint rules | head -1`): end quietly. Python would report the
    failed flush of stdout at exit; point stdout at /dev/null so that flush has nowhere to fail."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return status


def _flatten(groups) -> tuple[str, ...] | None:
    return None if groups is None else tuple(c for group in groups for c in group)


def _check(args, parser) -> int:
    # Not at the top: `stagelint run` starts its runs before it needs the configuration.
    from stagelint.config import ConfigError, load_settings

    select, extend, ignore = _flatten(args.select), _flatten(args.extend_select), _flatten(args.ignore)
    stdin = "-" in args.paths
    if args.diff and args.output_format not in ("full", "concise"):
        parser.error(f"--diff prints a unified diff; it does not combine with --output-format {args.output_format}")
    if stdin and (len(args.paths) > 1):
        parser.error('"-" (stdin) is the only path of its run')
    if args.add_noqa and (args.fix or args.diff or stdin):
        parser.error("--add-noqa edits the files on disk on its own: not with --fix, --diff or \"-\" (stdin)")
    if stdin and (args.fix or args.diff):
        parser.error("--fix and --diff change files on disk; with \"-\" (stdin) there is none")
    if args.stdin_filename and not stdin:
        parser.error('--stdin-filename names the source read from stdin: give "-" as the path')
    paths = [args.stdin_filename or "-"] if stdin else args.paths
    start = paths[0] if paths else "."
    try:
        settings = load_settings(start, args.config)
    except ConfigError as e:
        print(f"stagelint: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    sources = None
    if stdin:
        # At most one byte past the size budget (`check - < /dev/zero` ends at once): a longer
        # text is skipped with the reason, as a file over the budget is.
        from stagelint.pipeline.files import read_capped

        sources = {paths[0]: read_capped(sys.stdin.buffer, settings.max_file_size)}
    for passed_over in settings.shadowed:
        print(f"stagelint: warning: {passed_over}: its [stagelint] section is not read: {settings.source} in the "
              "same folder comes first (pyproject.toml, then setup.cfg, then tox.ini); keep one", file=sys.stderr)
    # As in ruff: --select starts the selection afresh (the configured select and ignore give
    # way to it); --extend-select adds to the selection; --ignore adds to whatever ignore is left.
    if select is not None:
        settings = settings.with_overrides(select=select, ignore=())
    if extend is not None:
        settings = settings.with_overrides(select=settings.select + extend)
    if ignore is not None:
        settings = settings.with_overrides(ignore=settings.ignore + ignore)
    settings = settings.with_overrides(preview=args.preview)
    # As in ruff: --exclude replaces the configured exclude, --extend-exclude adds to it; a
    # pattern with a `/` is relative to the current folder (the configuration's are to its own).
    if args.exclude is not None:
        settings = settings.with_overrides(exclude=_anchored(_flatten(args.exclude), settings))
    if args.extend_exclude is not None:
        settings = settings.with_overrides(
            extend_exclude=settings.extend_exclude + _anchored(_flatten(args.extend_exclude), settings))
    if args.show_settings:
        from stagelint.showsettings import show_settings

        sys.stdout.write(show_settings(settings, start))
        return EXIT_OK
    if args.show_files:
        return _show_files(paths, settings)
    out = sys.stdout
    if args.output_file:
        try:
            out = open(args.output_file, "w", encoding="utf-8")
        except OSError as e:
            print(f"stagelint: error: cannot write {args.output_file}: {e.strerror or e}", file=sys.stderr)
            return EXIT_ERROR
    try:
        return _check_into(args, paths, sources, settings, out)
    finally:
        if out is not sys.stdout:
            out.close()


def _anchored(patterns, settings) -> tuple[str, ...]:
    """Command-line globs with a `/` as the configuration's globs read them: relative to its folder."""
    import os

    out = []
    for pattern in patterns:
        if "/" in pattern.rstrip("/") and not pattern.startswith("*"):
            rel = os.path.relpath(os.path.abspath(pattern), os.path.abspath(settings.root)).replace(os.sep, "/")
            pattern = pattern if rel.startswith("../") else rel
        out.append(pattern)
    return tuple(out)


def _show_files(paths, settings) -> int:
    """ruff's --show-files: each file a check of these paths would read, one a line."""
    from stagelint.pipeline.discovery import discover

    files, missing = discover(paths, settings)
    for path in sorted(files):
        print(path)
    for path, reason in missing:
        print(f"stagelint: error: {path}: {reason}", file=sys.stderr)
    sys.stdout.flush()
    return EXIT_ERROR if missing else EXIT_OK


def _check_into(args, paths, sources, settings, out) -> int:
    from stagelint.engine import check_paths
    from stagelint.report import FORMATS
    from stagelint.report.colors import Paint, wanted

    result = check_paths(paths, settings, jobs=args.jobs, cache=_cache(args, paths), sources=sources,
                         whole_project=True)
    result.rule_url = settings.rule_url
    if getattr(args, "ends_after", False):
        # The check's project (every file's facts, in reference cycles) is garbage now: the
        # collector would walk and free it before the process ends, a quarter of a warm run
        # after an edit. Set aside instead (not in a caller's process: it would stay there).
        gc.freeze()
    if args.add_noqa:
        return _add_noqa(result, args.quiet)
    unsafe = _unsafe(args, settings)
    if args.diff:
        return _diff(result, out, args.quiet, unsafe)
    if args.fix:
        result = _fix(args, paths, settings, result)
    status = EXIT_FINDINGS if result.findings and not args.exit_zero else EXIT_OK
    for path, reason in result.skipped:
        print(f"stagelint: error: {path}: {reason}", file=sys.stderr)
        status = EXIT_ERROR
    for path, where, tb in result.errors:
        print(f"stagelint: internal error in {where} on {path}" + ("" if args.verbose else " (--verbose for the traceback)"), file=sys.stderr)
        if args.verbose:
            print(tb, file=sys.stderr)
        status = EXIT_ERROR
    if (result.files_checked == 0 and not result.findings and not result.skipped and not args.quiet
            and args.output_format not in ("full", "concise")):  # those say it in their summary
        print("stagelint: warning: No Python files found under the given paths", file=sys.stderr)
    try:
        if args.statistics:
            _statistics(result, args.output_format, out, unsafe)
        elif args.output_format in ("full", "concise"):
            paint = Paint(out is sys.stdout and wanted(out))
            FORMATS[args.output_format](result, out, summary=not args.quiet, paint=paint, unsafe_fixes=unsafe)
        else:
            FORMATS[args.output_format](result, out)
        out.flush()
    except BrokenPipeError:
        return _closed_pipe(status)
    return status


def _cache(args, paths):
    from stagelint.pipeline.cache import open_cache

    return open_cache(paths, enabled=not args.no_cache, directory=args.cache_dir)


def _add_noqa(result, quiet: bool) -> int:
    from stagelint.report.addnoqa import add_noqa

    n, refused = add_noqa(result.findings)
    for path, reason in sorted(refused.items()):
        print(f"stagelint: {path}: {reason}", file=sys.stderr)
    for path, reason in result.skipped:
        print(f"stagelint: error: {path}: {reason}", file=sys.stderr)
    if not quiet:
        print(f"Added {n} noqa directive{'s' if n != 1 else ''}.", file=sys.stderr)
    return EXIT_ERROR if result.skipped or result.errors or refused else EXIT_OK


def _unsafe(args, settings) -> bool:
    """--unsafe-fixes / --no-unsafe-fixes, else the configuration's `unsafe-fixes`."""
    return bool(args.unsafe_fixes if args.unsafe_fixes is not None else getattr(settings, "unsafe_fixes", False))


def _hidden(findings, unsafe: bool) -> str:
    """ruff's hint for the fixes that only --unsafe-fixes applies, or ""."""
    from stagelint.report.concise import hidden_fixes

    n = 0 if unsafe else sum(1 for f in findings if f.fix is not None and not f.fix_applies(False))
    return f" ({hidden_fixes(n)})" if n else ""


def _diff(result, out=None, quiet: bool = False, unsafe: bool = False) -> int:
    from stagelint import fix

    outcome = fix.plan(result.findings, unsafe)
    (out or sys.stdout).write(fix.unified_diff(outcome))
    for path, reason in outcome.refused:
        print(f"stagelint: {path}: {reason}", file=sys.stderr)
    n = outcome.fixed
    if not quiet:
        said = f"Would fix {n} finding{'s' if n != 1 else ''}" if n else "No fixes available"
        print(said + _hidden(result.findings, unsafe) + ".", file=sys.stderr)
    if result.skipped or result.errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if outcome.changed else EXIT_OK


def _fix(args, paths, settings, result):
    """Apply the fixes, pass after pass while fixes that overlapped wait, then re-check."""
    from stagelint import fix
    from stagelint.engine import check_paths

    fixed, files = 0, set()
    unsafe = _unsafe(args, settings)
    for _ in range(fix.MAX_PASSES):
        outcome = fix.plan(result.findings, unsafe)
        fix.write(outcome)
        for path, reason in outcome.refused:
            print(f"stagelint: {path}: {reason}", file=sys.stderr)
        if not outcome.changed:
            break
        fixed += outcome.fixed
        files.update(outcome.changed)
        result = check_paths(paths, settings, jobs=args.jobs, cache=_cache(args, paths), whole_project=True)
        if not outcome.deferred:
            break
    if fixed and not args.quiet:
        print(f"Fixed {fixed} finding{'s' if fixed != 1 else ''} in {len(files)} file{'s' if len(files) != 1 else ''}.",
              file=sys.stderr)
    return result


def _statistics(result, output_format: str = "full", out=None, unsafe: bool = False) -> None:
    out = out or sys.stdout
    counts = Counter((f.code, f.name) for f in result.findings)
    fixable = Counter(f.code for f in result.findings if f.fix_applies(unsafe))
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if output_format == "json":
        import json

        data = [{"code": code, "name": name, "count": n, "fixable": fixable[code]} for (code, name), n in rows]
        print(json.dumps(data, indent=2), file=out)
        return
    for (code, name), n in rows:
        print(f"{n:>5}  {code}  {name}", file=out)
    print(f"{sum(counts.values()):>5}  total", file=out)


def _rule(code: str) -> int:
    from stagelint.report.docs import render_rule
    from stagelint.rules import get_rule

    rule = get_rule(code)
    if rule is None:
        print(f"stagelint: error: unknown rule {code!r}; `stagelint rules` lists them", file=sys.stderr)
        return EXIT_ERROR
    sys.stdout.write(render_rule(rule))
    return EXIT_OK


def _rules(output_format: str = "text") -> int:
    from stagelint.rules import all_rules

    rules = all_rules()
    if output_format == "json":
        import json

        from stagelint.config import ConfigError, load_settings
        from stagelint.report.docs import rule_url

        try:
            template = load_settings(".").rule_url
        except ConfigError as e:
            print(f"stagelint: error: {e}", file=sys.stderr)
            return EXIT_ERROR
        data = [{"code": r.code, "name": r.name, "summary": r.summary(), "fixable": bool(r.fixable),
                 "runtime": bool(r.runtime_only), "preview": r.preview or None,
                 "preview_under": dict(r.preview_under) or None,
                 "url": rule_url(r.code, template)} for r in rules]
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        sys.stdout.flush()
        return EXIT_OK
    width = max(len(r.name) for r in rules)
    for r in rules:
        print(f"{r.code}  {r.name:<{width}}  {r.summary()}{r.tier_tag()}")
    sys.stdout.flush()
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
