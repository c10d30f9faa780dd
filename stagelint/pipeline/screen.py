"""The screen: which files can have findings at all, decided from their bytes before any parse.

libcst analysis costs ~80 ms a file; reading a file and running two regular expressions over it
costs well under 1 ms. In a typical code base only a few files stage anything, so
`stagelint check` and the flake8 plugin (which flake8 calls for every file) screen first and
give the full analysis only to the files that can have findings.

Why a screened-out file has no findings (apart from STG000, see below):

* Every finding except STG000 sits in a function that staged code reaches, and every entry
  point of staged code is spelled with a *staging word* somewhere: a `tensorflow`, `keras`,
  `tf_keras` or `tf_agents` import (`@tf.function`, `tf.function(f)`, Keras `call` of a Layer
  subclass), or the last part of a configured `staging-decorators` name. A project helper
  that stages (`def compiled(f): return tf.function(f)`) or a project base class of a Keras
  layer has the word in its own module, which the decorated function's module imports.
* A name can only refer to another project module through an import; staged code reaches a
  function in module M only through a chain of modules that import one another, ending at M.
* So the graph "module A imports module B" is built for every file (imports and dotted names
  after imported aliases, read with regular expressions that err on the side of seeing too
  many names; relative imports made absolute; names resolved both to files under the search
  roots, as the engine follows imports, and to every checked module whose dotted name ends
  like the imported one, as the engine's call resolution does). A module is *live* when it
  reaches a module containing a staging word, or is reached from a live module. Only live
  modules can hold an entry point or a function an entry point reaches; tensor-ness at call
  sites also needs framework calls, so a module that passes tensors into staged code is live
  too. The others are not parsed by libcst.
* STG000 (a file that does not parse) is reported for every file: a screened-out file is
  compiled with Python's own parser (about 1 ms), and analysed in full if that fails, so its
  STG000 is exactly what the full analysis reports.

The screen only ever errs towards analysing more: a word in a comment, or an import in a
string, makes a file live. One approximation remains: a screened-out module takes part in the
engine's resolution of ambiguous module-name suffixes only by its name (see
`placeholder_facts`), not by the modules it alone imports.

Live is still most of a TensorFlow code base, where nearly every module imports TensorFlow and
the others. So live files are split once more: those that spell an entry point (`tf.function`
after a dot or in an import, `def call(`, a `tf.data` transformation, a configured decorator:
`entry_pattern`; JAX's own spellings, `jax.jit`, `def __call__(`, `lax.cond(`, only in files
whose imports reach a file spelling `jax`, `flax` or `equinox`: `jax_entry_pattern`) are
analysed first; the others are *deferred*, and analysed only when the staged code found needs them
(`stagelint.pipeline.demand`). That step is a judgement, not a proof (a call site that names a Function
only through a variable, for one, is not seen); on the five projects of the benchmark corpus it
reports exactly the findings of the full analysis while analysing 32% to 58% of the files
(`docs/performance.md`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from stagelint.frameworks import (
    DATASET_ENTRY_WORDS,
    EQUINOX_STAGED_METHODS,
    FRAMEWORKS,
    GRAPH_MODE_WORDS,
    JAX,
    JAX_FUNCTION_ARGUMENTS,
    LINEN_STAGED_METHODS,
    OPTAX_UPDATE_TRANSFORMATIONS,
    OPTIONAL_FRAMEWORKS,
    TENSORFLOW,
    names_framework,
)
from stagelint.pipeline.paths import RealPaths, display_path

#: Words whose absence from a whole import neighbourhood means nothing there can stage code.
FRAMEWORK_WORDS: tuple[str, ...] = tuple(sorted({
    name.split(".")[0]
    for fw in FRAMEWORKS
    for name in (*fw.roots, *fw.staging_decorators, *fw.layer_base_prefixes)
}))


def staging_words(settings) -> tuple[str, ...]:
    """The framework's root packages, plus the last part of each configured staging decorator."""
    extra = {name.rsplit(".", 1)[-1] for name in getattr(settings, "staging_decorators", ()) if name}
    return tuple(sorted(set(FRAMEWORK_WORDS) | extra))


def staging_pattern(settings) -> re.Pattern[bytes]:
    words = staging_words(settings)
    return re.compile(b"|".join(re.escape(w.encode()) for w in words))


