"""A call's arguments: which one a call passes for a parameter, read off the call alone.

The framework tables name a parameter by its position and its keyword (`frameworks`:
`lax.cond`'s branches, a `tf.data` transformation's function, a shaped constructor's shape, a
collective's `axis_name`, an optax transformation's `update_fn`); every step that asks what a
call passes there asks here.
"""

from __future__ import annotations

import libcst as cst


def passed_argument(call: cst.Call, position: int, keyword: str) -> cst.Arg | None:
    """The argument `call` passes for the parameter at `position` or named `keyword`: the one
    spelled `keyword=...`, else the positional one at `position` (counted among the arguments
    without a keyword or a star: what `*args` holds is unknown), else None
    (`jnp.ones((n, n))` and `jnp.ones(shape=(n, n))` both pass `(n, n)` at 0, `shape`)."""
    found, seen = None, 0
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value == keyword:
                return arg
        elif not arg.star:
            if seen == position:
                found = arg
            seen += 1
    return found
