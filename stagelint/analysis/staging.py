"""Which code is staged: entry points, and every function reachable from them by calls.

Entry points are functions decorated with a staging decorator (any spelling, any alias), the
targets of wrapper calls (`g = tf.function(f)`, `self.step = tf.function(self._step)`), Keras
methods (`call`, `train_step`, ...) of Layer/Model subclasses (also through project base
classes), functions decorated with a project helper that returns `tf.function(its_argument)`,
and configured extra decorators. From there, calls are followed through the same module,
`self.method()`, `super().method()`, nested functions, functions passed as arguments
(`tf.cond(p, f, g)`; not those handed to a project class's constructor, which the object keeps
and calls where the calls do not show), and project modules imported absolutely or relatively. Functions behind
`tf.py_function` run eagerly and are not followed, and so do functions decorated with a project
decorator whose wrapper hands them to `tf.py_function` (what a caller traces is the wrapper). The traversal visits every function once,
so recursion in the call graph terminates.
"""

from __future__ import annotations

from collections import deque

from stagelint.analysis import facts as F
from stagelint.analysis.graphs import reachable
from stagelint.analysis.shadowing import shadowed
from stagelint.frameworks import (KERAS3_BASE_PREFIXES, KERAS_COMPILED_STEPS, KERAS_DYNAMIC_KEYWORD, KERAS_EAGER_COMPILE,
                                  KERAS_HAND_TRAINING, KERAS_LIBRARY_PREFIXES, KERAS_LOOP_STEPS, KERAS_RUNNING_METHODS, KERAS_RUN_EAGERLY,
                                  KERAS_SAVED, KERAS_SEQUENTIAL_ENTRY,
                                  KERAS_STEP_CALL_KEYWORDS, KERAS_STEP_METHODS, KERAS_SYMBOLIC_BUILDS, KERAS_SYMBOLIC_SCOPE,
                                  KERAS_UNBUILT, Framework)

Key = tuple[str, str]  # (module, qualname)