def _entry_parts(lasts, methods, calls) -> list[bytes]:
    parts = []
    if lasts:
        last = b"|".join(re.escape(w.encode()) for w in sorted(lasts))
        parts += [rb"\.[ \t]*(?:" + last + rb")\b", rb"import[^\n]*\b(?:" + last + rb")\b"]
    if methods:
        parts.append(rb"def[ \t]+(?:" + b"|".join(re.escape(m.encode()) for m in sorted(methods)) + rb")[ \t]*\(")
    if calls:
        parts.append(rb"\.[ \t]*(?:" + b"|".join(re.escape(w.encode()) for w in sorted(calls)) + rb")[ \t]*\(")
    return parts


# How an entry point of staged code is spelled, per framework: a staging decorator's last part
# after a dot or in an import (`tf.function`, `common.function`, `from tensorflow import
# function as f`, `jax.jit`), a staged method's `def` (`def call(` for Keras; `def __call__(`,
# `def setup(` and `@nn.compact` for Flax Linen and Equinox), and the calls that trace the
# functions they are given (`tf.data` transformations, `jax.lax` control flow).
_TF_LASTS = frozenset(name.rsplit(".", 1)[-1] for name in TENSORFLOW.staging_decorators)
_TF_METHODS = TENSORFLOW.staged_methods
_TF_CALLS = frozenset(DATASET_ENTRY_WORDS)
#: (`optax.GradientTransformation(init_fn, update_fn)`: its update is jitted by the users, an
#: entry point of the preview tier: `jaxstaging.JaxView.unshown`)
_JAX_LASTS = (frozenset(name.rsplit(".", 1)[-1] for name in JAX.staging_decorators) | {"compact"}
              | frozenset(OPTAX_UPDATE_TRANSFORMATIONS)) - _TF_LASTS
_JAX_METHODS = (LINEN_STAGED_METHODS | EQUINOX_STAGED_METHODS) - _TF_METHODS
_JAX_CALLS = frozenset(q.rsplit(".", 1)[-1] for q in JAX_FUNCTION_ARGUMENTS) - _TF_CALLS
#: Where JAX is in reach: a file that spells one of these (its root packages) or imports,
#: directly or not, a project file that does. JAX's own qualified names (`jax.lax.cond`, a base
#: class deriving from `flax.linen.Module`) reach a file only through such a chain of imports, so
#: a JAX entry spelling (`def __call__(`, `tf.cond(` read as `.cond(`) elsewhere is no entry.
JAX_WORDS = tuple(sorted({name.split(".")[0].encode() for name in (*JAX.roots, *JAX.staging_decorators)}))


def entry_pattern(settings) -> re.Pattern[bytes]:
    """How an entry point of staged code is spelled wherever it is (TensorFlow's spellings, and
    a configured decorator's last part anywhere); JAX's own are `jax_entry_pattern`'s."""
    extra = sorted({name.rsplit(".", 1)[-1] for name in getattr(settings, "staging_decorators", ()) if name})
    parts = _entry_parts(_TF_LASTS, _TF_METHODS, _TF_CALLS)
    # not an entry point, but what may make every Function of the program eager (`analysis.eagerswitch`):
    # analysed with the entry points, whatever they need
    parts.append(rb"functions_eagerly")
    # nor what makes Keras run a model's steps eagerly (`analysis.staging.Project._compiled_only_eagerly`)
    parts.append(rb"run_eagerly")
    # nor what switches to graph mode (`analysis.eagerswitch.graph_classes`)
    parts.extend(re.escape(word) for word in GRAPH_MODE_WORDS)
    if extra:
        parts.append(rb"\b(?:" + b"|".join(re.escape(w.encode()) for w in extra) + rb")\b")
    return re.compile(b"|".join(parts))


def jax_entry_pattern() -> re.Pattern[bytes]:
    """How an entry point of JAX-staged code is spelled (an entry only where JAX is in reach:
    `JAX_WORDS`)."""
    return re.compile(b"|".join(_entry_parts(_JAX_LASTS, _JAX_METHODS, _JAX_CALLS)))


def mentions_staging(source: bytes, pattern: re.Pattern[bytes]) -> bool:
    # Substrings, not words: `tf_keras`, `keras_cv` or a word in a comment only cost a parse.
    return pattern.search(source) is not None


