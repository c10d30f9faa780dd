"""The stages of a check, in order, over one `ProjectState`:

    discover -> screen -> plan the rounds -> analyse -> project phase -> findings

Each stage reads what the ones before it filled in and fills in its own part; none calls back
into another. `run` runs them all (the command line, the flake8 plugin); the language server
runs them once, then `reanalyse` and `project_phase` and `findings_for` as files change.

Per file: one parse, one metadata resolution, one traversal (`pipeline.perfile`), which yields
picklable `ModuleFacts`. Then the project phase (`staging.Project`) decides which functions are
staged and which candidates stand. The static analyzer reads files; it never imports or runs
them.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from stagelint.pipeline import checkcache
from stagelint.analysis import eagerswitch
from stagelint.analysis import facts as F
from stagelint.pipeline.demand import Words, demanded
from stagelint.pipeline.discovery import discover as discover_files
from stagelint.pipeline.discovery import root_of
from stagelint.pipeline.files import digest
from stagelint.findings import CheckResult, Finding
from stagelint.frameworks import (KERAS_COMPILE_SPELLING, KERAS_DRIVE_SPELLING, KERAS_HAND_TRAINING_SPELLING,
                                  KERAS_RUN_SPELLING, STAGING)
from stagelint.pipeline.imports import imported_files
from stagelint.pipeline.incremental import reusable
from stagelint.pipeline.paths import display_path, project_root
from stagelint.pipeline.state import ProjectState
from stagelint.analysis.staging import Project

_KERAS_DRIVE = re.compile(KERAS_DRIVE_SPELLING)
_KERAS_HAND = re.compile(KERAS_HAND_TRAINING_SPELLING)
_KERAS_RUN = re.compile(KERAS_RUN_SPELLING)
_KERAS_COMPILE = re.compile(KERAS_COMPILE_SPELLING)
#: digest -> whether the bytes spell a Keras drive, a step of training by hand, a compile, a drive
#: that runs a built model (not a symbolic build alone) (read once a file, not once a round)
_KERAS_DRIVE_SEEN: dict[str, tuple[bool, bool, bool, bool]] = {}


def _spells_keras_drive(key: str | None, source: bytes) -> tuple[bool, bool, bool, bool]:
    got = _KERAS_DRIVE_SEEN.get(key) if key is not None else None
    if got is None:
        drives = bool(_KERAS_DRIVE.search(source))
        got = (drives, b"apply_gradients" in source and bool(_KERAS_HAND.search(source)),
               b"compile" in source and bool(_KERAS_COMPILE.search(source)), drives and bool(_KERAS_RUN.search(source)))
        if key is not None:
            _KERAS_DRIVE_SEEN[key] = got
    return got

if TYPE_CHECKING:
    from stagelint.pipeline.perfile import Outcome

#: Files followed through imports (without the screen) before following stops.
MAX_FOLLOWED = 2000

# The per-file analysis (`pipeline.perfile`, `workers`: libcst and the rules) and the judging
# (`pipeline.verdicts`) are imported where they are used: a check answered whole from the result
# cache (`stagelint.pipeline.checkcache`) needs neither, and importing them is a third of such a run.


def run(state: ProjectState) -> CheckResult:
    """Every stage, in order: the result of the check."""
    discover(state)
    screen(state)
    if checkcache.reuse(state):  # nothing the findings depend on changed since a clean check
        return state.result
    plan_rounds(state)
    analyse(state)
    project_phase(state)
    findings(state)
    checkcache.keep(state)
    return state.result


# discover ---------------------------------------------------------------------------------------

def discover(state: ProjectState) -> None:
    """The files of the check: those under the given paths and, with `whole_project`, every file
    of the project each given file belongs to (reported only for the given ones)."""
    settings, sources = state.settings, state.sources
    # A buffer with no file behind it (flake8's standard input) is checked under its name.
    virtual = [p for p in state.paths if os.path.realpath(p) in sources and not os.path.exists(p)]
    state.within = tuple(sorted({root_of(p) for p in state.paths}))
    asked, missing = discover_files([p for p in state.paths if p not in virtual], settings)
    asked = virtual + asked
    state.result.skipped.extend(missing)
    realpath = state.realpath
    state.asked = {realpath(f) for f in asked}
    files = asked
    if state.options.whole_project:
        files = asked + _project_files(state, [p for p in state.paths if p in virtual or os.path.isfile(p)])
    state.files = files
    names = state.names
    state.roots = frozenset(names(f)[0].split(".")[0] for f in files) | _namespace_roots(files, state.within, names)
    state.search_roots = sorted({names.package_root(f) for f in files} | {Path.cwd()}, key=str)
    state.given = {realpath(f) for f in files}


def _namespace_roots(files, within, names) -> frozenset:
    """The folders without `__init__.py` a checked file's package sits below, inside the folder
    the check reads (`within`): `helper/utils_OPT.py` is the module `utils_OPT` and, from the
    checked folder, `helper.utils_OPT` too (a namespace package, PEP 420: `import helper.utils_OPT`
    works with no helper/__init__.py; `Project.module_named` resolves it). Their first names are
    top-level names of the check as well, so a call spelled through them (`utils_OPT.inti_guess(...)`
    after `import helper.utils_OPT as utils_OPT`) is a call site into the project, as the call
    edge already is. Not a name a regular package holds (the frameworks' roots, the standard
    library's modules): Python imports a namespace portion only where no regular package of the
    name is on the path, so `examples/jax/train.py` leaves `import jax` the framework."""
    taken = set(STAGING.roots) | set(sys.stdlib_module_names)
    tops = [Path(w) for w in within]
    out: set[str] = set()
    seen: set[Path] = set()
    for f in files:
        root = names.package_root(f)
        if root in seen:
            continue
        seen.add(root)
        for top in tops:
            if root != top and top in root.parents:
                first = root.relative_to(top).parts[0]
                if first.isidentifier() and first not in taken:
                    out.add(first)
    return frozenset(out)


def _project_files(state: ProjectState, given_files: list[str]) -> list[str]:
    """The other files of the projects of files given one by one, as `check ROOT` finds them;
    the given file must be one of them (a file in a folder the project's walk skips, or with no
    project around it, is checked on its own)."""
    realpath = state.realpath
    out: list[str] = []
    seen = set(state.asked)
    walked: dict[Path, tuple[list[str], set[str]]] = {}
    roots: dict[str, Path | None] = {}
    for path in given_files:
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in roots:
            roots[folder] = project_root(folder or ".")
        root = roots[folder]
        if root is None:
            continue
        if root not in walked:
            found = discover_files([display_path(root)], state.settings)[0]
            walked[root] = (found, {realpath(f) for f in found})
        found, reals = walked[root]
        real = realpath(path)
        if real not in state.sources and real not in reals:
            continue
        for f in found:
            r = realpath(f)
            if r not in seen:
                seen.add(r)
                out.append(f)
    return out


# screen -----------------------------------------------------------------------------------------

def screen(state: ProjectState) -> None:
    """Which files can have findings at all (`stagelint.pipeline.screen`), and which of them go first."""
    files = list(state.files)
    state.follow = state.options.follow_imports
    if state.options.screen:
        from stagelint.pipeline import screen as screening

        read = _reader(state)
        selection = screening.select(files, state.settings, state.search_roots, state.names, read,
                                     cache=state.cache, realpath=state.realpath)
        state.selection = selection
        files = selection.analyse
        state.digests = selection.digests
        state.absent = selection.absent
        for path in selection.skip:
            # Checked (it cannot have findings); its name still takes part in the engine's
            # resolution of module-name suffixes, as it would unscreened.
            state.placeholders.append(_placeholder(state, path))
        if not state.options.follow_imports:
            files = [f for f in files if state.realpath(f) in state.given]
            selection.deferred = {r: shown for r, shown in selection.deferred.items() if r in state.given}
        state.deferred = dict(selection.deferred)
        # Without the screen (or when it gave up), the analysis follows the imports of each
        # analysed file. With it, the screen has read every project file the given ones import,
        # transitively, and the rounds decide which of them to analyse.
        state.follow = state.options.follow_imports and not selection.known
    state.first_round = files
    state.queued = {state.realpath(f) for f in files}


class _reader:
    """A file's bytes for the screen: an editor's buffer, else the disk's (`ProjectState.read`)."""

    def __init__(self, state: ProjectState):
        self.state = state

    def __call__(self, real: str) -> bytes:
        buffer = self.state.sources.get(real)
        if buffer is None:
            return self.state.read(real)
        from stagelint.pipeline.budget import over_budget
        from stagelint.pipeline.files import NotRead

        reason = over_budget(buffer, self.state.settings, python=False)
        if reason is not None:  # as a file over the budget: not screened, the analysis says why
            raise NotRead(reason)
        return buffer


def _placeholder(state: ProjectState, path: str) -> F.ModuleFacts:
    """Name-only facts of a file not analysed: its name still takes part in the engine's
    resolution of module-name suffixes, as it would analysed."""
    module, is_package = state.names(path)
    return F.ModuleFacts(path=path, module=module, is_package=is_package)


# plan the rounds --------------------------------------------------------------------------------

def plan_rounds(state: ProjectState) -> None:
    """The rounds' outcome depends only on what the files' facts show the rounds (not their
    candidates nor positions): a run after an edit that leaves that as it was takes the plan
    from the cache (`pipeline.plans`), rather than repeat the project phase once per round."""
    if not (state.use_cache and state.deferred) or state.selection is None:
        return
    from stagelint.pipeline import plans

    record, changed = plans.lookup(state)
    if record is None:
        return
    if changed:
        # The edited files are of the first round: analysed first, their facts say whether the
        # kept plan holds.
        early = [f for f in state.first_round if state.realpath(f) in changed]
        state.first_round = [f for f in state.first_round if state.realpath(f) not in changed]
        for outcome in _outcomes(state, early):
            _take(state, outcome)
        if not plans.holds(state, record, changed):
            return
    state.first_round = state.first_round + [state.deferred.pop(real) for real in record.rounds]
    state.planned = record.rounds


# analyse ----------------------------------------------------------------------------------------

def analyse(state: ProjectState) -> None:
    """The per-file phase, round after round: the first round's files, then the deferred files
    the staged code found so far needs (`stagelint.pipeline.demand`), until none is."""
    files = state.first_round
    words = Words(state.selection.sources, state.selection.names) if state.selection is not None else None
    pool = _Pool(state)  # the same worker processes for every round
    try:
        _rounds(state, files, words, pool)
    finally:
        pool.close()
    # Nothing staged needs the deferred files left: placeholders, as screened-out files are.
    state.placeholders = _placeholders(state, state.deferred.values())
    state.unneeded, state.deferred = state.deferred, {}
    if state.options.report_imported:
        state.reported = {m.path for m in state.modules.values()}


def _rounds(state: ProjectState, files: list[str], words, pool) -> None:
    """The rounds of `analyse`, then the files left that do not parse."""
    while True:
        for outcome in _outcomes(state, files, pool):
            _take(state, outcome)
        if not state.deferred or state.planned is not None:
            break
        analysed = sorted(state.modules.values(), key=lambda m: m.path)
        partial = Project(analysed + _placeholders(state, state.deferred.values()), state.settings, STAGING,
                          call_sites=False)
        wanted = demanded(partial, analysed, state.deferred, words)
        if not wanted:
            break
        state.rounds.extend(wanted)
        files = [state.deferred.pop(real) for real in wanted]
    if state.plan_key is not None and state.planned is None and state.clean:  # a crash or hang changes the rounds
        from stagelint.pipeline import plans

        plans.keep(state)
    if state.selection is not None:
        # The given files left that Python's parser refuses: analysed for their STG000 (no
        # round needs them: they have no facts to give).
        broken = state.selection.unparsed(state.deferred.keys())
        for outcome in _outcomes(state, [state.deferred.pop(real) for real in broken], pool):
            _take(state, outcome)


class _Pool:
    """`workers.Pool`, made when a round first needs worker processes."""

    def __init__(self, state: ProjectState):
        self.state = state
        self.pool = None

    def __call__(self):
        if self.pool is None:
            from stagelint.pipeline import workers

            state = self.state
            store = (state.cache, state.fact_settings()) if state.use_cache else None
            self.pool = workers.Pool(state.settings, state.roots, state.options.jobs or workers.default_jobs(),
                                     store=store, start_method=state.options.start_method,
                                     absent=state.absent_for, within=state.within)
        return self.pool

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()


def _placeholders(state: ProjectState, paths) -> list[F.ModuleFacts]:
    """The placeholders, and those of the deferred files `paths`. A deferred file that spells
    what traces Functions whatever `run_functions_eagerly` says makes that fact unknown, as it
    would analysed (`analysis.eagerswitch.unknown_in`)."""
    out = list(state.placeholders)
    sources = state.selection.sources if state.selection is not None else {}
    names = state.selection.names if state.selection is not None else {}
    digests = state.selection.digests if state.selection is not None else {}
    for path in paths:
        facts = _placeholder(state, path)
        real = state.realpath(path)
        source = sources.get(real) if sources else None
        if source is not None and eagerswitch.unknown_in(source):
            facts.eager_switch = [(0, "traces", "")]
        # what says whether Keras may trace layers near it (`staging.Project.keras_untraced_here`)
        if source is not None:
            drives, hand, compiles, runs = _spells_keras_drive(digests.get(real), source)
            if drives:
                facts.eager_switch.append((0, "keras drives", ""))
            if runs:  # not a symbolic build alone (`staging.Project._parts_staging_nothing(symbolic=False)`)
                facts.eager_switch.append((0, "keras runs", ""))
            if hand:
                facts.eager_switch.append((0, "hand training", ""))
            if compiles:  # a compile no round read (`staging.Project._compiled_only_eagerly`)
                facts.eager_switch.append((0, "keras compile", ""))
        facts.eager_switch.extend((0, "refers", name) for name in sorted(names.get(real, ())))
        out.append(facts)
    return out


def _take(state: ProjectState, outcome: Outcome) -> None:
    result = state.result
    is_asked = state.realpath(outcome.path) in state.asked
    if outcome.status == "ok":
        state.modules[state.realpath(outcome.path)] = outcome.facts
        if is_asked:
            state.reported.add(outcome.path)
            result.files_checked += 1
            result.errors.extend((outcome.path, code, tb) for code, tb in outcome.facts.errors)
    else:
        state.clean = False
        if is_asked and outcome.status == "error":
            result.errors.append((outcome.path, "engine", outcome.detail))
        elif is_asked:
            result.skipped.append((outcome.path, outcome.detail))


def _outcomes(state: ProjectState, files: list[str], pool: _Pool | None = None):
    """The outcomes of one round: buffers and, with `jobs=0`, everything in this process; the
    rest in worker processes (`pool`, else workers of their own). The result cache serves files
    whose bytes it has seen."""
    if pool is None:
        pool = _Pool(state)
        try:
            yield from _outcomes(state, files, pool)
        finally:
            pool.close()
        return
    lookup = _CachedFacts(state) if state.use_cache else None
    store = (state.cache, state.fact_settings()) if state.use_cache else None
    more = _FollowImports(state)
    if state.options.jobs == 0:
        here, rest = files, []
    else:
        here = [f for f in files if state.realpath(f) in state.sources]
        rest = [f for f in files if state.realpath(f) not in state.sources]
    yield from _analyse_here(state, here, more, lookup, store)
    if rest:
        yield from pool().analyse(rest, more, lookup=lookup)


def _analyse_here(state: ProjectState, paths, more, lookup=None, store=None):
    """`workers.analyse_files` without worker processes; buffers replace the disk's bytes."""
    from stagelint.pipeline import workers
    from stagelint.pipeline.perfile import analyse_bytes, store_outcome

    queue = list(paths)
    while queue:
        path = queue.pop(0)
        real = state.realpath(path)
        if real in state.sources:
            outcome = analyse_bytes(path, state.sources[real], state.settings, state.roots, in_process=True,
                                    absent=state.absent_for(real))
        else:
            outcome = (lookup(path) if lookup is not None else None) or workers.analyse_one(
                path, state.settings, state.roots, in_process=True, absent=state.absent_for(real), within=state.within)
            store_outcome(store, outcome)
        yield outcome
        queue.extend(more(outcome))


class _CachedFacts:
    """The cached outcome of a file whose bytes, name, settings and stagelint are unchanged."""

    def __init__(self, state: ProjectState):
        self.state = state
        self.fact_settings = state.fact_settings()

    def __call__(self, path: str):
        from stagelint.pipeline.perfile import Outcome, facts_key, spelled_roots

        state = self.state
        real = state.realpath(path)
        try:
            source = state.read(real)
        except OSError:
            return None
        known = state.digests.get(real)
        if known is None:
            known = state.digests[real] = digest(source)
        module, is_package = state.names(path)
        absent = state.absent_for(real)
        spelled = spelled_roots(source, state.roots, module)
        key = facts_key(state.cache, self.fact_settings, path, module, is_package, known, spelled, absent)
        facts = state.cache.get("facts", key, F.ModuleFacts)
        if facts is None:
            return None
        facts.path = path  # the key holds it relative to the project root: shown as given here
        return Outcome(path, "ok", facts, digest=known, cached=True, absent=absent, spelled=spelled)


class _FollowImports:
    """The project files an analysed file imports, not queued yet (when imports are followed)."""

    def __init__(self, state: ProjectState):
        self.state = state

    def __call__(self, outcome: Outcome) -> list[str]:
        state = self.state
        if not state.follow or outcome.facts is None or len(state.queued) >= MAX_FOLLOWED:
            return []
        new = []
        for p in imported_files(outcome.facts, state.search_roots, state.imported_memo):
            real = state.realpath(p)
            if real not in state.queued:
                state.queued.add(real)
                new.append(p)
        return new


# project phase ----------------------------------------------------------------------------------

def project_phase(state: ProjectState) -> None:
    """Join the facts of every file: which functions are staged, what reaches what. After
    `reanalyse`, the last project's resolutions are reused when they still hold
    (`pipeline.incremental`): a change inside a function costs entry points, reachability and
    call sites, not the resolution of every call in the project again."""
    realpath = state.realpath
    modules = sorted(state.modules.values(), key=lambda m: m.path)
    analysed = set(state.modules)
    placeholders = [m for m in state.placeholders if realpath(m.path) not in analysed]
    modules.extend(placeholders)
    reuse = None
    if state.project is not None and state.changed:
        F.disambiguate(modules)  # (as the project does) names as they will be, to compare
        if reusable(state.project_modules, modules, state.changed, realpath):
            reuse = state.project
    state.project_modules = modules
    state.project = Project(modules, state.settings, STAGING, reuse=reuse)
    state.project_extra = None
    state.changed = set()


# findings ---------------------------------------------------------------------------------------

def findings(state: ProjectState) -> None:
    """The result: the candidates that stand in the reported files, and what could not be checked."""
    result = state.result
    result.errors.sort()
    analysed = set(state.modules)
    result.files_checked += sum(1 for m in state.placeholders
                                if state.realpath(m.path) not in analysed and state.realpath(m.path) in state.asked)
    result.findings = _judged(state, state.reported, result.errors)
    result.skipped.sort()


def findings_for(state: ProjectState, paths: set[str], errors: list | None = None) -> list[Finding]:
    """The findings in some files (paths as shown), after the project phase: what the language
    server publishes for a file, without judging the others (only their candidates are looked
    at; those only the project shows are found once per project)."""
    from stagelint.pipeline.verdicts import judge, project_only_candidates

    errors = errors if errors is not None else []
    realpath = state.realpath
    modules = [m for m in state.project_modules if m.path in paths]
    if state.project_extra is None:
        state.project_extra = project_only_candidates(state.project, state.project_modules, errors)
    candidates = [(m, c) for m in modules for c in m.candidates] + \
        [(m, c) for m, c in state.project_extra if m.path in paths]
    shown = {m.path: state.sources[realpath(m.path)] for m in modules if realpath(m.path) in state.sources}
    return sorted(judge(state.project, candidates, paths, shown, state.settings, errors, noqa=state.options.noqa),
                  key=Finding.sort_key)


def _judged(state: ProjectState, reported: set[str], errors: list) -> list[Finding]:
    from stagelint.pipeline.verdicts import judge, project_candidates

    realpath = state.realpath
    modules = state.project_modules
    shown = {m.path: state.sources[realpath(m.path)] for m in modules if realpath(m.path) in state.sources}
    candidates = project_candidates(state.project, modules, errors)
    # The given files the screen showed cannot have findings: only their `# noqa` codes (STG001).
    screened = frozenset(m.path for m in state.placeholders
                         if realpath(m.path) in state.asked and realpath(m.path) not in state.modules)
    return sorted(judge(state.project, candidates, reported, shown, state.settings, errors, noqa=state.options.noqa,
                        screened=screened),
                  key=Finding.sort_key)


# one file again ---------------------------------------------------------------------------------

def screen_moved(state: ProjectState, path: str, before: bytes | None, after: bytes) -> bool:
    """The screen would judge the project differently after this change of one file: what the
    file imports or names, whether it spells a staging word or an entry point. Which files are
    live (analysed, or placeholders) follows from those alone (`stagelint.pipeline.screen`); when they
    moved, only the stages from the screen on give the answer a fresh check gives."""
    if state.selection is None:
        return False
    if before is None:
        return True
    from stagelint.pipeline import screen as screening

    module, is_package = state.names(path)
    pattern, entries = screening.staging_pattern(state.settings), screening.entry_pattern(state.settings)
    jax_entries = screening.jax_entry_pattern()
    return screening.summarize(before, pattern, module, is_package, entries, jax_entries) != \
        screening.summarize(after, pattern, module, is_package, entries, jax_entries)


def analyse_demanded(state: ProjectState) -> bool:
    """After a change and its `project_phase`: the deferred files no round needed that the staged
    code needs now (an edit added a staged caller of a helper in one of them), analysed as the
    rounds of `analyse` would, in this process (they are few). True when there were any: the
    project phase must then run again."""
    if not state.unneeded or state.selection is None:
        return False
    words = Words(state.selection.sources, state.selection.names)
    project, found = state.project, False
    while state.unneeded:
        analysed = sorted(state.modules.values(), key=lambda m: m.path)
        wanted = demanded(project, analysed, state.unneeded, words)
        if not wanted:
            break
        found = True
        files = [state.unneeded.pop(real) for real in wanted]
        lookup = _CachedFacts(state) if state.use_cache else None
        store = (state.cache, state.fact_settings()) if state.use_cache else None
        for outcome in _analyse_here(state, files, lambda outcome: [], lookup, store):
            _take(state, outcome)
            state.changed.add(state.realpath(outcome.path))
        taken = set(wanted)
        state.placeholders = [m for m in state.placeholders if state.realpath(m.path) not in taken]
        project = Project(sorted(state.modules.values(), key=lambda m: m.path) + state.placeholders,
                          state.settings, STAGING, call_sites=False)
    return found


def reanalyse(state: ProjectState, path: str, source: bytes | None, analyse=None) -> Outcome:
    """Analyse one file again, from `source` (an editor's buffer) or from the disk (None), and
    put its facts in place of the old ones; `project_phase` then joins them with the rest.
    `analyse(shown path, bytes) -> Outcome` replaces the whole file's per-file phase (the
    language server's splice, `pipeline.splice`)."""
    from stagelint.pipeline.perfile import analyse_bytes, not_read

    real = state.realpath(path)
    state.changed.add(real)
    if source is None:
        state.sources.pop(real, None)
        try:
            source = state.read(real)
        except OSError as e:
            state.modules.pop(real, None)
            return not_read(path, e)
    else:
        state.sources[real] = source
    shown = next((m.path for r, m in state.modules.items() if r == real), None) or path
    outcome = (analyse or (lambda p, b: analyse_bytes(p, b, state.settings, state.roots,
                                                      absent=state.absent_for(real))))(shown, source)
    if outcome.status == "ok":
        state.modules[real] = outcome.facts
        state.reported.add(shown)
        state.placeholders = [m for m in state.placeholders if state.realpath(m.path) != real]
    else:
        state.modules.pop(real, None)
    return outcome
