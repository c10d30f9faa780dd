"""The rule catalog: one module per rule family; importing this package registers them all."""

from stagelint.rules import captures, effects, leaks, structure, syntax  # noqa: F401