_CONTINUATION = re.compile(r"\\\r?\n")
# Literal first (no leading `\b`): the regular expression engine then skips ahead to each
# `from`/`import` instead of trying every position, five times faster. A match inside a longer
# word (`xfrom a import b`) only adds names, which errs towards analysing more.
_FROM = re.compile(r"from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]*(\([^)]*\)|[^\n;#]*)")
_IMPORT = re.compile(r"import[ \t]+([^\n;#]*)")
_WORD = re.compile(r"[A-Za-z_][\w.]*")


@functools.lru_cache(maxsize=4096)
def _chain_after(head: str) -> re.Pattern[str]:
    """The attribute chains spelled after `head` (`head.utils.helper`); matches that start
    inside a longer name (`xhead.y`) only add names."""
    return re.compile(re.escape(head) + r"((?:[ \t]*\.[ \t]*[A-Za-z_]\w*)+)")


def _absolute(dots: str, module: str, current: str, is_package: bool) -> str:
    if not dots:
        return module
    parts = current.split(".") if current else []
    package = parts if is_package else parts[:-1]
    level = len(dots)
    if level > 1:
        package = package[: max(0, len(package) - (level - 1))]
    return ".".join([*package, module] if module else package)


def referenced_names(source: bytes, module: str = "", is_package: bool = False) -> set[str]:
    """Dotted names a module may refer to other modules by: what it imports, and the attribute
    chains spelled after an imported name (`import mylib` ... `mylib.utils.helper(x)`)."""
    text = _CONTINUATION.sub(" ", source.decode("utf-8", errors="replace"))
    names: set[str] = set()
    bound: dict[str, str] = {}
    spans: list[tuple[int, int]] = []
    for m in _FROM.finditer(text):
        spans.append(m.span())
        base = _absolute(m.group(1), m.group(2), module, is_package)
        if base:
            names.add(base)
        for item in m.group(3).strip("() \t\r\n").split(","):
            words = _WORD.findall(item)
            if not words or words[0] == "*":
                continue
            full = f"{base}.{words[0]}" if base else words[0]
            names.add(full)
            local = words[2] if len(words) >= 3 and words[1] == "as" else words[0]
            bound[local] = full
    i = 0
    for m in _IMPORT.finditer(text):
        start = m.start()
        while i < len(spans) and spans[i][1] <= start:
            i += 1
        if i < len(spans) and spans[i][0] <= start:
            continue  # the `import` of a `from ... import` read above
        for item in m.group(1).strip("() \t\r\n").split(","):
            words = _WORD.findall(item)
            if not words:
                continue
            names.add(words[0])
            if len(words) >= 3 and words[1] == "as":
                bound[words[2]] = words[0]
            else:
                head = words[0].split(".")[0]
                bound[head] = head
    for head, full in bound.items():
        if head and head in text:
            for rest in _chain_after(head).findall(text):
                names.add(full + "".join(rest.split()))
    return names


def parses(source: bytes, path: str) -> bool:
    """Whether Python's own parser accepts the file (a cheap stand-in for libcst's)."""
    try:
        compile(source, path, "exec", 0x400, dont_inherit=True)  # ast.PyCF_ONLY_AST
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


#: Files read beyond the given ones before the screen gives up (and analyses everything).
MAX_FILES = 5000


