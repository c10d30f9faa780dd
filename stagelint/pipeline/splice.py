"""The language server's per-file phase for an edit inside one top-level `def` or `class`: only
the statements the edit can touch are parsed and walked again.

A file is cut into *units*, its top-level statements: each `def` and `class` is a unit, the
rest (imports, assignments, `if __name__ ...`) is *glue*. When an edit lies inside one unit T,
the facts of the new text are made of

* a walk of a *reduced text*: the new text with the body of every unit outside a set K blanked
  (its first body line becomes `pass`, the others empty lines, so every line keeps its number
  and every kept node its position). K holds T, the units whose old facts may depend on T (they
  name T, or name a unit that does: *dependents*), everything those name (their *dependencies*,
  whose bodies the rules may read: helpers, base classes), the units with a staging call
  outside a decorator (`tf.function(f)` records wrappers without a location), and the units
  after T whose facts hold line numbers that cannot be moved (a candidate's own fields). The
  glue is always walked. What this walk records for K and the glue is what the whole file's
  walk records for them: libcst's scopes see the same module-level names (a blanked `def` or
  `class` still binds its name), and whatever a rule reads of another unit is in K.
* the old facts of the units outside K, with their lines moved by the edit's line count when
  they lie below it (spans, `name@line` idents and lambdas, `line N` in messages).

Anything else falls back to the whole file (returns None): no previous facts, a change outside
one unit or at its edges, a syntax error in either text, a unit added or removed, a rule that
failed, a module name changed by `facts.disambiguate`, notebooks. The invariant, tested on
random edits of real files (tests/test_splice.py), is that the spliced facts give the findings
the whole file's facts give.
"""

from __future__ import annotations

import ast
import pickle
import re
from dataclasses import dataclass, fields, is_dataclass, replace

from stagelint.analysis import eagerswitch
from stagelint.analysis import facts as F
from stagelint.frameworks import GRAPH_MODE_WORDS
from stagelint.pipeline.files import digest
from stagelint.fix import Edit, Fix

#: a name as a unit may spell another unit's: not after a dot (`tf_keras.layers.Conv2D` is not
#: the module's own `Conv2D`); in strings and comments too (more units walked, never fewer)
_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*")
_GLOBAL = re.compile(r"\bglobal\b")


@dataclass
class Unit:
    """One top-level statement: its lines (decorators included), 1-based and inclusive."""

    start: int
    end: int
    #: the name a `def` / `class` binds; None for glue
    name: str | None
    #: the first line of the body, and its indentation, when it can be blanked (a body on lines
    #: of its own); None otherwise
    body: int | None = None
    indent: str = ""
    #: the module-level names it binds (glue: assignments, imports, defs under an `if`)
    binds: frozenset = frozenset()
    #: those of them that are variables (not imports, defs or classes): functions that use one
    #: may learn of each other's writes (`history.append(x)` here and there: STG301's writers)
    variables: frozenset = frozenset()


