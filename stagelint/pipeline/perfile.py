"""The per-file phase: one file's bytes -> its `ModuleFacts` (one parse, one traversal), and
the outcome of trying (analysed, unreadable, skipped, an internal error). What a worker process
runs; it knows nothing of the run it is part of."""

from __future__ import annotations

import io
import tokenize
import traceback
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

from stagelint.analysis import facts as F
from stagelint import notebooks
from stagelint.analysis import eagerswitch
from stagelint.analysis.walk import analyze_module
from stagelint.pipeline.budget import OverBudget, over_budget
from stagelint.analysis.context import FileContext
from stagelint.analysis.fastmeta import parse_module, release, restore_libcst
from stagelint.pipeline.files import NotRead, digest, read_source, why_not_read
from stagelint.frameworks import STAGING
from stagelint.pipeline.paths import module_name
from stagelint.rules import all_rules
from stagelint.pipeline.timelimit import FILE_TIMEOUT, TimeLimit, over_time_detail


@dataclass
class Outcome:
    path: str
    #: "ok", "unreadable", "skipped" (crash, hang, too deep) or "error" (an internal error)
    status: str
    facts: F.ModuleFacts | None = None
    detail: str = ""
    #: SHA-256 of the bytes analysed (the result cache's key)
    digest: str = ""
    #: served from the result cache
    cached: bool = False
    #: the optional frameworks left out of the analysis (`analyze_source`; part of the cache key)
    absent: frozenset = frozenset()
    #: the checked top-level names the file spells (`spelled_roots`; part of the cache key)
    spelled: tuple = ()


def analyze_source(path: str, source: bytes, settings, project_roots=frozenset(), absent=frozenset(),
                   budget=None) -> F.ModuleFacts:
    """Parse and walk one file. A syntax error is one STG000 candidate, not an exception.
    `absent`: names of optional frameworks (`frameworks.OPTIONAL_FRAMEWORKS`) that cannot stage
    anything in this file (`screen.framework_reach`): their rules are not run. `budget(code)`:
    why a notebook's code (its cells as one module) is not to be parsed, or None; a reason
    raises `budget.OverBudget`."""
    module, is_package = module_name(Path(path))
    notebook = None
    retabbed = []
    try:
        if notebooks.is_notebook(path):  # its code cells as one module, in module lines
            tree, notebook = notebooks.parse(source, _budgeted(budget, retabbed))
        else:
            tree = parse_python(source, retabbed)
    except (cst.ParserSyntaxError, SyntaxError, UnicodeDecodeError, LookupError, notebooks.NotebookError) as e:
        # The last three: not UTF-8 and no (valid) coding cookie; Python refuses those too.
        line, column, message = (1, 1, str(e)) if notebook is None and notebooks.is_notebook(path) \
            else _syntax_error_location(source, e)
        facts = F.ModuleFacts(path=path, module=module, is_package=is_package)
        facts.candidates.append(F.Candidate("STG000", None, F.Span(line, column, line, column),
                                            {"unit": "file", "error": message}))
        return facts
    ctx = FileContext(path, module, is_package, settings, STAGING)
    ctx.project_roots = frozenset(project_roots)
    # Fixes are applied only to these exact bytes; none where the tree is of retabbed text.
    ctx.source_digest = None if retabbed else digest(source)
    ctx.absent = absent  # (JAX's fact collectors ask it too: `nnx.imports_flax`)
    if notebook is not None:  # no module imports it, its cells hold every read (`jaxstaging.mark_uncalled`)
        ctx.notebook_hidden = notebook.hidden_names()
    facts = analyze_module(tree, ctx, rules_for(absent))
    facts.eager_switch = eagerswitch.module_events(ctx, tree, source)
    release(ctx)  # its reference cycles broken: freed now, not by a walk of the collector
    if notebook is not None:  # one STG000 per cell that does not parse (the cell is left out)
        for cell, line, column, message in notebook.broken:
            at = notebook.starts[notebook.cells.index(cell)] + line - 1
            facts.candidates.append(F.Candidate("STG000", None, F.Span(at, column, at, column),
                                                {"unit": "cell", "error": f"{message} (this cell is skipped, the others are checked)"}))
    return facts