@dataclass
class Selection:
    """The files split by the screen. `analyse`: given files (in the order given) and imported
    project files that spell an entry point, or that Python does not parse; `deferred`: live
    files without an entry point (real path -> path as shown), analysed only when the staged
    code turns out to need them (`stagelint.pipeline.demand`); `skip`: given files that cannot have
    findings. `digests`: the SHA-256 of every file read, by real path (keys of the result
    cache); `sources` and `names`: the bytes of the deferred files and the dotted names they
    refer to (`referenced_names`); `known`: every file the screen read;
    `files_for(names)`: the files dotted names may refer to (the screen's module graph).
    Whether Python parses a deferred file (its STG000) is asked only once the rounds are over,
    of the files they left (`unparsed`): a file a round analyses is parsed there anyway."""

    analyse: list[str] = field(default_factory=list)
    skip: list[str] = field(default_factory=list)
    digests: dict[str, str] = field(default_factory=dict)
    deferred: dict[str, str] = field(default_factory=dict)
    sources: dict[str, bytes] = field(default_factory=dict)
    names: dict[str, frozenset] = field(default_factory=dict)
    known: set[str] = field(default_factory=set)
    files_for: object = None
    #: deferred given files not known to parse: real path -> their summary
    unchecked: dict[str, FileSummary] = field(default_factory=dict)
    #: (cache, its keys by real path, the summaries to keep: fresh, or parses learnt)
    keeping: tuple = (None, {}, {})
    #: real path -> the optional frameworks (`frameworks.OPTIONAL_FRAMEWORKS`) that cannot stage
    #: anything there: their rules and facts are left out of its analysis (`framework_reach`).
    #: A file not in it (the screen did not read it) gets every framework's.
    absent: dict[str, frozenset] = field(default_factory=dict)

    def unparsed(self, left) -> list[str]:
        """Of the deferred files no round analysed (real paths), those Python's parser refuses:
        they are analysed for their STG000. What was learnt is kept in the cache."""
        cache, keys, fresh = self.keeping
        broken = []
        for real, summary in self.unchecked.items():
            if real not in left:
                continue
            if summary.parses is None:
                summary = dataclasses.replace(summary, parses=parses(self.sources[real], self.deferred[real]))
                fresh[real] = summary
            if not summary.parses:
                broken.append(real)
        self.unchecked = {}
        _keep(cache, keys, fresh)
        self.keeping = (None, {}, {})
        return sorted(broken)


@dataclass(frozen=True)
class FileSummary:
    """What the screen reads from one file: whether it spells a staging word, whether it spells
    an entry point (`screen.entry_pattern`), the dotted names it may refer to other modules by,
    whether it spells a JAX root (`JAX_WORDS`) and, once asked, whether Python parses it and
    whether it spells a JAX entry point (`jax_entry_pattern`: asked where JAX is in reach)."""

    stages: bool
    names: frozenset[str]
    parses: bool | None = None
    entries: bool = False
    jax: bool = False
    jax_entries: bool | None = None


class _Graph:
    def __init__(self, search_roots, module_name, realpath):
        self.roots = [str(r) for r in search_roots]
        self.module_name = module_name
        self.realpath = realpath
        self._top: dict[tuple[str, str], bool] = {}
        self._found: dict[str, tuple[str, ...]] = {}
        self._prefixes: dict[tuple[str, str], tuple[tuple[str, ...], bool]] = {}
        self.index: dict[str, set[str]] = {}  # dotted suffix of a module name -> files
        #: set by `complete()` once every file is in the index: each name's files, remembered
        self._complete: dict[str, set[str]] | None = None

    def add_to_index(self, real: str) -> None:
        module, _ = self.module_name(Path(real))
        parts = module.split(".") if module else []
        for i in range(len(parts)):
            self.index.setdefault(".".join(parts[i:]), set()).add(real)

    def _on_disk(self, name: str) -> tuple[str, ...]:
        found = self._found.get(name)
        if found is not None:
            return found
        parts = name.split(".")
        out = []
        for root in self.roots:
            key = (root, parts[0])
            if key not in self._top:
                base = os.path.join(root, parts[0])
                self._top[key] = os.path.isdir(base) or os.path.isfile(base + ".py")
            if not self._top[key]:
                continue
            prefix = ""
            for part in parts:
                prefix = f"{prefix}.{part}" if prefix else part
                files, is_dir = self._at(root, prefix)
                out.extend(files)
                if not is_dir:
                    break
        self._found[name] = tuple(out)
        return self._found[name]

    def _at(self, root: str, prefix: str) -> tuple[tuple[str, ...], bool]:
        """The module files of a dotted prefix under a root, and whether it is a folder (names
        share prefixes: each is looked at once)."""
        key = (root, prefix)
        got = self._prefixes.get(key)
        if got is None:
            base = os.path.join(root, *prefix.split("."))
            files = tuple(self.realpath(c) for c in (base + ".py", os.path.join(base, "__init__.py")) if os.path.isfile(c))
            got = self._prefixes[key] = (files, os.path.isdir(base))
        return got

    def complete(self) -> None:
        """Every file is in the index now: answers per name can be remembered."""
        self._complete = {}

    def files_for(self, names, with_index: bool) -> set[str]:
        out: set[str] = set()
        memo = self._complete if with_index else None
        for name in names:
            if not name or name.startswith("."):
                continue
            if memo is not None:
                files = memo.get(name)
                if files is None:
                    files = memo[name] = self._files_for_name(name, with_index)
                out.update(files)
            else:
                out.update(self._files_for_name(name, with_index))
        return out

    def _files_for_name(self, name: str, with_index: bool) -> set[str]:
        out = set(self._on_disk(name))
        if with_index:
            parts = name.split(".")
            prefix = ""
            for part in parts:
                prefix = f"{prefix}.{part}" if prefix else part
                out.update(self.index.get(prefix, ()))
        return out


