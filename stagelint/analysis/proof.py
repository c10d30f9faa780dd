"""The proof a finding carries (`Finding.because`): the chain of facts it rests on, each with
the place a reader can check it, and each fact's certainty.

Two sources of facts:

* the staging chain, which the project phase knows for every finding in staged code: why the
  entry point is staged (decorated with `tf.function`, traced by `jax.lax.fori_loop`, a Keras
  `train_step`, a `tf.data` function) and each call that brings the finding's function under
  it (`step` calls `helper`, line 12);
* the facts a rule states about the value or object it relies on, as the candidate field
  `_because`: a list of `fact(...)` (this value is a tensor / a Python value, this object
  outlives the call, ...), each known true, known false, unknown, or heuristic.

A finding is reported only when its whole chain is known true (`chain_verdict`): a fact that is
unknown silences it, a heuristic fact moves it to the preview tier (docs/model.md).
"""

from __future__ import annotations

from stagelint.findings import Note
from stagelint.frameworks import JAX, OPTAX_USERS_JIT, PARTIAL_CALLS, TENSORFLOW

#: Certainty of a fact. A rule reports only when every fact of its chain is TRUE.
TRUE, FALSE, UNKNOWN, HEURISTIC = "true", "false", "unknown", "heuristic"
CERTAINTIES = (TRUE, FALSE, UNKNOWN, HEURISTIC)


def fact(message: str, span, certainty: str = TRUE) -> list:
    """A fact for a candidate's `_because` (plain data, so the facts cache keeps it): what
    holds, where (a `facts.Span` of the file being analysed), and how sure it is."""
    if certainty not in CERTAINTIES:
        raise ValueError(f"certainty {certainty!r} is not one of {CERTAINTIES}")
    return [message, span.line, span.column, certainty]


def definite_tensor(value: str) -> str:
    """The fact of a value the value model knows to be a tensor (`Tensorness.definite`)."""
    return f"`{value}` is a traced tensor here: a framework op's result or a value the staging traces"


def chain_verdict(facts) -> str:
    """"report" when every fact is known true, "preview" when the least certain is heuristic,
    "silent" when one is unknown or false."""
    certainties = {f[3] for f in facts}
    if certainties & {UNKNOWN, FALSE}:
        return "silent"
    return "preview" if HEURISTIC in certainties else "report"


def candidate_notes(facts, path: str) -> list[Note]:
    return [Note(f[0], path, f[1], f[2]) for f in facts]


def _code(name: str) -> str:
    return name if name.startswith("the lambda") else f"`{name}`"


def _api(qualified: str) -> str:
    """A staging API as code spells it (`tensorflow.function` is written `tf.function`)."""
    return f"`tf.{qualified[len('tensorflow.'):]}`" if qualified.startswith("tensorflow.") else f"`{qualified}`"


def entry_fact(project, entry) -> str:
    """Why the entry point is staged, in the words of what stages it."""
    shown = _code(project.display(entry, entry[0]))
    jax_entry = project.jax.entries.get(entry)
    if jax_entry is not None and jax_entry.built_in:
        builder = _code(project.display(jax_entry.built_in, jax_entry.built_in[0]))
        return (f"Equinox runs {shown} when the module is built, and {builder}, which JAX traces, builds it: "
                f"it runs under that trace, on the traced fields")
    if jax_entry is not None and jax_entry.called_in:
        (caller, line) = jax_entry.called_in
        return (f"{shown} is an Equinox module's call, which equinox itself stages nowhere: "
                f"{_code(project.display(caller, caller[0]))}, which JAX traces, calls an object of it "
                f"(line {line}), so it runs under that trace")
    if jax_entry is not None and jax_entry.apis == {"equinox.Module"}:
        return (f"{shown} is an Equinox module's call, which equinox itself stages nowhere: the module's file "
                f"(or one importing it) jits the code that calls its modules, and no call of it the project "
                f"shows runs eagerly")
    if jax_entry is not None and jax_entry.apis == {OPTAX_USERS_JIT}:
        return (f"{shown} is the update of an optax transformation: its users jit it (`jax.jit(opt.update)`, a "
                f"jitted step), which the code does not show: preview")
    if jax_entry is not None and jax_entry.apis:
        apis = " and ".join(_api(a) for a in sorted(jax_entry.apis - {OPTAX_USERS_JIT}))
        return f"{shown} is traced by {apis}"
    kind = project.entries.get(entry)
    f = project.function(entry)
    if kind == "decorator" and f is not None:
        staging = project.staging_decorators()
        by = [d for d in f.decorators if d in staging]
        if by:
            return f"{shown} is decorated with {_api(by[0])}, which traces it into a graph"
        return f"{shown} is decorated with a project decorator that stages what it decorates"
    if kind == "keras":
        method = entry[1].rsplit('.', 1)[-1]
        how = project.keras_shown(entry) if hasattr(project, "keras_shown") else None
        if how:
            return f"{shown} is a Keras layer's or model's `{method}`, which Keras traces: {how}"
        return (f"{shown} is a Keras layer's or model's `{method}`, which Keras traces under `fit`, `evaluate` "
                f"or `predict`, in traced code or on symbolic inputs; the code shows none of these for it "
                f"(called directly on eager tensors, a layer runs `{method}` as Python): preview")
    if kind == "dataset":
        guessed = getattr(project, "dataset_guessed", {}).get(entry)
        if guessed is not None:
            return (f"{shown} is traced by a `tf.data` transformation, once per dataset, if its receiver is one: "
                    f"{guessed[2]}: preview")
        return f"{shown} is traced by a `tf.data` transformation, once per dataset"
    if kind == "wrapper":
        return f"{shown} is passed to a staging wrapper (`tf.function(...)` or a configured staging decorator)"
    return f"{shown} is staged"


