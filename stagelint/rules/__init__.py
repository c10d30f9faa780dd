"""The rule catalog: one module per rule family; importing this package registers them all."""

from stagelint.rules import (  # noqa: F401
    captures,
    donation,
    effects,
    functional_updates,
    graph_python,
    leaks,
    python_values,
    retracing,
    runtime_only,
    shapes,
    static_args,
    structure,
    syntax,
)