def summarize(source: bytes, pattern: re.Pattern[bytes], module: str, is_package: bool,
              entries: re.Pattern[bytes] | None = None, jax_entries: re.Pattern[bytes] | None = None) -> FileSummary:
    stages = mentions_staging(source, pattern)
    return FileSummary(stages, frozenset(referenced_names(source, module, is_package)),
                       entries=entries is not None and entries.search(source) is not None,
                       jax=stages and any(w in source for w in JAX_WORDS),
                       jax_entries=None if jax_entries is None else jax_entries.search(source) is not None)


def select(files: list[str], settings, search_roots, module_name, read=None, cache=None, realpath=None) -> Selection:
    """Split the given files into those the engine must analyse and those that cannot have
    findings. `read(path) -> bytes` reads a file (default: `files.read_source` with the size
    budget), and may serve sources that differ from the disk (stdin).
    `cache` (a `stagelint.pipeline.cache.Cache`) keeps each file's summary by its content."""
    from stagelint.pipeline.cache import analysis_settings
    from stagelint.pipeline.files import digest, read_source

    pattern = staging_pattern(settings)
    entries = entry_pattern(settings)
    jax_entries = jax_entry_pattern()
    realpath = realpath or RealPaths()
    graph = _Graph(search_roots, module_name, realpath)
    cache_settings = analysis_settings(settings)

    def load(real: str) -> bytes | None:
        try:
            return read(real) if read is not None else read_source(real, settings.max_file_size)
        except OSError:  # (`files.NotRead` too: the engine reports why)
            return None

    given = {}
    for f in files:
        given.setdefault(realpath(f), f)
    for real in given:
        graph.add_to_index(real)

    summaries: dict[str, FileSummary | None] = {}
    modules: dict[str, str] = {}
    keys: dict[str, str] = {}
    fresh: dict[str, FileSummary] = {}  # summaries the cache did not have: kept at the end, once
    digests: dict[str, str] = {}
    sources: dict[str, bytes] = {}
    queue = list(given)
    while queue:  # every given file and every project file they import, transitively
        real = queue.pop()
        if real in summaries:
            continue
        if len(summaries) >= MAX_FILES + len(given):
            # Imports lead somewhere huge (a search root inside site-packages): no screen,
            # rather than a partial one that could drop a finding.
            _keep(cache, keys, fresh)
            return Selection(analyse=list(given.values()), digests=digests)
        source = load(real)
        if source is None:
            summaries[real] = None
            continue
        sources[real] = source
        digests[real] = digest(source)
        module, is_package = module_name(Path(real))
        modules[real] = module
        summary = None
        if cache is not None:
            keys[real] = cache.key("screen", cache_settings, module, is_package, digests[real])
            summary = cache.get("screen", keys[real], FileSummary)
        if summary is None:
            summary = fresh[real] = summarize(source, pattern, module, is_package, entries)
        summaries[real] = summary
        queue.extend(f for f in graph.files_for(summary.names, with_index=True) if f not in summaries)
    for real in summaries:
        if real not in given:
            graph.add_to_index(real)
    graph.complete()

    edges = {
        real: graph.files_for(s.names if s is not None else (), with_index=True) - {real}
        for real, s in summaries.items()
    }
    importers: dict[str, set[str]] = {}
    for real, targets in edges.items():
        for t in targets:
            importers.setdefault(t, set()).add(real)

    # Unreadable files go to the engine, which reports them.
    reaches_staging = _closure({r for r, s in summaries.items() if s is None or s.stages}, importers)
    live = _closure(reaches_staging, edges)
    jax_in_reach = _closure({r for r, s in summaries.items() if s is not None and s.jax}, importers)

    selection = Selection(digests=digests, known=set(summaries),
                          files_for=lambda names: graph.files_for(names, with_index=True),
                          absent=framework_reach(summaries, modules, edges, importers))
    for real, summary in summaries.items():
        shown = given.get(real)
        if summary is not None and summary.jax_entries is None and not summary.entries and real in live \
                and real in jax_in_reach:
            # (asked only here: a search of the whole file that a TensorFlow code base never needs)
            summary = dataclasses.replace(summary, jax_entries=jax_entries.search(sources[real]) is not None)
            fresh[real] = summary
        entry = summary is not None and (summary.entries or (real in jax_in_reach and bool(summary.jax_entries)))
        # A notebook's JSON is not Python the screen can read (escaped strings, one cell's
        # syntax error is not the file's): notebooks always get the full analysis.
        if summary is None or (real in live and entry) or (shown is not None and shown.endswith(".ipynb")):
            if shown is not None or summary is not None:
                selection.analyse.append(shown if shown is not None else display_path(Path(real)))
            continue
        if real in live:
            if shown is not None and not summary.parses:
                selection.unchecked[real] = summary  # asked when the rounds are over
            selection.deferred[real] = shown if shown is not None else display_path(Path(real))
            selection.sources[real] = sources[real]
            selection.names[real] = summary.names
            continue
        if summary.parses is None and (shown is not None):
            summary = fresh[real] = dataclasses.replace(summary, parses=parses(sources[real], shown))
        if shown is not None and not summary.parses:
            selection.analyse.append(shown)  # its STG000
        elif shown is not None:
            selection.skip.append(shown)
    _keep(cache, keys, {real: s for real, s in fresh.items() if real not in selection.unchecked})
    selection.keeping = (cache, keys, {real: s for real, s in fresh.items() if real in selection.unchecked})
    order = {real: i for i, real in enumerate(given)}
    # Given files in the order given, then imported ones by name: the same order every run.
    selection.analyse.sort(key=lambda shown: (order.get(realpath(shown), len(order)), shown))
    return selection


