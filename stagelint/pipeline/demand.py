"""Which deferred files the staged code needs: the rounds of `stagelint check` after the first.

The screen (`stagelint.pipeline.screen`) sends to the first round only the live files that spell an entry
point (`tf.function`, `def call(`, a configured decorator); in a TensorFlow code base where every
file imports TensorFlow, that is a fifth of the files or less. The other live files are
*deferred*. After each round the project phase runs on what has been analysed, and a deferred
file joins the next round when the staged code found so far needs it:

* **forward**, because staged code may run it: the targets of the calls made by reached
  functions, the helpers a staged function is handed to (`measure(train, data)`), the functions wrapped (`tf.function(f)`) or decorated with a project helper, the
  base classes of analysed classes (a Keras `call` is an entry point only once its base is
  known to be a Layer), the classes of objects passed in calls or whose attributes staged
  code reads (their `__init__` sets attributes up once), and the classes a staged function's
  parameters are annotated with (a pytree's registration says what of it is traced).
* **backward**, because it says something about the staged code: it imports (or spells after
  an imported name) a staged function, a function that calls one, a Function-valued binding,
  or a class with staged methods (a call site: Python scalars, tensors passed, a loop around
  the call), or it assigns an attribute that staged code reads on another object
  (`head.temperature = 0.5`: STG302), or an attribute named like a module constant whose
  `if` leaves a candidate unrun (`cfg.DEBUG = True` for `DEBUG = False`: `walk.module_flag_dead`).

Both ways a name goes to a file as the engine will resolve it (`Project.split_qualified`: the
module whose dotted name it starts with, or ends like, preferring the folder of the module that
spells it; then through the re-exports of analysed packages), not by how it is spelled: staged
code in `mnist/train.py` calling `models.head` needs `mnist/models.py`, not every `models.py`
of the project; `absltest.main()` is no call of a project module's `main`, and `lib.step(i)` of
an outside library no call of a staged `step`. A file the engine could not link to the staged
code adds nothing to it.

Rounds end when no deferred file is needed; those left are placeholders, as screened-out files
are. Each round depends only on the facts of the files analysed before it, so the same files
are analysed in the same rounds on every run, cold or warm, with any number of jobs.
"""

from __future__ import annotations

import re

from stagelint.analysis import facts as F

# `.attr = ...`, `.attr += ...`, not `.attr == ...` (the receiver is checked by `_stores`)
_ATTRIBUTE_STORE = re.compile(rb"\.[ \t]*([A-Za-z_]\w*)[ \t]*(?:[-+*/@%&|^]|//|\*\*|>>|<<)?=(?!=)")
_OWN = (b"self", b"cls")


def _stores(source: bytes) -> frozenset:
    """Attributes assigned on other objects (`head.temperature = 0.5`), not on `self`/`cls`:
    those belong to the object's own class, which staged code reaches through its bases."""
    out = set()
    for m in _ATTRIBUTE_STORE.finditer(source):
        start = m.start()
        if any(source[max(0, start - len(own)):start] == own
               and (start == len(own) or not _word(source[start - len(own) - 1])) for own in _OWN):
            continue
        out.add(m.group(1).decode())
    return frozenset(out)


def _word(byte: int) -> bool:
    """A byte of a name or a dotted chain: `myself.x` and `a.self.x` are not `self.x`."""
    return byte == 95 or byte == 46 or 48 <= byte <= 57 or 65 <= byte <= 90 or 97 <= byte <= 122


class Words:
    """What a deferred file can name from another module (the dotted names it imports or spells
    after an imported name: `from m import Foo`, `mod.helper(x)`), and the attributes it assigns
    on other objects, read once."""

    def __init__(self, sources: dict[str, bytes], names: dict[str, frozenset]):
        self._sources = sources
        self._names = names
        self._stores: dict[str, frozenset] = {}

    def names(self, real: str) -> frozenset:
        return self._names.get(real, frozenset())

    def stores(self, real: str) -> frozenset:
        got = self._stores.get(real)
        if got is None:
            got = self._stores[real] = _stores(self._sources.get(real, b""))
        return got


