"""`stagelint run --script PROGRAM [-- ARGS]`: a program (a training script), not a test suite,
under the same recorder, so that real data's shapes show up in the retrace table.

The program runs as `python PROGRAM ARGS` would (`__main__`, its own `sys.argv`, its directory
first on the path) in graph mode only, or also in eager mode with `--compare` (two processes, as
for tests). It stops when it ends, after `--steps N` recorded staged calls, or after `--timeout`
seconds (default `DEFAULT_SECONDS`): a bounded run is what the option is for, so reaching a limit
is a normal end. The whole program is one pseudo-test named after its path.

The child side is `python -m stagelint.runtime.script RECORD MODE STEPS PROGRAM ARGS...`.
"""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
import time
import traceback

#: Seconds a program runs when neither --timeout nor --steps bounds it.
DEFAULT_SECONDS = 300.0


# Child side ---------------------------------------------------------------------------------------


def child_main(argv: list[str]) -> None:
    record, mode, steps, program, *args = argv
    from stagelint.runtime import frameworks, recorder

    rec = recorder.install(record, mode, frameworks.from_env(os.environ))
    os.environ.pop(frameworks.ENV, None)
    rec.emit({"ev": "start", "mode": mode, "pid": os.getpid(), "python": sys.version.split()[0]})
    rec.emit({"ev": "collected", "n": 1})
    rec.begin_test(program, program, 1)
    emit = rec.emit

    def finish(outcome: str, error: str = "") -> None:
        emit({"ev": "outcome", "nodeid": program, "when": "call", "outcome": outcome, "error": error})
        emit({"ev": "end", "exitstatus": 0 if outcome == "passed" else 1})
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0 if outcome == "passed" else 1)

    limit = int(steps)
    if limit:
        done = [0]

        def counting(item: dict) -> None:
            emit(item)
            if item.get("ev") == "call":
                done[0] += 1
                if done[0] >= limit:
                    finish("passed", f"stopped after {limit} staged calls (--steps)")

        rec.emit = counting
    sys.argv = [program, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(program)))
    try:
        runpy.run_path(program, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            finish("failed", f"SystemExit: the program exited with code {e.code}")
    except BaseException as e:  # noqa: BLE001 - the program's error is its outcome
        finish("failed", "".join(traceback.format_exception_only(type(e), e)).strip())
    finish("passed")


# Parent side --------------------------------------------------------------------------------------


def run(args, workdir: str, leftovers) -> int:
    """Run the program (`args.script`, with `args.script_args`), then print the report;
    `leftovers` (`leftovers.Leftovers`) ends the processes it left running."""
    from stagelint.runtime import executor, frameworks
    from stagelint.runtime.steps import analyse, settings_codes, static_findings, write_html
    from stagelint.runtime.progress import Progress
    from stagelint.runtime.records import Run, load_run
    from stagelint.runtime.report import render_full
    from stagelint.runtime.safepath import python_command

    modes = executor.MODES if args.compare else ("graph",)
    env = executor.child_env()
    used = frameworks.used_by([args.script])
    env[frameworks.ENV] = frameworks.to_env(used)
    timeout = args.timeout if args.timeout is not None else (None if args.steps else DEFAULT_SECONDS)
    children = {}
    started = time.monotonic()
    for mode in modes:
        child_env = executor.without_jit_if_eager(env, mode)
        record = os.path.join(workdir, f"{mode}.jsonl")
        command = python_command("stagelint.runtime.script",
                                 [record, mode, str(args.steps or 0), args.script, *args.script_args])
        with open(os.path.join(workdir, f"{mode}.out"), "wb") as output:
            proc = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=child_env, start_new_session=True)
        children[mode] = executor.Child(mode, workdir, started, proc=proc, end_group=not leftovers.watching)
    try:
        findings, static = static_findings([args.script], not args.no_cache, args.cache_dir, args.preview)
        statuses = executor.wait_runs(children, workdir, timeout, Progress())
    finally:
        executor.stop_all(children)
    ended = leftovers.end()
    runs = {mode: load_run(statuses[mode].record_path, mode) for mode in modes}
    for mode, status in statuses.items():
        if status.status == "timeout":  # the limit asked for: a normal end of a bounded run
            status.status, status.detail = "ok", f"stopped after {timeout:g} s (--timeout)"
        status.explain(runs[mode])
    graph = runs["graph"]
    if not graph.started:
        why = executor.error_line(executor.output_tail(statuses["graph"], 40))
        print(f"stagelint run: {args.script} did not start" + (f": {why}" if why else ""), file=sys.stderr)
        return 2
    eager = runs.get("eager") or Run(mode="eager")
    select, ignore, url_template = settings_codes()
    if not args.compare:
        # No eager run to compare with: only what the graph run shows alone (retracing) is judged.
        findings = [f for f in findings if f.code.startswith("STG5")]
    report = analyse(f"--script {args.script}", statuses, graph, eager, findings, static, args.select or select,
                     (args.ignore or ()) + ignore)
    report.processes_left = ended
    if not args.compare:
        report.verdicts = [v for v in report.verdicts if v.verdict == "confirmed"]
    if args.output_format == "json":
        print(json.dumps(report.to_json(), indent=2))
    else:
        sys.stdout.write(render_full(report))
    if args.report and not write_html(report, args.report, url_template):
        return 2
    failure = graph.failure(args.script) if graph.test_status(args.script) == "failed" else ""
    if failure:
        print(f"stagelint run: {args.script} failed: {failure}", file=sys.stderr)
    for line in (report.failure_message(), report.process_warning()):
        if line:
            print(line, file=sys.stderr)
    return report.exit_code()


if __name__ == "__main__":
    child_main(sys.argv[1:])