def _parents(project, entry) -> dict:
    """callee -> (caller, the call edge), breadth first from `entry` (memoised per project)."""
    memo = project.__dict__.setdefault("_proof_parents", {})
    if entry in memo:
        return memo[entry]
    parents: dict = {entry: None}
    queue = [entry]
    for key in queue:  # the edges staging.Project follows to reach what an entry point traces
        for edge, callee in project.call_edges(key):
            if callee not in parents:
                parents[callee] = (key, edge)
                queue.append(callee)
    memo[entry] = parents
    return parents


def _path(project, key) -> str:
    m = project.modules.get(key[0])
    return m.path if m is not None else ""


def _entry(project, key):
    """The entry point a finding's chain starts from: one known to be staged where there is one
    (`staging.Project.known_entry`), else the one `reached` names."""
    if hasattr(project, "known_entry"):
        return project.known_entry(key)
    return project.reached.get(key)


def _chain(project, key) -> list:
    """(caller, callee, edge) from the entry point staging `key` down to it, a shortest chain."""
    entry = _entry(project, key)
    if entry is None:
        return []
    parents = _parents(project, entry)
    hops = []
    at = key
    while at != entry and parents.get(at) is not None and len(hops) < 50:
        caller, edge = parents[at]
        hops.append((caller, at, edge))
        at = caller
    return hops[::-1]


def guessed_hop(project, key) -> str | None:
    """Why the staging chain of `key` is a guess, or None when each hop is a call. A function
    passed as an argument is traced with its caller only if the callee calls it there: known of
    the frameworks' APIs that take functions (`tf.cond`, `tf.map_fn`, `jax.lax.scan`); a project
    function, another library's or a callee not resolved may keep it, run it in another process
    (`multiprocessing.Process(target=f)`) or never call it."""
    for caller, callee, edge in _chain(project, key):
        if edge.kind != "ref":
            continue
        into = edge.into
        if into is not None and into[0] == "name" and (TENSORFLOW.owns(into[1]) or JAX.owns(into[1])) \
                and into[1] not in PARTIAL_CALLS:
            continue  # (`jax.tree_util.Partial(f, ...)` calls nothing: what calls the object is not known)
        shown = "a callee not resolved" if into is None else _code(".".join(into[1:]).rsplit(".", 1)[-1])
        return (f"{_code(project.display(caller, caller[0]))} passes {_code(project.display(callee, caller[0]))} "
                f"to {shown}, which is taken to call it while tracing (line {edge.span.line})")
    return None


def verdict_fields(verdict) -> dict:
    """The fields a rule's `confirm` verdict adds to its finding, as a new dict: a copy of the
    verdict's own, or none for a bare `True`."""
    return dict(verdict) if isinstance(verdict, dict) else {}


def with_steps(verdict, candidate, *steps) -> dict:
    """A `confirm` verdict with `steps` added to the finding's proof: after the verdict's own
    `_because`, or after the candidate's where the verdict states none (the verdict's `_because`
    stands in place of the candidate's)."""
    out = verdict_fields(verdict)
    out["_because"] = [*out.get("_because", candidate.fields.get("_because") or ()), *steps]
    return out


def with_preview(verdict, why: str) -> dict:
    """A `confirm` verdict moved to the preview tier for `why`, unless it is there already for
    a reason of its own (which it keeps)."""
    out = verdict_fields(verdict)
    out.setdefault("_preview", why)
    return out


def with_staging_certainty(verdict, project, key):
    """A rule's `confirm` verdict, moved to the preview tier when the staging chain of `key`
    rests on a guessed hop (`guessed_hop`)."""
    if not verdict:
        return verdict
    why = guessed_hop(project, key)
    if why is None:
        return verdict
    out = verdict_fields(verdict)
    out["_preview"] = why
    return out


def staging_notes(project, key) -> list[Note]:
    """The staging chain of the function `key`: its entry point's reason, then each call from
    the entry down to `key` (a shortest one). Empty for a function no entry point reaches."""
    entry = _entry(project, key)
    if entry is None:
        return []
    ef = project.function(entry)
    notes = []
    if ef is not None:
        notes.append(Note(entry_fact(project, entry), _path(project, entry), ef.span.line, ef.span.column))
    for caller, callee, edge in _chain(project, key):
        verb = "calls" if edge.kind == "call" else "passes (and so may call)"
        notes.append(Note(
            f"{_code(project.display(caller, caller[0]))} {verb} {_code(project.display(callee, caller[0]))}, "
            f"which is traced with it",
            _path(project, caller), edge.span.line, edge.span.column))
    return notes
