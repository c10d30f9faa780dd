"""A longer property-based fuzz run than the test suite's: hypothesmith-generated Python
(from the grammar and from libcst's node types) through the full per-file analysis.

    python bench/fuzz.py [--examples N]

Prints the number of examples and internal errors; exits 1 if any rule or the engine raised.
"""

from __future__ import annotations

import argparse
import sys
import time

import hypothesmith
import libcst as cst
from hypothesis import HealthCheck, given, settings

from stagelint.config import Settings
from stagelint.engine import analyze_source

ERRORS: list[tuple[str, str]] = []
COUNT = [0]


def analyse(source: str) -> None:
    COUNT[0] += 1
    facts = analyze_source("fuzz.py", source.encode("utf-8"), Settings())
    for code, tb in facts.errors:
        ERRORS.append((code, source))
        print(f"internal error in {code}:\n{tb}\n--- source ---\n{source}\n", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=2000, help="examples per strategy")
    args = parser.parse_args()
    config = settings(max_examples=args.examples, deadline=None, suppress_health_check=list(HealthCheck),
                      database=None)

    @config
    @given(hypothesmith.from_grammar())
    def grammar(source):
        analyse(source)

    @config
    @given(hypothesmith.from_node())
    def nodes(node):
        analyse(node if isinstance(node, str) else cst.Module([]).code_for_node(node))

    start = time.perf_counter()
    for name, test in (("from_grammar", grammar), ("from_node", nodes)):
        before = COUNT[0]
        test()
        print(f"{name}: {COUNT[0] - before} examples")
    elapsed = time.perf_counter() - start
    print(f"total: {COUNT[0]} examples in {elapsed:.0f} s, {len(ERRORS)} internal errors")
    return 1 if ERRORS else 0


if __name__ == "__main__":
    raise SystemExit(main())