def _budgeted(budget, retabbed: list):
    """`parse_python`, refusing code `budget` finds over a budget (`OverBudget`)."""
    def parse(code):
        reason = budget(code) if budget is not None else None
        if reason is not None:
            raise OverBudget(reason)
        return parse_python(code, retabbed)

    return parse


def parse_python(source, retabbed: list | None = None) -> cst.Module:
    """libcst's tree of `source` (bytes or str). libcst keeps a block's indentation as text
    that must begin with the enclosing block's, so it refuses code Python accepts where a tab
    follows spaces (`  if a:` / `\t  b = 1` / `  c = 2`: "no matching outer block for dedent";
    libcst 1.9). Python compares indentation by columns, and accepts a file only when the
    comparisons agree with a tab counted as 8 columns and as 1 (else TabError): so when libcst
    refuses a file that Python compiles, its tree is that of the same text with each tab of a
    line's indentation made one space (same block structure, same line and column of every
    token; the lines inside a string are left alone). `retabbed` (a list) gets True appended
    when that was done: the tree is then not of the file's bytes (no fix is offered)."""
    try:
        return parse_module(source)  # libcst's, without its checks of each node
    except cst.ParserSyntaxError:
        text = _indent_tabs_as_spaces(source)
        if text is None:
            raise
        tree = parse_module(text)  # (still refused: libcst's error, as for the file)
        if retabbed is not None:
            retabbed.append(True)
        return tree


def _indent_tabs_as_spaces(source) -> str | None:
    """`source` with every tab in a line's leading whitespace made one space, except on lines
    that begin inside a string; None when Python does not compile it or it has no such tab."""
    try:
        compile(source, "<stagelint>", "exec", dont_inherit=True)
        text = source.decode(tokenize.detect_encoding(io.BytesIO(source).readline)[0]) \
            if isinstance(source, bytes) else source
        inside = set()
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            inside.update(range(tok.start[0] + 1, tok.end[0] + 1))  # (only strings span lines)
    except (SyntaxError, ValueError, UnicodeDecodeError, LookupError, RecursionError, MemoryError,
            tokenize.TokenError):
        return None
    lines = text.splitlines(keepends=True)
    changed = False
    for number, line in enumerate(lines, 1):
        indent = len(line) - len(line.lstrip(" \t\f"))
        if number not in inside and "\t" in line[:indent]:
            lines[number - 1] = line[:indent].replace("\t", " ") + line[indent:]
            changed = True
    if not changed:
        return None
    return "".join(lines)


def rules_for(absent=frozenset()) -> list:
    """The rules a file's walk runs: all but the runtime-only ones and those of `absent` frameworks."""
    rules = _RULES.get(absent)
    if rules is None:
        rules = _RULES[absent] = [r for r in all_rules() if not r.runtime_only and r.framework not in absent]
    return rules


_RULES: dict[frozenset, list] = {}


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


def analyse_bytes(path: str, source: bytes, settings, roots, in_process: bool = False,
                  absent=frozenset()) -> Outcome:
    """The outcome of analysing `source` as the file `path`: one file's internal error, or code
    too deep to walk, loses only that file. `in_process`: not in a worker (a crash would end the
    run, no one would stop a hang), so the file is read by Python's parser first
    (`budget.over_budget`) and the analysis is held to `file-timeout` here (`timelimit`).
    `absent`: as for `analyze_source`."""
    notebook = notebooks.is_notebook(path)  # (its JSON is not the code: its cells are measured)
    reason = over_budget(source, settings, in_process, python=not notebook)
    if reason is not None:
        return Outcome(path, "skipped", detail=reason)
    budget = (lambda code: over_budget(code, settings, in_process)) if notebook else None
    if in_process:
        return within_time_budget(path, settings, lambda: _analysed(path, source, settings, roots, absent, budget))
    return _analysed(path, source, settings, roots, absent, budget)


