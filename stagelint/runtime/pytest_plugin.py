"""pytest plugin that records every staged call of a test run, for `stagelint run`.

`stagelint run` starts `pytest -p stagelint.runtime.pytest_plugin` twice; it can also be used
directly:

    pytest -p stagelint.runtime.pytest_plugin --stagelint-record calls.jsonl --stagelint-mode eager tests/test_model.py
    pytest -p stagelint.runtime.pytest_plugin --stagelint-record calls.jsonl --stagelint-frameworks jax tests/test_j.py

Every test starts from the same seeds (`random`, `numpy`, `tf.random.set_seed`, and Keras's global
seed generator when Keras is loaded), so the graph and the eager run draw the same numbers. JAX
draws from explicit keys; its eager run is `jax_disable_jit` (STAGELINT_FRAMEWORKS names the
frameworks the session imports as it starts, patched before collection; any other is patched when
the tests import it: see runtime/frameworks.py).
"""

from __future__ import annotations

import os
import random
import sys

import pytest

SEED = 0
_recorder = None
#: Eager run under `stagelint run`: the graph run's record, which says the tests to run again.
_graph = None
#: The pytest configuration the recorder belongs to (a pytest the tests run in-process is not it).
_config = None
#: The frameworks patched so far ("tf", "jax"): only those are seeded.
_frameworks: set[str] = set()


def pytest_addoption(parser):
    group = parser.getgroup("stagelint", "stagelint run: record staged calls")
    group.addoption("--stagelint-record", default=os.environ.get("STAGELINT_RECORD"), metavar="FILE.jsonl",
                    help="append one JSON line per staged call to FILE")
    group.addoption("--stagelint-mode", default=os.environ.get("STAGELINT_MODE", "graph"), choices=("graph", "eager"),
                    help="graph: as the code normally runs; eager: tf.config.run_functions_eagerly(True) "
                         "and jax_disable_jit")
    group.addoption("--stagelint-frameworks", default=os.environ.get("STAGELINT_FRAMEWORKS", ""), metavar="NAMES",
                    help="frameworks to import and patch before collection, comma-separated: tf, jax, flax, "
                         "equinox (others are patched when the tests import them)")


def pytest_configure(config):
    global _recorder, _graph, _config
    path = config.getoption("stagelint_record")
    if not path or _recorder is not None:
        return
    if config.pluginmanager.hasplugin("xdist") and config.getoption("numprocesses", None) not in (None, 0, "0"):
        # Workers would each record into the same file, and calls could not be joined by test.
        raise pytest.UsageError("stagelint records one pytest process: run it with -n 0 (or -p no:xdist)")
    from stagelint.runtime import recorder

    from stagelint.runtime import eagercover, frameworks

    mode = config.getoption("stagelint_mode")
    preload = frameworks.from_env({frameworks.ENV: config.getoption("stagelint_frameworks")})
    if mode == "eager":
        _graph = eagercover.from_env()
    _forget_environment()
    start = {"ev": "start", "mode": mode, "pid": os.getpid(), "python": sys.version.split()[0]}
    _recorder = recorder.install(path, mode, preload, on_load=_loaded)
    _config = config
    for name, module in (("tf", "tensorflow"), ("jax", "jax")):
        if name in _frameworks:
            start[name] = sys.modules[module].__version__
    _recorder.emit(start)


def _loaded(name: str) -> None:
    """A framework is patched: from now on it is seeded before every test, and at once when the
    tests import it in the middle of one (both runs import it at the same point)."""
    _frameworks.add(name)
    if _recorder is not None and _recorder.test_index >= 0:
        _seed_framework(name)


def _forget_environment() -> None:
    """`stagelint run` passes the plugin and its options through the environment (the tests' own
    `sys.argv` stays what plain pytest gives them); a pytest the tests start must not record too."""
    from stagelint.runtime import eagercover

    for name in ("STAGELINT_RECORD", "STAGELINT_MODE", "STAGELINT_FRAMEWORKS", eagercover.RECORD_ENV,
                 eagercover.PID_ENV):
        os.environ.pop(name, None)
    plugins = [p for p in os.environ.get("PYTEST_PLUGINS", "").split(",") if p and p != __name__]
    if plugins:
        os.environ["PYTEST_PLUGINS"] = ",".join(plugins)
    else:
        os.environ.pop("PYTEST_PLUGINS", None)
    addopts = os.environ.get("PYTEST_ADDOPTS", "").replace("-p no:cacheprovider", "", 1).strip()
    if addopts:
        os.environ["PYTEST_ADDOPTS"] = addopts
    else:
        os.environ.pop("PYTEST_ADDOPTS", None)


def pytest_collection_modifyitems(config, items):
    """`tf.test.TestCase` brings helpers named like tests (`test_session`): pytest collects them
    from every subclass and skips them ("Not a test."). They are TensorFlow's, not the user's
    tests: leave them out of the run."""
    if _recorder is None:
        return
    helpers = [item for item in items if _tensorflow_helper(item)]
    if helpers:
        config.hook.pytest_deselected(items=helpers)
        items[:] = [item for item in items if item not in helpers]