def demanded(project, analysed: list[F.ModuleFacts], deferred: dict[str, str], words: Words) -> list[str]:
    """The deferred files (real paths) the next round must analyse, sorted."""
    if not deferred:
        return []
    names: set[tuple[str, str]] = set()  # (dotted name staged code may run, the module that spells it)
    spelled: dict[str, set[str]] = {}  # top-level name -> modules where mentioning it makes a file a caller
    read_attrs: set[str] = set()
    for m in analysed:
        names.update((t[1], m.module) for t in (*m.wrapped, *m.fresh_wrapped) if t[0] == "name")
        for c in m.classes.values():
            names.update((b, m.module) for b in c.bases)
        for q, f in m.functions.items():
            names.update((d, m.module) for d in f.decorators)
            if f.wraps_param:
                spelled.setdefault(q.split(".")[0], set()).add(m.module)
        for key in m.wrapper_bindings:
            spelled.setdefault(_binding_name(key), set()).add(m.module)
    reached_names: set[str] = set()  # last parts of the reached functions' names
    for key in project.reached:
        f = project.function(key)
        if f is None:
            continue
        names.update((e.target[1], key[0]) for e in f.calls if e.target[0] == "name")
        # the classes its parameters' annotations name: their registration says which attributes
        # of a traced object are Python values (`analysis.pytrees`)
        names.update((c, key[0]) for c in f.param_classes.values())
        read_attrs.update(attr for _, attr in f.attr_reads)
        reached_names.add(key[1].rsplit(".", 1)[-1])
        if project.is_function_object(key):
            # Call sites matter where they run a Function: what they pass retraces it. Keras
            # traces `call` inside `fit`/`predict` whatever its callers pass, and a helper's
            # staged callers are analysed already (attribute writes are caught below).
            spelled.setdefault(key[1].split(".")[0], set()).add(key[0])  # the function, or the class of the method
    for m in analysed:
        # The call sites of reached functions: their callers, when they run a Function (their
        # own callers may pass the arguments on), and the classes of the objects they hand to
        # staged code, whose `__init__` says which attributes are set up once (STG302).
        for site in m.call_sites:
            if site.refs and site.target[0] == "name" and any(
                    project.resolve(m.module, tuple(r)) in project.reached for r in site.refs.values()):
                names.add((site.target[1], m.module))  # `measure(train, data)`: the helper may call `train` with data
            if site.target[-1].rsplit(".", 1)[-1] not in reached_names:
                continue  # cheap: most calls go elsewhere
            key = project.resolve(m.module, site.target)
            if key not in project.reached:
                continue
            if project.is_function_object(key) and site.caller:
                spelled.setdefault(site.caller.split(".")[0], set()).add(m.module)
            names.update((a.cls, m.module) for a in (*site.args, *site.kwargs.values()) if a.cls)
        names.update((w.owner, m.module) for w in m.attr_writes if w.owner and w.attr in read_attrs)
    module_of = {m.path: m.module for m in project.modules.values()}
    waiting = {module_of.get(shown): real for real, shown in deferred.items()}
    wanted = set()
    for name, near in names:
        for found, _ in _resolutions(project, name, near):
            if found in waiting:
                wanted.add(waiting[found])
                break
    # a module constant whose `if` leaves a candidate unrun (`DEBUG = False`): a file writing an
    # attribute so named (`cfg.DEBUG = True`) may switch it on (`walk.module_flag_dead`)
    read_attrs.update(name for m in analysed for name in m.flag_constants)
    analysed_modules = {m.module for m in analysed}
    for real in deferred:
        if real not in wanted and (not words.stores(real).isdisjoint(read_attrs) or _names_spelled(
                project, words.names(real), module_of.get(deferred[real]), spelled, analysed_modules)):
            wanted.add(real)
    return sorted(wanted)


def _binding_name(key: str) -> str:
    """The top-level name a wrapper binding is reached by from another module: `name:mod.step`
    by `step`, `self:Trainer:step` by the class `Trainer`."""
    kind, _, rest = key.partition(":")
    if kind == "self":
        return rest.split(":", 1)[0].split(".")[0]
    return rest.rsplit(".", 1)[-1]


def _names_spelled(project, names, module: str | None, spelled: dict[str, set[str]], analysed: set[str]) -> bool:
    """Whether one of a deferred file's dotted names (`screen.referenced_names`) leads to a
    spelled top-level name of the module that defines it (`_resolutions`, near the file): the
    `main` of `absltest.main()` is not a project module's `main`, nor `mylib.step` its `step`.
    Where a name leads into a module whose re-exports are unknown (no round analysed it) or a
    package (`from .impl import *`), the spelling alone counts."""
    for name in names:
        parts = name.split(".")
        if not any(part in spelled for part in parts[1:]):
            continue  # cheap: most names spell nothing staged
        for found, head in _resolutions(project, name, module):
            if found in spelled.get(head, ()):
                return True
            if found not in analysed or project.modules[found].is_package:
                if head in spelled or parts[-1] in spelled:
                    return True
                break
    return False


def _resolutions(project, name: str, near: str | None):
    """The (module, top-level name of it) a dotted name leads to, as the engine resolves a call
    (`Project.split_qualified`, near the module that spells it), then through each re-export it
    meets (`from .impl import helper` in `pkg/__init__.py`), as `Project.resolve` follows them.
    A name outside the project leads nowhere: the engine links no call to it."""
    for _ in range(5):
        split = project.split_qualified(name, near)
        if split is None:
            return
        found, rest = split
        head, _, tail = rest.partition(".")
        yield found, head
        target = project.modules[found].imports.get(head)
        if target is None:
            return
        name, near = target + ("." + tail if tail else ""), found
