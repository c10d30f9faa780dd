"""The language server's splice (`stagelint.pipeline.splice`): for an edit inside one top-level
`def` or `class`, only the units the edit can touch are walked again, and the facts it makes
are the facts the whole file's analysis makes of the new text (up to the order of list
entries), edit after edit; anything it cannot make exactly falls back to the whole file."""

from __future__ import annotations

import ast
import dataclasses
import random
import shutil
from pathlib import Path

import pytest

from stagelint.config import Settings
from stagelint.pipeline import splice as S
from stagelint.pipeline.perfile import analyze_source

HERE = Path(__file__).resolve().parent
LAYERS = HERE / "data" / "splice" / "layers.py"
CORPUS = HERE.parent / "bench" / ".corpus"
#: large files of the pinned corpus (`python bench/corpus.py`), many classes and helpers each
REAL = [
    "tf_models/official/vision/modeling/layers/nn_layers.py",
    "tf_models/official/legacy/xlnet/xlnet_modeling.py",
    "tf_models/official/core/train_utils.py",
    "keras_hub/keras_hub/src/models/swin_transformer/swin_transformer_layers.py",
]


def normal(x):
    """A fact as plain nested tuples, lists and dicts in a fixed order (the walk appends some
    entries late, the splice sorts them by place)."""
    if dataclasses.is_dataclass(x):
        return (type(x).__name__,) + tuple((f.name, normal(getattr(x, f.name))) for f in dataclasses.fields(x))
    if isinstance(x, dict):
        return ("dict",) + tuple(sorted(((repr(normal(k)), normal(v)) for k, v in x.items()), key=repr))
    if isinstance(x, (list, tuple)):
        return ("seq",) + tuple(sorted((normal(v) for v in x), key=repr))
    if isinstance(x, (set, frozenset)):
        return ("set",) + tuple(sorted(map(repr, x)))
    return x


def differing(a, b) -> list[str]:
    return [f.name for f in dataclasses.fields(a) if normal(getattr(a, f.name)) != normal(getattr(b, f.name))]


class File:
    """One file being edited, as the server keeps it: its text, and a `Memo` of its facts."""

    def __init__(self, root: Path, rel: str):
        self.rel = rel
        self.settings = Settings()
        self.roots = frozenset({rel.split("/")[0]})
        self.text = (root / rel).read_text()
        self.memo = S.Memo.of(self.text, self.whole(self.text), self.settings)
        self.walked: list[int] = []

    def whole(self, text: str):
        return analyze_source(self.rel, text.encode(), self.settings, self.roots)

    def edit(self, new: str):
        """(the splice's facts or None, the whole file's facts) of the new text; the file moves on."""
        spliced = S.splice(self.memo, new, self.whole) if self.memo is not None else None
        whole = self.whole(new)
        if spliced is not None:
            self.walked.append(spliced.walked)
            assert not differing(spliced.facts, whole), (self.rel, differing(spliced.facts, whole))
            # the next edit starts from the spliced facts, as in the server
            self.memo = S.Memo.of(new, spliced.facts, self.settings, units=spliced.units)
        else:
            self.memo = S.Memo.of(new, whole, self.settings)
        self.text = new
        return (spliced.facts if spliced else None), whole


@pytest.fixture
def layers(tmp_path, monkeypatch) -> File:
    (tmp_path / "pkg").mkdir()
    shutil.copy(LAYERS, tmp_path / "pkg" / "layers.py")
    monkeypatch.chdir(tmp_path)
    return File(tmp_path, "pkg/layers.py")


def _insert_after(text: str, anchor: str, line: str) -> str:
    assert anchor in text, anchor
    return text.replace(anchor, anchor + line, 1)


