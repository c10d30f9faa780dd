"""Which staging frameworks a test module uses, from the imports of its project files.

The runs import and patch only those: a TensorFlow user does not pay for importing JAX, a JAX user
not for TensorFlow, and stagelint works where only one of them is installed. Nothing is imported
to find out (the files are parsed, as for linting). A module that imports neither gets the
TensorFlow treatment, as before JAX was supported.
"""

from __future__ import annotations

import os
from pathlib import Path

from stagelint.runtime import lint

#: Top-level package -> the framework names its import brings in.
PACKAGES = {
    "tensorflow": ("tf",), "keras": ("tf",), "tf_keras": ("tf",),
    "jax": ("jax",), "jaxlib": ("jax",), "flax": ("jax", "flax"), "equinox": ("jax", "equinox"),
    "optax": ("jax",), "chex": ("jax",),
}
ENV = "STAGELINT_FRAMEWORKS"
DEFAULT = frozenset({"tf"})


def used_by(files: list[str]) -> frozenset[str]:
    found: set[str] = set()
    for path in files:
        for module, level, _ in lint._imports(Path(path)):
            if level:
                continue
            found.update(PACKAGES.get(module.split(".")[0], ()))
    return frozenset(found) or DEFAULT


def of_test_module(test_module: str) -> frozenset[str]:
    try:
        files = lint.project_files(test_module)
    except OSError:
        return DEFAULT
    return used_by(files)


def from_env(environ=os.environ) -> frozenset[str]:
    text = environ.get(ENV, "")
    names = frozenset(n for n in text.split(",") if n)
    return names or DEFAULT


def to_env(frameworks: frozenset[str]) -> str:
    return ",".join(sorted(frameworks))
