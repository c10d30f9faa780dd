"""`stagelint run TEST_MODULE [PYTEST_ARGS ...]`: the command (the top-level CLI dispatches here)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
import traceback

# Only what starting the runs needs: the rest (numpy, the verdicts, the report) is imported once
# they are under way, while the fork server imports the frameworks.
from stagelint.runtime import arguments, executor, frameworks, lint
from stagelint.runtime.leftovers import Leftovers
from stagelint.runtime.progress import Progress


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = arguments.parse(argv)
    except SystemExit as e:  # argparse: --help is 0, a usage error 2
        return int(e.code or 0)
    except arguments.UsageError as e:
        print(f"stagelint run: {e}", file=sys.stderr)
        return 2
    workdir = args.keep_records or tempfile.mkdtemp(prefix="stagelint-run-")
    os.makedirs(workdir, exist_ok=True)
    children = {}
    # Before anything starts: the orphans of what it starts must be re-parented to this process.
    leftovers = Leftovers.watch()
    try:
        for mode in executor.MODES:  # a kept directory may hold an earlier run
            for suffix in ("jsonl", "out", "pid", "status"):
                if os.path.exists(os.path.join(workdir, f"{mode}.{suffix}")):
                    os.remove(os.path.join(workdir, f"{mode}.{suffix}"))
        if args.script:
            from stagelint.runtime import script

            return script.run(args, workdir, leftovers)
        with lint.reading_once():  # the frameworks', the linted files' and the verdicts' import scans
            tests = arguments.test_files(args.targets)
            children = executor.start_runs(args.targets[0], args.targets[1:] + args.pytest_args, workdir,
                                           preload=lambda: frameworks.of_tests(tests),
                                           named=frameworks.named_by(tests), end_groups=not leftovers.watching)
            return _finish(args, children, workdir, leftovers)
    except KeyboardInterrupt:
        print("stagelint run: interrupted", file=sys.stderr)
        return 2
    except arguments.UsageError as e:
        print(f"stagelint run: {e}", file=sys.stderr)
        return 2
    except Exception:  # noqa: BLE001 - an internal error must still say what happened
        print("stagelint run: internal error:\n" + traceback.format_exc(), file=sys.stderr)
        return 2
    finally:
        executor.stop_all(children)
        leftovers.close()  # an interrupt or an error: what the tests left is ended all the same
        if not args.keep_records:
            shutil.rmtree(workdir, ignore_errors=True)


def _finish(args: arguments.RunArguments, children, workdir, leftovers: Leftovers) -> int:
    from stagelint.runtime.evidence import norm
    from stagelint.runtime.records import load_run
    from stagelint.runtime.report import render_full
    from stagelint.runtime.steps import analyse, settings_codes, static_findings, write_html

    modules = arguments.test_files(args.targets)
    files = list(dict.fromkeys(f for module in modules for f in lint.project_files(module)))
    lint_options = {"cache": not args.no_cache, "cache_dir": args.cache_dir, "preview": args.preview}
    findings, static = static_findings(files, **lint_options)
    statuses = executor.wait_runs(children, workdir, args.timeout, Progress())
    ended = leftovers.end()  # the runs and the fork server are reaped: what is left, the tests left
    graph = load_run(statuses["graph"].record_path, "graph")
    eager = load_run(statuses["eager"].record_path, "eager")
    eager.follow_graph(graph)
    if not graph.started and not eager.started:
        status = statuses["graph"]
        how = f"exit code {status.returncode}" if status.status == "exited" else status.describe()
        why = executor.error_line(executor.output_tail(status, 40))
        print(f"stagelint run: pytest did not start ({how})" + (f": {why}" if why else ""), file=sys.stderr)
        return 2
    statuses["graph"].explain(graph)
    statuses["eager"].explain(eager)
    # Staged code that ran from files the import scan did not reach is linted too.
    linted = {norm(f) for f in files}
    extra = sorted({fn.path for run in (graph, eager) for fn in run.functions.values()
                    if fn.project and norm(fn.path) not in linted and os.path.isfile(fn.path)})
    if extra and "error" not in static:
        more, info = static_findings([os.path.relpath(p) if not os.path.relpath(p).startswith("..") else p for p in extra],
                                     **lint_options)
        findings += more
        static["files"] = files + info["files"]
        static["findings"] += info["findings"]
    settings_select, settings_ignore, url_template = settings_codes()
    report = analyse(args.module, statuses, graph, eager, findings, static, args.select or settings_select,
                     (args.ignore or ()) + settings_ignore)
    report.processes_left = ended
    if args.output_format == "json":
        print(json.dumps(report.to_json(), indent=2))
    else:
        sys.stdout.write(render_full(report))
        tails: dict[str, tuple[str, list[str]]] = {}
        for mode, status in report.runs.items():
            if status.status != "ok":
                tail = executor.output_tail(status, 8).rstrip()
                if tail:
                    # The same collection error twice is shown once (pytest's timings differ).
                    same = re.sub(r"\d+(\.\d+)?s\b", "", tail)
                    tails.setdefault(same, (tail, []))[1].append(mode)
        for tail, modes in tails.values():
            sys.stdout.write(f"\nlast output of the {' and '.join(modes)} run{'s' if len(modes) > 1 else ''}:\n{tail}\n")
    for line in (report.failure_message(), report.thread_warning(), report.process_warning()):
        if line:
            print(line, file=sys.stderr)
    if args.report and not write_html(report, args.report, url_template):
        return 2
    return report.exit_code()


if __name__ == "__main__":
    sys.exit(main())
