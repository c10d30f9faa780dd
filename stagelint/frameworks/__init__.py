"""Framework semantics as data, one module per framework (`tensorflow`); callers import the
names from the package."""

from stagelint.frameworks.tensorflow import *  # noqa: F401,F403