def units_of(text: str) -> list[Unit] | None:
    """The file's top-level statements, or None when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    lines = text.splitlines()
    out = []
    for stmt in tree.body:
        start = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = stmt.body[0]
            head = lines[first.lineno - 1][: first.col_offset] if first.lineno <= len(lines) else "x"
            body = first.lineno if head.strip() == "" and first.lineno > stmt.lineno else None
            out.append(Unit(start, stmt.end_lineno, stmt.name, body, head, frozenset({stmt.name})))
        else:
            binds, variables = _binds(stmt)
            out.append(Unit(start, stmt.end_lineno, None, binds=binds, variables=variables))
    return out


def _binds(stmt: ast.stmt) -> tuple[frozenset, frozenset]:
    """The module-level names a statement binds (stores, deletes, imports, nested defs and
    classes: they bind where the statement runs), and which of them are variables."""
    out, variables = set(), set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            variables.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            variables.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            variables.add(node.name)
    return frozenset(out | variables), frozenset(variables)


@dataclass
class Memo:
    """What the splice keeps of a file between edits: its text, units, and the exact facts of
    that text (pickled: each splice takes a private copy to move lines in)."""

    text: str
    units: list[Unit]
    facts: bytes
    module: str
    path: str
    #: what else the facts were made with (the settings, the project's packages)
    made_with: tuple
    #: how the file spells a staging call (`staging_calls`)
    staging: re.Pattern[str]

    @classmethod
    def of(cls, text: str, facts: F.ModuleFacts, settings, made_with: tuple = (), units=None) -> Memo | None:
        """None when the facts cannot be spliced later (a rule failed on the file, the text does
        not parse, the project renamed the module: `facts.disambiguate`)."""
        units = units if units is not None else units_of(text)
        if units is None or facts.errors or facts.__dict__.get("dotted", facts.module) != facts.module:
            return None
        return cls(text, units, pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL), facts.module, facts.path,
                   made_with, staging_calls(settings, facts.imports))


def changed_lines(old: list[str], new: list[str]) -> tuple[int, int, int]:
    """(lines in common at the start, at the end, and the change in line count)."""
    n = min(len(old), len(new))
    p = 0
    while p < n and old[p] == new[p]:
        p += 1
    s = 0
    while s < n - p and old[-1 - s] == new[-1 - s]:
        s += 1
    return p, s, len(new) - len(old)


def _names(text: str, unit: Unit, lines: list[str]) -> set[str]:
    return set(_NAME.findall("".join(lines[unit.start - 1: unit.end])))


_ANNOTATION = re.compile(r"[\w.\[\], |]*")


def _code_names(unit: Unit, lines: list[str]) -> set[str] | None:
    """The names a unit's code spells (`_NAME`), leaving out comments and the words of its
    docstrings and messages; a short string that could be a type annotation (`"Conv2D"`,
    `"Optional[Foo]"`, which libcst's scopes read as names) counts. None if it does not
    tokenize."""
    import io
    import tokenize

    out: set[str] = set()
    previous = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO("".join(lines[unit.start - 1: unit.end])).readline):
            if tok.type == tokenize.NAME:
                if previous != ".":
                    out.add(tok.string)
            elif tok.type == tokenize.STRING:
                body = tok.string.strip("rbuRBUfF").strip("'\"")
                if _ANNOTATION.fullmatch(body):
                    out.update(_NAME.findall(body))
            if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
                previous = tok.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return out


class _Plan:
    def __init__(self, memo: Memo, new_text: str, staging_word):
        self.ok = False
        old_lines = memo.text.splitlines(keepends=True)
        new_lines = new_text.splitlines(keepends=True)
        if not memo.text.endswith("\n") or not new_text.endswith("\n"):
            return
        p, s, delta = changed_lines(old_lines, new_lines)
        units = units_of(new_text)
        old_units = memo.units
        if units is None or len(units) != len(old_units):
            return
        # T: the first unit the change reaches (its lines, or its bounds: an insertion right
        # after a unit's last line may be its own); every other unit must be the same, moved
        at = next((i for i, (a, b) in enumerate(zip(old_units, units))
                   if a.end > p or (a.start, a.end, a.body) != (b.start, b.end, b.body)), None)
        if at is None or old_units[at].name is None or old_units[at].name != units[at].name:
            return
        for i, (a, b) in enumerate(zip(old_units, units)):
            if i < at and (a.start, a.end, a.body, a.name) != (b.start, b.end, b.body, b.name):
                return
            if i > at and (a.start + delta, a.end + delta, a.body + delta if a.body else None, a.name) \
                    != (b.start, b.end, b.body, b.name):
                return
        t_old, t_new = old_units[at], units[at]
        if t_old.body is None or t_new.body is None or t_old.start != t_new.start or t_old.body != t_new.body \
                or t_old.end + delta != t_new.end:
            return
        # the same lines down to T's first body line (its decorators and signature too), and
        # after its end
        if p < t_old.body - 1 or old_lines[t_old.end:] != new_lines[t_new.end:]:
            return
        t_lines = old_lines[t_old.start - 1: t_old.end] + new_lines[t_new.start - 1: t_new.end]
        if any(_GLOBAL.search(line) for line in t_lines):
            return  # `global x` binds x at module level: every unit's scopes may change
        #: T calls a staging API (`tf.function(f)`): wrapper facts, which carry no location, may
        #: change, and are then taken from a walk of every unit that calls one
        self.t_wraps = staging_word is not None and (_wraps(old_lines, t_old, staging_word)
                                                     or _wraps(new_lines, t_new, staging_word))
        self.p, self.delta, self.at = p, delta, at
        self.units, self.old_units = units, old_units
        self.new_lines = new_lines
        self.old_end = t_old.end  # old lines after it move by delta
        names = [_names(new_text, u, new_lines) for u in units]
        # T's own: its code's names (its docstring's words name nothing), before and after
        t_names = (_code_names(t_new, new_lines), _code_names(t_old, old_lines))
        if t_names[0] is not None and t_names[1] is not None:
            names[at] = t_names[0] | t_names[1]
        else:
            names[at] |= _names(memo.text, t_old, old_lines)
        named = [u.name for u in units if u.name is not None]
        if len(set(named)) != len(named):
            return  # a name defined twice at the top (relocated `name@line` facts): the whole file
        tops: dict[str, list[int]] = {}
        for i, u in enumerate(units):
            for n in u.binds:
                tops.setdefault(n, []).append(i)
        # i uses j: i spells a name j binds, or both spell a module-level variable (`history`
        # appended to here and there: each one's facts name the other writers, STG301)
        variables = set().union(*[u.variables for u in units])
        users: dict[str, list[int]] = {}
        for i, ns in enumerate(names):
            for n in ns & variables:
                users.setdefault(n, []).append(i)
        uses = [{j for n in ns for j in (*tops.get(n, ()), *users.get(n, ())) if j != i}
                for i, ns in enumerate(names)]
        # T and what depends on it, transitively (defs, classes, module-level statements that
        # name it, and the units that use a module-level variable T uses): their old facts may
        # have read T
        dependents, frontier = {at}, [at]
        while frontier:
            j = frontier.pop()
            for i, u in enumerate(uses):
                if j in u and i not in dependents:
                    dependents.add(i)
                    frontier.append(i)
        glue = {i for i, u in enumerate(units) if u.name is None}
        #: a module-level statement depends on T: module-level facts without a place (Keras
        #: drives and Linen runs outside functions) then come from the walk, of all the glue
        self.glue_dependent = bool(dependents & glue)
        walked = set(dependents)
        for i, u in enumerate(units):
            if self.t_wraps and _wraps(new_lines, u, staging_word):
                walked.add(i)
        # what the walked units name, transitively: the rules may read it
        frontier = list(walked)
        while frontier:
            j = frontier.pop()
            for i in uses[j]:
                if i not in walked:
                    walked.add(i)
                    frontier.append(i)
        #: the units whose facts come from the walk of the reduced text (the others' are the old
        #: ones); the glue and bodies that cannot be blanked stay in the text either way
        self.keep = walked
        self.blank = {i for i, u in enumerate(units) if i not in walked and u.name is not None and u.body is not None}
        self.all_glue_walked = glue <= walked
        #: the names each unit left to its old facts spells (an old fact of a walked unit may
        #: hide one of theirs)
        self.blanked_names = set().union(*[names[i] for i in range(len(units)) if i not in walked])
        #: the names the blanked bodies spell (the reduced walk reads every other unit's whole)
        self.blank_body_names = set().union(*[names[i] for i in self.blank])
        self.ok = True

    def reduced(self) -> str:
        lines = list(self.new_lines)
        for i, u in enumerate(self.units):
            if i not in self.blank:
                continue
            lines[u.body - 1] = u.indent + "pass\n"
            for k in range(u.body, u.end):
                lines[k] = "\n"
        return "".join(lines)


def staging_calls(settings, imports: dict[str, str] | None = None) -> re.Pattern[str]:
    """How a staging API is spelled when it is called or passed (`tf.function(f)`,
    `partial(tf.function, ...)`): the last part of each staging decorator, and the names the
    file imports them as."""
    from stagelint.frameworks import FRAMEWORKS

    staging = {name for fw in FRAMEWORKS for name in fw.staging_decorators} | set(settings.staging_decorators or ())
    words = {name.rsplit(".", 1)[-1] for name in staging if name}
    words |= {local for local, q in (imports or {}).items() if q in staging}
    return re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, words))) + r")\b\s*[(,)]")


def _wraps(lines: list[str], unit: Unit, staging_word) -> bool:
    """A staging API called outside a decorator line (`g = tf.function(f)`): wrapper facts
    carry no location to tell whose they are, so such a unit is always walked."""
    for k in range(unit.start - 1, unit.end):
        line = lines[k]
        if staging_word.search(line) and not line.lstrip().startswith(("@", "#")):
            return True
    return False


# which unit a fact belongs to -------------------------------------------------------------------

class _Owner:
    """Unit index of a line, by binary search over the units' line ranges (None: blank lines
    and comments between units)."""

    def __init__(self, units: list[Unit]):
        self.units = units

    def __call__(self, line: int) -> int | None:
        lo, hi = 0, len(self.units) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            u = self.units[mid]
            if line < u.start:
                hi = mid - 1
            elif line > u.end:
                lo = mid + 1
            else:
                return mid
        return None


# moving the old facts' lines ----------------------------------------------------------------------

_DIGIT = re.compile(r"\d")
_LINE_TEXT = re.compile(r"(@|<lambda:|\bline |^)(\d+)(?=(:\d+>|:\d+$|\D|$))")


#: Candidate fields that hold a line of the file (moved with it), or a flag.
_LINE_FIELDS = frozenset({"_stored_anew", "_after_concrete"})
#: Candidate fields that hold a number that is not a line (kept as it is): STG504's argument position.
_PLAIN_FIELDS = frozenset({"_index"})


class Unmovable(Exception):
    """An old fact holds a number that may be a line and cannot be moved with certainty."""


class _Mover:
    def __init__(self, after: int, delta: int, new_digest: str):
        self.after, self.delta = after, delta
        #: a fix applies to the new text's bytes (`fix.Fix.digest`)
        self.digest = new_digest

    def line(self, n: int) -> int:
        return n + self.delta if n > self.after else n

    def text(self, s: str) -> str:
        if self.delta == 0 or not _DIGIT.search(s):
            return s
        return _LINE_TEXT.sub(lambda m: m.group(1) + str(self.line(int(m.group(2)))), s)

    def span(self, sp: F.Span | None) -> F.Span | None:
        if sp is None or self.delta == 0:
            return sp
        return F.Span(self.line(sp.line), sp.column, self.line(sp.end_line), sp.end_column)

    def _because(self, facts) -> list:
        """A candidate's stated facts (`analysis.proof.fact`: message, line, column, certainty)."""
        return [[self.text(m), self.line(line), column, certainty] for m, line, column, certainty in facts]

    def _order(self, order: dict) -> dict:
        """STG301's program order (`StaleGlobal._ordered`): rebinding lines with their loop's, the
        writers, each writer's write lines and the spans of its loops that hold a write, every
        module-level binding's line (with its statement's lines when it binds from a call)."""
        moved = {"rebinds": [[self.line(line), [self.line(a) for a in loop] if loop else loop]
                             for line, loop in order["rebinds"]],
                 "writers": list(order["writers"]),
                 "lines": {w: [self.line(x) for x in xs] for w, xs in order["lines"].items()}}
        if "loops" in order:
            moved["loops"] = {w: [[self.line(a) for a in span] for span in spans] for w, spans in order["loops"].items()}
        if "bindings" in order:
            moved["bindings"] = [[self.line(line), [self.line(a) for a in fed] if fed else fed, plain]
                                 for line, fed, plain in order["bindings"]]
            moved["always"] = order["always"]
        if "fixed" in order:
            moved["fixed"] = [[self.line(line), value] for line, value in order["fixed"]]
        if "remade" in order:
            moved["remade"] = list(order["remade"])
        if "branches" in order:
            moved["branches"] = [[self.line(line), [[self.line(at), arm] for at, arm in path]]
                                 for line, path in order["branches"]]
        if "keyed" in order:
            # rebindings made with the batch size (`analysis.batch_keyed`): line, loop span, fed calls
            moved["keyed"] = {w: [[self.line(line), [self.line(a) for a in span], [self.line(c) for c in fed]]
                                  for line, span, fed in rows] for w, rows in order["keyed"].items()}
        return moved

    def _line_field(self, v):
        """A candidate field that is a line or a flag (STG102's `_stored_anew`: the line of the
        store above, or False/None)."""
        return self.line(v) if isinstance(v, int) and not isinstance(v, bool) else v

    def value(self, v, strict: bool):
        """A fact's value with its lines moved. `strict`: an int or a digit-bearing string this
        does not know the meaning of raises `Unmovable` (candidate fields)."""
        if isinstance(v, F.Span):
            return self.span(v)
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, bool) or v is None or isinstance(v, float):
            return v
        if isinstance(v, int):
            if strict and self.delta:
                raise Unmovable(v)
            return v
        if isinstance(v, list):
            return [self.value(x, strict) for x in v]
        if isinstance(v, tuple):
            return tuple(self.value(x, strict) for x in v)
        if isinstance(v, dict):
            return {self.value(k, strict): self._because(x) if k == "_because" else
                    self._order(x) if k == "_order" and x is not None else
                    self._line_field(x) if k in _LINE_FIELDS else
                    x if k in _PLAIN_FIELDS and isinstance(x, int) else self.value(x, strict)
                    for k, x in v.items()}
        if isinstance(v, (set, frozenset)):
            return type(v)(self.value(x, strict) for x in v)
        if isinstance(v, Fix):
            # replace(), not Fix(...): a moved fix keeps every field but its place (its applicability too)
            return replace(v, digest=self.digest, edits=tuple(
                replace(e, line=self.line(e.line), end_line=self.line(e.end_line)) for e in v.edits))
        if is_dataclass(v):
            moved = {f.name: self.value(getattr(v, f.name), strict and f.name != "span") for f in fields(v)}
            if isinstance(v, F.CallSite) and v.branch:
                # its `if`/`try` statements' lines (`CallSite.branch`)
                moved["branch"] = tuple((self.line(at), arm) for at, arm in v.branch)
            if type(v).__dataclass_params__.frozen:
                return replace(v, **moved)
            for name, value in moved.items():
                setattr(v, name, value)
            return v
        raise Unmovable(type(v).__name__)


