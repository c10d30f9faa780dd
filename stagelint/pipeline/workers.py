"""Worker processes for the per-file phase.

Files are parsed and walked in worker processes, not threads: libcst's native parser contends
under threads, and it can overflow its stack on pathologically nested code and kill the
process. A worker that dies or hangs costs only the file it was on (reported as skipped, with
the reason); a new worker takes its place and the run goes on.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
from collections import deque
from multiprocessing.connection import wait

from stagelint.pipeline.perfile import Outcome, analyse_one, store_outcome
from stagelint.pipeline.timelimit import FILE_TIMEOUT, over_time_detail


def _serve(conn, settings, roots, store=None, within=None) -> None:
    # Long operator chains nest deeply in the tree; a crash here costs only this process.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    # A file's analysis makes a few hundred thousand objects and some cycles (the walk and its
    # rules refer to each other). The collector running during the analysis costs a fifth of
    # the time; one collection after each file, with what the fork inherited frozen out of its
    # way, costs next to nothing and frees the cycles. What survives a file (the rules' and
    # libcst's caches) is frozen too: otherwise every later collection walks it again, and over
    # a few hundred files those walks cost a twentieth of the workers' time.
    gc.disable()
    gc.freeze()
    while True:
        try:
            job = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if job is None:
            return
        path, absent = job
        outcome = analyse_one(path, settings, roots, absent=absent, within=within)
        store_outcome(store, outcome)  # here, in parallel, rather than in the parent
        conn.send(outcome)
        del outcome
        gc.collect()
        gc.freeze()


class _Worker:
    def __init__(self, mp, settings, roots, store=None, within=None):
        self.conn, child = mp.Pipe()
        self.process = mp.Process(target=_serve, args=(child, settings, roots, store, within), daemon=True)
        self.process.start()
        child.close()
        self.path: str | None = None
        self.started = 0.0

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (OSError, ValueError):
            pass
        self.process.join(timeout=2)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


def _context(method: str | None = None):
    # fork shares the already-imported libcst with the child at no cost; spawn elsewhere. A
    # process with threads of its own (the language server) asks for forkserver: a fork of a
    # threaded process can inherit a lock another thread held, and hang.
    methods = multiprocessing.get_all_start_methods()
    if method is None or method not in methods:
        method = "fork" if "fork" in methods and method is None else "spawn"
    return multiprocessing.get_context(method)


def analyse_files(paths, settings, roots, jobs: int, more=None, lookup=None, store=None, start_method=None,
                  absent=None, within=None):
    """Yield an Outcome per file. `more(outcome)` may return further paths to analyse (the
    project modules a file imports); they join the queue. `lookup(path)` may serve a file's
    outcome (from the result cache) instead; `store` is where workers keep fresh outcomes
    (`pipeline.perfile.store_outcome`). Workers start only when some file is not served: a run that the
    cache serves entirely starts none."""
    pool = Pool(settings, roots, jobs, store=store, start_method=start_method, absent=absent, within=within)
    try:
        yield from pool.analyse(paths, more, lookup)
    finally:
        pool.close()


class Pool:
    """Worker processes that stay up from one batch of files to the next (the rounds of a
    check), started when a batch first needs them; `close` stops them."""

    def __init__(self, settings, roots, jobs: int, store=None, start_method=None, absent=None, within=None):
        self.settings, self.roots, self.jobs, self.store = settings, roots, max(1, jobs), store
        #: the project roots no file outside of which is read (`files.read_source`; None: any)
        self.within = within
        #: path -> the frameworks left out of its analysis (`pipeline.perfile.analyze_source`)
        self.absent = absent or (lambda path: frozenset())
        self.start_method = start_method
        self.mp = None
        self.workers: list[_Worker] = []

    def _start(self) -> _Worker:
        if self.mp is None:
            self.mp = _context(self.start_method)
        return _Worker(self.mp, self.settings, self.roots, self.store, self.within)

    def close(self) -> None:
        workers, self.workers = self.workers, []
        for w in workers:
            w.stop()

    def analyse(self, paths, more=None, lookup=None):
        """Yield an Outcome per file (`analyse_files`)."""
        import time

        queue: deque = deque()

        def serve(pending):
            """Outcomes the cache serves, following their imports; the rest join the queue."""
            pending = deque(pending)
            while pending:
                path = pending.popleft()
                outcome = lookup(path) if lookup is not None else None
                if outcome is None:
                    queue.append(path)
                    continue
                yield outcome
                if more is not None:
                    pending.extend(more(outcome))

        yield from serve(paths)
        if not queue:
            return
        # Biggest files first, so that no worker is left with a long file while the others idle.
        biggest_first = sorted(queue, key=_size, reverse=True)
        queue.clear()
        queue.extend(biggest_first)
        timeout = getattr(self.settings, "file_timeout", None) or FILE_TIMEOUT
        workers = self.workers
        while len(workers) < min(self.jobs, len(queue)):
            workers.append(self._start())
        try:
            while queue or any(w.path for w in workers):
                for w in workers:
                    if w.path is None and queue:
                        w.path = queue.popleft()
                        w.started = time.monotonic()
                        w.conn.send((w.path, self.absent(w.path)))
                busy = [w for w in workers if w.path is not None]
                ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=1.0)
                now = time.monotonic()
                for i, w in enumerate(workers):
                    if w.path is None:
                        continue
                    outcome = None
                    if w.conn in ready:
                        try:
                            outcome = w.conn.recv()
                        except (EOFError, OSError):
                            outcome = None
                    if outcome is None and (w.process.sentinel in ready or w.conn in ready):
                        w.process.join(timeout=1)
                        code = w.process.exitcode
                        reason = f"signal {-code}" if code is not None and code < 0 else f"exit status {code}"
                        outcome = Outcome(w.path, "skipped",
                                          detail=f"the analysis process died ({reason}); the file is likely too deeply nested for the parser")
                        workers[i] = self._start()
                    elif outcome is None and now - w.started > timeout:
                        w.process.kill()
                        w.process.join()
                        outcome = Outcome(w.path, "skipped", detail=over_time_detail(timeout))
                        workers[i] = self._start()
                    if outcome is None:
                        continue
                    if workers[i] is w:
                        w.path = None
                    yield outcome
                    if more is not None:
                        yield from serve(more(outcome))
        except BaseException:
            self.close()  # a batch left half done (an error, a generator closed early): no worker is reused
            raise


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
