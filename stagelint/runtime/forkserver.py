"""Import TensorFlow (and/or JAX) once, then fork the graph and the eager pytest run from that process.

`import tensorflow` costs 2.5-4 s of CPU, as much as a small test module's whole run. Both runs
need it, so on Linux one process imports it and forks twice. Forking is safe here because no
TensorFlow op has run yet: the eager context and its thread pools are created lazily, on the first
op, in each child. Each child starts its own session (process group), so a timeout kills it and
everything it started in the group without touching the other run. (What the tests move out of
the group is re-parented to `stagelint run`, a subreaper, not to this process: see `leftovers`.)

    python -m stagelint.runtime.forkserver WORKDIR TEST_MODULE [PYTEST_ARGS ...]

It reads the frameworks to import from its standard input (`preload`), as `stagelint run` finds
them: `import:NAMES` for those the test modules name themselves, at once, then `run:NAMES` for all
the session imports, once the project's imports are followed; then it forks. Its input closed
before `run:` (`stagelint run` interrupted or failed) ends it without forking.
For each mode it writes `<mode>.pid` (the child's pid, also its process group) as soon as the
child exists, sends the child's output to `<mode>.out`, and writes `<mode>.status` with the exit
code when it ends: negative for a signal, as `subprocess` reports it.
"""

from __future__ import annotations

import os
import sys
import traceback

MODES = ("graph", "eager")


def _child(workdir: str, mode: str, test_module: str, pytest_args: list[str], filters: list[str],
           graph_pid: int | None) -> None:
    os.setsid()
    out = os.open(os.path.join(workdir, f"{mode}.out"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    import pytest

    from stagelint.runtime import eagercover, pytest_plugin
    from stagelint.runtime.executor import pytest_argv0

    os.environ["STAGELINT_RECORD"] = os.path.join(workdir, f"{mode}.jsonl")
    os.environ["STAGELINT_MODE"] = mode
    if graph_pid is not None:  # the eager run follows the graph run (forked first)
        os.environ[eagercover.RECORD_ENV] = os.path.join(workdir, "graph.jsonl")
        os.environ[eagercover.PID_ENV] = str(graph_pid)
    args = ["-p", "no:cacheprovider", *filters, test_module, *pytest_args]
    # Tests that parse the command line (absl flags, absltest) must see what plain pytest gives them.
    sys.argv = [pytest_argv0(), test_module, *pytest_args]
    code = 3
    try:
        # The plugin is handed over as the module this process has already imported: `-p NAME`
        # would have pytest mark it for assertion rewriting, which it cannot do once the module is
        # imported, and warn so (an error where the project sets `filterwarnings = error`).
        code = int(pytest.main(args, plugins=[pytest_plugin]))
    except BaseException:  # noqa: BLE001 - pytest died before it could report: say why in the output
        traceback.print_exc()
    finally:
        # Not sys.exit: the server's own cleanup (atexit, finally blocks above us) is not ours.
        pytest_plugin.exit_now(code)


def _preloaded_plugin_filters() -> list[str]:
    """`-W` filters for the rewrite warnings this process causes and plain pytest would not: an
    installed pytest plugin (a `pytest11` entry point, such as jaxtyping's, which Equinox imports)
    that the server imported with the frameworks before pytest started cannot be rewritten, and
    pytest warns so, an error under a project's `filterwarnings = error`. Only those names: the
    same warning about any other module is the project's own, as under plain pytest. Command-line
    filters win over the configuration's."""
    from importlib.metadata import entry_points

    names = sorted({ep.value.split(":")[0].split(".")[0] for ep in entry_points(group="pytest11")}
                   & set(sys.modules))
    # pytest escapes a command-line filter's message: it is the message's literal start.
    return [f"-Wignore:Module already imported so cannot be rewritten; {name}:pytest.PytestAssertRewriteWarning"
            for name in names]


def _write(path: str, text: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)  # the parent never reads a half-written file


def _import_frameworks(used: frozenset[str]) -> None:
    """Import what the tests stage with, once for both runs. JAX too must be imported before any op
    runs: its backend and thread pools start with the first op."""
    if "tf" in used:
        import tensorflow  # noqa: F401 - the point of this process

        import stagelint.runtime.summaries  # noqa: F401 - numpy and the recorder's helpers, once
    if "jax" in used:
        import jax  # noqa: F401

        import stagelint.runtime.jaxmode  # noqa: F401
    for name in ("flax", "equinox"):
        if name in used:
            __import__({"flax": "flax.nnx"}.get(name, name))


def preload(test_module: str) -> frozenset[str] | None:
    """Import the frameworks `stagelint run` names on our input, as each line comes; the frameworks of its `run:` line (then also in STAGELINT_FRAMEWORKS, for the runs'
    recorders), or None if the input ended first.

    Not a framework the project itself holds (the test suite of Equinox, of Flax): that is the
    code under test, which pytest must import itself, after its plugins and conftest files have
    run (jaxtyping's plugin, under Equinox's `--jaxtyping-packages=equinox`, refuses to start when
    equinox is already imported; assertion rewriting and import hooks likewise). The recorder
    patches it when the tests import it."""
    from stagelint.runtime import frameworks

    held = frameworks.held_by_project(test_module)
    for line in iter(sys.stdin.readline, ""):
        what, _, names = line.strip().partition(":")
        used = frameworks.from_env({frameworks.ENV: names})
        _import_frameworks(used - held)
        if what == "run":
            os.environ[frameworks.ENV] = frameworks.to_env(used)
            return used
    return None


def serve(workdir: str, test_module: str, pytest_args: list[str]) -> int:
    import pytest  # noqa: F401 - while `stagelint run` follows the project's imports

    if preload(test_module) is None:
        return 3
    # The runs read nothing from us: their input is empty, as it was before `stagelint run` told
    # us the frameworks through it.
    empty = os.open(os.devnull, os.O_RDONLY)
    os.dup2(empty, 0)
    os.close(empty)
    filters = _preloaded_plugin_filters()  # (once for both runs: it reads every installed package's metadata)
    children = {}
    for mode in MODES:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            try:
                _child(workdir, mode, test_module, pytest_args, filters,
                       next((p for p, m in children.items() if m == "graph"), None))
            finally:  # _child never returns; if it raised, the child must not go on serving
                os._exit(3)
        children[pid] = mode
        _write(os.path.join(workdir, f"{mode}.pid"), str(pid))
    while children:
        pid, status = os.wait()
        mode = children.pop(pid, None)
        if mode is not None:
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            _write(os.path.join(workdir, f"{mode}.status"), str(code))
    return 0


if __name__ == "__main__":
    code = serve(sys.argv[1], sys.argv[2], sys.argv[3:])
    sys.stdout.flush()
    sys.stderr.flush()
    # Tearing TensorFlow down at interpreter exit takes 1-2 s, and the parent waits for us.
    os._exit(code)