def test_a_print_typed_in_a_method_walks_its_class_and_what_it_names(layers):
    units = S.units_of(layers.text)
    new = _insert_after(layers.text, "    x = tf.reduce_mean(inputs, [1, 2], keepdims=True)\n", "    print('typed')\n")
    spliced, whole = layers.edit(new)
    assert spliced is not None
    plan = S._Plan(S.Memo.of(LAYERS.read_text(), layers.whole(LAYERS.read_text()), layers.settings), new,
                   S.staging_calls(layers.settings))
    walked = {units[i].name for i in plan.keep if units[i].name}
    # Squeeze, the helpers it calls, the `if __name__ == "__main__":` block that builds one and
    # what that calls; not the other layers, the dataset code or the trainer
    assert walked == {"Squeeze", "make_divisible", "scale_of", "train_step"}
    assert len(plan.blank) == 8

    def line_of(text, part):
        return next(i for i, line in enumerate(text.splitlines(), 1) if part in line)

    printed = [c for c in spliced.candidates if c.code == "STG101"]
    assert {(c.function, c.span.line) for c in printed} == {
        ("Squeeze.call", line_of(new, "print('typed')")), ("train_step", line_of(new, 'print("tracing"'))}
    # everything below the edit moved one line down, and the lambda's name says where it is now
    lambda_line = line_of(new, "return ds.map(lambda x: x * 2)")
    assert lambda_line == line_of(layers.text, "return ds.map(lambda") and lambda_line == 1 + line_of(
        LAYERS.read_text(), "return ds.map(lambda")
    assert any(q.startswith(f"make_dataset.<locals>.<lambda:{lambda_line}:") for q in spliced.functions)
    # taken out again: the facts of the original text
    spliced, whole = layers.edit(LAYERS.read_text())
    assert spliced is not None and not differing(spliced, layers.whole(LAYERS.read_text()))


@pytest.mark.parametrize("anchor, line, why", [
    ("EPSILON = 1e-3\n", "RATE = 2\n", "module level"),
    ("  def call(self, inputs):\n    return inputs * self._scale\n", "", "a new def in a class counts: body"),
    ("@tf.function\n", "@functools.lru_cache\n", "a decorator"),
    ("def clip(x, low=0.0, high=1.0):\n", "", "a signature"),
    ("    self.calls = 0\n", "    global history\n", "a `global` statement"),
    ("    self.calls = 0\n", "    self.calls = (\n", "a syntax error"),
    ("def clip(x, low=0.0, high=1.0):\n  return tf.clip_by_value(x, low, high)\n", "\n\ndef other():\n  pass\n",
     "a def added"),
])
def test_what_is_not_inside_one_body_is_analysed_whole(layers, anchor, line, why):
    if why == "a signature":
        new = layers.text.replace(anchor, "def clip(x, low=0.0, high=2.0):\n")
    elif why.startswith("a new def"):
        new = _insert_after(layers.text, anchor, "\n  def extra(self):\n    return 1\n")
    else:
        new = _insert_after(layers.text, anchor, line)
    spliced, whole = layers.edit(new)
    if why.startswith("a new def"):
        assert spliced is not None  # inside the class's body: the class is walked again
    else:
        assert spliced is None, why


def test_a_wrapper_made_in_the_edited_unit_walks_every_unit_that_makes_one(layers):
    """`tf.function(...)` calls record wrapper facts without a place: when the edited unit
    makes one, every unit that does is walked again."""
    new = _insert_after(layers.text, "  out = []\n", "  again = tf.function(lambda x: x)\n")
    spliced, _ = layers.edit(new)
    assert spliced is not None
    units = S.units_of(new)
    plan = S._Plan(S.Memo.of(LAYERS.read_text(), layers.whole(LAYERS.read_text()), layers.settings), new,
                   S.staging_calls(layers.settings))
    assert {"evaluate", "Trainer"} <= {units[i].name for i in plan.keep}


LINES = ["print('typed')", "x_new = 1", "tf.print(x_new)", "self.typed = 3", "pass", "for i in range(3): pass",
         "if x_new: x_new = tf.constant(2)", "history.append(1)", "step = tf.function(lambda v: v)"]


def random_edit(text: str, rnd: random.Random) -> str:
    """A line typed into, or taken out of, the body of a random function (at any depth)."""
    lines = text.splitlines(keepends=True)
    bodies = [st for node in ast.walk(ast.parse(text)) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
              for st in node.body]
    st = rnd.choice(bodies)
    simple = st.lineno == st.end_lineno and isinstance(st, (ast.Expr, ast.Assign, ast.AugAssign, ast.Return))
    if simple and rnd.random() < 0.4:
        return "".join(lines[: st.lineno - 1] + lines[st.lineno:])  # taken out
    at = st.lineno - 1 if rnd.random() < 0.5 else st.end_lineno
    return "".join(lines[:at] + [" " * st.col_offset + rnd.choice(LINES) + "\n"] + lines[at:])


def _real_files():
    return [pytest.param(rel, id=rel.split("/")[-1]) for rel in REAL if (CORPUS / rel).is_file()]


