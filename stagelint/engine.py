"""`stagelint check` end to end: find files, analyse each once, join them, report findings.

Per file: one parse, one metadata resolution, one traversal (`context.analyze_module`), which
yields picklable `ModuleFacts`. Then the project phase (`staging.Project`) decides which
functions are staged and which candidates stand. The static analyzer reads files; it never
imports or runs them.
"""

from __future__ import annotations

import gc
import os
import traceback
from pathlib import Path

import libcst as cst

from stagelint import facts as F
from stagelint import notebooks
from stagelint.config import Settings
from stagelint.context import FileContext, analyze_module
from stagelint.discovery import SKIP_DIRS, discover  # noqa: F401  (re-exported)
from stagelint.demand import Words, demanded
from stagelint.findings import CheckResult, Finding, file_is_off, is_selected, is_suppressed
from stagelint.files import digest
from stagelint.frameworks import TENSORFLOW
from stagelint.rules.base import REGISTRY, all_rules
from stagelint.staging import Project

def module_name(path: Path) -> tuple[str, bool]:
    """Dotted module name from the package folders (those with `__init__.py`) above a file."""
    path = path.resolve()
    is_package = path.name == "__init__.py"
    parts = [] if is_package else [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
    return ".".join(parts), is_package


def analyze_source(path: str, source: bytes, settings: Settings, project_roots=frozenset()) -> F.ModuleFacts:
    """Parse and walk one file. A syntax error is one STG000 candidate, not an exception."""
    module, is_package = module_name(Path(path))
    notebook = None
    try:
        if notebooks.is_notebook(path):  # its code cells as one module, in module lines
            tree, notebook = notebooks.parse(source, cst.parse_module)
        else:
            tree = cst.parse_module(source)
    except (cst.ParserSyntaxError, SyntaxError, UnicodeDecodeError, LookupError, notebooks.NotebookError) as e:
        # The last three: not UTF-8 and no (valid) coding cookie; Python refuses those too.
        line, column, message = (1, 1, str(e)) if notebook is None and notebooks.is_notebook(path) \
            else _syntax_error_location(source, e)
        facts = F.ModuleFacts(path=path, module=module, is_package=is_package)
        facts.candidates.append(F.Candidate("STG000", None, F.Span(line, column, line, column), {"error": message}))
        return facts
    ctx = FileContext(path, module, is_package, settings, TENSORFLOW)
    ctx.project_roots = frozenset(project_roots)
    ctx.source_digest = digest(source)  # fixes are applied only to these exact bytes
    facts = analyze_module(tree, ctx, [r for r in all_rules() if not r.runtime_only])
    if notebook is not None:  # one STG000 per cell that does not parse (the cell is left out)
        for cell, line, column, message in notebook.broken:
            at = notebook.starts[notebook.cells.index(cell)] + line - 1
            facts.candidates.append(F.Candidate("STG000", None, F.Span(at, column, at, column),
                                                {"error": f"{message} (this cell is skipped, the others are checked)"}))
    return facts


def _syntax_error_location(source: bytes, error: Exception) -> tuple[int, int, str]:
    """Python's own message and position when it agrees the file is invalid (users know its
    wording); libcst's otherwise (e.g. syntax newer than libcst's grammar)."""
    try:
        compile(source, "<stagelint>", "exec", dont_inherit=True)
    except SyntaxError as py:
        if py.lineno:
            return py.lineno, max(1, py.offset or 1), py.msg
    except (ValueError, RecursionError, MemoryError):
        pass
    message = " ".join(str(getattr(error, "message", error)).split()) or "invalid syntax"
    return max(1, getattr(error, "raw_line", 1)), max(1, getattr(error, "raw_column", 0) + 1), message


def _read(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _decode_lines(source: bytes) -> list[str]:
    text = source.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.splitlines()


def _imported_files(facts: F.ModuleFacts, search_roots: list[Path], memo: dict | None = None) -> list[str]:
    """Files of project modules a module imports, found under the search roots. `memo` keeps
    each dotted name's answer, and what each folder holds, for the run (a thousand modules ask
    about the same names, most of them outside the project)."""
    names = set(facts.imports.values())
    for f in facts.functions.values():
        names.update(e.target[1] for e in f.calls if e.target[0] == "name")
    out = []
    if memo is None:
        memo = {}
    probes = memo.setdefault(None, {})
    for name in sorted(names):
        found = memo.get(name)
        if found is None:
            found = memo[name] = _imported_files_of(name, search_roots, probes)
        out.extend(found)
    return out


def _imported_files_of(name: str, search_roots: list[Path], probes: dict) -> list[str]:
    """The file of the longest prefix of `name` that is a module under a search root."""
    parts = name.split(".")
    if all(p and "/" not in p and "\0" not in p for p in parts):
        # The same answer as below (`pathlib` would read each part as one name), with what each
        # folder holds looked up once per run, and nothing probed below a missing folder.
        roots = [str(r) for r in search_roots]
        for i in range(len(parts), 0, -1):
            for root in roots:
                if _probe(probes, root, parts, i - 1)[1]:  # the folder the module would be in
                    found = _probe(probes, root, parts, i)[0]
                    if found:
                        return [found]
        return []
    for i in range(len(parts), 0, -1):
        rel = Path(*parts[:i])
        for root in search_roots:
            for candidate in (root / rel.with_suffix(".py"), root / rel / "__init__.py"):
                if candidate.is_file():
                    return [_display_path(candidate)]
    return []


def _probe(probes: dict, root: str, parts: list[str], n: int) -> tuple[str, bool]:
    """(the display path of the module `parts[:n]` under `root` or "", whether it is a folder)."""
    if n == 0:
        return "", True  # the search root itself
    key = (root, *parts[:n])
    got = probes.get(key)
    if got is None:
        if not _probe(probes, root, parts, n - 1)[1]:
            got = ("", False)
        else:
            base = os.path.join(root, *parts[:n])
            found = ""
            for candidate in (base + ".py", os.path.join(base, "__init__.py")):
                if os.path.isfile(candidate):
                    found = _display_path(Path(candidate))
                    break
            got = (found, os.path.isdir(base))
        probes[key] = got
    return got


def _display_path(path: Path) -> str:
    """Relative to the working directory when below it, as paths given on the command line are."""
    rel = os.path.relpath(path)
    return path.as_posix() if rel.startswith("..") else Path(rel).as_posix()


def _package_root(path: Path) -> Path:
    directory = path.resolve().parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        directory = directory.parent
    return directory


class ModuleNames:
    """`module_name` and `_package_root` for one run, each folder looked at once (a tree of a
    thousand files costs a few hundred `__init__.py` checks, not one per file and level)."""

    def __init__(self, realpath=None):
        from stagelint.screen import RealPaths

        self.realpath = realpath or RealPaths()
        self._packages: dict[str, tuple[str, ...]] = {}

    def _package(self, directory: str) -> tuple[str, ...]:
        got = self._packages.get(directory)
        if got is None:
            parent = os.path.dirname(directory)
            if parent != directory and os.path.isfile(os.path.join(directory, "__init__.py")):
                got = (*self._package(parent), os.path.basename(directory))
            else:
                got = ()
            self._packages[directory] = got
        return got

    def __call__(self, path) -> tuple[str, bool]:
        directory, name = os.path.split(self.realpath(os.fspath(path)))
        is_package = name == "__init__.py"
        parts = list(self._package(directory))
        if not is_package:
            i = name.rfind(".")
            parts.append(name[:i] if 0 < i < len(name) - 1 else name)  # Path.stem
        return ".".join(parts), is_package

    def package_root(self, path) -> Path:
        directory = os.path.dirname(self.realpath(os.fspath(path)))
        for _ in self._package(directory):
            directory = os.path.dirname(directory)
        return Path(directory)


def check_paths(
    paths: list[str],
    settings: Settings | None = None,
    follow_imports: bool = True,
    report_imported: bool = False,
    jobs: int | None = None,
    *,
    noqa: bool = True,
    sources: dict[str, bytes] | None = None,
    screen: bool = True,
    cache=None,
) -> CheckResult:
    """Analyse files and directories; report findings in them (and, if asked, in the project
    modules they import, which are always analysed for the call graph).

    `noqa=False` leaves inline `# noqa` to the host (flake8 applies its own). `sources` maps
    real paths to contents that replace the disk's (an editor's unsaved buffer); those files are
    analysed in this process. `jobs=0` analyses everything in this process (inside a daemonic
    worker, such as flake8's, which may not start processes). `screen=False` turns off the
    byte-level screen (`stagelint.screen`), for testing that it changes nothing. `cache` (a
    `stagelint.cache.Cache`) serves and keeps per-file outcomes by content (`stagelint.cache`);
    None analyses everything afresh."""
    # Facts arrive as many small objects and stay to the end: the cyclic garbage collector
    # would walk them over and over (unpickling the facts of a thousand files takes ten
    # times longer with it on), and nothing here makes garbage cycles worth collecting.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _check_paths(paths, settings, follow_imports, report_imported, jobs, noqa, sources, screen, cache)
    finally:
        if collecting:
            gc.enable()


def _check_paths(paths, settings, follow_imports, report_imported, jobs, noqa, sources, screen, cache) -> CheckResult:
    from stagelint.cache import analysis_settings
    from stagelint.workers import analyse_files, default_jobs

    settings = settings or Settings()
    sources = {os.path.realpath(k): v for k, v in (sources or {}).items()}
    result = CheckResult()
    # A buffer with no file behind it (flake8's standard input) is checked under its name.
    virtual = [p for p in paths if os.path.realpath(p) in sources and not os.path.exists(p)]
    files, missing = discover([p for p in paths if p not in virtual], settings)
    files = virtual + files
    result.skipped.extend(missing)
    names = ModuleNames()
    realpath = names.realpath
    roots = frozenset(names(f)[0].split(".")[0] for f in files)
    search_roots = sorted({names.package_root(f) for f in files} | {Path.cwd()}, key=str)
    given = {realpath(f) for f in files}
    placeholders: list[F.ModuleFacts] = []
    digests: dict[str, str] = {}
    selection = None
    if screen:
        from stagelint import screen as screening

        read = (lambda real: sources[real] if real in sources else _read(real)) if sources else None
        selection = screening.select(files, settings, search_roots, names, read, cache=cache, realpath=realpath)
        files = selection.analyse
        digests = selection.digests
        for path in selection.skip:
            # Checked (it cannot have findings); its name still takes part in the engine's
            # resolution of module-name suffixes, as it would unscreened.
            module, is_package = names(path)
            placeholders.append(F.ModuleFacts(path=path, module=module, is_package=is_package))
        if not follow_imports:
            files = [f for f in files if realpath(f) in given]
            selection.deferred = {r: shown for r, shown in selection.deferred.items() if r in given}
    # Without the screen (or when it gave up), `more` follows the imports of each analysed file.
    # With it, the screen has read every project file the given ones import, transitively, and
    # the rounds decide which of them to analyse.
    follow = follow_imports and not (selection is not None and selection.known)
    queued = {realpath(f) for f in files}
    imported_memo: dict[str, list[str]] = {}
    fact_settings = (analysis_settings(settings), tuple(sorted(roots)))

    def lookup(path: str):
        """The cached outcome of a file whose bytes, name, settings and stagelint are unchanged."""
        from stagelint.workers import Outcome

        real = realpath(path)
        known = digests.get(real)
        if known is None:
            try:
                known = digests[real] = digest(_read(real))
            except OSError:
                return None
        module, is_package = names(path)
        facts = cache.get("facts", facts_key(cache, fact_settings, path, module, is_package, known), F.ModuleFacts)
        if facts is None:
            return None
        facts.path = path  # the key holds it relative to the project root: shown as given here
        return Outcome(path, "ok", facts, digest=known, cached=True)

    def more(outcome):
        if not follow or outcome.facts is None or len(queued) >= 2000:
            return []
        new = []
        for p in _imported_files(outcome.facts, search_roots, imported_memo):
            real = realpath(p)
            if real not in queued:
                queued.add(real)
                new.append(p)
        return new

    modules: list[F.ModuleFacts] = []
    reported: set[str] = set()
    # With `sources` (an editor's buffer), the other files still come from the cache; the
    # buffer is analysed afresh and not kept (`_analyse_here`), nor is a plan that depends on it.
    use_cache = cache is not None and cache.enabled
    store = (cache, fact_settings) if use_cache else None
    deferred = dict(selection.deferred) if selection is not None else {}
    words = Words(selection.sources, selection.names) if selection is not None else None
    # The rounds' outcome depends only on the files' contents and names: a run over the same
    # files takes it from the cache, rather than repeat the project phase once per round.
    plan_key = planned = None
    if use_cache and deferred and not sources:
        plan_key = cache.key("plan", fact_settings, sorted(given), follow_imports, sorted(selection.digests.items()))
        planned = cache.get("plan", plan_key, list[str])
        if planned is not None and set(planned) <= deferred.keys():
            files = files + [deferred.pop(real) for real in planned]
        else:
            planned = None
    rounds: list[str] = []
    clean = True
    while True:
        if jobs == 0 or sources:
            outcomes = _analyse_here(files, settings, roots, more, sources, lookup if use_cache else None, store)
        else:
            outcomes = analyse_files(files, settings, roots, jobs or default_jobs(), more,
                                     lookup=lookup if use_cache else None, store=store)
        for outcome in outcomes:
            is_given = realpath(outcome.path) in given
            if outcome.status == "ok":
                modules.append(outcome.facts)
                if is_given:
                    reported.add(outcome.path)
                    result.files_checked += 1
                    result.errors.extend((outcome.path, code, tb) for code, tb in outcome.facts.errors)
            else:
                clean = False
                if is_given and outcome.status == "error":
                    result.errors.append((outcome.path, "engine", outcome.detail))
                elif is_given:
                    result.skipped.append((outcome.path, outcome.detail))
        if not deferred or planned is not None:
            break
        # The next round: the deferred files what has been found so far needs (`stagelint.demand`).
        modules.sort(key=lambda m: m.path)
        partial = Project(modules + _placeholders(deferred.values(), placeholders, names), settings, TENSORFLOW,
                          call_sites=False)
        wanted = demanded(partial, modules, deferred, selection.files_for, words)
        if not wanted:
            break
        rounds.extend(wanted)
        files = [deferred.pop(real) for real in wanted]
    if plan_key is not None and planned is None and clean:
        cache.put("plan", plan_key, rounds)  # a crash or hang changes the rounds: not kept
    placeholders = _placeholders(deferred.values(), placeholders, names)  # nothing staged needs them
    if report_imported:
        reported = {m.path for m in modules}
    modules.sort(key=lambda m: m.path)
    result.errors.sort()
    analysed = {realpath(m.path) for m in modules}
    placeholders = [m for m in placeholders if realpath(m.path) not in analysed]
    result.files_checked += sum(1 for m in placeholders if realpath(m.path) in given)
    modules.extend(placeholders)
    project = Project(modules, settings, TENSORFLOW)
    shown = {m.path: sources[os.path.realpath(m.path)] for m in modules if os.path.realpath(m.path) in sources}
    result.findings = sorted(
        _findings(project, modules, reported, shown, settings, result.errors, noqa=noqa), key=Finding.sort_key
    )
    result.skipped.sort()
    return result


def _placeholders(paths, others: list[F.ModuleFacts], names) -> list[F.ModuleFacts]:
    """Name-only facts of files not analysed: their names still take part in the engine's
    resolution of module-name suffixes, as they would analysed."""
    out = list(others)
    for path in paths:
        module, is_package = names(path)
        out.append(F.ModuleFacts(path=path, module=module, is_package=is_package))
    return out


def facts_key(cache, fact_settings, path: str, module: str, is_package: bool, content_digest: str) -> str:
    """The cache key of a file's facts: its bytes, its path (from the project root) and dotted name, the
    analysis settings and the packages checked (stagelint's own version is the cache's folder)."""
    return cache.key("facts", fact_settings, cache.relative(path), module, is_package, content_digest)


def store_outcome(store, outcome) -> None:
    """Keep a fresh outcome of the per-file phase (only a finished analysis: a crash, a hang
    or an internal error is tried again next time)."""
    if store is None or outcome.status != "ok" or outcome.cached or not outcome.digest:
        return
    cache, fact_settings = store
    facts = outcome.facts
    cache.put("facts", facts_key(cache, fact_settings, outcome.path, facts.module, facts.is_package, outcome.digest), facts)


def _analyse_here(paths, settings, roots, more, sources, lookup=None, store=None):
    """`workers.analyse_files` without worker processes; `sources` replace the disk's bytes."""
    from stagelint.workers import Outcome, analyse_one

    queue = list(paths)
    while queue:
        path = queue.pop(0)
        real = os.path.realpath(path)
        if real in sources:
            from stagelint.budget import over_budget

            reason = over_budget(sources[real], settings, in_process=True)
            try:
                if reason is not None:
                    outcome = Outcome(path, "skipped", detail=reason)
                else:
                    outcome = Outcome(path, "ok", analyze_source(path, sources[real], settings, roots))
            except RecursionError:
                outcome = Outcome(path, "skipped", detail="too deeply nested to analyse")
            except notebooks.NotPython as e:
                outcome = Outcome(path, "skipped", detail=str(e))
            except Exception:  # as in the workers: one file's internal error loses only that file
                outcome = Outcome(path, "error", detail=traceback.format_exc(limit=-6))
        else:
            outcome = (lookup(path) if lookup is not None else None) or analyse_one(path, settings, roots,
                                                                                    in_process=True)
            store_outcome(store, outcome)
        yield outcome
        queue.extend(more(outcome))


def _findings(project: Project, modules, reported: set[str], sources: dict[str, bytes], settings: Settings,
              errors: list | None = None, noqa: bool = True):
    """Candidates that stand, as findings. A rule that raises in the project phase is recorded
    in `errors` (path, rule, traceback) and loses only its own findings there."""
    errors = errors if errors is not None else []
    by_module = {m.module: m for m in modules}
    candidates: list[tuple[F.ModuleFacts, F.Candidate]] = [(m, c) for m in modules for c in m.candidates]
    failed: set[tuple[str, str]] = set()
    for rule in all_rules():
        try:
            extra = list(rule.project_candidates(project))
        except Exception:
            errors.append(("<project>", rule.code, traceback.format_exc(limit=-4)))
            continue
        for module, cand in extra:
            candidates.append((by_module[module], cand))
    seen = set()
    lines_cache: dict[str, tuple[list[str], bytes]] = {}
    for m, cand in candidates:
        if m.path not in reported:
            continue
        rule = REGISTRY[cand.code]
        if not is_selected(rule.code, settings.select, settings.ignore) or _ignored_for_file(m.path, rule.code, settings):
            continue
        fields = dict(cand.fields)
        fix = fields.pop("_fix", None)
        entry = None
        if not rule.always:
            key = (m.module, cand.function)
            if cand.fields.get("_anchors"):
                # Found outside staged code (a call site, a rebinding): it stands for the first
                # staged function it concerns, which its message names.
                key = next((tuple(a) for a in cand.fields["_anchors"] if tuple(a) in project.reached), None)
            # `tf.function(lambda ...)` stages its own code, reached or not.
            staged_here = bool(cand.fields.get("_stages_itself"))
            if (key not in project.reached and not staged_here) or (m.path, rule.code) in failed:
                continue
            try:
                verdict = rule.confirm(cand, project, m)
                if not verdict:
                    continue
                if isinstance(verdict, dict):  # what only the project shows, for the message
                    fields.update(verdict)
            except Exception:
                failed.add((m.path, rule.code))
                errors.append((m.path, rule.code, traceback.format_exc(limit=-4)))
                continue
            if key in project.reached:
                fields.setdefault("func", project.function_phrase(key))
                entry = project.display(project.reached[key], m.module)
        finding = Finding(
            code=rule.code,
            name=rule.name,
            path=m.path,
            line=cand.span.line,
            column=cand.span.column,
            end_line=cand.span.end_line,
            end_column=cand.span.end_column,
            message=rule.message.format(**fields),
            function=cand.function,
            entry_point=entry,
            fixable=fix is not None,
            fix=fix,
        )
        if finding.sort_key() + (finding.message,) in seen:
            continue
        seen.add(finding.sort_key() + (finding.message,))
        lines, source = lines_cache.get(m.path) or (None, b"")
        if lines is None:
            source = sources.get(m.path)
            if source is None:
                try:
                    source = _read(m.path)
                except OSError:
                    source = b""
            lines = notebooks.module_lines(m.path, source) if notebooks.is_notebook(m.path) else _decode_lines(source)
            lines_cache[m.path] = (lines, source)
        if rule.code != "STG000" and (file_is_off(lines, rule.code) or (noqa and is_suppressed(finding, lines))):
            continue
        # A notebook's findings are shown in cell coordinates (`stagelint.notebooks`).
        yield notebooks.place(finding, source) if notebooks.is_notebook(m.path) else finding


def _ignored_for_file(path: str, code: str, settings: Settings) -> bool:
    return settings.ignored_for(path, code)


def check_source(source: str, path: str = "example.py", settings: Settings | None = None) -> list[Finding]:
    """Check one in-memory module (used by the examples' tests and the docs)."""
    settings = settings or Settings()
    data = source.encode("utf-8")
    facts = analyze_source(path, data, settings)
    project = Project([facts], settings, TENSORFLOW)
    return sorted(_findings(project, [facts], {path}, {path: data}, settings), key=Finding.sort_key)