def _function_facts(mover: _Mover, f: F.FunctionFacts) -> F.FunctionFacts:
    for fl in fields(f):
        name = fl.name
        value = getattr(f, name)
        if name == "conditional_calls":
            value = {_key(mover, k): v for k, v in value.items()}
        elif name in ("varargs_at",):
            continue
        elif name == "self_binds":  # attribute -> [end line, end column]
            value = {k: [mover.line(line), column] for k, (line, column) in value.items()}
        elif name in ("first_return", "self_passed"):  # a line, 0 for none
            value = mover.line(value) if value else 0
        else:
            value = mover.value(value, strict=False)
        setattr(f, name, value)
    return f


def _key(mover: _Mover, key: str) -> str:
    line, _, column = key.partition(":")
    return f"{mover.line(int(line))}:{column}" if line.isdigit() else key


# the splice -------------------------------------------------------------------------------------

#: The least share of the file's lines the blanking must leave out for the splice to be worth
#: its cost (the new text's `ast` parse, the old facts' copy and move: on tf-models files, a
#: tenth of the whole file's analysis).
SAVES = 0.25


@dataclass
class Spliced:
    facts: F.ModuleFacts
    #: the new text's units (for the next `Memo`)
    units: list[Unit]
    #: how many units were walked again
    walked: int