def _run_random_edits(file: File, edits: int, seed: int) -> None:
    rnd = random.Random(seed)
    for _ in range(edits):
        new = random_edit(file.text, rnd)
        try:
            ast.parse(new)
        except SyntaxError:
            continue
        file.edit(new)  # asserts the spliced facts are the whole file's


def test_random_edits_of_the_layers_module(layers):
    _run_random_edits(layers, 30, seed=1)
    assert len(layers.walked) >= 15  # most edits were spliced, not analysed whole


@pytest.mark.parametrize("rel", _real_files())
def test_random_edits_of_real_files(rel, monkeypatch):
    """On the pinned corpus's files (when `bench/corpus.py` has fetched it): edit after edit,
    the spliced facts are the whole file's."""
    root = CORPUS / rel.split("/")[0]
    monkeypatch.chdir(root)
    file = File(root, rel.split("/", 1)[1])
    _run_random_edits(file, 8, seed=len(rel))
    assert file.walked


PYTREE_BELOW = '''import jax
import jax.numpy as jnp


def scale(x):
    return x * 2


@jax.tree_util.register_pytree_node_class
class Box:
    def __init__(self, value, label):
        self.value, self.label = value, label

    def tree_flatten(self):
        return (self.value,), self.label

    @classmethod
    def tree_unflatten(cls, label, children):
        return cls(children[0], label)
'''


def test_a_line_typed_above_a_pytree_class_moves_where_its_flattening_is_spelled(tmp_path, monkeypatch):
    """The class's `pytree_line` (the proof's "flattened at line N") moves with the lines above
    it, like its span; the spliced facts are the whole file's."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "box.py").write_text(PYTREE_BELOW)
    monkeypatch.chdir(tmp_path)
    file = File(tmp_path, "pkg/box.py")
    line = file.whole(file.text).classes["box.Box"].pytree_line
    assert line > 0
    spliced, whole = file.edit(_insert_after(file.text, "def scale(x):\n", "    x = x + 1\n"))
    assert spliced is not None  # spliced, not analysed whole
    assert spliced.classes["box.Box"].pytree_line == whole.classes["box.Box"].pytree_line == line + 1


CALLED_ONCE = '''import argparse


def main():
    return 3


def helper():
    return [main]


def edited():
    args = argparse.Namespace(main=1)
    return args.main


def filler():
''' + "".join(f"    x{i} = {i}\n" for i in range(30)) + '''    return x0


if __name__ == "__main__":
    main()
'''


def test_a_blanked_body_reading_a_def_called_once_at_the_top_is_analysed_whole(tmp_path, monkeypatch):
    """`FunctionFacts.top_calls` counts the reads of the def's name in the whole module: when the
    def is walked again (the edited unit spells its name, `args.main`) while a unit reading it
    (`helper`'s `[main]`) is blanked, the reduced walk would count the top-level call alone: the
    whole file."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "once.py").write_text(CALLED_ONCE)
    monkeypatch.chdir(tmp_path)
    file = File(tmp_path, "pkg/once.py")
    assert file.whole(file.text).functions["main"].top_calls == 0  # read as a value too
    spliced, whole = file.edit(_insert_after(file.text, "def edited():\n", "    y = 1\n"))
    assert spliced is None and whole.functions["main"].top_calls == 0
    # without the value read, the one call at the top counts: spliced or not, the same facts
    spliced, whole = file.edit(file.text.replace("    return [main]\n", "    return []\n"))
    assert whole.functions["main"].top_calls == 1
    spliced, whole = file.edit(_insert_after(file.text, "def edited():\n", "    z = 2\n"))
    assert whole.functions["main"].top_calls == 1


def test_an_edit_of_a_def_called_once_at_the_top_is_spliced(tmp_path, monkeypatch):
    """Editing `main` itself, which the `__main__` block calls once and no blanked body names: the
    glue is walked whole, so the splice counts its reads as the whole file does."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "once.py").write_text(CALLED_ONCE.replace("    return [main]\n", "    return []\n"))
    monkeypatch.chdir(tmp_path)
    file = File(tmp_path, "pkg/once.py")
    spliced, whole = file.edit(_insert_after(file.text, "def main():\n", "    y = 1\n"))
    assert spliced is not None and spliced.functions["main"].top_calls == whole.functions["main"].top_calls == 1
