"""Reading one run's JSON-lines record back (parent side; no TensorFlow here).

A run that crashed may have left a half-written last line: it is skipped, everything before it
is kept.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field


def clip_message(text: str, keep: int = 1500) -> str:
    """Head and tail of a long message: AutoGraph puts the real cause on the last line."""
    return text if len(text) <= 2 * keep else text[:keep] + "\n...\n" + text[-keep:]


def cause_line(text: str, limit: int = 160) -> str:
    """The line of an error message that names the error, looking inside AutoGraph's
    `in user code:` wrapper (whose last `SomeError: ...` line is the cause)."""
    # pytest's `E   ` marks the error lines of a report it gave as text (a collection error).
    lines = [re.sub(r"^E\s+", "", ln.strip()) for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    line = lines[0]
    if len(lines) > 1 and ("in user code:" in line or line.endswith(":")):
        causes = [ln for ln in lines[1:] if re.match(r"^[\w.]*(Error|Exception|Exit)\b.*:", ln)]
        if causes:
            line = causes[-1]
    return line if len(line) <= limit else line[:limit - 3] + "..."


#: Functions are identified across the two processes by where their code is.
FnKey = tuple[str, int, str]  # (absolute path, first line, qualname)


@dataclass
class FunctionRecord:
    key: FnKey
    qualname: str
    module: str
    path: str
    line: int
    end: int
    project: bool
    method: bool
    #: The staging framework: "tf" or "jax".
    framework: str = "tf"

    @property
    def name(self) -> str:
        return f"{self.module}.{self.qualname}" if self.module else self.qualname


@dataclass
class Call:
    test: str
    fn: FnKey
    index: int
    obj: int
    traced: int
    args: list[tuple[str, dict]]
    site: tuple[str, int] | None
    result: list[dict] | None
    error: dict | None
    lines: dict[tuple[str, int], int]
    output: str
    ops: int | None
    random: bool
    leaks: list[dict]
    seconds: float
    #: The mode the call really ran in, when it is not the run's ("graph" in the eager run for a
    #: restored SavedModel function); None when it ran in the run's mode.
    ran: str | None = None
    #: Made inside a graph (a Dataset.map function, a SavedModel signature): staged in both runs.
    in_graph: bool = False
    #: "eager" when the test had set tf.config.run_functions_eagerly(True) in the graph run.
    asked: str | None = None
    #: JAX: why the eager run is no reference for this call (pmap/vmap traced it there too).
    not_compared: str | None = None
    #: JAX: what `jax_explain_cache_misses` said about the call's retraces.
    why: list[str] = field(default_factory=list)
    #: For a method: which instance it was bound to (an index per function, in order of first call).
    inst: int | None = None
    #: JAX: the donation the jitted object was made with (`donate_argnums=(0,)`, `donate='all'`).
    donates: str | None = None
    #: (file, line) -> the project functions that line called during the call, as (file, first line).
    calls: dict[tuple[str, int], set[tuple[str, int]]] = field(default_factory=dict)

    @property
    def asserted(self) -> bool:
        """The call raised an error the test asserts (pytest.raises, assertRaises)."""
        return bool(self.error and self.error.get("asserted"))


def _calls(rec: dict, files: dict) -> dict[tuple[str, int], set[tuple[str, int]]]:
    out: dict[tuple[str, int], set[tuple[str, int]]] = {}
    for caller, line, callee, first in rec.get("calls", ()):
        out.setdefault((files.get(caller), line), set()).add((files.get(callee), first))
    return out


@dataclass
class Outcome:
    when: str
    outcome: str
    error: str = ""


@dataclass
class Run:
    mode: str
    started: bool = False
    ended: bool = False
    exitstatus: int | None = None
    collected: int | None = None
    tests: list[str] = field(default_factory=list)
    test_locations: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    #: nodeid -> (first line, last line) of the test function, in the file of test_locations.
    test_spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    outcomes: dict[str, list[Outcome]] = field(default_factory=dict)
    functions: dict[FnKey, FunctionRecord] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)
    #: Names of non-daemon threads the tests left running (the run ended the process anyway).
    threads_left: list[str] = field(default_factory=list)
    threads_left_count: int = 0
    #: nodeid -> (function, what was read) for each trace count the test read (`modeprobe`).
    trace_reads: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    #: nodeid -> what the test's failing assertion read that staging decides (`modeprobe.failed_assertion`):
    #: "writes", [(variable, the staged function's key, line of the write, the writing function)]; "buffers", the buffer methods called;
    #: "warns", the pattern of the warning a `pytest.warns` expected and did not see.
    failed_reads: dict[str, dict] = field(default_factory=dict)
    #: nodeid -> (the primitive, the error type, its message) of an error a JAX control-flow primitive
    #: (`lax.cond`) raised as it staged its functions, which the test expected (graph run).
    staging_errors: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    #: Eager run: the tests it did not run again, the graph run having staged nothing in them
    #: (`eagercover`); `follow_graph` gives them the graph run's outcomes.
    not_rerun: list[str] = field(default_factory=list)

    def test_status(self, nodeid: str) -> str:
        """passed / failed / error / skipped / not-run."""
        outcomes = self.outcomes.get(nodeid, [])
        if any(o.outcome == "failed" and o.when != "call" for o in outcomes):
            return "error"
        for o in outcomes:
            if o.when == "call":
                return o.outcome
        if any(o.outcome == "skipped" for o in outcomes):
            return "skipped"
        return "not-run"

    def interrupted_test(self) -> str | None:
        """The test that was running when the run stopped early (started, no outcome of its call)."""
        if not self.tests:
            return None
        last = self.tests[-1]
        return last if self.test_status(last) == "not-run" else None

    def collect_errors(self) -> dict[str, str]:
        """{nodeid: the line naming the error} for what pytest could not collect (a module that
        fails to import)."""
        return {nodeid: cause_line(o.error) for nodeid, outs in self.outcomes.items() for o in outs
                if o.when == "collect" and o.outcome == "failed"}

    def failure(self, nodeid: str) -> str:
        return cause_line(next((o.error for o in self.outcomes.get(nodeid, []) if o.outcome == "failed"), ""))

    def follow_graph(self, graph: Run) -> None:
        """The tests this eager run did not run again had, by construction, the outcome they had in
        the graph run: they ran the same code there (no staged call), and passed or were skipped."""
        for nodeid in self.not_rerun:
            self.outcomes[nodeid] = list(graph.outcomes.get(nodeid, []))

    def counts(self) -> dict[str, int]:
        statuses = [self.test_status(t) for t in self.tests]
        collect_errors = sum(1 for t, outs in self.outcomes.items() if any(o.when == "collect" for o in outs))
        return {"passed": statuses.count("passed"), "failed": statuses.count("failed"),
                "errors": statuses.count("error") + collect_errors}


def load_run(path: str, mode: str) -> Run:
    run = Run(mode=mode)
    if not os.path.exists(path):
        return run
    files: dict[int, str] = {}
    fns: dict[int, FnKey] = {}
    tests: dict[int, str] = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for text in f:
            try:
                rec = json.loads(text)
            except ValueError:
                continue  # a line cut short by a crash
            _apply(run, rec, files, fns, tests)
    return run


def _apply(run: Run, rec: dict, files: dict, fns: dict, tests: dict) -> None:
    ev = rec.get("ev")
    if ev == "start":
        run.started = True
    elif ev == "collected":
        run.collected = rec["n"]
    elif ev == "file":
        files[rec["id"]] = rec["path"]
    elif ev == "test":
        tests[rec["i"]] = rec["nodeid"]
        run.tests.append(rec["nodeid"])
        if rec.get("loc"):
            run.test_locations[rec["nodeid"]] = (rec["loc"][0], rec["loc"][1])
        if rec.get("span"):
            run.test_spans[rec["nodeid"]] = (rec["span"][0], rec["span"][1])
    elif ev == "fn":
        key = (rec["path"], rec["line"], rec["qualname"])
        fns[rec["id"]] = key
        run.functions[key] = FunctionRecord(key, rec["qualname"], rec["module"], rec["path"], rec["line"],
                                            rec["end"], rec["project"], rec["method"],
                                            rec.get("fw", "tf"))
    elif ev == "call":
        lines = {}
        for file_id, per_line in rec.get("lines", {}).items():
            filename = files.get(int(file_id))
            for line, n in per_line.items():
                lines[(filename, int(line))] = n
        site = rec.get("site")
        run.calls.append(Call(
            test=tests.get(rec["t"], "<outside tests>"), fn=fns[rec["fn"]], index=rec["i"], obj=rec["obj"],
            traced=rec["traced"], args=[(a[0], a[1]) for a in rec["args"]],
            site=(files.get(site[0]), site[1]) if site else None, result=rec.get("res"), error=rec.get("exc"),
            lines=lines, output=rec.get("out", ""), ops=rec.get("ops"), random=rec.get("rnd", False),
            leaks=rec.get("leaks", []), seconds=rec.get("dur", 0.0), ran=rec.get("ran"),
            in_graph=bool(rec.get("ig")), asked=rec.get("asked"), not_compared=rec.get("nc"),
            why=rec.get("why", []), inst=rec.get("inst"), donates=rec.get("don"), calls=_calls(rec, files)))
    elif ev == "outcome":
        run.outcomes.setdefault(rec["nodeid"], []).append(Outcome(rec["when"], rec["outcome"], rec.get("error", "")))
    elif ev == "end":
        run.ended = True
        run.exitstatus = rec.get("exitstatus")
    elif ev == "threads":
        run.threads_left = list(rec.get("names", []))
        run.threads_left_count = rec.get("n", len(run.threads_left))
    elif ev == "reads":
        run.trace_reads.setdefault(tests.get(rec["t"], "<outside tests>"), []).append((rec["name"], rec["api"]))
    elif ev == "asserts":
        writes = [(hit[0], fns.get(hit[1]), hit[2], hit[3] if len(hit) > 3 else "") for hit in rec.get("writes", ())]
        run.failed_reads[tests.get(rec["t"], "<outside tests>")] = {
            "writes": [w for w in writes if w[1] is not None or w[3]], "buffers": rec.get("buffers", []),
            "warns": rec.get("warns")}
    elif ev == "staging-error":
        run.staging_errors[tests.get(rec["t"], "<outside tests>")] = (rec["via"], rec["type"], rec.get("msg", ""))
    elif ev == "not-rerun":
        run.not_rerun.append(tests.get(rec["t"], "<outside tests>"))
    elif ev == "internal":
        run.internal_errors.append(rec.get("error", ""))