def _tensorflow_helper(item) -> bool:
    """A method a TensorFlow class defines, inherited by the user's test class. A test generated
    by a TensorFlow decorator (tf-models' `combinations.generate`) is set on the user's class: its
    function's module is TensorFlow's, but it is the user's test."""
    cls = getattr(item, "cls", None)
    name = getattr(item, "originalname", None) or item.name
    for klass in getattr(cls, "__mro__", ()):
        if name in vars(klass):
            return klass.__module__.startswith("tensorflow.")
    return False


def pytest_collection_finish(session):
    if _recorder is not None:
        _recorder.emit({"ev": "collected", "n": len(session.items)})


def _seed_everything() -> None:
    random.seed(SEED)
    import numpy as np

    np.random.seed(SEED)
    for name in _frameworks:
        _seed_framework(name)


def _seed_framework(name: str) -> None:
    if name != "tf":
        return  # JAX draws from explicit keys: nothing global to seed
    import tensorflow as tf

    tf.random.set_seed(SEED)
    keras = sys.modules.get("keras")
    if keras is not None and hasattr(keras, "utils"):
        keras.utils.set_random_seed(SEED)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if _recorder is not None:
        path, line, _ = item.location
        path = os.path.join(str(item.config.rootpath), path)
        _recorder.begin_test(item.nodeid, path, None if line is None else line + 1, _span(item))
        if _graph is not None and not _graph.needs(item.nodeid, _waiting):
            from stagelint.runtime.eagercover import REASON

            _recorder.emit({"ev": "not-rerun", "t": _recorder.test_index})
            pytest.skip(REASON)
        _seed_everything()


def _waiting() -> None:
    """The eager run waits for the graph run to finish the test: a line in its record says it is alive."""
    _recorder.emit({"ev": "wait", "t": _recorder.test_index})


def _span(item) -> tuple[int, int] | None:
    """First and last line of the test function, so a finding in its body is judged on its calls."""
    from stagelint.runtime.recorder import _code_span

    code = getattr(getattr(item, "obj", None), "__code__", None)
    return _code_span(code) if code is not None else None


def _failure_line(report) -> str:
    """The crash message (the parent picks the line naming the error); head and tail if long."""
    from stagelint.runtime.records import clip_message

    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None and crash.message:
        return clip_message(crash.message, 1000)
    text = str(report.longrepr or "").strip().splitlines()
    return text[-1] if text else ""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test failing in the eager run: what its failing assertion read is recorded while its
    frames are still there (`Recorder.failed`)."""
    outcome = yield
    if _recorder is None or _recorder.mode != "eager" or call.excinfo is None or call.when != "call":
        return
    if outcome.get_result().failed:
        _recorder.failed(call.excinfo.tb)


def pytest_runtest_logreport(report):
    if _recorder is None:
        return
    if report.when == "call" or report.outcome != "passed":
        record = {"ev": "outcome", "nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
                  "dur": round(report.duration, 4)}
        if report.outcome == "failed":
            record["error"] = _failure_line(report)
        _recorder.emit(record)


def pytest_collectreport(report):
    if _recorder is not None and report.outcome == "failed":
        _recorder.emit({"ev": "outcome", "nodeid": report.nodeid or "<collection>", "when": "collect",
                        "outcome": "failed", "error": _failure_line(report)})


_exitstatus: int | None = None

#: Seconds the run waits, after its tests, for non-daemon threads they left running.
THREAD_GRACE = 2.0


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    """The record ends here. A session whose tests all passed (or were skipped) then ends its process
    at once: its record is complete, and what pytest does after (the terminal summary, where
    Hypothesis's plugin imports `hypothesis`: 0.9 s of CPU; the other plugins' `unconfigure`) is
    output nobody reads. A session with failures prints its summary (its tracebacks) first."""
    global _exitstatus
    if _recorder is None or session.config is not _config:
        return
    _exitstatus = int(exitstatus)
    _recorder.emit({"ev": "end", "exitstatus": _exitstatus})
    if _exitstatus == 0:
        _end_process(_exitstatus)


def _lingering_threads(grace: float) -> list:
    import threading
    import time

    deadline = time.monotonic() + grace
    left = []
    for thread in threading.enumerate():
        if thread is threading.main_thread() or thread.daemon:
            continue
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            left.append(thread)
    return left


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """A test that leaves a non-daemon thread running would keep the interpreter from exiting
    (it waits for such threads) until the run's timeout. The records are complete by now, so after
    a short grace the run says which threads are left and ends the process itself."""
    if _recorder is None or _exitstatus is None or config is not _config:
        return
    left = _lingering_threads(THREAD_GRACE)
    if not left:
        return
    _recorder.emit({"ev": "threads", "n": len(left), "names": [t.name for t in left[:10]]})
    exit_now(_exitstatus)


def _end_process(code: int) -> None:
    """End the run now; non-daemon threads the tests left running are waited for a short grace and
    named in the record, as at `unconfigure`."""
    left = _lingering_threads(THREAD_GRACE)
    if left:
        _recorder.emit({"ev": "threads", "n": len(left), "names": [t.name for t in left[:10]]})
    print(f"\nstagelint: the {_recorder.mode} run ended once its record was complete", flush=True)
    exit_now(code)


def exit_now(code: int) -> None:
    """Flush what was printed and leave at once: no atexit handlers, no TensorFlow teardown,
    no threads waited for."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