def framework_reach(summaries: dict[str, FileSummary | None], modules: dict[str, str],
                    edges: dict[str, set[str]], importers: dict[str, set[str]]) -> dict[str, frozenset]:
    """For every file read, the optional frameworks (JAX) that cannot stage anything in it.

    A framework can stage, or be the reason for a finding, only in a file that some chain of
    imports links to a file that names it (`frameworks.names_framework`: imports it, or is in
    one of its packages): its staging calls, jitted callables and module bases are qualified
    names, which come into a file only from its own imports, and the project phase follows a
    name from one module to another only through an import (or a module-name suffix, which the
    graph's edges hold too). So, as for staging words (`live`), a file is in the framework's
    reach when it imports such a file, directly or not (it may call a jitted function, subclass
    a Flax module), or is imported, directly or not, by a file that does (staged code there may
    call its functions, jit them, pass them to `lax.scan`). Elsewhere its rules and fact
    collectors have nothing to find. The imported names are the screen's (`referenced_names`),
    which err towards seeing more."""
    absent: dict[str, set[str]] = {}
    for fw in OPTIONAL_FRAMEWORKS:
        seeds = {r for r, s in summaries.items() if s is not None and names_framework(fw, s.names, modules.get(r, ""))}
        reach = _closure(_closure(seeds, importers), edges)
        for r in summaries:
            if r not in reach:
                absent.setdefault(r, set()).add(fw.name)
    return {r: frozenset(names) for r, names in absent.items()}


def _closure(files: set[str], graph: dict[str, set[str]]) -> set[str]:
    """`files` and every file `graph` leads to from them, directly or not (with `importers`:
    every file that imports one of them; with `edges`: every file they import)."""
    out = set(files)
    queue = list(files)
    while queue:
        for other in graph.get(queue.pop(), ()):
            if other not in out:
                out.add(other)
                queue.append(other)
    return out


def _keep(cache, keys: dict[str, str], fresh: dict[str, FileSummary]) -> None:
    if cache is not None:  # all at once: the cache keeps them in one file (`cache.BUNDLED`)
        cache.put_many("screen", {keys[real]: summary for real, summary in fresh.items()}, FileSummary)
