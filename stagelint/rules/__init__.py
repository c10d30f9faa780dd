"""The rule catalog: one module per rule family; importing this package registers them all, and
it is where the registered rules are asked for (`all_rules`, `get_rule`, `severity`): above the
rule modules, so that `rules.base` never imports the modules that import it."""

from stagelint.rules import (  # noqa: F401
    captures,
    donation,
    effects,
    functional_updates,
    graph_python,
    leaks,
    noqa,
    python_values,
    retracing,
    runtime_only,
    shape_retracing,
    shapes,
    static_args,
    structure,
    syntax,
)
from stagelint.rules.base import REGISTRY, Rule


def all_rules() -> list[type[Rule]]:
    return [REGISTRY[c] for c in sorted(REGISTRY)]


def severity(code: str) -> str:
    """The rule's `severity` ("error" or "warning"); "error" for a code no rule has."""
    rule = get_rule(code)
    return rule.severity if rule is not None else "error"


def get_rule(code: str) -> type[Rule] | None:
    return REGISTRY.get(code.upper())
