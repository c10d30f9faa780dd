"""`stagelint.analysis.spreads`: the Python facts behind it, run in this interpreter, and what it
reads of the code (the twentieth JAX audit's BW2: FoldJAX's `**predict_kwargs`)."""

from __future__ import annotations

import functools

import libcst as cst

from stagelint.analysis.spreads import _uses


def _callee(*, use_scan=False, steps=5, **rest):
    return use_scan, steps, rest


def _forwarder(x, *, recycling=3, **sample_kwargs):
    sample_kwargs.pop("multiplicity", 1)
    sample_kwargs["backend"] = "xla"

    def sample():
        return _callee(**sample_kwargs)

    return sample()


def test_a_spread_dict_display_passes_its_items_as_keywords_the_last_binding_of_a_key_winning():
    kwargs = {"use_scan": True, "steps": 8}
    assert _callee(**kwargs) == (True, 8, {})
    assert _callee(**{**kwargs, "steps": 2}) == (True, 2, {})


def test_a_kwargs_parameter_spread_on_passes_the_keywords_its_call_gave_less_the_keys_it_changed():
    """`_forwarder`'s callers give `use_scan`; its nested `sample` spreads the enclosing function's
    `**sample_kwargs` (a closure): the callee gets the caller's `use_scan`, its default where the
    caller gives none, and whatever the function itself stored (`backend`) or popped."""
    assert _forwarder(0, use_scan=True, multiplicity=2) == (True, 5, {"backend": "xla"})
    assert _forwarder(0) == (False, 5, {"backend": "xla"})
    assert _forwarder(0, recycling=5, steps=1) == (False, 1, {"backend": "xla"})  # (a named parameter keeps its own)


def test_a_keyword_partial_binds_reaches_every_call_unless_the_call_passes_it():
    bound = functools.partial(_callee, use_scan=True)
    assert bound() == (True, 5, {})
    assert bound(use_scan=False) == (False, 5, {})


def _changed(source: str, name: str, bindings: int = 0):
    return _uses(cst.parse_module(source), name, bindings)[1]


def test_uses_reads_spreads_and_keyed_changes_and_refuses_the_rest():
    assert _changed("d = {'a': 1}\nf(**d)\ng({**d, 'b': 2})\nx = d['a'] + d.get('b', 0)\n'a' in d\n", "d", 1) \
        == frozenset()
    assert _changed("k.pop('m', 1)\nk['backend'] = 'xla'\nf(**k)\n", "k") == frozenset({"m", "backend"})
    for other in ("k.update(x=1)\n", "k[name] = 1\n", "h(k)\n", "k = {}\n", "del k\n", "k.pop(name)\n"):
        assert _changed(other + "f(**k)\n", "k") is None, other
