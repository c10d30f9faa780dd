"""The plan of the rounds (`stages.plan_rounds`), kept in the result cache and given again after
an edit that cannot change it.

The rounds (`stagelint.pipeline.demand`) decide which deferred files a check analyses; each needs a
project phase over what has been analysed so far, and a check after an edit used to run them
all again, because the plan was kept under the bytes of every file. Yet the rounds read of an
analysed file only what `demand_surface` holds: its facts without their candidates and
positions. An edit inside a function body (an editor's keystroke, a changed expression, a
comment) usually leaves that as it was. So the plan is kept under the files' names, with the
bytes (digests) each file had, and given again when:

* the screen read the same files, split them the same way (first round, deferred), and
* every file whose bytes differ is in the first round, and its facts now have the demand
  surface its facts had then (those facts come from the cache, by the old digest).

Then every round sees what it saw when the plan was made (the same surfaces, the same deferred
files and words, the same module graph), so it demands the same files: the plan is what the
rounds would give. Anything else (a file deferred or moved between rounds that changed, a new
or removed file, facts no longer in the cache) is a miss, and the rounds run as before.
"""

from __future__ import annotations

import bisect
import dataclasses
from dataclasses import dataclass, field

from stagelint.analysis import facts as F

KIND = "plan"


@dataclass
class PlanRecord:
    #: real path -> SHA-256 of its bytes, for every file the screen read when the plan was made
    digests: dict[str, str] = field(default_factory=dict)
    #: real paths of the first round's files, and of the deferred ones
    first: list[str] = field(default_factory=list)
    deferred: list[str] = field(default_factory=list)
    #: the deferred files the rounds analysed (real paths), in their order
    rounds: list[str] = field(default_factory=list)


def demand_surface(m: F.ModuleFacts):
    """What the rounds (`staging.Project(call_sites=False)` and `demand.demanded`) can read of a
    module's facts: all of them but the candidates, the positions (`Span`) and the path as
    shown. Two facts with equal surfaces lead the rounds to the same files."""
    return _plain(m), _switch_order(m), frozenset(m.uncalled_attribute_reads)


#: `uncalled_attribute_reads` keeps the lines of its reads (for splicing) beside the names, all
#: `analysis.repetition.no_reuse` asks: the surface holds the names alone
_SKIPPED = {F.ModuleFacts: frozenset({"candidates", "path", "eager_switch", "uncalled_attribute_reads"})}


def _switch_order(m: F.ModuleFacts) -> tuple:
    """`eager_switch` without its lines: each event with how many of the module's functions begin
    above it, all `analysis.eagerswitch` compares them with."""
    starts = sorted(f.span.line for f in m.functions.values() if f.span is not None)
    return tuple((kind, name, bisect.bisect_left(starts, line)) for line, kind, name in m.eager_switch)


def _plain(v):
    t = type(v)
    if t is F.Span:
        return None
    if t in (str, int, float, bool) or v is None:
        return v
    if t is list or t is tuple:
        return tuple(_plain(i) for i in v)
    if t is dict:
        return tuple((k, _plain(x)) for k, x in v.items())
    if t is set or t is frozenset:
        return frozenset(_plain(i) for i in v)
    if dataclasses.is_dataclass(v):
        skipped = _SKIPPED.get(t, ())
        return (t.__name__,) + tuple((k, _plain(x)) for k, x in v.__dict__.items() if k not in skipped)
    return (t.__name__, repr(v))


def lookup(state) -> tuple[PlanRecord | None, list[str]]:
    """The kept plan of the rounds that may hold for `state` (after the screen), and the files
    (real paths, all of the first round) whose surfaces `holds` must compare; (None, []) when
    no kept plan can hold."""
    selection = state.selection
    # (with the frameworks each file is spared: facts made with others are other facts)
    state.plan_key = state.cache.key(KIND, state.fact_settings(), sorted(state.given), state.options.follow_imports,
                                     sorted(selection.digests), sorted((r, sorted(a)) for r, a in state.absent.items()))
    first = sorted(state.realpath(f) for f in state.first_round)
    state.plan_basis = PlanRecord(dict(selection.digests), first, sorted(state.deferred))
    record = state.cache.get(KIND, state.plan_key, PlanRecord)
    if record is None or record.first != first or record.deferred != state.plan_basis.deferred:
        return None, []
    if not set(record.rounds) <= state.deferred.keys() or record.digests.keys() != selection.digests.keys():
        return None, []
    changed = sorted(r for r, d in selection.digests.items() if record.digests[r] != d)
    if not set(changed) <= set(first):
        return None, []
    return record, changed


def holds(state, record: PlanRecord, changed: list[str]) -> bool:
    """The changed files (analysed now) have the demand surfaces their facts had when the plan
    was made."""
    from stagelint.pipeline.perfile import facts_key, spelled_roots

    fact_settings = state.fact_settings()
    for real in changed:
        now = state.modules.get(real)
        if now is None:
            return False
        # The checked names the file spells now: those the bytes the plan saw spelled, unless the edit
        # added or removed one (then the key finds nothing and the plan is not given again).
        try:
            source = state.sources[real] if real in state.sources else state.read(real)
        except OSError:
            return False
        spelled = spelled_roots(source, state.roots, now.module)
        key = facts_key(state.cache, fact_settings, now.path, now.module, now.is_package, record.digests[real],
                        spelled, state.absent_for(real))
        then = state.cache.get("facts", key, F.ModuleFacts)
        if then is None or then.module != now.module or demand_surface(then) != demand_surface(now):
            return False
    return True


def keep(state) -> None:
    """Keep the plan the rounds made, when they ran cleanly over the disk's files (a buffer
    that differs from its file is not kept: the next check compares with the disk's facts)."""
    basis = state.plan_basis
    if state.plan_key is None or basis is None or state.planned is not None or not state.clean:
        return
    from stagelint.pipeline.files import digest
    from stagelint.pipeline.perfile import Outcome, spelled_roots, store_outcome

    store = (state.cache, state.fact_settings())
    for real, source in state.sources.items():
        try:
            on_disk = state.read(real)
        except OSError:
            return
        if on_disk != source:
            return
        m = state.modules.get(real)
        if m is not None:  # a buffer's facts are not kept by the analysis: the same bytes' are now
            store_outcome(store, Outcome(m.path, "ok", m, digest=digest(source), absent=state.absent_for(real),
                                         spelled=spelled_roots(source, state.roots, m.module)))
    state.cache.put(KIND, state.plan_key, PlanRecord(basis.digests, basis.first, basis.deferred, list(state.rounds)))
