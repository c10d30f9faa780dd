"""The end of the project phase: which candidates stand, as findings.

A candidate found in one file stands when the staged code of the whole project reaches its
function (or it stages itself) and its rule's `confirm` agrees; then the configuration
(select, ignore, per-file-ignores) and the file's suppression comments have their say; last,
the codes of those comments that suppressed nothing (STG001, `pipeline.unusednoqa`)."""

from __future__ import annotations

import traceback

from stagelint.analysis import facts as F
from stagelint import notebooks
from stagelint.analysis.flags import (attribute_gate_fact, dataset_default_fact, keras_flag_fact, module_flag_fact,
                                      tensor_guard_fact, untraced_branch)
from stagelint.analysis.tracers import after_raising_fact, raises_while_traced
from stagelint.analysis.proof import HEURISTIC, candidate_notes, chain_verdict, fact, staging_notes
from stagelint.analysis.testing import is_test_module, run_once_by_test_runner
from stagelint.pipeline.files import read_source
from stagelint.findings import UNUSED_NOQA, Finding, file_is_off, is_selected, is_suppressed
from stagelint.pipeline.unusednoqa import Enabled, NoqaUse, unused
from stagelint.rules import all_rules
from stagelint.rules.base import REGISTRY


def decode_lines(source: bytes) -> list[str]:
    text = source.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.splitlines()


def project_candidates(project, modules, errors: list) -> list[tuple[F.ModuleFacts, F.Candidate]]:
    """Every file's candidates, and those only the project shows (`rule.project_candidates`).
    A rule that raises here is recorded in `errors` and loses only its own candidates."""
    candidates: list[tuple[F.ModuleFacts, F.Candidate]] = [(m, c) for m in modules for c in m.candidates]
    return candidates + project_only_candidates(project, modules, errors)


def project_only_candidates(project, modules, errors: list) -> list[tuple[F.ModuleFacts, F.Candidate]]:
    """The candidates only the project shows (`rule.project_candidates`), in any file."""
    by_module = {m.module: m for m in modules}
    candidates: list[tuple[F.ModuleFacts, F.Candidate]] = []
    for rule in all_rules():
        try:
            extra = list(rule.project_candidates(project))
        except Exception:
            errors.append(("<project>", rule.code, traceback.format_exc(limit=-4)))
            continue
        for module, cand in extra:
            candidates.append((by_module[module], cand))
    return candidates


def findings(project, modules, reported: set[str], sources: dict[str, bytes], settings,
             errors: list | None = None, noqa: bool = True):
    """Candidates that stand, as findings. A rule that raises in the project phase is recorded
    in `errors` (path, rule, traceback) and loses only its own findings there."""
    errors = errors if errors is not None else []
    candidates = project_candidates(project, modules, errors)
    yield from judge(project, candidates, reported, sources, settings, errors, noqa)