class Project:
    def __init__(self, modules: list[F.ModuleFacts], settings, framework: Framework, call_sites: bool = True,
                 reuse: "Project | None" = None):
        """`call_sites=False` finds the entry points and what they reach, and stops there
        (`call_sites`, `function_calls` stay empty): what the rounds of `stagelint.pipeline.demand` need.
        `reuse`: a project whose resolutions still hold for these modules (the same modules and
        resolution surfaces, `stagelint.pipeline.incremental`): they are not made again."""
        self.settings = settings
        self.framework = framework
        self.modules: dict[str, F.ModuleFacts] = {}
        F.disambiguate(modules)  # `a/model.py` and `b/model.py`: two modules, not one
        for m in modules:
            self.modules.setdefault(m.module, m)
        self._suffixes: dict[str, set[str]] = {}
        self._outer: dict[str, str] | None = None
        for name in self.modules:
            parts = name.split(".")
            for i in range(1, len(parts)):
                self._suffixes.setdefault(".".join(parts[i:]), set()).add(name)
        self.classes: dict[str, tuple[str, F.ClassFacts]] = {}
        for m in self.modules.values():
            for q, c in m.classes.items():
                self.classes[q] = (m.module, c)
        self._resolved: dict[tuple, Key | None] = dict(reuse._resolved) if reuse is not None else {}
        self._layer_memo: dict[str, bool] = dict(reuse._layer_memo) if reuse is not None else {}
        #: (class, attribute) -> what `analysis.shadowing` found (depends on every module: not reused)
        self.shadow_memo: dict[tuple[str, str], tuple | None] = {}
        self.entries: dict[Key, str] = {}
        #: functions a `tf.data` transformation traces -> parameters `functools.partial` binds
        self.dataset_bound: dict[Key, set[str]] = {}
        #: `tf.data` functions given only to receivers that are datasets as a guess (a parameter
        #: `.shuffle(...)`d: `analysis.datasets`): entry point -> (path, line, why); entry points
        #: of the preview tier (`staging_unshown`)
        self.dataset_guessed: dict[Key, tuple[str, int, str]] = {}
        #: `tf.data` functions -> how many leading positional parameters the transformations' calls
        #: fill (a bound method's `self`, what `partial` binds, the element's components), the most
        #: of any; None when one call's element is not shown (`datasets.element_components`)
        self.dataset_filled: dict[Key, int | None] = {}
        self.reached: dict[Key, Key] = {}  # function -> the entry point that reaches it
        self.unguarded: set[Key] = set()  # reachable without passing a first-call guard
        self.call_sites: dict[Key, list[tuple[str, F.CallSite]]] = {}
        #: calls that run a Function object (a decorated function, or `g = tf.function(f)` called
        #: as `g(...)`): (module, site, via) where `via` names the wrapper binding ("" if decorated),
        #: or for a call of what a factory returned (`step = make_step()` ... `step(x)`: a new
        #: Function per factory call) "returned:<module>:<the binding's place>", one per object
        self.function_calls: dict[Key, list[tuple[str, F.CallSite, str]]] = {}
        #: (function, via) of wrapper bindings made with an `input_signature`
        self.signature_objects: set[tuple[Key, str]] = set()
        self._families: dict[str, set[str]] = {}
        self._subclasses: dict[str, list[str]] | None = None
        self._writes_by_attr: dict[str, list[tuple[str, F.AttrWrite]]] | None = None
        self._bound_method_sites: set[int] = set()
        #: module -> (its facts, what each of its call sites resolved to), and the wrapper
        #: bindings they were read with: what a later project with the same resolutions reuses
        self._sites_of: dict[str, tuple] = {}
        self._site_bindings: dict | None = None
        self._reused: Project | None = reuse
        self._afresh: set[Key] | None = None
        #: project decorators that hand what they decorate to `tf.py_function` (`escaped`)
        self._escaping: set[str] = set()
        self._callers: dict[Key, set[Key]] | None = None
        self._programs: dict[str, frozenset[str]] | None = None  # `programs`
        self._converted: set[Key] | None = None
        #: what code known to be staged reaches (`keras_unshown`), each with its known entry point,
        #: and why Keras traces a class's methods: (class, method) -> the reason
        self._known: dict[Key, Key] | None = None
        self._keras_why: dict[tuple[str, str], str] = {}
        self._dynamic: set[str] = set()  # `_dynamic_classes`
        #: Keras classes run in graph mode: class -> (known for every program, how): `eagerswitch.graph_classes`
        self._graph: dict[str, tuple[bool, str]] = {}
        self._graph_outside: dict[Key, Key] | None = None
        self._untraced_parts: set[str] | None = None  # `_parts_staging_nothing`
        self._reach_counts: dict | None = None  # `_runs_no_project_code`
        self._parts: dict[str, str] | None = None  # `_import_parts`
        self._built_only_parts: set[str] | None = None  # `_parts_staging_nothing(symbolic=False)`
        self._function_known: dict[Key, Key] | None = None  # `function_reached`
        self._find_entries()
        from stagelint.analysis.eagerswitch import driver_eager_entries, eager_entries
        from stagelint.analysis.jaxstaging import JaxView

        #: what JAX stages, and how (issue 14): its entry points are entry points here too
        self.jax = JaxView(self)
        for key in self.jax.entries:
            if not self.escaped(key):
                self.entries.setdefault(key, "wrapper")
        # Functions every program runs eagerly (`tf.config.run_functions_eagerly(True)` at import)
        eager = eager_entries(self)
        for key in eager:
            del self.entries[key]
        #: Functions every program of the project runs with the switch on, set first by the
        #: program (`eagerswitch.driver_eager_entries`): traced only by a program outside it
        self.driver_eager: dict[Key, str] = driver_eager_entries(self, eager)
        self._outside_only: dict[Key, Key] | None = None
        self._reach()
        self.jax.reach()
        if call_sites:
            self._index_call_sites()

    # Lookup -----------------------------------------------------------------------------------

    def function(self, key: Key) -> F.FunctionFacts | None:
        m = self.modules.get(key[0])
        return m.functions.get(key[1]) if m else None

    def staged_by_jax(self, key: Key) -> bool:
        """Whether JAX, and not TensorFlow, stages the function (`JaxView.framework_of`): the one
        question rules and the analysis ask to choose between the two frameworks' facts."""
        return self.jax.framework_of(key) == "jax"

    def staging_decorators(self) -> frozenset[str]:
        """What stages the function it is given or decorates: the frameworks' staging APIs and the
        project's own (the `staging-decorators` setting)."""
        return self.framework.staging_decorators | set(self.settings.staging_decorators)

    def is_function_object(self, key: Key) -> bool:
        """The function is an entry point the code stages into an object it calls: decorated
        (`@tf.function`, `@jax.jit`) or wrapped (`g = tf.function(f)`, `jax.jit(f)`), not a Keras
        layer's method or a `tf.data` function, which the framework traces and runs itself."""
        return self.entries.get(key) in ("decorator", "wrapper")

    def module_named(self, dotted: str, near: str | None = None) -> str | None:
        """The project module a dotted name means: itself, the one module whose name ends with it,
        or among several the one in the folder of `near` (the importing module); else None."""
        if dotted in self.modules:
            return dotted
        matches = self._suffixes.get(dotted)
        if matches and len(matches) == 1:
            return next(iter(matches))
        if matches and near:
            # `from model import step` in a/train.py, with a/model.py and b/model.py: the one
            # in the importer's folder
            folder = near.rpartition(".")[0]
            same = [m for m in matches if m.rpartition(".")[0] == folder]
            if len(same) == 1:
                return same[0]
        if not matches:
            return self._outer_names().get(dotted)
        return None

    def _outer_names(self) -> dict[str, str]:
        """Longer names of modules below a folder without `__init__.py`: a namespace package
        (PEP 420), so `a.ns.b.c` imports a/ns/b/c.py when `a` is importable, though the module's
        own name starts below `ns` (`b.c`; checked with Python 3: `import a.ns.b.c` works with
        a/__init__.py and no a/ns/__init__.py). Each name the folders above it spell -> the
        module, when one module alone has it."""
        if self._outer is None:
            found: dict[str, str | None] = {}
            for name, m in self.modules.items():
                parts = name.split(".")
                path = m.path.replace("\\", "/").split("/")
                last = path[-1].rpartition(".")[0] if "." in path[-1] else path[-1]
                path = path[:-1] if last == "__init__" else path[:-1] + [last]
                if len(path) <= len(parts) or path[-len(parts):] != parts:
                    continue
                for i in range(len(path) - len(parts) - 1, -1, -1):
                    longer = ".".join(path[i:])
                    found[longer] = name if longer not in found else None
            self._outer = {k: v for k, v in found.items() if v is not None and k not in self.modules}
        return self._outer

    def split_qualified(self, qualified: str, near: str | None = None) -> tuple[str, str] | None:
        """`pkg.mod.Class.method` -> (`pkg.mod`, `Class.method`), longest module prefix first."""
        parts = qualified.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = self.module_named(".".join(parts[:i]), near)
            if module is not None:
                return module, ".".join(parts[i:])
        return None

    def resolve(self, module: str, target: F.Target, _depth: int = 0) -> Key | None:
        cache_key = (module, target)
        if cache_key in self._resolved:
            return self._resolved[cache_key]
        result = self._resolve(module, target, _depth)
        self._resolved[cache_key] = result
        return result

    def _resolve(self, module: str, target: F.Target, depth: int) -> Key | None:
        if target[0] == "param":
            return None  # a call of the caller's own parameter: `_forward_param_calls`
        if target[0] in ("self", "super"):
            _, cls, method = target
            return self.method_of(cls, method, skip_self=target[0] == "super")
        qualified = target[1]
        split = self.split_qualified(qualified, module)
        if split is None or depth > 4:
            return None
        mod, rest = split
        facts = self.modules[mod]
        if rest in facts.functions:
            return (mod, rest)
        head, _, tail = rest.partition(".")
        if head in facts.imports:  # a re-export: `from .impl import helper` in pkg/__init__.py
            return self.resolve(mod, ("name", facts.imports[head] + ("." + tail if tail else "")), depth + 1)
        return None

    def resolve_call(self, caller: Key | None, target: F.Target, span: F.Span, module: str = "") -> Key | None:
        """The project function a call `caller` makes at `span` runs: `resolve`'s, but none for a
        `self.name(...)` that reads an attribute `__init__` bound over the method `name`
        (`analysis.shadowing`)."""
        key = self.resolve(caller[0] if caller is not None else module, target)
        if key is not None and caller is not None and target[0] == "self" and shadowed(self, caller, target, span):
            return None
        return key

    def resolve_class(self, qualified: str) -> tuple[str, F.ClassFacts] | None:
        # Re-exports are followed name by name; two modules may import a name from each other
        # (a package re-exports `predict` and the defining module imports it back under
        # `if __name__ == "__main__":`), so a name seen before ends the chain.
        seen: set[str] = set()
        while qualified not in seen:
            seen.add(qualified)
            if qualified in self.classes:
                return self.classes[qualified]
            split = self.split_qualified(qualified)
            if split is None:
                return None
            mod, rest = split
            found = self.classes.get(f"{mod}.{rest}")
            head, _, tail = rest.partition(".")
            if found is not None or head not in self.modules[mod].imports:
                return found
            qualified = self.modules[mod].imports[head] + ("." + tail if tail else "")
        return None

    def class_near(self, qualified: str, module: str) -> tuple[str, F.ClassFacts] | None:
        """The project class a name spelled in `module` means (`models.Model` from `from models
        import Model`): the class itself, else the one in the importer's folder when several
        modules end the same way (`split_qualified`); None for a library class or an unknown one."""
        found = self.resolve_class(qualified)
        if found is None:
            split = self.split_qualified(qualified, module)
            found = self.resolve_class(f"{split[0]}.{split[1]}") if split is not None else None
        return found

    def _call_needs_more_than_x(self, cls: str, steps) -> bool:
        """Keras's own step runs `cls`'s `call` on the batch's one input and raises TypeError
        (`frameworks.KERAS_STEP_CALL_KEYWORDS`): the class's `call` requires a positional argument
        beyond the input (`training` and `mask` apart), and no class of its lineage overrides
        `__call__` or the step (`train_step`...); every base the project does not hold is a
        Keras class, whose steps are Keras's own."""
        call = self.method_of(cls, "call")
        f = self.function(call) if call is not None else None
        if f is None or any(self.method_of(cls, m) is not None for m in (*(steps - {"call"}), "__call__")):
            return False
        if any(found is None and not name.startswith(("keras.", "tensorflow.keras.", "tf_keras."))
               for name, found in self.lineage(cls)):
            return False
        required = [p for p in f.required_positional[1:] if p not in KERAS_STEP_CALL_KEYWORDS]
        return len(required) > 1

    def lineage(self, cls: str):
        """`cls` and every class it derives from, each once: (name, `resolve_class(name)`), None
        for a class the project does not hold (whose own bases are not followed)."""
        todo, seen = [cls], set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            found = self.resolve_class(name)
            yield name, found
            if found is not None:
                todo.extend(found[1].bases)

    def method_of(self, cls: str, method: str, skip_self: bool = False, _seen=None) -> Key | None:
        """The project function `cls.method` runs: the class's own def or the first base's (in
        the order of the bases), past the class itself with `skip_self` (`super().method`); None
        for a property's name or a method no project class defines."""
        _seen = _seen or set()
        if cls in _seen:
            return None
        _seen.add(cls)
        found = self.resolve_class(cls)
        if found is None:
            return None
        mod, facts = found
        if not skip_self:
            qual = f"{facts.qualname[len(mod) + 1:]}.{method}"
            if qual in self.modules[mod].functions:
                if any(d.endswith((".setter", ".deleter")) for d in self.modules[mod].functions[qual].decorators):
                    # a property (its setter shares the name): `self.tokenizer(x)` calls the object
                    # the property returns, never the setter
                    return None
                return (mod, qual)
        for base in facts.bases:
            key = self.method_of(base, method, _seen=_seen)
            if key is not None:
                return key
        return None

    def is_layer_class(self, cls: str) -> bool:
        """A Keras Layer/Model subclass, directly or through project base classes."""
        if cls not in self._layer_memo:
            self._layer_memo[cls] = self.derives(cls, self.framework.is_layer_base)
        return self._layer_memo[cls]

    def keras3_class(self, cls: str) -> bool:
        """A Layer/Model subclass built on Keras 3 (`keras.layers.Layer`), directly or through
        project base classes: Keras runs its methods without AutoGraph."""
        return self.derives(cls, lambda base: base.startswith(KERAS3_BASE_PREFIXES) and self.framework.is_layer_base(base))

    def converted(self, key: Key) -> bool:
        """AutoGraph converts the function wherever staged code reaches it: False when every
        entry point that reaches it runs without AutoGraph (`autograph=False`, or a Keras 3
        method that Keras calls as plain Python)."""
        if self._converted is None:
            converting = []
            for entry, kind in self.entries.items():
                f = self.function(entry)
                if f is None or not f.autograph or entry in self.jax.entries:
                    continue  # (JAX has no AutoGraph)
                if kind == "keras" and f.class_qualname and self.keras3_class(f.class_qualname):
                    continue
                converting.append(entry)
            seen: dict[Key, Key] = {}
            for entry in sorted(converting):
                self.reach_from(entry, seen, only_unguarded=False)
            self._converted = set(seen)
        return key in self._converted

    # Entry points and reachability ------------------------------------------------------------

    def _find_entries(self) -> None:
        fw = self.framework
        wrappers: set[str] = set()
        for m in self.modules.values():
            for f in m.functions.values():
                if f.wraps_param and "<locals>" not in f.qualname:
                    wrappers.add(f"{m.module}.{f.qualname}")
        for m in self.modules.values():
            for f in m.functions.values():
                if f.escapes_param and "<locals>" not in f.qualname:
                    self._escaping.add(f"{m.module}.{f.qualname}")
        for m in sorted(self.modules.values(), key=lambda m: m.module):
            superseded = {q for q, c in m.classes.items() if c.superseded}
            for q, f in m.functions.items():
                if self.escaped((m.module, q)):
                    continue
                if superseded and f.class_qualname and (f.class_qualname in superseded or any(
                        f.class_qualname.startswith(c + ".") for c in superseded)):
                    continue  # no code reaches the class (`ClassFacts.superseded`): its methods never run
                key = (m.module, q)
                if f.staged_by:
                    self.entries[key] = "decorator"
                elif any(self._is_wrapper(m.module, d, wrappers) for d in f.decorators):
                    self.entries[key] = "decorator"
                elif (
                    self.settings.keras_methods
                    and f.class_qualname
                    and f.name in fw.staged_methods
                    and self.is_layer_class(f.class_qualname)
                ):
                    self.entries[key] = "keras"
            for target in m.wrapped:
                key = self.resolve(m.module, target)
                if key is not None and key not in self.entries:
                    self.entries[key] = "wrapper"
            for df in m.dataset_functions:
                key = self.resolve(m.module, df.target)
                if key is None or self.escaped(key):
                    continue
                self.dataset_bound.setdefault(key, set()).update(self._partial_bound(key, df))
                filled = self._dataset_filled(key, df)
                known = self.dataset_filled.get(key, 0)
                self.dataset_filled[key] = None if filled is None or known is None else max(known, filled)
                if key not in self.entries:
                    self.entries[key] = "dataset"
                    if df.guess:
                        self.dataset_guessed[key] = (m.path, df.span.line, df.guess)
                elif not df.guess:
                    self.dataset_guessed.pop(key, None)  # a dataset shown to trace it too

        self._drop_hand_driven()
        self._drop_run_eagerly()
        self._dynamic = self._dynamic_classes()
        from stagelint.analysis.eagerswitch import graph_classes
        self._graph = graph_classes(self)

    def _drop_hand_driven(self) -> None:
        """Keras methods of a class whose `train_step` (`test_step`, `predict_step`) the code calls
        by hand, from eager code, on objects it never trains (no `fit`, `evaluate`, `predict`,
        `compile` on them): Keras traces nothing of it, so they are no entry points (the
        tensorflow/docs migration guides drive a model this way to log numbers eagerly)."""
        driven: dict[str, set[str]] = {}  # class -> idents of the objects driven by hand
        trained_classes: set[str] = set()
        trained_idents: set[str] = set()
        for m in self.modules.values():
            for method, cls, ident, caller in m.keras_drives:
                # idents name a binding within one module (`model@12`)
                if method in KERAS_STEP_METHODS:
                    if cls and ident and (caller is None or (m.module, caller) not in self.entries):
                        driven.setdefault(self.resolved_class_name(cls), set()).add(f"{m.module}:{ident}")
                elif method != KERAS_UNBUILT:
                    if cls:
                        trained_classes.add(self.resolved_class_name(cls))
                    if ident:
                        trained_idents.add(f"{m.module}:{ident}")
        for cls, idents in driven.items():
            # the project's classes an object of `cls` may be: `tf.keras.Model().fit(...)` elsewhere
            # trains no object of this class
            family = {c for c in self.class_family(cls) if c in self.classes}
            if idents & trained_idents or family & trained_classes:
                continue
            lineage = self._lineage(cls)
            for key, kind in list(self.entries.items()):
                f = self.function(key)
                if kind == "keras" and f is not None and self.resolved_class_name(f.class_qualname) in lineage:
                    del self.entries[key]

    def _lineage(self, cls: str) -> set[str]:
        """The class and its project bases, whose methods its objects run."""
        lineage, todo = set(), [cls]
        while todo:
            found = self.resolve_class(todo.pop())
            if found is not None and found[1].qualname not in lineage:
                lineage.add(found[1].qualname)
                todo.extend(found[1].bases)
        return lineage

    def _drop_run_eagerly(self) -> None:
        """Keras step methods (`train_step`, ...) of classes whose every trained object the project
        compiles with `run_eagerly=True`: `fit` then runs them as Python once per batch
        (`frameworks.KERAS_EAGER_COMPILE`). Kept when an object whose class runs them is trained
        without it, or compiled both ways, or when a module trains an object of a class it does
        does not show (it may be one of these): anywhere in the project, or, for a class made
        inside a function (a test's own model), in that function."""
        eager, plain, trained = set(), set(), []
        for m in self.modules.values():
            for method, cls, ident, caller in m.keras_drives:
                where = f"{m.module}:{ident}" if ident else ""
                if method == KERAS_EAGER_COMPILE:
                    eager.add(where)
                elif method == "compile":
                    plain.add(where)
                elif method in KERAS_RUNNING_METHODS:
                    trained.append((f"{m.module}.{caller}" if caller else m.module,
                                    self.resolved_class_name(cls) if cls else "", where))
        eager -= plain | {""}
        only_eagerly = self._compiled_only_eagerly() if eager else set()
        if not eager:
            return
        run_eagerly, traced, blind = set(), set(), []
        for scope, cls, where in trained:
            if not cls or not where:
                blind.append(scope)
            elif where in eager:
                run_eagerly |= self._lineage(cls)
            else:
                traced |= self._lineage(cls)
        for key, kind in list(self.entries.items()):
            f = self.function(key)
            if not (kind == "keras" and f is not None and f.name in KERAS_STEP_METHODS):
                continue
            cls = self.resolved_class_name(f.class_qualname or "")
            maker, local, _ = cls.partition(".<locals>.")
            if not local:
                maker = ""
            if (cls in run_eagerly and cls not in traced
                    and not any(maker == "" or scope == maker or scope.startswith(maker + ".") for scope in blind)):
                del self.entries[key]
            elif f.name in KERAS_COMPILED_STEPS and (self._import_parts()[key[0]], cls) in only_eagerly:
                del self.entries[key]

    def _compiled_only_eagerly(self) -> set[tuple[str, str]]:
        """(part, class) for the project classes whose every object the program compiles, if at
        all, with `run_eagerly=True`: their `train_step` / `test_step` run as Python under every
        Keras loop, since those loops need a compiled model (`frameworks.KERAS_COMPILED_STEPS`),
        wherever the loop runs and on whatever name the object travels (a factory that builds and
        compiles the model, `fit` in a trainer taking it as a parameter). Read per part of the
        project (`_import_parts`: an object of a class made in one part is compiled in no other):
        the classes of the objects an eager compile there shows, and their project bases; none of
        those a compile without it there may be an object of (its class unknown, or one of theirs:
        a subclass trained so traces its bases' steps). No class of a part that sets `run_eagerly`
        by assignment, or holds a file no round read spelling a compile (what it compiles is not
        shown)."""
        part = self._import_parts()
        eager: dict[str, set[str]] = {}
        plain: dict[str, set[str]] = {}
        blind: set[str] = set()
        for m in self.modules.values():
            p = part[m.module]
            if any(kind == "keras compile" for _, kind, _ in m.eager_switch) \
                    or any(w.attr == KERAS_RUN_EAGERLY for w in m.attr_writes):
                blind.add(p)
            for method, cls, _ident, _caller in m.keras_drives:
                if method not in (KERAS_EAGER_COMPILE, "compile"):
                    continue
                found = self.class_near(cls, m.module) if cls else None
                if method == KERAS_EAGER_COMPILE:
                    if found is not None:
                        eager.setdefault(p, set()).update(self._lineage(found[1].qualname))
                elif found is not None:
                    plain.setdefault(p, set()).update(self._lineage(found[1].qualname))
                elif not cls.startswith(KERAS_LIBRARY_PREFIXES):
                    blind.add(p)  # an object of any class, or of a project class not resolved
        return {(p, cls) for p, classes in eager.items() if p not in blind
                for cls in classes - plain.get(p, set())}

    def _dynamic_classes(self) -> set[str]:
        """Layer and model classes whose own `__init__` passes `dynamic=True` to their Keras base
        (`ClassFacts.dynamic_line`): Keras never traces their methods (`frameworks.KERAS_DYNAMIC_KEYWORD`:
        Keras 2 runs a dynamic layer, and a model holding one, eagerly; Keras 3 refuses the
        keyword), while a `tf.function` calling such an object still traces its `call`
        (`known_reached`). Not one when a base is a project class (its `__init__` gets the
        keyword), or when the True is a default and some construction in the project passes
        `dynamic` or spreads its arguments."""
        dynamic: set[str] = set()
        for m in self.modules.values():
            for q, c in m.classes.items():
                if (c.dynamic_line and self.is_layer_class(q)
                        and not any(self.resolve_class(b) is not None for b in c.bases)):
                    dynamic.add(q)
        if not dynamic:
            return dynamic
        for m in self.modules.values():
            for site in m.call_sites:
                if site.target[0] != "name" or not (site.spread or KERAS_DYNAMIC_KEYWORD in site.kwargs):
                    continue
                found = self.resolve_class(site.target[1])
                if found is not None and found[1].dynamic_default:
                    dynamic.discard(found[1].qualname)
        return dynamic

    # Which Keras methods the code shows traced (issue 23, certainty) ------------------------------

    def keras_unshown(self, key: Key) -> str | None:
        """Why the staging of `key` is not known: every entry point that reaches it is a Keras
        method the code does not show Keras tracing (`frameworks.KERAS_LOOP_STEPS`: no `fit` or
        other Keras loop runs its class, no traced code or symbolic input calls it). None when
        an entry point known to be staged reaches it, or nothing does."""
        if key not in self.reached:
            return None
        known = self.known_reached()
        if key in known:
            return None
        entry = self.reached[key]
        f = self.function(entry)
        if self.entries.get(entry) != "keras" or f is None:
            return None
        return (f"nothing in the code shows Keras tracing `{self.display(entry, entry[0])}`: called directly "
                f"on eager tensors a layer runs `{f.name}` as Python; Keras traces it under `fit`/`evaluate`/"
                f"`predict`, in traced code, on symbolic inputs (`keras.Input`, `Sequential`) or when saved")

    def keras_untraced_here(self, key: Key) -> bool:
        """`key` is a Keras method nothing shows traced (`keras_unshown`), no module near its
        entry point stages anything (no `tf.function` or other entry point, no Keras loop,
        functional build, `Sequential`, save or export, read in the modules joined to it by
        imports; those no round analysed by their spelling: `frameworks.KERAS_DRIVE_SPELLING`), and
        one of them trains by hand outside staged code (`frameworks.KERAS_HAND_TRAINING`). Keras
        traces a layer only under those (`frameworks.KERAS_LOOP_STEPS`); called from plain Python,
        as all the code near it can, a layer runs its `call` as Python on every call, and the
        training the code shows runs eagerly (TF 2.21 / Keras 3:
        tests/runtime/test_tf_keras_tracing_facts.py, test_tf_keras_hand_training_facts.py). Such a method is traced only by code the
        project does not hold; the preview tier's guess that Keras traces it goes against all the
        code shows, and is not made. (A layer library nothing near it uses either way stays a
        guess, the preview tier.)"""
        if self.keras_unshown(key) is None:
            return False
        if self._untraced_parts is None:
            self._untraced_parts = self._parts_staging_nothing()
        return self.reached[key][0] in self._untraced_parts

    def keras_built_only_here(self, key: Key) -> bool:
        """`key` is reached from a Keras method, and the part of the project joined to it by imports
        (as in `keras_untraced_here`) stages nothing but Keras's symbolic builds (a functional model
        on `keras.Input`, a `Sequential`: no `tf.function` or other entry point, no Keras loop, save
        or export) and trains by hand outside staged code. A symbolic build runs `call` once and
        makes no `tf.function` (`frameworks.KERAS_SYMBOLIC_BUILDS`), and the hand training calls the
        built model eagerly: no Function ever traces the method, so what holds only of a Function's
        traces (`Rule.function_trace`: a variable created on a non-first trace raises) does not
        happen here. Where the part stages anything else, whether it reaches the method is left as
        `known_reached` finds it."""
        if key not in self.reached or self.entries.get(self.reached[key]) != "keras":
            return False
        if self._built_only_parts is None:
            self._built_only_parts = self._parts_staging_nothing(symbolic=False)
        return self.reached[key][0] in self._built_only_parts and key[0] in self._built_only_parts

    def keras_function_unshown(self, key: Key) -> str | None:
        """Why whether a Function ever runs `key` is a guess (None when the code shows it, or
        shows nothing traced at all: `keras_unshown`): `key` is reached from a Keras method the
        code shows traced (`known_reached`) only through Keras's symbolic builds (a functional
        model on `keras.Input`, a `Sequential`), and nothing shows a Function running an object of
        its class (`function_reached`: a Keras loop, save or step, a `tf.function` or a traced
        `call` calling or making it, a model the code does not resolve run so in its part). A
        symbolic build runs `call` on symbolic tensors outside any Function, once
        (`frameworks.KERAS_SYMBOLIC_BUILDS`), so what holds only of a Function's traces
        (`Rule.function_trace`: a variable created on a trace after the first raises) needs code
        that runs the built model under a Function, which the project does not show and code
        outside it may hold (a guess; the nineteenth TF audit's BV-t1, and its generalisation:
        a part that stages something unrelated shows nothing of this layer either)."""
        if key not in self.reached or self.entries.get(self.reached[key]) != "keras" \
                or key not in self.known_reached() or key in self.function_reached():
            return None
        entry = self.reached[key]
        return (f"nothing in the code shows a Function running `{self.display(entry, entry[0])}`: Keras runs it on "
                f"symbolic inputs only (a functional build, a `Sequential`), which trace nothing again, and no Keras "
                f"loop, save or step, `tf.function` or traced layer shown runs an object of its class, which code "
                f"outside the project may do (a guess)")

    def _import_parts(self) -> dict[str, str]:
        """Each module's part of the project: the modules joined to it by imports, either way
        (module -> a name for its part). An object a module makes reaches another only through a
        call or an import joining them, or through code outside the project."""
        if self._parts is not None:
            return self._parts
        from stagelint.analysis.eagerswitch import imported_module

        parent = {name: name for name in self.modules}

        def find(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for m in self.modules.values():
            names = [*m.imports.values(), *m.star_from,
                     *(name for _, kind, name in m.eager_switch if kind == "refers")]
            names += [site.target[1] for site in m.call_sites if site.target[0] == "name"]
            for name in names:
                other = imported_module(self, name, m.module)
                if other is not None and other != m.module:
                    parent[find(other)] = find(m.module)
        self._parts = {name: find(name) for name in self.modules}
        return self._parts

    def _parts_staging_nothing(self, symbolic: bool = True) -> set[str]:
        """The modules of the parts of the project (modules joined by imports, either way) where
        no module stages anything and some module trains by hand, eagerly (`keras_untraced_here`).
        `symbolic=False`: Keras's symbolic builds (`frameworks.KERAS_SYMBOLIC_BUILDS`) do not count
        as staging (`keras_built_only_here`), in a file no round analysed either (its spelling:
        `frameworks.KERAS_RUN_SPELLING`, not `KERAS_DRIVE_SPELLING`)."""
        part = self._import_parts()
        staging: set[str] = {key[0] for key, kind in self.entries.items()
                             if kind != "keras" and not self._runs_no_project_code(key, kind)}
        hand: set[str] = set()  # modules training by hand outside staged code
        tracing_drives = set(KERAS_LOOP_STEPS) | (KERAS_SYMBOLIC_BUILDS if symbolic else set())
        for m in self.modules.values():
            if any(method in tracing_drives for method, *_ in m.keras_drives) or any(
                    kind == ("keras drives" if symbolic else "keras runs") for _, kind, _ in m.eager_switch):
                staging.add(m.module)
            if any(method == KERAS_HAND_TRAINING and (caller is None or (m.module, caller) not in self.reached)
                   for method, _, _, caller in m.keras_drives) or any(
                    kind == "hand training" for _, kind, _ in m.eager_switch):
                hand.add(m.module)
        trained = {part[name] for name in hand} - {part[name] for name in staging}
        return {name for name in self.modules if part[name] in trained}

    def _runs_no_project_code(self, key: Key, kind: str) -> bool:
        """`key` is a `tf.data` function (`ds.map(lambda image, label: (tf.cast(image, ...), ...))`)
        that calls no function or object of the project and reaches nothing the project defines: its
        trace runs the library ops it names on the dataset's elements (tensors, never a Keras
        object), so it traces no layer of the project and shows nothing of how Keras runs one."""
        if kind != "dataset":
            return False
        f = self.function(key)
        if f is None or f.calls:
            return False
        if self._reach_counts is None:
            counts: dict = {}
            for entry in self.reached.values():
                counts[entry] = counts.get(entry, 0) + 1
            self._reach_counts = counts
        return self._reach_counts.get(key, 0) <= 1  # itself alone

    def keras_runs_eagerly(self, key: Key) -> bool:
        """`key` is a method of a dynamic layer or model (`_dynamic_classes`) reached only through
        its own Keras methods, which nothing the user stages calls: Keras never traces it (Keras
        2 runs it eagerly, Keras 3 refuses to build it), so it is in no trace."""
        if key not in self.reached or not self._dynamic or key in self.known_reached():
            return False
        entry = self.reached[key]
        f, e = self.function(key), self.function(entry)
        if self.entries.get(entry) != "keras" or f is None or e is None or not f.class_qualname:
            return False
        cls = self.resolved_class_name(f.class_qualname)
        return cls in self._dynamic and self.resolved_class_name(e.class_qualname or "") == cls

    def keras_in_graph(self, key: Key) -> bool:
        """`key` is reached only through Keras methods of classes that run in graph mode
        (`_graph`, `eagerswitch.graph_classes`) and nothing shows it traced otherwise: a layer
        called while the one default graph is built runs its code once, on graph tensors that stay
        valid for every step the session runs, and no Keras loop makes a Function of it
        (`frameworks.GRAPH_MODE_SWITCHES`), so it is in no trace. Where graph mode is known for every
        program, Keras's own ways of running a class (`fit`, a functional build) show nothing
        (`known_reached`); where it is shown for the project's own programs only, they still do, and
        only what nothing shows traced is left out of the preview tier as well: the guess that
        Keras traces it would go against all the project shows. A `tf.function` calling the layer
        still traces it."""
        if not self._graph or key not in self.reached or key in self.known_reached():
            return False
        if self._graph_outside is None:
            seen: dict[Key, Key] = {}
            for entry in sorted(self.entries):
                f = self.function(entry)
                if not (self.entries[entry] == "keras" and f is not None and f.class_qualname
                        and self.resolved_class_name(f.class_qualname) in self._graph):
                    self.reach_from(entry, seen, only_unguarded=False)
            self._graph_outside = seen
        return key not in self._graph_outside

    def staging_unshown(self, key: Key) -> str | None:
        """Why the staging of `key` is not known (None when it is): every entry point reaching it
        is a Keras method nothing shows Keras tracing (`keras_unshown`), or a function JAX wraps
        into a binding nothing in its module reads (`self._compiled = jax.jit(self._fn)` while
        the code calls `self._fn` directly: a wrapper traces only when called,
        `jaxstaging.mark_uncalled`; another module may call it), or the `update` of an optax
        transformation, which its users jit (`frameworks.OPTAX_UPDATE_TRANSFORMATIONS`)."""
        unshown = self.keras_unshown(key) or self._eager_in_programs(key)
        if unshown or key not in self.reached or key in self.known_reached():
            return unshown
        entry = self.reached[key]
        guessed = self.dataset_guessed.get(entry)
        if guessed is not None:
            shown = self.display(entry, entry[0])
            shown = shown if shown.startswith("the lambda") else f"`{shown}`"
            return f"{shown} is given to a dataset transformation on line {guessed[1]}: {guessed[2]}"
        where = self.jax.unshown.get(entry)
        if where is not None:
            return (f"optax stages nothing of `{self.display(entry, entry[0])}`, the update of the transformation "
                    f"made on line {where[1]}: its users call it eagerly or jit it (`jax.jit(opt.update)`, a "
                    f"jitted step), and whether they jit it is not shown")
        where = self.jax.uncalled.get(entry)
        if where is None:
            return None
        return (f"the JAX wrapper of `{self.display(entry, entry[0])}` made on line {where[1]} is bound where nothing in "
                f"its module reads it, and a wrapper traces only when called: whether other code calls it is not shown")

    def _eager_in_programs(self, key: Key) -> str | None:
        """Why `key` is traced only by programs outside the project, or None: every entry point
        reaching it is a Function each program of the project runs with the switch on
        (`driver_eager`)."""
        if not self.driver_eager or key not in self.reached:
            return None
        if self._outside_only is None:
            seen: dict[Key, Key] = {}
            for entry in sorted(self.entries):
                if entry not in self.driver_eager:
                    self.reach_from(entry, seen, only_unguarded=False)
            self._outside_only = seen
        if key in self._outside_only:
            return None
        entry = self.reached[key]
        how = self.driver_eager.get(entry)
        if how is None:
            return None
        return (f"every program of the project that imports `{self.display(entry, entry[0])}` sets "
                f"`tf.config.run_functions_eagerly(True)` before it can call it ({how}), and with it on a Function "
                f"runs its Python body on every call, tracing nothing: traced only if a program outside the "
                f"project calls it with the switch off (a guess)")

    def keras_shown(self, entry: Key) -> str | None:
        """How the code shows Keras tracing the Keras method `entry` (None when it does not)."""
        f = self.function(entry)
        if f is None or self.entries.get(entry) != "keras":
            return None
        self.known_reached()
        return self._keras_why.get((self.resolved_class_name(f.class_qualname or ""), f.name))

    def known_entry(self, key: Key) -> Key | None:
        """An entry point known to be staged that reaches `key` (else the one `reached` names)."""
        return self.known_reached().get(key) or self.reached.get(key)

    def known_reached(self) -> dict[Key, Key]:
        """Function -> an entry point known to be staged that reaches it: every entry point but
        the Keras methods, and those Keras methods whose tracing the code shows
        (`frameworks.KERAS_LOOP_STEPS`), found to a fixed point: a layer that traced code makes
        or calls has its `call` traced, and so, in turn, do the layers its own code makes or is
        given (its sub-layers)."""
        if self._known is None:
            self._known = self._traced(self._keras_why, by_function=False)
        return self._known

    def function_reached(self) -> dict[Key, Key]:
        """Function -> an entry point a Function is known to run it under: `known_reached`'s,
        where Keras's symbolic builds (a functional model on `keras.Input`, a `Sequential`) show
        nothing by themselves. A Keras method runs inside a Function only when a Function runs an
        object of its class (`frameworks.KERAS_SYMBOLIC_BUILDS`): a Keras loop or save of a model
        of its class, traced code (a `tf.function`, a Keras step method, the traced `call` of a
        layer holding it) calling or making it; a symbolic build runs `call` outside any Function,
        once. A layer only such a build runs counts here where its part of the project (modules
        joined by imports, `_import_parts`) runs a model it cannot resolve under a Function: a
        Keras loop or save whose receiver's class the code does not show (a built model is a
        `keras.Model`), traced code calling an object it does not resolve (a model bound to a name,
        an attribute, a parameter), a file no round analysed spelling a loop or save
        (`frameworks.KERAS_RUN_SPELLING`): the built model may be that object."""
        if self._function_known is None:
            self.known_reached()
            self._function_known = self._traced({}, by_function=True)
        return self._function_known

    def _traced(self, why: dict[tuple[str, str], str], by_function: bool) -> dict[Key, Key]:
        """`known_reached` (its reasons in `why`), or `function_reached` with `by_function`."""
        seen: dict[Key, Key] = {}
        uncalled = self.jax.uncalled
        for entry, kind in sorted(self.entries.items()):
            if (kind != "keras" or (by_function and entry[1].rsplit(".", 1)[-1] in KERAS_STEP_METHODS)) \
                    and entry not in uncalled and entry not in self.jax.unshown \
                    and entry not in self.dataset_guessed:
                # (a Keras step method is written for `fit`, which runs it in a Function)
                self.reach_from(entry, seen, only_unguarded=False)
        part = self._import_parts() if by_function else {}
        runs: dict[str, str] = {}  # part -> how a Function there runs a model it does not resolve
        builds: list[tuple[str, str, str]] = []  # (module, class, reason): symbolic builds
        unresolved = self._unresolved_calls() if by_function else {}
        inspected: set[Key] = set()
        # traced by a staging the user writes (a `tf.function`, ...), not by Keras: all that
        # shows a dynamic layer traced (`_dynamic_classes`), or one run in graph mode (`_graph`)
        plain = set(seen) if self._dynamic or self._graph else set()
        plain_owners = {self.resolved_class_name(f.class_qualname) for k in plain
                        if (f := self.function(k)) is not None and f.class_qualname}
        shown: dict[str, set[str]] = {}  # method -> classes running it traced (with their bases)
        lineages: dict[str, set[str]] = {}

        def lineage(cls: str) -> set[str]:
            if cls not in lineages:
                lineages[cls] = self._lineage(cls) | {cls}
            return lineages[cls]

        def show(cls: str, methods, reason: str, by_keras: bool = True) -> None:
            if by_keras and (cls in self._dynamic or self._graph.get(cls, (False,))[0]):
                # Keras runs it eagerly (Keras 2) or refuses to build it (Keras 3); in graph mode
                # Keras builds it into the default graph once (`keras_in_graph`)
                return
            for method in methods:
                if (cls, method) in why:
                    continue
                why[(cls, method)] = reason
                for base in lineage(cls) - {cls}:  # the methods it inherits run traced too
                    why.setdefault((base, method), f"`{cls.rsplit('.', 1)[-1]}` derives from it and {reason}")
                shown.setdefault(method, set()).update(lineage(cls))

        def build(module: str, cls: str, reason: str) -> None:
            # a symbolic build: shows `call` traced, not by a Function (`function_reached`)
            if not by_function:
                show(cls, ("call",), reason)
            else:
                builds.append((module, cls, reason))

        made: list[tuple[Key, str, str]] = []  # (scope, layer class made there, the scope's class)
        called: list[tuple[Key, str]] = []  # (scope, class of an object called there)
        given: list[tuple[str, str]] = []  # (class of a layer passed to a constructor, the class made)
        building: set[str] = set()  # classes whose constructor builds a functional model
        for m in self.modules.values():
            symbolic: set = set()
            unbuilt: set[str] = set()  # classes bound at module level across no functional build
            if by_function and any(kind == "keras runs" for _, kind, _ in m.eager_switch):
                runs.setdefault(part[m.module], "a file no round analysed spells a Keras loop or save")
            for method, cls, _ident, caller in m.keras_drives:
                if method == KERAS_UNBUILT:
                    unbuilt.add(cls)
                elif method == KERAS_SYMBOLIC_SCOPE:
                    symbolic.add(caller)
                    f = self.function((m.module, caller)) if caller else None
                    if f is not None and f.name == "__init__" and f.class_qualname:
                        building.add(self.resolved_class_name(f.class_qualname))
                elif method == KERAS_SEQUENTIAL_ENTRY:
                    if self.resolve_class(cls) is not None:
                        build(m.module, self.resolved_class_name(cls), "it is an entry of a `Sequential`, which "
                              "Keras builds on symbolic inputs")
                elif method in KERAS_LOOP_STEPS and by_function and (not cls or self.resolve_class(cls) is None):
                    where = f"`{caller}`" if caller else "the module"
                    runs.setdefault(part[m.module], f"{where} runs `{method.partition('(')[0]}` on a model whose "
                                    f"class the code does not show")
                elif method in KERAS_LOOP_STEPS and cls:
                    name = self.resolved_class_name(cls)
                    if name in self.classes and self.method_of(name, method.partition("(")[0]) is not None:
                        continue  # the class's own `fit`: Keras's loop does not run
                    steps = KERAS_LOOP_STEPS[method]
                    if method != KERAS_SAVED and "call" in steps and self._call_needs_more_than_x(name, steps):
                        steps = steps - {"call"}  # Keras's step raises TypeError before `call` runs
                    show(name, steps, f"an object of it is run by `{method}`")
            for site in m.call_sites:
                if site.target[0] != "name":
                    continue
                found = self.resolve_class(site.target[1])
                if found is None or not self.is_layer_class(found[1].qualname):
                    continue
                cls = found[1].qualname
                if site.caller in symbolic and not (site.caller is None and cls in unbuilt) \
                        and not self._stored_unread(m, site):
                    where = f"`{site.caller}`" if site.caller else "the module"
                    build(m.module, cls, f"{where} makes it where it builds a functional model (`keras.Input`, "
                          f"`Model(inputs, outputs)`), calling its layers on symbolic inputs")
                for arg in list(site.args) + list(site.kwargs.values()):
                    if arg.cls and arg.cls != site.target[1]:
                        given.append((arg.cls, cls, m.module))
                f = self.function((m.module, site.caller)) if site.caller else None
                made.append(((m.module, site.caller or ""), cls, self.resolved_class_name(f.class_qualname)
                             if f is not None and f.class_qualname else ""))
            for caller, cls, method, *_ in m.method_calls:
                if method == "__call__" and caller and cls:
                    called.append(((m.module, caller), self.resolved_class_name(cls)))
        given = [(found[1].qualname, cls, module) for arg, cls, module in given
                 if (found := self.resolve_class(arg)) is not None and self.is_layer_class(found[1].qualname)]
        building_lineage = {cls for _, cls, _ in given if building & lineage(cls)}
        pending = {e: self.function(e) for e, kind in self.entries.items() if kind == "keras"}
        owners: set[str] = set()
        counted = 0
        while True:
            if len(seen) != counted:
                counted = len(seen)
                owners = {self.resolved_class_name(f.class_qualname) for k in seen
                          if (f := self.function(k)) is not None and f.class_qualname}
            for scope, cls, owner in made:
                if (cls, "call") in why:
                    continue
                if scope in seen:
                    show(cls, ("call",), f"traced code makes it (`{scope[1]}`)", scope not in plain)
                elif owner and (owner in owners or (owner, "call") in why):
                    show(cls, ("call",), f"it is a sub-layer of `{owner.rsplit('.', 1)[-1]}`, whose code is traced",
                         owner not in plain_owners)
            for scope, cls in called:
                if scope in seen:
                    show(cls, ("call",), f"traced code calls it (`{scope[1]}`)", scope not in plain)
            for scope in seen.keys() - inspected if unresolved else ():
                inspected.add(scope)
                if scope in unresolved:
                    runs.setdefault(part[scope[0]], f"traced code (`{scope[1]}`) calls {unresolved[scope]}, "
                                    f"an object whose class the code does not show")
            for module, cls, reason in builds:
                if module in part and part[module] in runs:
                    show(cls, ("call",), f"{reason}, and {runs[part[module]]}: the built model may be it")
            for arg, cls, module in given:
                if (cls, "call") in why or (cls in building_lineage and (not by_function or part.get(module) in runs)):
                    show(arg, ("call",), f"it is given to `{cls.rsplit('.', 1)[-1]}` as a sub-layer, whose code "
                         f"is traced or builds a functional model")
            grew = False
            for entry, f in sorted(pending.items()):
                if f is not None and f.class_qualname and \
                        self.resolved_class_name(f.class_qualname) in shown.get(f.name, ()):
                    del pending[entry]
                    if entry not in seen:
                        self.reach_from(entry, seen, only_unguarded=False)
                        grew = True
            if not grew:
                break
        return seen

    def _unresolved_calls(self) -> dict[Key, str]:
        """Function -> a call it makes of an object the code does not resolve (`model(x)` of a
        name bound to a value, `self.net(x)` of an attribute that is no method, `fn(x)` of a
        parameter): it may be a model a symbolic build made (`function_reached`)."""
        found: dict[Key, str] = {}
        # (class, attribute) every write of which on `self` stores a Keras library object or an
        # object of a project class made there: no model a symbolic build made elsewhere
        made_at: set[tuple[str, int]] = set()
        for m in self.modules.values():
            made_at.update((m.module, site.span.line) for site in m.call_sites if site.target[0] == "name"
                           and self.resolve_class(site.target[1]) is not None)
        stores: dict[tuple[str, str], bool] = {}
        for m in self.modules.values():
            for w in m.attr_writes:
                if w.on_self and w.owner:
                    known = w.value == "keras" or (m.module, w.span.line) in made_at
                    stores[(w.owner, w.attr)] = stores.get((w.owner, w.attr), True) and known
        held = {key for key, known in stores.items() if known}
        for m in self.modules.values():
            for site in m.call_sites:
                target = site.target
                if site.caller is None or (m.module, site.caller) in found:
                    continue
                if target[0] == "param":
                    what = f"its parameter `{target[1]}`"
                elif target[0] == "self":
                    if self.method_of(target[1], target[2]) is not None or (target[1], target[2]) in held:
                        continue  # (a method; a sub-layer, which `_traced` follows as made by its owner)
                    what = f"`self.{target[2]}`"
                elif target[0] == "name":
                    split = self.split_qualified(target[1], m.module)
                    if split is None:
                        continue
                    mod, rest = split
                    bare = rest.rpartition(".<locals>.")[2]
                    if "." in bare or rest in self.modules[mod].functions or rest in self.modules[mod].imports \
                            or self.resolve_class(f"{mod}.{rest}") is not None:
                        continue  # (a method of a value, a function, an import, a class)
                    what = f"`{bare}`"
                else:
                    continue
                found[(m.module, site.caller)] = what
        return found

    def _stored_unread(self, m: F.ModuleFacts, site: F.CallSite) -> bool:
        """The layer `site` makes in a method that builds a functional model is stored on the
        method's own object (`self.head = Head()`, the whole value) and the method reads that
        attribute nowhere, nor any method of its object that could call it (`self.call`,
        `self(x)`): the functional model it builds does not call the layer, so that build shows
        nothing of the layer's `call` (`frameworks.KERAS_SYMBOLIC_SCOPE`: a model cutting a
        backbone out of another model's input, `Model(base.input, base.get_layer(...).output)`,
        beside the heads its own `call` runs)."""
        f = self.function((m.module, site.caller)) if site.caller else None
        if f is None or not f.class_qualname:
            return False
        made = site.target[1].rsplit(".", 1)[-1]
        stored = {w.attr for w in m.attr_writes
                  if w.function == site.caller and w.on_self and not w.augmented and w.span.line == site.span.line
                  and w.text.startswith(f"self.{w.attr} = ")
                  and w.text[len(w.attr) + 8:].split("(", 1)[0].rsplit(".", 1)[-1] == made}
        if len(stored) != 1:
            return False
        cls = self.resolved_class_name(f.class_qualname)
        for receiver, attr in f.attr_reads:
            if receiver == "self" and (attr in stored or attr in ("call", "__call__")
                                       or self.method_of(cls, attr) is not None):
                return False
        # `self(x)`: the object's own `call`, which may call the layer
        return not any(s.caller == site.caller and (s.target[0] == "self" and s.target[2] in ("__call__", "call")
                                                    or s.target[0] == "name" and s.target[1].endswith(".<locals>.self"))
                       for s in m.call_sites)

    def _dataset_filled(self, key: Key, df: F.DatasetFunction) -> int | None:
        """How many leading positional parameters of `key` the transformation's call fills, or None."""
        f = self.function(key)
        if f is None or not df.components:
            return None
        bound_self = 1 if f.class_qualname and df.target[0] in ("self", "super") else 0
        return bound_self + df.bound_positional + df.components

    def _partial_bound(self, key: Key, df: F.DatasetFunction) -> set[str]:
        """Parameters `functools.partial` fixes: Python values, not the dataset's elements."""
        f = self.function(key)
        if f is None:
            return set()
        params = f.params[1:] if f.class_qualname and df.target[0] in ("self", "super") else f.params
        return set(df.bound) | set(params[:df.bound_positional])

    def escaped(self, key: Key) -> bool:
        """Runs eagerly: decorated with `tf.py_function`, or with a project decorator whose wrapper
        hands it to one (what a caller traces is the wrapper, not this function)."""
        f = self.function(key)
        if f is None:
            return False
        if f.escape:
            return True
        return bool(self._escaping) and any(self._is_wrapper(key[0], d, self._escaping) for d in f.decorators)

    def _is_wrapper(self, module: str, decorator: str, wrappers: set[str]) -> bool:
        if decorator in wrappers:
            return True
        key = self.resolve(module, ("name", decorator))
        return key is not None and f"{key[0]}.{key[1]}" in wrappers

    def _reach(self) -> None:
        # A function reached by several entry points is credited to a kept one first: a one-shot
        # wrapper (`jax.jit(lambda ...)(x)`) traces with the state of the moment, so only a kept
        # Function can hold a stale trace; messages name it, and `traced_only_afresh` relies on it.
        for entry in sorted(self.entries, key=lambda k: (self.staged_afresh(k), k)):
            self.reach_from(entry, self.reached, only_unguarded=False)
        unguarded: dict[Key, Key] = {}
        for entry in sorted(self.entries):
            self.reach_from(entry, unguarded, only_unguarded=True)
        self.unguarded = set(unguarded)

    def reach_from(self, entry: Key, seen: dict[Key, Key], only_unguarded: bool) -> None:
        """Record in `seen` (function -> the entry it was first reached from) every project
        function `entry` reaches through the calls it makes while traced (`callees`), breadth
        first; a function already in `seen` and what it reaches are left as they are."""
        if entry in seen:
            return
        seen[entry] = entry
        queue = deque([entry])
        while queue:
            key = queue.popleft()
            for callee in self.callees(key, include_refs=True, only_unguarded=only_unguarded):
                if callee not in seen:
                    seen[callee] = entry
                    queue.append(callee)

    def callees(self, key: Key, include_refs: bool = True, only_unguarded: bool = False):
        """The project functions `key` calls while it is traced (each once per call edge)."""
        for _, callee in self.call_edges(key, include_refs, only_unguarded):
            yield callee

    def call_edges(self, key: Key, include_refs: bool = True, only_unguarded: bool = False):
        """(edge, callee) for each call `key` makes of a project function while it is traced."""
        f = self.function(key)
        if f is None:
            return
        for edge in f.calls:
            if edge.kind == "ref" and not include_refs:
                continue
            if only_unguarded and edge.guarded:
                continue
            if self.eager_only(key, edge):
                continue  # `else: self._call_python(x)` after `if in_tf_function():`: never traced
            if edge.kind == "ref" and self._stored(key, edge):
                continue
            if edge.within and self.runs_as_python(key, edge):
                continue
            callee = self.resolve_call(key, edge.target, edge.span)
            if callee is None:
                continue
            cf = self.function(callee)
            if cf is None or self.escaped(callee):
                continue
            yield edge, callee

    def runs_as_python(self, key: Key, edge: F.CallEdge) -> bool:
        """The edge is in (or names) a function `key` hands to a project function's parameter that
        reaches `tf.py_function` / `numpy_function` as the function it runs
        (`FunctionFacts.escaped_params`, `CallEdge.within`): py_function runs its func, and what
        that calls, as Python at every execution, never traced (TF 2.21:
        tests/runtime/test_tf_nineteenth_audit_bv_facts.py)."""
        for target, place in edge.within:
            callee = self.resolve_call(key, tuple(target), edge.span)
            cf = self.function(callee) if callee is not None else None
            if cf is None or not cf.escaped_params:
                continue
            if place.isdigit():
                if cf.class_qualname:
                    continue  # a method: which parameter a position fills depends on the call's form
                index = int(place)
                param = cf.params[index] if index < len(cf.params) else None
            else:
                param = place
            if param in cf.escaped_params:
                return True
        return False

    def _stored(self, key: Key, edge: F.CallEdge) -> bool:
        """A function handed to the constructor of a project class (`Solver(callback=f)`) is
        kept by the object, not called while the caller is traced; where and how the object calls
        it later (ott's solver: `jax.debug.callback(self.callback, state)`, which runs it as
        Python) the calls do not show, so it is not taken as traced (issue 23, certainty)."""
        into = edge.into
        if into is None or into[0] != "name":
            return False
        return self.resolve_class(into[1]) is not None

    def eager_only(self, key: Key, edge: F.CallEdge) -> bool:
        unless = getattr(edge, "eager_unless", None)
        if unless is None:
            return False
        if unless == "":
            return True
        predicate = self.resolve(key[0], unless)
        return predicate is not None and self.is_tracing_test(predicate)

    def in_eager_block(self, module: str, unless) -> bool:
        """A candidate in a block one of the project predicates `unless` (targets, as the walk
        recorded them: `FileContext.eager_predicates`) keeps out of every trace: the `else:` of
        `if in_tf_function():` where `in_tf_function` returns True whenever it runs while traced."""
        for target in unless or ():
            predicate = self.resolve(module, tuple(target))
            if predicate is not None and self.is_tracing_test(predicate):
                return True
        return False

    def is_tracing_test(self, key: Key, _depth: int = 0) -> bool:
        """The function returns True whenever it runs while tracing (`in_tf_function()`,
        `_use_tf_workflow()` that starts `if in_tf_function(): return True`)."""
        f = self.function(key)
        test = getattr(f, "tracing_test", None) if f is not None else None
        if test == "yes":
            return True
        if isinstance(test, tuple) and _depth < 4:
            target = self.resolve(key[0], test)
            return target is not None and self.is_tracing_test(target, _depth + 1)
        return False

    def eager_call_site(self, key: Key):
        """(module, site) of a call of `key` made where nothing traces (module-level code, or a
        function no entry point reaches), outside test modules: there its Python runs, prints
        included, on every call. None when every call the project shows is traced or a test's."""
        from stagelint.analysis.testing import is_test_module

        for module, site in self.call_sites.get(key, ()):
            if is_test_module(module) or site.concrete:
                continue
            if not self.in_traced_code(module, site):
                return module, site
        return None

    def edges(self, key: Key):
        """(edge, callee) for the resolved call edges of a function."""
        f = self.function(key)
        if f is None:
            return
        for edge in f.calls:
            if edge.kind != "call" or self.eager_only(key, edge):
                continue
            callee = self.resolve_call(key, edge.target, edge.span)
            if callee is not None and self.function(callee) is not None and not self.escaped(callee):
                yield edge, callee

    # Call sites and parameter tensor-ness -----------------------------------------------------

    def _index_call_sites(self) -> None:
        bindings: dict[str, tuple[str, F.WrapperBinding]] = {}
        for m in self.modules.values():
            for name, binding in m.wrapper_bindings.items():
                bindings.setdefault(name, (m.module, binding))
        self._site_bindings = bindings
        reuse, self._reused = self._reused, None
        kept = reuse._sites_of if reuse is not None and reuse._site_bindings == bindings else {}
        for m in sorted(self.modules.values(), key=lambda m: m.module):
            old = kept.get(m.module)
            if old is not None and old[0] is m:
                # The same facts, read with the same resolutions and wrapper bindings (an edit
                # in another file, in the language server): what its sites resolved to holds.
                resolved = old[1]
            else:  # (most calls go outside the project: only the sites that resolve are kept)
                resolved = [(site, *target) for site in m.call_sites
                            for target in (self._site_target(m.module, site, bindings),) if any(target)]
            self._sites_of[m.module] = (m, resolved)
            for site, key, via, bound, signature in resolved:
                if bound:
                    self._bound_method_sites.add(id(site))
                if signature:
                    self.signature_objects.add((key, via))
                if key is None:
                    continue
                self.call_sites.setdefault(key, []).append((m.module, site))
                if site.concrete:
                    continue
                if (via and not via.startswith("returned:")) or self.entries.get(key) == "decorator":
                    self.function_calls.setdefault(key, []).append((m.module, site, via))
        self._forward_param_calls()

    def _site_target(self, module: str, site: F.CallSite, bindings) -> tuple:
        """(function, wrapper binding's name or "", a bound method's call, made with an
        `input_signature`) of one call site of `module`."""
        caller = (module, site.caller) if site.caller else None
        key, via, bound, signature = self.resolve_call(caller, site.target, site.span, module), "", False, False
        if key is None and site.made_by:
            # `step = make_step()` ... `step(x)`: the def the factory returns, one object per
            # binding of its result (another binding, or another run of a function that binds it,
            # calls another Function, with traces of its own)
            factory = self.resolve(module, tuple(site.made_by[1:]))
            f = self.function(factory) if factory is not None else None
            made = self.resolve(factory[0], tuple(f.returns_function)) if f is not None and f.returns_function else None
            if made is not None:
                return made, f"returned:{module}:{site.made_by[0]}", False, False
        found = self._wrapper_binding(site.target, bindings)
        if found is not None:
            name, (where, binding) = found
            key, via = self.resolve(where, binding.target), name
            bound = binding.target[0] in ("self", "super")
            signature = key is not None and bool(binding.input_signature)
        return key, via, bound, signature

    def _forward_param_calls(self) -> None:
        """A helper that calls (or traces) the function its caller passes, with the arguments its
        caller passes (`def measure(f, *args): f.get_concrete_function(*args)` called as
        `measure(train, data)`): a call of `train` with `data`, made where the helper is called.
        Each such site becomes one call site per function its callers pass; a helper that hands
        its parameter on to another such helper is followed a few levels deep."""
        pending = [(m.module, site) for m in sorted(self.modules.values(), key=lambda m: m.module)
                   for site in m.call_sites if site.target[0] == "param" and site.caller is not None]
        for _round in range(4):
            derived = []
            for module, site in pending:
                helper = (module, site.caller)
                for cmod, csite, slot in self._slots(helper, site.target[1]):
                    ref = csite.refs.get(slot)
                    if ref is None:
                        arg = self._arg_in(csite, helper, slot)
                        if arg is not None and arg.param and csite.caller is not None:
                            # the helper's caller hands on its own parameter: a param call there
                            derived.append((cmod, self._substitute(site, helper, csite, ("param", arg.param))))
                        continue
                    key = self.resolve(cmod, tuple(ref))
                    if key is None:
                        continue
                    new = self._substitute(site, helper, csite, tuple(ref))
                    self.call_sites.setdefault(key, []).append((cmod, new))
                    if not new.concrete and self.entries.get(key) == "decorator":
                        self.function_calls.setdefault(key, []).append((cmod, new, ""))
            if not derived:
                break
            pending = derived

    def _slots(self, key: Key, param: str):
        """(module, site, slot) of the call sites of `key`: where each passes `param` ("0", ...
        or the keyword)."""
        f = self.function(key)
        if f is None or param not in f.params:
            return
        positional = f.positional_params
        index = positional.index(param) if param in positional else None
        for module, site in self.call_sites.get(key, ()):
            if param in site.kwargs or param in site.refs:
                yield module, site, param
                continue
            if index is None:
                continue  # keyword-only: no position binds it
            i = index - self.shift(site, key)
            if 0 <= i < len(site.args) or str(i) in site.refs:
                yield module, site, str(i)

    def _arg_in(self, site: F.CallSite, key: Key, slot: str) -> F.ArgFacts | None:
        if not slot.isdigit():
            return site.kwargs.get(slot)
        i = int(slot)
        return site.args[i] if i < len(site.args) else None

    def _substitute(self, site: F.CallSite, helper: Key, outer: F.CallSite, target: F.Target) -> F.CallSite:
        """The helper's call `site` as made from `outer` (a call of the helper): the helper's own
        parameters it passes on replaced by what `outer` passes for them, its `*args` by the
        positional arguments `outer` passes there; made where `outer` is."""
        f = self.function(helper)
        shift = self.shift(outer, helper)

        def passed(arg: F.ArgFacts) -> F.ArgFacts:
            if not arg.param or f is None or arg.param not in f.params:
                return arg
            if arg.param in outer.kwargs:
                return outer.kwargs[arg.param]
            if arg.param not in f.positional_params:
                return arg  # keyword-only, not passed by keyword: its default
            i = f.positional_params.index(arg.param) - shift
            return outer.args[i] if 0 <= i < len(outer.args) else arg

        args = [passed(a) for a in site.args]
        if site.star and f is not None and f.varargs == site.star:
            args.extend(outer.args[max(0, f.varargs_at - shift):])
        return F.CallSite(target, outer.span, outer.caller, args, {k: passed(a) for k, a in site.kwargs.items()},
                          loop=outer.loop or (outer.span if site.in_loop else None), concrete=site.concrete)

    def _wrapper_binding(self, target: F.Target, bindings):
        """The `g = tf.function(f)` binding a call target names, if any: (binding name, (module, binding))."""
        if target[0] == "name":
            name = "name:" + target[1]
            return (name, bindings[name]) if name in bindings else None
        if target[0] == "self":
            seen = set()
            todo = [target[1]]
            while todo:
                cls = todo.pop(0)
                if cls in seen:
                    continue
                seen.add(cls)
                name = f"self:{cls}:{target[2]}"
                if name in bindings:
                    return name, bindings[name]
                found = self.resolve_class(cls)
                if found is not None:
                    todo.extend(found[1].bases)
        return None

    def shift(self, site: F.CallSite, key: Key) -> int:
        """Arguments before the first one a call passes: 1 for `self.m(x)` and for a Function made
        from a bound method (`step = tf.function(self._step); step(x)`): self is implicit."""
        f = self.function(key)
        if f is None or not f.class_qualname:
            return 0
        return 1 if site.target[0] in ("self", "super") or id(site) in self._bound_method_sites else 0

    def passed(self, site: F.CallSite, key: Key) -> list[tuple[str, F.ArgFacts]]:
        """(parameter, argument) of each argument a call site of `key` passes, by position and keyword."""
        f = self.function(key)
        if f is None:
            return []
        shift = self.shift(site, key)
        positional = f.positional_params
        pairs = [(positional[i + shift], a) for i, a in enumerate(site.args) if i + shift < len(positional)]
        return pairs + [(kw, a) for kw, a in site.kwargs.items() if kw in f.params]

    def spread_into(self, site: F.CallSite, key: Key) -> tuple[str, list[str]]:
        """(the caller's parameter, the parameters of `key` it fills) of a call that spreads one
        of its caller's parameters after its positional arguments (`opi(*params)`: each of `opi`'s
        positional parameters from there on holds an element of `params`); ("", []) otherwise."""
        if not site.spread_param:
            return "", []
        f = self.function(key)
        if f is None:
            return "", []
        return site.spread_param, list(f.positional_params[len(site.args) + self.shift(site, key):])

    def may_meet(self, a: str, b: str) -> bool:
        """Whether code of modules `a` and `b` may run in one process, so that their calls of one
        module-level Function meet one Function object (its trace state is per process). A
        program (`programs`) runs alone in its own process with what it imports, transitively:
        two different programs never meet, and a program meets another module only when it
        imports it. Any other two modules may: a program outside the project may import both."""
        if a == b:
            return True
        programs = self.programs()
        if a in programs and b in programs:
            return False
        if a in programs:
            return b in programs[a]
        if b in programs:
            return a in programs[b]
        return True

    def programs(self) -> dict[str, frozenset[str]]:
        """The project's modules that are each a program, each with the modules it runs (itself
        and what it imports, transitively): a module no module of the project imports (by a
        module-level import anywhere, a `from m import *`, a call resolved into it, which counts a
        function's import too, or a name the screen read in a deferred module: `refers`), whose module level calls something (work that runs
        when it runs: a script), and that is not a package's `__init__`, a test module (pytest
        runs every test module in one process) or a notebook (its cells may run other
        files). Imports are over-counted (a conditional one counts), so a program's modules are
        never too few."""
        if self._programs is None:
            from stagelint.analysis.eagerswitch import imported_module
            from stagelint.analysis.testing import is_test_module

            imports: dict[str, set[str]] = {name: set() for name in self.modules}
            for m in self.modules.values():
                names = [*m.imports.values(), *m.star_from,
                         *(name for _, kind, name in m.eager_switch if kind in ("import", "refers"))]
                names += [site.target[1] for site in m.call_sites if site.target[0] == "name"]
                for name in names:
                    other = imported_module(self, name, m.module)
                    if other is not None and other != m.module:
                        imports[m.module].add(other)
            for callee, sites in self.call_sites.items():
                for module, _ in sites:
                    if callee[0] != module and module in imports:
                        imports[module].add(callee[0])
            imported = {other for targets in imports.values() for other in targets}
            found: dict[str, frozenset[str]] = {}
            for name, m in self.modules.items():
                if name in imported or m.is_package or is_test_module(name) \
                        or m.path.endswith(".ipynb") or not any(s.caller is None for s in m.call_sites):
                    continue
                found[name] = frozenset(reachable(name, imports))
            self._programs = found
        return self._programs

    def in_traced_code(self, module: str, site: F.CallSite) -> bool:
        """The call site is in a function some entry point reaches: it runs while that is traced
        (not at module level, not in eager code)."""
        return site.caller is not None and (module, site.caller) in self.reached

    def arg_passed(self, site: F.CallSite, key: Key, param: str) -> F.ArgFacts | None:
        """What a call site of `key` passes for its parameter `param`: the keyword argument, else the
        positional one at the parameter's place (`shift`: a bound `self`); None when it passes none."""
        arg = site.kwargs.get(param)
        if arg is None:
            f = self.function(key)
            positional = f.positional_params if f is not None else []
            if param not in positional:
                return None  # (keyword-only: passed by keyword or not at all)
            i = positional.index(param) - self.shift(site, key)
            arg = site.args[i] if 0 <= i < len(site.args) else None
        return arg

    def args_for(self, key: Key, param: str) -> list[tuple[str, F.CallSite, F.ArgFacts]]:
        """What the call sites pass for a parameter: (module, site, argument), following a caller
        that forwards its own parameter (`helper(x)` inside `step(x)`) to the caller's callers."""
        return [(module, site, arg) for module, site, arg, _ in self.args_with_callee(key, param)]

    def args_with_callee(self, key: Key, param: str) -> list[tuple[str, F.CallSite, F.ArgFacts, Key]]:
        """`args_for`, each with the function its site calls (`key`, or the forwarding caller)."""
        return [(module, site, arg, callee) for module, site, arg, callee, _ in self.args_through(key, param)]

    def args_through(self, key: Key, param: str, _depth: int = 0) -> list[tuple]:
        """`args_with_callee`, each with the calls that hand the value on to `key`: ((module,
        site), ...) of the forwarding callers' calls, outermost first; () for a direct call."""
        f = self.function(key)
        if f is None or param not in f.params:
            return []
        out = []
        for module, site in self.call_sites.get(key, ()):
            arg = self.arg_passed(site, key, param)
            if arg is None:
                continue
            if arg.param and site.caller is not None and _depth < 4:
                forwarded = self.args_through((module, site.caller), arg.param, _depth + 1)
                if forwarded:
                    out.extend((m, s, a, callee, hops + ((module, site),)) for m, s, a, callee, hops in forwarded)
                    continue
            out.append((module, site, arg, key, ()))
        return out

    def left_at_default(self, key: Key) -> frozenset[str]:
        """Parameters with a literal default (`brightness_factor=0.8`) that no call of `key` passes,
        when the project shows every call: `key` is no entry point (which a framework calls with
        what it chooses: a `Dataset.map` function gets the element's components), no call spreads
        `*xs`/`**kw`, and every function that names it calls it or hands it to a framework API
        whose calls of it the framework data knows (`tf.map_fn(fn, elems)` calls `fn(elem)`:
        `CallEdge.passes`, `frameworks.CALLS_ITS_FUNCTION_WITH`). Python binds such a parameter
        to its default object, a Python number or string, on every call, traced or not (treevae's
        `augment_cifar((x, seed))` mapped through a lambda and through `tf.map_fn`: `max(0, 1 -
        brightness_factor)` is Python's `max` of floats; observed with TF 2.21,
        tests/runtime/test_tf_eighteenth_audit_bq_facts.py)."""
        memo = self.__dict__.setdefault("_left_at_default", {})
        found = memo.get(key)
        if found is None:
            found = frozenset()
            f = self.function(key)
            sites = self.call_sites.get(key, ())
            if f is not None and f.literal_default_params and key not in self.entries \
                    and not any(site.spread or site.star for _, site in sites):
                calling = {(m, site.caller) for m, site in sites}
                handed = self._handed_with(key)
                if (sites or handed) and all(caller in calling or caller in handed for caller in self.callers(key)):
                    bound = 1 if f.class_qualname else 0  # (a method handed on bound: `self.augment`)
                    found = frozenset(p for p in f.literal_default_params
                                      if all(self.arg_passed(site, key, p) is None for _, site in sites)
                                      and all(p not in f.positional_params[:n + bound] for n in handed.values()))
            memo[key] = found
        return found

    def _handed_with(self, key: Key) -> dict[Key, int]:
        """The functions that hand `key` to a framework API that calls it with a known number of
        positional arguments only (`CallEdge.passes`), each with the largest such number; a
        function that also hands it on otherwise is left out."""
        out: dict[Key, int] = {}
        for caller in self.callers(key):
            counts = [edge.passes for edge, callee in self.call_edges(caller) if callee == key and edge.kind == "ref"]
            if counts and min(counts) >= 0:
                out[caller] = max(counts)
        return out

    def staged_afresh(self, key: Key) -> bool:
        """Staged only by one-shot wrappers (`tf.function(f)(x)`, `tf.function(f).get_concrete_function(...)`),
        never by a decorator or a kept wrapper: every use traces with the Python state of the moment."""
        if self.entries.get(key) != "wrapper":
            return False
        if self._afresh is None:
            kept: set[Key] = set()
            fresh: set[Key] = set()
            for m in self.modules.values():
                counts: dict[Key, int] = {}
                for target in m.wrapped:
                    k = self.resolve(m.module, target)
                    if k is not None:
                        counts[k] = counts.get(k, 0) + 1
                for target in m.fresh_wrapped:
                    k = self.resolve(m.module, target)
                    if k is not None:
                        counts[k] -= 1
                        fresh.add(k)
                kept |= {k for k, n in counts.items() if n > 0}
            self._afresh = fresh - kept
        return key in self._afresh

    def traced_only_afresh(self, key: Key) -> bool:
        """Every entry point whose tracing reaches `key` is a one-shot wrapper (`staged_afresh`):
        no kept Function holds a trace of it. `_reach` credits a kept entry first, so the entry
        `reached` names is a one-shot one only when all are."""
        entry = self.reached.get(key)
        return entry is not None and self.staged_afresh(entry)

    def has_signature(self, key: Key, via: str) -> bool:
        """The Function object a call runs has an `input_signature`."""
        f = self.function(key)
        if via and not via.startswith("returned:"):
            return (key, via) in self.signature_objects
        return bool(f and f.input_signature)

    def relaxes_shapes(self, key: Key, via: str) -> bool:
        """The Function object a call runs generalises the shapes it traces for
        (`reduce_retracing=True`): a new shape traces it once more at most."""
        if via and not via.startswith("returned:"):
            found = (self._site_bindings or {}).get(via)
            return found is not None and found[1].relaxed_shapes
        f = self.function(key)
        return bool(f and f.relaxed_shapes)

    def class_family(self, cls: str) -> set[str]:
        """The classes an instance of `cls` may run methods of: `cls`, its project base classes
        and its project subclasses (not its siblings). Absolute names."""
        if cls in self._families:
            return self._families[cls]
        found = self.resolve_class(cls)
        own = found[1].qualname if found else cls
        family = set()
        todo = [cls]
        while todo:
            c = todo.pop()
            found = self.resolve_class(c)
            name = found[1].qualname if found else c
            if name in family:
                continue
            family.add(name)
            if found:
                todo.extend(found[1].bases)
        # Every class that derives from `own` (what `derives(name, {own})` answers for each
        # class, found by walking the subclass index down from `own` once).
        todo = [own]
        below: set[str] = set()
        subclasses = self._subclass_index()
        while todo:
            for sub in subclasses.get(todo.pop(), ()):
                if sub not in below:
                    below.add(sub)
                    todo.append(sub)
        family |= below
        self._families[cls] = family
        return family

    def _subclass_index(self) -> dict[str, list[str]]:
        """Resolved base name -> the classes that list it as a base (built once)."""
        if self._subclasses is None:
            index: dict[str, list[str]] = {}
            for name in self.classes:
                for base in self.resolve_class(name)[1].bases:
                    resolved = self.resolve_class(base)
                    index.setdefault(resolved[1].qualname if resolved else base, []).append(name)
            self._subclasses = index
        return self._subclasses

    def attr_writes(self, attr: str) -> list[tuple[str, F.AttrWrite]]:
        """(module, write) for every write of the attribute `attr` (`obj.attr = ...`), in the
        order of module names (indexed once, not scanned per question)."""
        if self._writes_by_attr is None:
            index: dict[str, list[tuple[str, F.AttrWrite]]] = {}
            for name in sorted(self.modules):
                for w in self.modules[name].attr_writes:
                    index.setdefault(w.attr, []).append((name, w))
            self._writes_by_attr = index
        return self._writes_by_attr.get(attr, [])

    def derives(self, cls: str, ancestors, _seen=None) -> bool:
        """`cls` has one of `ancestors` among its bases, through the project's classes: a set of
        qualified names, or a test of one (a base is tested as written and as resolved)."""
        matches = ancestors if callable(ancestors) else ancestors.__contains__
        _seen = _seen or set()
        if cls in _seen:
            return False
        _seen.add(cls)
        found = self.resolve_class(cls)
        if found is None:
            return False
        for base in found[1].bases:
            resolved = self.resolve_class(base)
            base_name = resolved[1].qualname if resolved else base
            if matches(base) or matches(base_name) or self.derives(base_name, matches, _seen):
                return True
        return False

    def resolved_class_name(self, cls: str) -> str:
        found = self.resolve_class(cls) if cls else None
        return found[1].qualname if found else cls

    def tensor_params(self, key: Key, keras_inputs: bool = True, op_operands: bool = True) -> set[str]:
        """Parameters shown to be tensors. `keras_inputs=False` leaves out the assumption that a
        Keras `call`'s inputs are tensors (they may be lists or dicts of tensors);
        `op_operands=False` the guess that an op's operand is one (`FunctionFacts.op_params`)."""
        f = self.function(key)
        if f is None:
            return set()
        out = set(f.tensor_params) if op_operands else set(f.tensor_params) - f.op_params
        if keras_inputs:
            out |= self.jax.traced_params(key)  # (pytrees, maybe: not for structure questions)
        if keras_inputs and self.entries.get(key) == "keras":
            out |= {p for p in f.params[1:] if p not in f.literal_default_params}
        if keras_inputs and key in self.dataset_bound:
            # a dataset's elements (tensors, or tuples and dicts of them), bar what `partial` fixes
            out |= {p for p in f.passed_params if p not in f.literal_default_params} - self.dataset_bound[key]
        for _, site in self.call_sites.get(key, ()):
            # (`self.m(x)` passes self implicitly; `Class.m(obj, x)` and plain calls do not: `shift`)
            out |= {param for param, arg in self.passed(site, key) if arg.kind == "tensor"}
        return out - f.python_default_params - self.left_at_default(key)

    def entries_reaching(self, key: Key) -> set[Key]:
        """Every entry point whose tracing reaches `key` (itself, when it is one): the callers of
        `key`, their callers and so on, that are entry points."""
        seen, todo = {key}, [key]
        while todo:
            for caller in self.callers(todo.pop()):
                if caller not in seen:
                    seen.add(caller)
                    todo.append(caller)
        return {k for k in seen if k in self.entries}

    def callers(self, key: Key) -> set[Key]:
        """Functions whose calls (or function references) resolve to `key`."""
        if self._callers is None:
            index: dict[Key, set[Key]] = {}
            for m in self.modules.values():
                for q in m.functions:
                    caller = (m.module, q)
                    for callee in self.callees(caller, include_refs=True):
                        index.setdefault(callee, set()).add(caller)
            self._callers = index
        return self._callers.get(key, set())

    def names_called_on_objects(self) -> frozenset[str]:
        """The names of the methods the project calls on a receiver other than `self` / `super()`
        (`solver.setup()`, `m.configure(2.0)`, `obj.reset()` on an object of any class), by name."""
        found = self.__dict__.get("_names_called_on_objects")
        if found is None:
            names: set[str] = set()
            for m in self.modules.values():
                names.update(c[2] for c in m.method_calls)
                names.update(c[2] for c in m.object_calls)
                for f in m.functions.values():
                    names.update(e.target[-1].rpartition(".")[2] for e in f.calls
                                 if e.target and e.target[0] not in ("self", "super"))
                names.update(site.target[-1].rpartition(".")[2] for site in m.call_sites
                             if site.target and site.target[0] not in ("self", "super"))
            found = self.__dict__["_names_called_on_objects"] = frozenset(names)
        return found

    def runs_only_in_setup(self, key: Key, is_setup, _seen=None) -> bool:
        """Every caller of `key` is set-up code (`__init__`, `build`, ...) or itself runs only there:
        `self._check_axis(axis)` from `__init__`, `self._set_groups(shape)` from `build`, and a
        public method named as set-up (`setup_*`, as `build_*` is) that the project calls only so
        and never on an object (jaxem's `Solver.setup_propagator`, run by `setup()` from
        `__init__`): it runs while the object is made, before anything can trace it. Any other
        public method may be called by users at any time (keras-hub's `set_vocabulary`, called
        from `__init__` and by users to change the vocabulary): unknown."""
        _seen = _seen if _seen is not None else set()
        if key in _seen:
            return True
        _seen.add(key)
        f = self.function(key)
        if f is None or key in self.entries:
            return False
        if not f.name.startswith("_") and not (f.name.startswith("setup_")
                                               and f.name not in self.names_called_on_objects()):
            return False  # a public method: users may call it at any time
        callers = self.callers(key)
        if not callers:
            return False
        for caller in callers:
            f = self.function(caller)
            if f is None:
                return False
            if not is_setup(f.name) and not self.runs_only_in_setup(caller, is_setup, _seen):
                return False
        return True

    # Messages ---------------------------------------------------------------------------------

    def display(self, key: Key, relative_to: str) -> str:
        name = key[1]
        if name.endswith(">") and "<lambda:" in name:
            return "the lambda on line " + name.rsplit("<lambda:", 1)[1].split(":")[0]
        return name if key[0] == relative_to else f"{key[0]}.{name}"

    def function_phrase(self, key: Key) -> str:
        entry = self.reached.get(key, key)
        shown = self.display(key, key[0])
        name = shown if shown.startswith("the lambda") else f"`{shown}`"
        if entry == key:
            return f"{name} (a `tf.data` function)" if self.entries.get(key) == "dataset" else name
        traced_by = self.display(entry, key[0])
        return f"{name} (traced by {traced_by if traced_by.startswith('the lambda') else f'`{traced_by}`'})"
