"""The rule catalog: one module per rule family; importing this package registers them all."""

from stagelint.rules import captures, effects, graph_python, leaks, python_values, retracing, structure, syntax  # noqa: F401