def splice(memo: Memo, new_text: str, analyse) -> Spliced | None:
    """The facts of `new_text` from those of `memo.text`, or None: the whole file must be
    analysed. `analyse(text) -> ModuleFacts | None` is the per-file phase of a (reduced) text."""
    plan = _Plan(memo, new_text, memo.staging)
    if not plan.ok or "functions_eagerly" in new_text or "functions_eagerly" in memo.text:
        return None
    if any(word.decode() in text for word in GRAPH_MODE_WORDS for text in (new_text, memo.text)):
        return None  # a graph-mode switch (`eagerswitch.graph_classes`): the file whole
    plan.traces_anyway = eagerswitch.traces_anyway(new_text.encode("utf-8", "surrogatepass"))
    blanked = sum(plan.units[i].end - plan.units[i].body for i in plan.blank)
    if blanked < SAVES * len(plan.new_lines):
        return None  # too little to save for the splice's own cost: the whole file
    reduced = analyse(plan.reduced())
    if reduced is None or reduced.errors or reduced.module != memo.module \
            or any(c.code == "STG000" for c in reduced.candidates):
        return None
    old: F.ModuleFacts = pickle.loads(memo.facts)
    new_owner, old_owner = _Owner(plan.units), _Owner(plan.old_units)
    keep = plan.keep
    mover = _Mover(plan.old_end, plan.delta, digest(new_text.encode("utf-8")))

    def from_reduced(line: int) -> bool:
        i = new_owner(line)
        return i is None or i in keep

    def from_old(line: int) -> bool:
        i = old_owner(line)
        return i is not None and i not in keep

    try:
        out = _merge(old, reduced, from_reduced, from_old, mover, plan)
    except Unmovable:
        return None
    return None if out is None else Spliced(out, plan.units, len(plan.keep))


