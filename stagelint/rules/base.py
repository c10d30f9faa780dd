"""The Rule base class: one rule, one class, one home.

A rule class carries its code, name, one-line message template, its documentation (the class
docstring, in ruff's sections) and its valid/invalid examples. Tests, `stagelint rule CODE`,
the generated docs pages and SARIF rule descriptions all read them from here.

During analysis the engine makes one instance per rule per file and, in its single traversal,
calls the instance's `visit_<Node>` / `leave_<Node>` methods (plain libcst node class names)
and finally `finish()`. A rule reports through `self.report(node, **fields)`; the engine keeps
the report only if the enclosing function turns out to be staged.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from typing import TYPE_CHECKING, ClassVar

import libcst as cst

if TYPE_CHECKING:
    from stagelint.analysis.context import FileContext

SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead")

#: Every concrete rule class, by code. Filled by `Rule.__init_subclass__`.
REGISTRY: dict[str, type[Rule]] = {}


#: How docs and listings name a framework of `Rule.preview_under`.
FRAMEWORK_NAMES = {"jax": "JAX", "tensorflow": "TensorFlow"}


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    #: One line, `str.format` fields filled by the rule's `report(...)` plus `{func}`, the
    #: function phrase ("`helper` (traced by `step`)") the engine supplies.
    message: ClassVar[str]
    #: The message for code JAX stages (same fields, JAX's remedy), or None to keep `message`.
    jax_message: ClassVar[str | None] = None
    #: Invalid examples mark the expected findings bugbear-style: `print(x)  # STG101`.
    valid: ClassVar[tuple[str, ...]] = ()
    invalid: ClassVar[tuple[str, ...]] = ()
    #: Runtime-only rules (STG9xx) are documented here but reported by `stagelint run`.
    runtime_only: ClassVar[bool] = False
    fixable: ClassVar[bool] = False
    #: "error" where staged code computes or does something else than it says, "warning" where
    #: it only costs time (retracing, unrolled loops, a pruned op). The one source of every
    #: report's level: SARIF, GitHub annotations, GitLab Code Quality, JUnit.
    severity: ClassVar[str] = "error"
    #: The cost comes only from repetition (a retrace, a recompile, a graph grown per element):
    #: a test runs once, so such a finding is left out of test modules (`analysis.testing`),
    #: where a fresh closure per parametrization or a counted retrace is the point, and out of a
    #: notebook's `test*` function its cells call at most once (`FunctionFacts.test_run`).
    repeated_cost: ClassVar[bool] = False
    #: The preview tier (ruff's `--preview`): why the rule is there, one sentence; "" for a
    #: stable rule. A preview rule reports only with `--preview` / `preview = true`; its evidence
    #: on code nobody here tuned it on is not yet good enough for the default (docs/model.md).
    #: A single step of a rule goes there instead with the candidate field `_preview="why"`
    #: (from `report` or a `confirm` verdict).
    preview: ClassVar[str] = ""
    #: The preview tier for the code one framework stages: {"jax" or "tensorflow": why}. Issue
    #: 23's measure: a rule below 0.80 precision on the held-back halves of repositories nobody
    #: here tuned on stays out of the default for that framework until it earns its place; the
    #: why states the figure (bench/fresh_audit_notes.md). Its findings there show with `--preview`.
    preview_under: ClassVar[dict[str, str]] = {}

    @classmethod
    def tier_tag(cls) -> str:
        """" (runtime)", " (preview)", " (preview under JAX)" or "": how listings mark the rule."""
        if cls.runtime_only:
            return " (runtime)"
        if cls.preview:
            return " (preview)"
        if cls.preview_under:
            return " (preview under " + " and ".join(FRAMEWORK_NAMES[f] for f in sorted(cls.preview_under)) + ")"
        return ""
    #: The finding is itself an error tracing raises (a conversion of a tracer, a Python truth
    #: test on one): reported after an earlier such error in the function too, though the trace
    #: stops there first (`tracers.raises_while_traced`), as each is met in turn once those
    #: before it are fixed. Every other finding there is of code never traced.
    trace_error: ClassVar[bool] = False
    #: The finding states what only a Function's traces do (a variable created on a trace after
    #: the first raises): not reported where nothing but Keras's symbolic builds runs the code and
    #: the project calls the built models by hand (`staging.Project.keras_built_only_here`); a guess
    #: (preview) where no Function the code shows runs an object of its class (`staging.Project.keras_function_unshown`).
    function_trace: ClassVar[bool] = False
    #: The finding is about a loop as a whole (its iterations, each unrolled into the program): a
    #: loop of which no iteration can complete while traced (a conversion of a tracer in its
    #: header, or in its body before anything that may end the iteration) unrolls nothing
    #: (`FileContext.after_trace_raising_call`'s `loop`).
    whole_loop: ClassVar[bool] = False
    #: Report even outside staged code (STG000 syntax errors).
    always: ClassVar[bool] = False
    #: The optional framework (`frameworks.OPTIONAL_FRAMEWORKS`, by name) whose staging alone can
    #: confirm the rule's candidates, or None. The walk leaves the rule out of files that
    #: framework cannot stage anything in (`screen.framework_reach`), as it could find nothing there.
    framework: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:
            if cls.code in REGISTRY:
                raise RuntimeError(f"duplicate rule code {cls.code}")
            REGISTRY[cls.code] = cls

    def __init__(self, ctx: FileContext):
        self.ctx = ctx

    def report(self, node: cst.CSTNode, *, function=None, **fields) -> None:
        """Record a candidate at `node`, in the current function (or `function`, for rules
        that decide in `finish`). Fields fill the message template."""
        held = self.hold(node, function=function, **fields)
        if held is not None:
            self.ctx.release(held)

    def hold(self, node: cst.CSTNode, *, function=None, **fields):
        """`report`, made now but added only when handed to `self.ctx.release` (`FileContext.hold`):
        for a rule that decides at the end of the function whether to report what it saw here."""
        if self.fixable:
            fix = self._make_fix(node, fields)
            if fix is not None:
                fields["_fix"] = fix
        return self.ctx.hold(self, node, fields, function=function)

    def fix(self, node: cst.CSTNode, fields: dict):
        """The safe rewrite for a finding at `node`, for rules with `fixable = True`: a list of
        (node, replacement source text) pairs, or None where no exact rewrite exists. Runs
        during the traversal, so `self.ctx` answers questions about names and scopes. A fix
        must keep the program's meaning apart from the pitfall, and must be idempotent (the
        fixed code no longer produces the finding)."""
        return None

    #: Whether the rule's fixes are safe (ruff's applicability): a fix that can change what a
    #: value is, or where output goes, is unsafe and applied only with `--unsafe-fixes`. A rule
    #: whose fixes differ overrides `fix_is_safe`.
    fix_safe: ClassVar[bool] = True

    def fix_is_safe(self, node: cst.CSTNode, fields: dict) -> bool:
        return self.fix_safe

    def _make_fix(self, node: cst.CSTNode, fields: dict):
        from stagelint.fix import Edit, Fix

        digest = getattr(self.ctx, "source_digest", None)
        if digest is None:  # analysed without its bytes at hand: nothing to check a fix against
            return None
        pairs = self.fix(node, fields)
        if not pairs:
            return None
        edits = []
        for target, text in pairs:
            span = self.ctx.position(target)
            edits.append(Edit(span.line, span.column, span.end_line, span.end_column, text))
        return Fix(digest, tuple(edits), safe=self.fix_is_safe(node, fields))

    @classmethod
    def project_fix(cls, fix, candidate, project, key, jax: bool):
        """The fix as the project shows it applies: `fix`, the same fix made unsafe
        (`dataclasses.replace(fix, safe=False)`) where only the project shows what can break, or
        None where it does not apply (`jax`: the finding is reported in JAX's terms)."""
        return fix

    def finish(self) -> None:
        """Called once after the traversal, for rules that decide at the end of the file."""

    @classmethod
    def confirm(cls, candidate, project, module) -> bool:
        """Project-phase check of a candidate in staged code (call graph, call sites): falsy
        drops it; a dict keeps it and adds message fields only the project shows."""
        return True

    @classmethod
    def project_candidates(cls, project):
        """Candidates only the whole project can show (recursion): (module name, Candidate)."""
        return ()

    # Documentation -------------------------------------------------------------------------

    @classmethod
    def doc_sections(cls) -> dict[str, str]:
        return parse_sections(inspect.getdoc(cls) or "")

    @classmethod
    def summary(cls) -> str:
        """The first sentence of "What it does", for tables."""
        text = " ".join(cls.doc_sections().get("What it does", "").split())
        m = re.match(r"(.+?[^.]\.)(\s|$)", text)
        return m.group(1) if m else text


def parse_sections(doc: str) -> dict[str, str]:
    sections: dict[str, str] = {}
    current = None
    for line in doc.splitlines():
        m = re.match(r"^## (.+?)\s*$", line)
        if m:
            current = m.group(1)
            sections[current] = ""
        elif current is not None:
            sections[current] += line + "\n"
    return {k: v.strip("\n") for k, v in sections.items()}


def example_source(example: str) -> str:
    return textwrap.dedent(example).lstrip("\n")


MARKER_RE = re.compile(r"#\s*((?:STG\d{3}[\s,]*)+)\s*$")


def expected_findings(example: str) -> set[tuple[int, str]]:
    """(line, code) pairs marked in an example with trailing `# STG101` comments."""
    expected = set()
    for lineno, line in enumerate(example_source(example).splitlines(), start=1):
        m = MARKER_RE.search(line)
        if m:
            for code in re.findall(r"STG\d{3}", m.group(1)):
                expected.add((lineno, code))
    return expected
