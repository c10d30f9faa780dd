"""Which staging frameworks a test session imports when it starts, from the imports of its files.

What the test modules and the `conftest.py` files pytest loads for them import at module level
whatever the conditions, followed through the project's modules. Imports in a function's body (an
export helper's `import tensorflow`) run only if it is called; imports under an `if` or in an
`except` handler run only if their condition holds (Keras imports the one backend it is configured
with under `if backend() == ...:`, so Keras's own modules name TensorFlow, JAX and Flax).
Neither is followed: importing a framework the session does not use costs seconds. The fork server imports those
once for both runs, and the recorder patches them before the tests are collected. A framework the
tests import later (in a test's body, through an installed library) is patched when it is imported
(`recorder.install`): nothing is missed, it only costs that import in each run. Nothing is imported
to find out (the files are parsed, as for linting).
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


def used_by(files: list[str]) -> frozenset[str]:
    """The frameworks the module-level imports of `files` bring in, whatever the conditions."""
    found: set[str] = set()
    for path in files:
        for module, level, _ in lint._imports(Path(path), "always"):
            if level:
                continue
            found.update(PACKAGES.get(module.split(".")[0], ()))
    return frozenset(found)


def conftests(test_module: str) -> list[str]:
    """The `conftest.py` files pytest loads for a test module: in its directory and each parent up
    to the project's root."""
    start = Path(test_module).resolve()
    root = lint.project_root_of(start)
    out = []
    for directory in (start.parent, *start.parents):
        if (directory / "conftest.py").is_file():
            out.append(str(directory / "conftest.py"))
        if directory == root:
            break
    return out


def of_tests(test_modules: list[str]) -> frozenset[str]:
    """The frameworks importing these test modules (and their conftest files) brings in."""
    files: dict[str, None] = {}
    for start in [*test_modules, *(c for m in test_modules for c in conftests(m))]:
        try:
            files.update(dict.fromkeys(lint.project_files(start, when="always")))
        except OSError:
            continue
    return used_by(list(files))


def named_by(test_modules: list[str]) -> frozenset[str]:
    """The frameworks the test modules and their conftest files import themselves (`of_tests`
    without following the project's modules: part of its answer, from a few files)."""
    files = [*test_modules, *(c for m in test_modules for c in conftests(m))]
    return used_by(list(dict.fromkeys(files)))


#: Framework name -> the top-level packages its preloading imports (`forkserver`).
IMPORTS = {"tf": ("tensorflow",), "jax": ("jax",), "flax": ("flax",), "equinox": ("equinox",)}


def held_by_project(test_module: str) -> frozenset[str]:
    """The frameworks whose package the project of `test_module` holds itself (its own source, as
    the test's imports resolve: `lint`), rather than an installed library."""
    start = Path(test_module).resolve()
    roots = lint._roots(start, lint.project_root_of(start))
    return frozenset(name for name, packages in IMPORTS.items()
                     if any(lint._module_file(p, roots) is not None for p in packages))


def from_env(environ=os.environ) -> frozenset[str]:
    text = environ.get(ENV, "")
    return frozenset(n for n in text.split(",") if n)


def to_env(frameworks: frozenset[str]) -> str:
    return ",".join(sorted(frameworks))
