"""A JAX wrapper a notebook binds and none of its cells calls traces nothing (the eleventh JAX
audit's AN2, the tenth's AJ3: Quantum-Riemannian-Manifold-HMC's `hmc_sampler_cpu =
jit(hmc_sampler, backend='cpu')`, the next line calling `hmc_sampler` itself, eagerly). A wrapper
traces only when called (tests/runtime/test_jax_fresh_facts.py), and no module imports a notebook,
so its cells are all the code that can read the name. The twins: a later cell calls the wrapper;
a call in IPython syntax the module leaves out (`%timeit`); the same code in a `.py` module, which other modules, scripts and a one-file check's unseen
importers may call (`jaxstaging.mark_uncalled` leaves a module-level name taken as called)."""

from __future__ import annotations

import json
import os

from stagelint.engine import check_paths

_CELLS = [
    "import jax\nfrom jax import jit\n",
    "def sampler(x):\n    print('iter', x)\n    return x\n",
    "sampler_cpu = jit(sampler, backend='cpu')\nsampler_gpu = jit(sampler, backend='gpu')\n",
    "sampler(1.0)\n",
]


def _check(tmp_path, name: str, text: str):
    (tmp_path / name).write_text(text, encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = check_paths([name], jobs=1)
    finally:
        os.chdir(cwd)
    assert not result.errors, result.errors
    return sorted((f.line, f.code) for f in result.findings)


def _notebook(cells) -> str:
    return json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                   "source": cell.splitlines(keepends=True)} for cell in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_a_wrapper_no_cell_of_its_notebook_calls_stages_nothing(tmp_path):
    assert _check(tmp_path, "hmc.ipynb", _notebook(_CELLS)) == []


def test_a_wrapper_a_later_cell_calls_stages_its_function(tmp_path):
    assert _check(tmp_path, "hmc.ipynb", _notebook([*_CELLS, "sampler_cpu(2.0)\n"])) == [(2, "STG101")]


def test_a_wrapper_called_in_ipython_syntax_the_module_leaves_out_is_taken_as_called(tmp_path):
    """`%timeit sampler_cpu(2.0)` and a `%%time` cell run the wrapper in the kernel, though the
    module read from the cells holds neither (`notebooks.Notebook.hidden_names`)."""
    assert _check(tmp_path, "hmc.ipynb", _notebook([*_CELLS, "%timeit sampler_cpu(2.0)\n"])) == [(2, "STG101")]
    assert _check(tmp_path, "hmc.ipynb", _notebook([*_CELLS, "%%time\nsampler_gpu(2.0)\n"])) == [(2, "STG101")]


def test_the_same_wrapper_in_a_module_is_taken_as_called(tmp_path):
    assert _check(tmp_path, "hmc.py", "".join(_CELLS)) == [(4, "STG101")]
