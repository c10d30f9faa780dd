"""The sixteenth JAX audit's BH2 as a fact: a module-level function its module's top-level code
calls once (`if __name__ == "__main__": test_search()`), and nothing else in the project calls,
imports or reads, runs once per process; the static object it makes anew on each call reaches the
jitted function once, and traces once (tests/runtime/test_jax_sixteenth_audit_bh_facts.py). The
negative twins keep their STG505: the same function called in a loop or twice, called from another
module or a test, read as a value, never called (its callers are not shown), or making the object
in a loop of its own."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, findings

_JITTED = """
import functools
import jax


class RecurrentFn:
    def __init__(self, depth):
        self.depth = depth


@functools.partial(jax.jit, static_argnames=("recurrent_fn",))
def run_search(x, recurrent_fn):
    return x * recurrent_fn.depth
"""


def _driver(body: str) -> str:
    return _JITTED + body


def test_a_new_static_object_per_call_of_a_function_the_module_calls_once_traces_once():
    """AbaloneMCTS's `test_search`: the object is made anew per call, but the only call is the
    module's `__main__` block (or its plain top level), outside any loop."""
    assert_marked(_driver("""
def test_search():
    recurrent_fn = RecurrentFn(3)
    return run_search(1.0, recurrent_fn=recurrent_fn)


def made_in_the_call():
    return run_search(1.0, recurrent_fn=RecurrentFn(4))


made_in_the_call()

if __name__ == "__main__":
    test_search()
"""))


def test_called_in_a_loop_twice_or_read_as_a_value_is_still_per_call():
    """The twins in one module: a loop of the top-level code, two calls, a read as a value (a
    callback whose caller the code does not show), and no call at all (a public function's
    callers are not shown)."""
    assert_marked(_driver("""
import atexit


def in_loop():
    recurrent_fn = RecurrentFn(3)
    return run_search(1.0, recurrent_fn=recurrent_fn)  # STG505


def twice():
    return run_search(1.0, recurrent_fn=RecurrentFn(3))  # STG505


def as_value():
    return run_search(1.0, recurrent_fn=RecurrentFn(3))  # STG505


def never_called():
    return run_search(1.0, recurrent_fn=RecurrentFn(3))  # STG505


def once_but_loops_itself(xs):
    for x in xs:
        run_search(x, recurrent_fn=RecurrentFn(3))  # STG505


for _ in range(3):
    in_loop()
twice()
twice()
as_value()
atexit.register(as_value)
once_but_loops_itself([1.0, 2.0])
"""))


def test_the_message_and_the_proof_of_the_reported_twin():
    got = findings(_driver("""
def twice():
    return run_search(1.0, recurrent_fn=RecurrentFn(3))


twice()
twice()
"""), "STG505")
    assert len(got) == 1 and "on every call of `twice`" in got[0].message


def test_a_function_another_module_imports_or_calls_is_not_called_once(tmp_path):
    """Across modules (the jitted function in one, each driver's class in its own: classes of
    other modules are not judged): `search.test_search` called once by its own `__main__` block
    keeps no finding while no other module names it; the twins keep their STG505: called again
    from training code, their module imported whole (`pr.probe` read as a value), or every name
    of it imported by a test (`from pkg.star_read import *`)."""
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/model.py": """
            import functools
            import jax


            @functools.partial(jax.jit, static_argnames=("recurrent_fn",))
            def run_search(x, recurrent_fn):
                return x * recurrent_fn.depth
        """,
        "pkg/search.py": """
            from pkg.model import run_search


            class RecurrentFn:
                def __init__(self, depth):
                    self.depth = depth


            def test_search():
                recurrent_fn = RecurrentFn(3)
                return run_search(1.0, recurrent_fn=recurrent_fn)


            if __name__ == "__main__":
                test_search()
        """,
        "pkg/evaluate.py": """
            from pkg.model import run_search


            class RecurrentFn:
                def __init__(self, depth):
                    self.depth = depth


            def evaluate():
                recurrent_fn = RecurrentFn(3)
                return run_search(1.0, recurrent_fn=recurrent_fn)  # STG505


            if __name__ == "__main__":
                evaluate()
        """,
        "pkg/probe.py": """
            from pkg.model import run_search


            class RecurrentFn:
                def __init__(self, depth):
                    self.depth = depth


            def probe():
                recurrent_fn = RecurrentFn(3)
                return run_search(1.0, recurrent_fn=recurrent_fn)  # STG505


            if __name__ == "__main__":
                probe()
        """,
        "pkg/star_read.py": """
            from pkg.model import run_search


            class RecurrentFn:
                def __init__(self, depth):
                    self.depth = depth


            def star_read():
                recurrent_fn = RecurrentFn(3)
                return run_search(1.0, recurrent_fn=recurrent_fn)  # STG505


            if __name__ == "__main__":
                star_read()
        """,
        "pkg/train.py": """
            from pkg.evaluate import evaluate


            def fit(steps):
                for _ in range(steps):
                    evaluate()
        """,
        "pkg/report.py": """
            from pkg import probe as pr

            HOOKS = [pr.probe]
        """,
        "tests/test_star.py": """
            from pkg.star_read import *
        """,
    })