def _merge(old, reduced, from_reduced, from_old, mover, plan) -> F.ModuleFacts | None:
    out = F.ModuleFacts(path=reduced.path, module=reduced.module, is_package=reduced.is_package)
    # functions and classes, ordered by where they are defined (the walk's order)
    functions = [(f.span.line, f.span.column, 0, q, f) for q, f in reduced.functions.items()
                 if from_reduced(f.span.line)]
    old_functions = {q: f for q, f in old.functions.items() if from_old(f.span.line)}
    for q, f in old_functions.items():
        f = _function_facts(mover, f)
        functions.append((f.span.line, f.span.column, 1, mover.text(q), f))
    functions.sort(key=lambda x: x[:3])
    out.functions = {q: f for *_, q, f in functions}
    # a def called once by the module's top-level code (`FunctionFacts.top_calls`) counts the reads
    # of its name in the whole module: a blanked unit's body may hold one the reduced walk missed
    if any(f.top_calls and q in plan.blank_body_names for q, f in reduced.functions.items()
           if from_reduced(f.span.line)):
        return None
    classes = [(c.span.line, c.span.column, 0, q, c) for q, c in reduced.classes.items()
               if c.span is not None and from_reduced(c.span.line)]
    for q, c in old.classes.items():
        if c.span is None:
            return None
        if from_old(c.span.line):
            c.span = mover.span(c.span)
            c.qualname = mover.text(c.qualname)
            c.bases = [mover.text(b) for b in c.bases]
            if c.pytree_line:  # where the flattening is spelled: a line like the span's
                c.pytree_line = mover.line(c.pytree_line)
            if c.dynamic_line:  # the `super().__init__(dynamic=True)` of its `__init__`
                c.dynamic_line = mover.line(c.dynamic_line)
            classes.append((c.span.line, c.span.column, 1, mover.text(q), c))
    if any(c.span is None for c in reduced.classes.values()):
        return None
    classes.sort(key=lambda x: x[:3])
    out.classes = {q: c for *_, q, c in classes}
    # located facts: the reduced walk's for K and the glue, the old ones (moved) for the rest
    for name in ("call_sites", "candidates", "dataset_functions", "jax_staged", "attr_writes"):
        mine = [x for x in getattr(reduced, name) if from_reduced(x.span.line)]
        strict = name == "candidates"
        if strict:
            for c in mine:
                if isinstance(c.fields.get("_fix"), Fix):  # made for the reduced text's bytes
                    c.fields["_fix"] = replace(c.fields["_fix"], digest=mover.digest)
        theirs = [mover.value(x, strict) for x in getattr(old, name) if from_old(x.span.line)]
        setattr(out, name, sorted(mine + theirs, key=lambda x: (x.span.line, x.span.column)))
    reads: dict[str, list[int]] = {}
    for attr, lines in reduced.uncalled_attribute_reads.items():
        kept = [n for n in lines if from_reduced(n)]
        if kept:
            reads[attr] = kept
    for attr, lines in old.uncalled_attribute_reads.items():
        moved = [mover.line(n) for n in lines if from_old(n)]
        if moved:
            reads[attr] = sorted(set(reads.get(attr, []) + moved))
    out.uncalled_attribute_reads = reads
    out.object_calls = sorted([x for x in reduced.object_calls if from_reduced(x[0])]
                              + [(mover.line(x[0]), mover.text(x[1]), x[2])
                                 for x in old.object_calls if from_old(x[0])])
    # wrappers: they come from the unit's own syntax and the module's names, so when T calls no
    # staging API they are the old ones (moved); otherwise every unit that calls one was walked
    if plan.t_wraps:
        out.wrapped = reduced.wrapped
        out.fresh_wrapped = reduced.fresh_wrapped
        out.wrapper_bindings = reduced.wrapper_bindings
    else:
        out.wrapped = mover.value(old.wrapped, False)
        out.fresh_wrapped = mover.value(old.fresh_wrapped, False)
        out.wrapper_bindings = mover.value(old.wrapper_bindings, False)
    # imports and module-level bindings (glue)
    out.concrete_bindings = reduced.concrete_bindings
    out.imports = reduced.imports
    out.star_from = reduced.star_from
    # hijax Flax NNX Variables (`stagelint.analysis.nnx`): a walked unit makes them, or no unit did before;
    # made before, by a unit now walked again or one kept, the old flag cannot tell: the whole file
    if old.nnx_hijax and not reduced.nnx_hijax:
        return None
    out.nnx_hijax = reduced.nnx_hijax
    # the run_functions_eagerly switch (`stagelint.analysis.eagerswitch`): imports are glue (the
    # reduced walk's), what traces anyway is read in the new text (`splice`; a file spelling the
    # switch, maybe in a blanked helper's body, is analysed whole)
    out.eager_switch = plan.traces_anyway + [e for e in reduced.eager_switch if e[1] == "import"]
    # by calling function: its unit
    for name in ("keras_drives", "linen_runs", "method_calls"):
        mine, theirs = [], []
        caller_at = 3 if name == "keras_drives" else 0
        # outside functions (caller None): no place to tell which statement made them
        module_level = "reduced" if plan.glue_dependent else "old"
        if plan.glue_dependent and not plan.all_glue_walked and (
                any(x[caller_at] is None for x in getattr(reduced, name))
                or any(x[caller_at] is None for x in getattr(old, name))):
            return None
        for x in getattr(reduced, name):
            q = x[caller_at]
            if q is None and module_level == "reduced" \
                    or q in reduced.functions and from_reduced(reduced.functions[q].span.line):
                mine.append(x)
            elif q is not None and q not in reduced.functions:
                return None  # no place to tell whose it is
        for x in getattr(old, name):
            q = x[caller_at]
            if q is None and module_level == "old" or q is not None and q in old_functions:
                theirs.append(mover.value(x, False))
            elif q is not None and q not in old.functions:
                return None
        if theirs and mine:
            return None  # their order in the walk is not known
        setattr(out, name, mine + theirs)
    # objects built outside staged code (and those built where they are made under Keras 3):
    # ident -> first line (a minimum over the units)
    for name in ("built", "built_if_keras3"):
        reduced_built, old_built = getattr(reduced, name), getattr(old, name)
        built = {k: v for k, v in reduced_built.items() if from_reduced(v)}
        for k, v in old_built.items():
            if from_old(v):
                k2, v2 = mover.text(k), mover.line(v)
                built[k2] = min(v2, built.get(k2, v2))
            elif set(_NAME.findall(k)) & plan.blanked_names:
                return None  # a blanked unit's later line may be hidden under the old minimum
        for k, v in reduced_built.items():
            if not from_reduced(v) and k not in old_built:
                return None
        setattr(out, name, built)
    return out