def within_time_budget(path: str, settings, analyse) -> Outcome:
    """`analyse()`, or a skipped outcome once it overruns the settings' `file-timeout` (the
    in-process hosts: flake8's workers, buffers, the language server)."""
    limit = TimeLimit(getattr(settings, "file_timeout", None) or FILE_TIMEOUT)
    try:
        with limit:
            return analyse()
    except limit.Exceeded:
        restore_libcst()
        return Outcome(path, "skipped", detail=over_time_detail(limit.seconds))


def _analysed(path: str, source: bytes, settings, roots, absent, budget) -> Outcome:
    try:
        facts = analyze_source(path, source, settings, roots, absent, budget)
        return Outcome(path, "ok", facts, digest=digest(source), absent=absent,
                       spelled=spelled_roots(source, roots, facts.module))
    except OverBudget as e:
        return Outcome(path, "skipped", detail=str(e))
    except RecursionError:
        # (a cycle in the analysis ends in this too: its walks answer "unknown" on meeting one)
        return Outcome(path, "skipped", detail="skipped: too deeply nested to analyse (past Python's recursion limit)")
    except notebooks.NotPython as e:  # a notebook for another language
        return Outcome(path, "skipped", detail=str(e))
    except MemoryError:
        return Outcome(path, "skipped", detail="skipped: out of memory while analysing")
    except Exception:  # one file's internal error must not lose the others' findings
        return Outcome(path, "error", detail=traceback.format_exc(limit=-6))


def analyse_one(path: str, settings, roots, in_process: bool = False, absent=frozenset(), within=None) -> Outcome:
    """`analyse_bytes` of the file on disk, read by `files.read_source` (`within`: the project
    roots of the check)."""
    try:
        source = read_source(path, getattr(settings, "max_file_size", None), within)
    except OSError as e:
        return not_read(path, e)
    return analyse_bytes(path, source, settings, roots, in_process, absent)


def not_read(path: str, error: OSError) -> Outcome:
    """The outcome of a file that could not be read, with the reason."""
    # refused (out of the project, not a regular file, over budget), or an error of the system
    return Outcome(path, "skipped" if isinstance(error, NotRead) else "unreadable", detail=why_not_read(error))


def spelled_roots(source: bytes, roots, module: str) -> tuple[str, ...]:
    """The top-level names checked (`roots`) that a file's facts can depend on: those its bytes
    spell, and its own package's. The analysis reads the checked names in one way only: whether the
    first part of a qualified name the file resolves is one of them (`ctx.project_roots`: a call
    into the project is a call site; a project function's result is not a framework's tensor).
    Such a name starts with a name the file spells (an import, a definition) or, for a relative
    import, with its own package's. So the files of a package checked with different given files
    (test modules in a `tests/` folder without `__init__.py`, each named by its stem and so each a
    top-level name of its own check) share their facts in the cache, instead of each check
    analysing the package afresh. A non-ASCII name is always kept (its bytes depend on the file's
    encoding)."""
    own = set(module.split("."))
    return tuple(sorted(r for r in roots if r in own or not r.isascii() or r.encode() in source))


def facts_key(cache, fact_settings, path: str, module: str, is_package: bool, content_digest: str,
              spelled: tuple, absent=frozenset()) -> str:
    """The cache key of a file's facts: its bytes, its path (from the project root) and dotted name, the
    analysis settings, the top-level names checked that it spells (`spelled_roots`, rather than all of
    `fact_settings`' names) and the frameworks left out (stagelint's own version is the cache's
    folder)."""
    settings = (fact_settings[0], tuple(spelled))
    if absent:
        return cache.key("facts", settings, cache.relative(path), module, is_package, content_digest,
                         sorted(absent))
    return cache.key("facts", settings, cache.relative(path), module, is_package, content_digest)


def store_outcome(store, outcome) -> None:
    """Keep a fresh outcome of the per-file phase (only a finished analysis: a crash, a hang
    or an internal error is tried again next time). `store` is (cache, fact settings) or None."""
    if store is None or outcome.status != "ok" or outcome.cached or not outcome.digest:
        return
    cache, fact_settings = store
    facts = outcome.facts
    cache.put("facts", facts_key(cache, fact_settings, outcome.path, facts.module, facts.is_package, outcome.digest,
                                 outcome.spelled, outcome.absent), facts)