def judge(project, candidates, reported: set[str], sources: dict[str, bytes], settings, errors: list,
          noqa: bool = True, screened: frozenset[str] = frozenset()):
    """The findings among `candidates` (module facts, candidate) in the files `reported`, and
    the unused `# noqa` codes there and in the files `screened` (checked without analysis: the
    screen showed they cannot have findings)."""
    failed: set[tuple[str, str]] = set()
    seen = set()
    lines_cache: dict[str, tuple[list[str], bytes]] = {}

    def file_lines(path: str, source: bytes | None = None) -> tuple[list[str], bytes]:
        lines, source = lines_cache.get(path) or (None, source)
        if lines is None:
            source = source if source is not None else read(path)
            lines = notebooks.module_lines(path, source) if notebooks.is_notebook(path) else decode_lines(source)
            lines_cache[path] = (lines, source)
        return lines, source

    def read(path: str) -> bytes:
        source = sources.get(path)
        if source is None:
            try:
                source = read_source(path, settings.max_file_size)
            except OSError:
                source = b""
        return source

    # STG001: which `# noqa` codes a finding used, by path; files with a syntax error are left out.
    watch = is_selected(UNUSED_NOQA, settings.select, settings.ignore)
    uses: dict[str, NoqaUse] = {}
    broken: set[str] = set()

    def cover(path: str, line: int, code: str) -> None:
        if watch:
            use = uses.get(path)
            if use is None:
                use = uses[path] = NoqaUse(file_lines(path)[0])
            use.cover(line, code)

    reports: dict[tuple[str, str], bool] = {}  # (path, code) -> the settings report it there
    for m, cand in candidates:
        if cand.code == "STG000":
            broken.add(m.path)
        if m.path not in reported:
            continue
        rule = REGISTRY[cand.code]
        if rule.repeated_cost and (is_test_module(m.module) or run_once_by_test_runner(m, cand.function)):
            continue
        if rule.preview and not settings.preview:
            continue  # the preview tier (`Rule.preview`), reported with --preview only
        shown = reports.get((m.path, rule.code))
        if shown is None:
            shown = reports[(m.path, rule.code)] = is_selected(rule.code, settings.select, settings.ignore) and \
                not settings.ignored_for(m.path, rule.code)
        if not shown:
            continue
        fields = dict(cand.fields)
        flag = fields.pop(F.FLAG_DEAD_FIELD, None)
        if flag:
            gate = module_flag_fact(project, flag, cand.span)
            if gate is not None:
                # under `if DEBUG:` with `DEBUG = False` that no file of the project writes (a guess)
                fields["_because"] = [*(fields.get("_because") or ()), gate]
        fix = fields.pop("_fix", None)
        entry = key = None
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
            if project.keras_runs_eagerly(key):
                continue  # a dynamic Keras layer's own code: Keras never traces it (`Project.keras_runs_eagerly`)
            if project.keras_in_graph(key):
                continue  # a Keras layer's code run in graph mode: built once, in no trace (`Project.keras_in_graph`)
            if project.keras_untraced_here(key):
                continue  # a Keras method near which nothing stages anything (`Project.keras_untraced_here`)
            if rule.function_trace and project.keras_built_only_here(key):
                continue  # built on Keras symbolic inputs only, then called by hand: no Function traces it
            if not cand.fields.get("_anchors") and untraced_branch(project, key, cand.fields.get("_when")):
                continue  # under a condition no trace satisfies, or called only there: in no trace (`analysis.flags`)
            if cand.fields.get("_eager_unless") and project.in_eager_block(m.module, cand.fields["_eager_unless"]):
                continue  # in the eager branch of a project predicate (`if in_tf_function(): ... else:`)
            if cand.fields.get("_after_concrete") is not None and not cand.fields.get("_anchors") \
                    and not rule.trace_error and raises_while_traced(project, key, cand.fields):
                continue  # after a `float(x)` / `np.asarray(x)` of a tracer: the trace never gets here (`analysis.tracers`)
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
            if key is not None and not project.jax.applies(rule.code, key):
                continue  # not a pitfall the way JAX stages this function (`stagelint.analysis.jaxstaging`)
            if key in project.reached:
                fields.setdefault("func", project.function_phrase(key))
                entry = project.display(project.reached[key], m.module)
                if not fields.get("_preview"):
                    # staged only by Keras methods nothing shows Keras tracing, or by JAX wrappers
                    # nothing in their module reads: `Project.staging_unshown`
                    unshown = project.staging_unshown(key)
                    if unshown:
                        fields["_preview"] = unshown
                unrun = project.keras_function_unshown(key) if rule.function_trace else None
                if unrun is not None:
                    # run on Keras symbolic inputs only, by no Function the code shows
                    fields["_because"] = [*(fields.get("_because") or ()), fact(unrun, cand.span, HEURISTIC)]
                after = after_raising_fact(project, key, cand.span)
                if after is not None:
                    # called only after a `.numpy()`: traced only if its receiver is no tensor (a guess)
                    fields["_because"] = [*(fields.get("_because") or ()), after]
                gate = attribute_gate_fact(project, key, cand.fields.get("_when"), cand.span) \
                    or keras_flag_fact(project, key, cand.fields.get("_when"), cand.span) \
                    or dataset_default_fact(project, key, cand.fields.get("_when"), cand.span) \
                    or tensor_guard_fact(project, key, cand.fields.get("_when"), cand.span)
                if gate is not None:
                    # under `if self.debug:` no construction the project shows turns on, a Keras
                    # `call`'s flag only eager calls pass by name, a `tf.data` function's option
                    # an element of unshown structure is taken to leave at its default, or `if not
                    # tf.is_tensor(x):` where no call shown passes a Python value (a guess)
                    fields["_because"] = [*(fields.get("_because") or ()), gate]
        if fields.get("_preview") and not settings.preview:
            cover(m.path, cand.span.line, rule.code)  # held back: its `# noqa` may be needed
            continue  # a step of the rule in the preview tier (`Rule.preview`)
        # A rule only JAX's staging confirms (`Rule.framework`) judges JAX code wherever it reports
        # (a call site outside staged code included).
        in_jax = bool(rule.framework == "jax" or cand.fields.get("_jax_api")
                      or (key is not None and project.staged_by_jax(key)))
        if rule.preview_under.get("jax" if in_jax else "tensorflow") and settings.framework_tiers \
                and not settings.preview:
            cover(m.path, cand.span.line, rule.code)
            continue  # the rule's preview tier under this framework (`Rule.preview_under`)
        stated = fields.get("_because") or ()
        chain = chain_verdict(stated)
        if chain == "silent" or (chain == "preview" and not settings.preview):
            cover(m.path, cand.span.line, rule.code)
            continue  # a fact of the chain is unknown (or only heuristic): `analysis.proof`
        because = (staging_notes(project, key) if key is not None else []) + candidate_notes(stated, m.path)
        template = rule.message
        if rule.jax_message and in_jax:
            template = rule.jax_message  # the framework's own remedy
        if fix is not None:
            fix = rule.project_fix(fix, cand, project, key, in_jax)
        finding = Finding(
            code=rule.code,
            name=rule.name,
            path=m.path,
            line=cand.span.line,
            column=cand.span.column,
            end_line=cand.span.end_line,
            end_column=cand.span.end_column,
            message=template.format(**fields),
            function=cand.function,
            entry_point=entry,
            fixable=fix is not None,
            fix=fix,
            because=tuple(because),
        )
        if finding.sort_key() + (finding.message,) in seen:
            continue
        seen.add(finding.sort_key() + (finding.message,))
        lines, source = file_lines(m.path)
        if rule.code != "STG000":  # (a syntax error is always reported)
            if file_is_off(lines, rule.code):
                continue
            cover(m.path, finding.line, rule.code)
            if noqa and is_suppressed(finding, lines):
                continue
        # A notebook's findings are shown in cell coordinates (`stagelint.notebooks`).
        yield notebooks.place(finding, source) if notebooks.is_notebook(m.path) else finding
    if not watch:
        return
    enabled = Enabled(settings, failed | {(path, code) for path, code, _ in errors})
    for path in sorted((reported | screened) - broken):
        source = None
        if path not in lines_cache:
            source = read(path)
            if b"noqa" not in source.lower():
                continue  # (most files: no need to decode them)
        lines, source = file_lines(path, source)
        use = uses.get(path) or NoqaUse(lines)
        for finding in unused(path, lines, source, use, enabled):
            yield notebooks.place(finding, source) if notebooks.is_notebook(path) else finding
