"""`stagelint server`: a language server (LSP over stdio) that keeps the project in memory.

On start it analyses the workspace folder as `stagelint check .` does there (in the background,
with LSP work-done progress), then publishes each open file's findings. When a buffer changes,
it analyses that file again from the buffer's text and re-runs the project phase
(`stagelint.pipeline.stages.reanalyse` and `project_phase`): the other files' facts stay as
they are, and so do the last project's name resolutions when the file's resolution surface is
unchanged (`stagelint.pipeline.incremental`). A change that moves what the screen reads of the
file (imports, staging words) starts over from the screen, with the cache. It offers the
rule's fix (an unsafe one titled so, never preferred) and a `# noqa: CODE` as code actions,
shows the rule's page on hover, and reloads the settings (and starts over) when a
configuration file (pyproject.toml, setup.cfg, tox.ini) changes: told by the client, or seen by
the file's modification time at the next analysis, whatever the client offers.

All analysis runs on one thread of its own, one job at a time, so the LSP thread answers
hover and code actions at once; a burst of changes to one file is analysed once, at its latest
version, and an analysis overtaken by a newer change of its file is dropped after the file's
own phase (no project phase, nothing published). The edited file is published first; other
open files are judged again once no change waits. A version is published once, again only
when its findings change. Nothing is ever written to standard output
but the protocol: the analysis' workers inherit a standard output that goes to standard error.
"""

from __future__ import annotations

import gc
import os
import queue
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from stagelint import __version__
from stagelint.config import CONFIG_FILES, ConfigError, Settings, load_settings
from stagelint.findings import UNUSED_NOQA, Finding, noqa_codes, noqa_line_map
from stagelint.pipeline import stages
from stagelint.pipeline.state import Options, ProjectState

try:  # the `server` extra
    from lsprotocol import types as lsp
    from pygls.uris import from_fs_path, to_fs_path

    from stagelint.jsonrpc import StagelintLanguageServer as LanguageServer
except ImportError:  # pragma: no cover - reported by main()
    lsp = LanguageServer = None

SOURCE = "stagelint"


@dataclass
class Published:
    """What the server last said about one document: the findings of which version."""

    version: int | None
    findings: list[Finding] = field(default_factory=list)
    #: the text the findings were computed from (code actions apply only to it)
    text: str = ""
    #: the project phase (`staging.Project`) that judged them: while it is the current one,
    #: judging the same text again gives the same findings
    judged_by: object = None
    #: why the file was not analysed, said with them (None: it was)
    unchecked: str | None = None


class Project:
    """The project's state and what the server does with it; used from the analysis thread only
    (apart from `published`, which the LSP thread reads)."""

    def __init__(self, root: Path, options: Options | None = None):
        self.root = root
        #: how the analysis runs (worker processes started by a fork server: the server's
        #: threads make a plain fork unsafe)
        self.options = options or Options(start_method="forkserver")
        self.settings = Settings()
        self.state: ProjectState | None = None
        self.published: dict[str, Published] = {}
        #: real path -> what `pipeline.splice` keeps of the file's last text and facts
        self.memos: dict = {}
        #: how the last edits were analysed: "spliced" or "whole" (the bench and tests read it)
        self.counts = {"spliced": 0, "whole": 0}
        #: how the last buffer was analysed, for the client's log (None: not yet, or told)
        self.last_way: str | None = None
        #: the configuration files as they were when the settings were last read
        self.config_stamp: tuple = ()
        #: uri -> the last text of the document that parsed, and its findings: shown, moved with
        #: the edits, beside the syntax error while the buffer does not parse
        self.parsed: dict[str, tuple[str, list[Finding]]] = {}
        #: real path -> why the file was not analysed (over a budget, not read): said in the editor
        self.not_checked: dict[str, str] = {}

    def load_settings(self) -> str | None:
        """Read `[tool.stagelint]`; the error message if it is invalid (the old settings stay)."""
        self.config_stamp = self.config_files()
        try:
            self.settings = load_settings(self.root)
        except ConfigError as e:
            return str(e)
        return None

    def config_files(self) -> tuple:
        """(path, modification time, size, inode) of every file the settings may come from (each
        of `CONFIG_FILES` from the root up): a few stats, so every analysis can ask whether the
        configuration moved, whatever the client tells (a client that watches no files and has
        no buffer of the configuration open tells nothing)."""
        stamp = []
        root = self.root.resolve()
        for path in (folder / name for folder in (root, *root.parents) for name in CONFIG_FILES):
            try:
                st = os.stat(path)
            except OSError:
                continue
            stamp.append((str(path), st.st_mtime_ns, st.st_size, st.st_ino))
        return tuple(stamp)

    def settings_moved(self) -> tuple[bool, str | None]:
        """Read the settings again if a configuration file changed since they were read: whether
        they differ now (the project must be analysed again), and the error message of an invalid
        configuration (the old settings stay)."""
        if self.config_files() == self.config_stamp:
            return False, None
        before = self.settings
        error = self.load_settings()
        return self.settings != before, error

    def analyse_all(self, report=lambda message, percent: None, sources: dict[str, bytes] | None = None) -> None:
        """The whole project, as `stagelint check .` from its root, stage by stage (with the
        editor's unsaved buffers, real path -> bytes, in place of the disk's text)."""
        from stagelint.pipeline.cache import open_cache

        cache = open_cache(["."])  # the project's own, as `stagelint check .` there uses
        state = ProjectState(settings=self.settings, paths=["."], options=self.options, cache=cache,
                             sources=dict(sources or {}))
        self.memos = {}  # made with other settings or project packages, maybe
        report("finding files", 0)
        stages.discover(state)
        report(f"screening {len(state.files)} files", 10)
        stages.screen(state)
        stages.plan_rounds(state)
        report(f"analysing {len(state.first_round)} files", 30)
        stages.analyse(state)
        report("joining the project", 90)
        stages.project_phase(state)
        # Every analysed file's findings can be asked for later, not only the given ones'.
        state.reported = {m.path for m in state.modules.values()}
        self.state = state
        self.not_checked = {state.realpath(path): reason for path, reason in state.result.skipped}
        # The project's facts (millions of objects) stay for the server's life: out of the
        # garbage collector's sight, or every full collection during an edit's parse walks them
        # all (it doubled the time from a change to its diagnostics).
        gc.unfreeze()
        gc.collect()
        gc.freeze()

    def update(self, path: str, text: str | None, superseded=lambda: False) -> bool:
        """One file again, from an editor's buffer (or the disk for None), then the project phase
        (unless the file's facts came out as the project joined them: a comment typed, a line's
        spacing). False, and no project phase, when `superseded()` says after the file's
        analysis that a newer text is waiting: the project is joined once, for that one."""
        real = self.state.realpath(path)
        before = self.state.modules.get(real)
        old = self.state.sources.get(real)
        if old is None:
            old = _disk_bytes(self.state, real)
        new = _disk_bytes(self.state, real) if text is None else text.encode("utf-8")
        if new is not None and stages.screen_moved(self.state, path, old, new):
            # An import or a staging word typed or removed: which files are live may change.
            # Start over from the screen (the cache serves every file but this one).
            sources = dict(self.state.sources)
            sources.pop(real, None)
            if text is not None:
                sources[real] = new
            self.analyse_all(sources=sources)
            return True
        # Facts left by an analysis that was overtaken (`superseded`) were never joined: the
        # project still judges the text before them, so facts equal to them need the phase too.
        joined = real not in self.state.changed
        outcome = stages.reanalyse(self.state, path, None if text is None else new, self._spliced(real))
        if outcome.status in ("ok", "error"):  # (an internal error is logged by the analysis)
            self.not_checked.pop(real, None)
        else:
            self.not_checked[real] = outcome.detail
        after = self.state.modules.get(real)
        if joined and before is not None and after is not None and before == after and self.state.changed == {real}:
            self.state.modules[real] = before  # the project phase's own object: same facts
            self.state.changed = set()
            return True
        if superseded():
            return False
        self.project_phase()
        return True

    def _spliced(self, real: str):
        """The per-file phase of a changed file (a buffer, or the disk's text again): only the
        top-level statements the change can touch (`pipeline.splice`) when the file's last
        facts allow it, the whole file otherwise; either way the facts are those of the whole
        text, and kept for the next change."""
        from stagelint.pipeline.files import digest
        from stagelint.notebooks import is_notebook
        from stagelint.pipeline import splice
        from stagelint.pipeline.perfile import Outcome, analyse_bytes, spelled_roots, within_time_budget

        state = self.state
        absent = state.absent_for(real)  # (the screen's, as the file's facts in the cache were made)
        made_with = (self.settings, state.roots, absent)

        def analyse(shown: str, data: bytes) -> Outcome:
            # In this process, where no one else would stop it: the edit as a whole (splice
            # included) is held to `file-timeout`, as each analysis inside it is.
            return within_time_budget(shown, self.settings, lambda: analysed(shown, data))

        def analysed(shown: str, data: bytes) -> Outcome:
            memo = self.memos.pop(real, None)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is None or is_notebook(shown):
                return analyse_bytes(shown, data, self.settings, state.roots, in_process=True, absent=absent)
            facts = units = None
            if memo is not None and memo.path == shown and memo.made_with == made_with:
                def reduced(part: str):
                    outcome = analyse_bytes(shown, part.encode("utf-8"), self.settings, state.roots, in_process=True,
                                            absent=absent)
                    return outcome.facts if outcome.status == "ok" else None

                spliced = splice.splice(memo, text, reduced)
                if spliced is not None:
                    facts, units = spliced.facts, spliced.units
            if facts is not None:
                self.counts["spliced"] += 1
                self.last_way = (f"{shown}: {spliced.walked} of {len(units)} top-level statements "
                                 "walked again, the others' facts kept")
                outcome = Outcome(shown, "ok", facts, digest=digest(data), absent=absent,
                                  spelled=spelled_roots(data, state.roots, facts.module))
            else:
                self.counts["whole"] += 1
                self.last_way = f"{shown}: the whole file analysed again"
                outcome = analyse_bytes(shown, data, self.settings, state.roots, in_process=True, absent=absent)
            if outcome.status == "ok":  # (before the project phase renames anything in them)
                memo = splice.Memo.of(text, outcome.facts, self.settings, made_with, units)
                if memo is not None:
                    self.memos[real] = memo
            return outcome

        return analyse

    def project_phase(self) -> None:
        """The project phase over the facts in memory, and again if the staged code now needs
        files no round analysed (`stages.analyse_demanded`). That question is asked again only
        when what it reads changed (`_demand_key`): most edits change none of it."""
        stages.project_phase(self.state)
        key = self._demand_key()
        if key is not None and key == getattr(self, "_demand_asked", None):
            return
        if stages.analyse_demanded(self.state):
            stages.project_phase(self.state)
            key = self._demand_key()
        self._demand_asked = key

    def _demand_key(self) -> tuple | None:
        """Everything `demand.demanded` reads, without places: what is reached and how it is
        staged, and per file (remembered by the facts' identity: only changed files are read
        again) its wrappers, bases, decorators, the calls and attribute reads of its functions,
        its call sites' targets and arguments' classes, its attribute writes and imports.
        None when there is nothing to ask (no file is waiting)."""
        state = self.state
        if not state.unneeded or state.selection is None:
            return None
        memo = self.__dict__.setdefault("_demand_memo", {})
        fresh = {}
        per_file = []
        for m in state.project_modules:
            known = memo.get(id(m))
            if known is None or known[0] is not m:
                known = (m, _demand_signature(m))
            fresh[id(m)] = known
            per_file.append(known[1])
        self._demand_memo = fresh
        project = state.project
        return (frozenset(project.reached), frozenset(project.entries.items()), tuple(per_file),
                frozenset(state.unneeded))

    def shown(self, path: str) -> str:
        """The file as the state shows it (relative to the root when below it)."""
        real = self.state.realpath(path)
        facts = self.state.modules.get(real)
        if facts is not None:
            return facts.path
        placeholder = self._placeholders().get(real)
        return placeholder.path if placeholder is not None else _relative(real)

    def _placeholders(self) -> dict:
        """The state's name-only facts by real path (rebuilt when the list changes)."""
        if getattr(self, "_indexed", None) is not self.state.placeholders:
            self._indexed = self.state.placeholders
            self._by_real = {self.state.realpath(m.path): m for m in self._indexed}
        return self._by_real

    def findings_for(self, paths: list[str]) -> dict[str, list[Finding]]:
        """The findings of some files (by the paths asked with), judged together."""
        shown = {self.shown(p): p for p in paths}
        out: dict[str, list[Finding]] = {p: [] for p in paths}
        wanted = {s for s in shown if s in self.state.reported}
        if wanted:
            for finding in stages.findings_for(self.state, wanted):
                out[shown[finding.path]].append(finding)
        return out

    def known(self, path: str) -> bool:
        real = self.state.realpath(path)
        return real in self.state.modules or real in self._placeholders() or real in self.not_checked


def _demand_signature(m) -> tuple:
    """What `demand.demanded` reads of one file's facts (no spans: an edit that only moves lines
    leaves it as it was)."""
    def arg(a):
        return a.cls

    return (
        m.module, tuple(m.wrapped), tuple(m.fresh_wrapped), tuple(m.wrapper_bindings),
        tuple((q, tuple(c.bases)) for q, c in m.classes.items()),
        tuple((q, tuple(f.decorators), f.wraps_param, tuple(e.target for e in f.calls), tuple(f.attr_reads))
              for q, f in m.functions.items()),
        tuple((s.target, s.caller, tuple(sorted((k, tuple(v)) for k, v in s.refs.items())),
               tuple(map(arg, s.args)), tuple(sorted((k, arg(v)) for k, v in s.kwargs.items())))
              for s in m.call_sites),
        tuple((w.owner, w.attr) for w in m.attr_writes),
        tuple(m.imports.items()),
        tuple(m.flag_constants),
    )


def _relative(real: str) -> str:
    rel = os.path.relpath(real)
    return real if rel.startswith("..") else Path(rel).as_posix()


def _disk_bytes(state: ProjectState, path: str) -> bytes | None:
    """The file's bytes as the check reads them (`ProjectState.read`), or None."""
    try:
        return state.read(path)
    except OSError:
        return None


def _disk_text(state: ProjectState, path: str) -> str | None:
    data = _disk_bytes(state, path)
    return None if data is None else data.decode("utf-8", errors="replace")


# LSP <-> findings ------------------------------------------------------------------------------

def carried(old: str, new: str, findings: list[Finding]) -> list[Finding]:
    """`findings` of the text `old`, moved to the text `new` by the lines inserted and removed
    above them. A finding on a line the change touched is dropped (it may no longer hold), and
    so is every fix (its edits were made for the old bytes)."""
    import difflib

    moved: dict[int, int] = {}  # 1-based line of `old` -> its line in `new`, for unchanged lines
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    for tag, i1, i2, j1, _ in matcher.get_opcodes():
        if tag == "equal":
            moved.update((i1 + k + 1, j1 + k + 1) for k in range(i2 - i1))
    out = []
    for f in findings:
        lines = [moved.get(n) for n in range(f.line, f.end_line + 1)]
        if f.cell is None and None not in lines and lines[-1] - lines[0] == f.end_line - f.line:
            out.append(replace(f, line=lines[0], end_line=lines[-1], fix=None))
    return out


def _utf16(line: str, column: int) -> int:
    """An LSP character offset (UTF-16 code units) for a 1-based column in characters."""
    head = line[: max(0, column - 1)]
    return len(head.encode("utf-16-le")) // 2


def _position(lines: list[str], line: int, column: int) -> lsp.Position:
    text = lines[line - 1] if 1 <= line <= len(lines) else ""
    return lsp.Position(line=max(0, line - 1), character=_utf16(text, column))


def _range(lines, line, column, end_line, end_column) -> lsp.Range:
    return lsp.Range(start=_position(lines, line, column), end=_position(lines, end_line, end_column))


def diagnostic(finding: Finding, lines: list[str]) -> lsp.Diagnostic:
    return lsp.Diagnostic(
        range=_range(lines, finding.line, finding.column, finding.end_line, finding.end_column),
        message=f"{finding.message}",
        severity=lsp.DiagnosticSeverity.Warning,
        code=finding.code,
        source=SOURCE,
        code_description=None,
        data={"name": finding.name, "fixable": finding.fixable},
        related_information=[_related(finding, note, lines) for note in finding.because] or None,
    )


def _related(finding: Finding, note, lines: list[str]) -> lsp.DiagnosticRelatedInformation:
    """One fact of the finding's proof (`Finding.because`), where the editor can jump to it.
    Columns in another file are counted as characters (its text is not at hand)."""
    same = os.path.realpath(note.path) == os.path.realpath(finding.path)
    at = _position(lines, note.line, note.column) if same else lsp.Position(line=max(0, note.line - 1),
                                                                             character=max(0, note.column - 1))
    return lsp.DiagnosticRelatedInformation(
        location=lsp.Location(uri=from_fs_path(os.path.abspath(note.path)), range=lsp.Range(start=at, end=at)),
        message=f"because: {note.message}")


def not_checked(reason: str) -> lsp.Diagnostic:
    """What the editor shows on the first line of a file stagelint did not analyse."""
    start = lsp.Position(line=0, character=0)
    return lsp.Diagnostic(range=lsp.Range(start=start, end=start), message=f"stagelint did not check this file: {reason}",
                          severity=lsp.DiagnosticSeverity.Warning, source=SOURCE)


def _overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and \
        (b.start.line, b.start.character) <= (a.end.line, a.end.character)


def noqa_edit(finding: Finding, lines: list[str]) -> lsp.TextEdit:
    """`# noqa: CODE` where flake8 and stagelint look for it: at the end of the finding's first
    line, or of the last line of a string that spans lines from there; added to the codes of a
    `# noqa: ...` already there."""
    mapping = noqa_line_map(lines)
    target = finding.line
    group = mapping.get(finding.line)
    if group is not None:
        while mapping.get(target + 1) is group:
            target += 1
    text = lines[target - 1] if 1 <= target <= len(lines) else ""
    codes = noqa_codes(text)
    if codes:
        comment = text.rstrip()
        insert = f",{finding.code}"
        column = len(comment) + 1
    else:
        insert = f"  # noqa: {finding.code}"
        column = len(text.rstrip()) + 1
    end = _position(lines, target, len(text) + 1)
    start = _position(lines, target, column)
    return lsp.TextEdit(range=lsp.Range(start=start, end=end), new_text=insert)


def fix_edits(finding: Finding, lines: list[str]) -> list[lsp.TextEdit]:
    return [lsp.TextEdit(range=_range(lines, e.line, e.column, e.end_line, e.end_column), new_text=e.text)
            for e in finding.fix.edits]


def rule_page(code: str) -> str | None:
    from stagelint.report.docs import render_rule
    from stagelint.rules import get_rule

    rule = get_rule(code)
    return None if rule is None else render_rule(rule)


# the server -----------------------------------------------------------------------------------

class StagelintServer:
    """The LSP side: handlers on pygls's thread, analysis on a thread of its own."""

    def __init__(self):
        self.ls = LanguageServer("stagelint", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.project: Project | None = None
        self.jobs: queue.Queue = queue.Queue()
        #: documents changed since the analysis thread last took their text (uris)
        self.pending: set[str] = set()
        #: uri -> (version, text) of each open document, recorded on the LSP thread once pygls has
        #: applied the notification. The analysis thread reads only these: pygls sets a document's
        #: text before its version, and applies a notification's changes one by one, so reading
        #: the document itself from another thread could pair one version with another's text.
        self.documents: dict[str, tuple[int | None, str]] = {}
        self.pending_lock = threading.Lock()  # guards both
        self.ready = threading.Event()
        #: an open file's findings may have changed with another file's (`_refresh_others`)
        self.others_stale = False
        self.loop = None
        self._register()

    # sending from the analysis thread, through the LSP thread's loop
    def _send(self, fn, *args) -> None:
        self.loop.call_soon_threadsafe(fn, *args)

    def _register(self) -> None:
        ls = self.ls

        @ls.feature(lsp.INITIALIZE)
        def initialize(params: lsp.InitializeParams):
            folders = params.workspace_folders or []
            root = (to_fs_path(folders[0].uri) if folders else None) or (
                to_fs_path(params.root_uri) if params.root_uri else None) or params.root_path or os.getcwd()
            # Paths are shown and cached as `stagelint check .` shows them from the root.
            os.chdir(root)
            self.project = Project(Path(root))

        @ls.feature(lsp.INITIALIZED)
        def initialized(params):
            import asyncio

            self.loop = asyncio.get_running_loop()
            caps = ls.client_capabilities
            watch = caps.workspace and caps.workspace.did_change_watched_files
            if watch and watch.dynamic_registration:
                ls.client_register_capability(lsp.RegistrationParams(registrations=[lsp.Registration(
                    id="stagelint-config", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=lsp.DidChangeWatchedFilesRegistrationOptions(
                        watchers=[lsp.FileSystemWatcher(glob_pattern=f"**/{name}") for name in CONFIG_FILES]),
                )]))
            threading.Thread(target=self._work, name="stagelint-analysis", daemon=True).start()
            self.jobs.put(("all", None))

        @ls.feature(lsp.EXIT)
        def exit_(params):
            # pygls leaves by sys.exit, which then waits for its stdin-reading thread (blocked
            # until the client closes our stdin) and for worker processes mid-analysis: the
            # process could outlive the client. Exit means exit (pygls's writer flushes every
            # message; workers see their pipe close and end).
            sys.stderr.flush()
            os._exit(0 if ls.protocol._shutdown else 1)

        @ls.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
        def did_open(params: lsp.DidOpenTextDocumentParams):
            self._changed(params.text_document.uri)

        @ls.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
        def did_change(params: lsp.DidChangeTextDocumentParams):
            self._changed(params.text_document.uri)

        @ls.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
        def did_save(params: lsp.DidSaveTextDocumentParams):
            if self._is_config(params.text_document.uri):
                self.jobs.put(("all", None))
            else:
                self._changed(params.text_document.uri)

        @ls.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
        def did_close(params: lsp.DidCloseTextDocumentParams):
            with self.pending_lock:
                self.documents.pop(params.text_document.uri, None)
                self.pending.discard(params.text_document.uri)
            self.jobs.put(("close", params.text_document.uri))

        @ls.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
        def did_change_watched(params: lsp.DidChangeWatchedFilesParams):
            if any(self._is_config(c.uri) for c in params.changes):
                self.jobs.put(("all", None))

        @ls.feature(lsp.TEXT_DOCUMENT_HOVER)
        def hover(params: lsp.HoverParams):
            for finding, rng in self._findings_at(params.text_document.uri, lsp.Range(params.position, params.position)):
                page = rule_page(finding.code)
                if page:
                    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=page), range=rng)
            return None

        @ls.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
        def code_action(params: lsp.CodeActionParams):
            uri = params.text_document.uri
            doc = ls.workspace.get_text_document(uri)
            published = self.project.published.get(uri) if self.project else None
            if published is None or published.text != doc.source:
                return []  # stale: the edits would land in the wrong place
            lines = doc.source.splitlines()
            actions = []
            for finding, rng in self._findings_at(uri, params.range):
                diag = [diagnostic(finding, lines)]
                if finding.fix is not None:
                    # An unsafe fix (docs/fixes.md) is offered, as ruff's server does, but said to
                    # be one and never the preferred action an editor applies on its own.
                    safe = finding.fix.safe
                    actions.append(lsp.CodeAction(
                        title=f"Fix {finding.code}: {finding.name}" + ("" if safe else " (unsafe)"),
                        kind=lsp.CodeActionKind.QuickFix, diagnostics=diag, is_preferred=safe,
                        edit=lsp.WorkspaceEdit(changes={uri: fix_edits(finding, lines)})))
                if finding.code == UNUSED_NOQA:
                    continue  # (its fix removes the code; a `# noqa` for it would only hide that)
                actions.append(lsp.CodeAction(
                    title=f"Ignore {finding.code} on this line (# noqa: {finding.code})",
                    kind=lsp.CodeActionKind.QuickFix, diagnostics=diag,
                    edit=lsp.WorkspaceEdit(changes={uri: [noqa_edit(finding, lines)]})))
            return actions

    def _is_config(self, uri: str) -> bool:
        return uri.rsplit("/", 1)[-1] in CONFIG_FILES

    def _findings_at(self, uri: str, where: lsp.Range):
        published = self.project.published.get(uri) if self.project else None
        if published is None:
            return
        lines = published.text.splitlines()
        for finding in published.findings:
            rng = _range(lines, finding.line, finding.column, finding.end_line, finding.end_column)
            if _overlaps(rng, where):
                yield finding, rng

    def _changed(self, uri: str) -> None:
        doc = self.ls.workspace.text_documents.get(uri)
        with self.pending_lock:
            if doc is not None:
                self.documents[uri] = (doc.version, doc.source)
            if uri in self.pending:
                return  # already waiting: it will be analysed at its latest version
            self.pending.add(uri)
        self.jobs.put(("file", uri))

    # the analysis thread ----------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            if self.others_stale and self.jobs.empty() and self.ready.is_set():
                kind, uri = "others", None  # what changed may change other open files' findings
            else:
                kind, uri = self.jobs.get()
            try:
                if kind == "others":
                    self._refresh_others()
                elif kind == "all":
                    self._analyse_all()
                elif kind == "file" and self.ready.is_set():
                    self._analyse_file(uri, queued=True)
                elif kind == "close":
                    self.project.published.pop(uri, None)
                    self.project.parsed.pop(uri, None)
                    path = to_fs_path(uri)
                    if self.ready.is_set() and path and self.project.state.realpath(path) in self.project.state.sources:
                        self.project.update(path, None)  # closed unsaved: the disk's text counts again
                    self._send(self.ls.text_document_publish_diagnostics,
                               lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
            except Exception as e:  # one failed job must not stop the server
                import traceback

                self._send(self.ls.window_log_message, lsp.LogMessageParams(
                    type=lsp.MessageType.Error, message=f"stagelint: {e}\n{traceback.format_exc(limit=-6)}"))

    def _analyse_all(self, read_settings: bool = True) -> None:
        self.ready.clear()
        if read_settings:
            self._config_error(self.project.load_settings())
        token = f"stagelint-{time.monotonic_ns()}"
        progress = self._progress(token)
        self.project.analyse_all(progress)
        self._end(token)
        self.ready.set()
        # The documents open now (those already changed are analysed again at their version).
        with self.pending_lock:
            open_now = list(self.documents)
        for uri in open_now:
            self._analyse_file(uri)

    def _config_error(self, error: str | None) -> None:
        if error:
            self._send(self.ls.window_show_message, lsp.ShowMessageParams(type=lsp.MessageType.Error,
                                                                         message=f"stagelint: {error}"))

    def _progress(self, token: str):
        caps = self.ls.client_capabilities
        if not (caps.window and caps.window.work_done_progress):
            return lambda message, percent: None
        created = threading.Event()

        def create():
            # Begin only once the client has the token (an error answer ends the wait too).
            self.ls.work_done_progress.create(token).add_done_callback(lambda _: created.set())

        self._send(create)
        created.wait(timeout=5)
        self._send(self.ls.work_done_progress.begin, token, lsp.WorkDoneProgressBegin(
            title="stagelint", message="analysing the project", percentage=0, cancellable=False))

        def report(message: str, percent: int) -> None:
            self._send(self.ls.work_done_progress.report, token,
                       lsp.WorkDoneProgressReport(message=message, percentage=percent))

        return report

    def _end(self, token: str) -> None:
        caps = self.ls.client_capabilities
        if caps.window and caps.window.work_done_progress:
            files = len(self.project.state.files)
            self._send(self.ls.work_done_progress.end, token,
                       lsp.WorkDoneProgressEnd(message=f"{files} files checked"))

    def _take(self, uri: str, queued: bool) -> tuple[int | None, str] | None:
        """The document's newest (version, text), now no longer waiting; None when it is closed,
        or for a `queued` job whose change an earlier job already took (one analysis per text:
        a second would publish the same version again)."""
        with self.pending_lock:
            if queued and uri not in self.pending:
                return None
            self.pending.discard(uri)
            return self.documents.get(uri)

    def _analyse_file(self, uri: str, queued: bool = False) -> None:
        taken = self._take(uri, queued)
        path = to_fs_path(uri)
        if taken is None or self._is_config(uri) or not path or not path.endswith(".py"):
            return
        project = self.project
        moved, error = project.settings_moved()
        self._config_error(error)
        if moved:  # analyses this document too, at its newest text
            self._analyse_all(read_settings=False)
            return
        version, text = taken

        def superseded() -> bool:
            # A newer change of this document is waiting: what was found for this one would be
            # published only to be replaced (the waiting job analyses the newest text).
            with self.pending_lock:
                return uri in self.pending

        disk = _disk_text(project.state, path)
        if text != disk or not project.known(path):
            done = project.update(path, text, superseded)
        elif os.path.realpath(path) in project.state.sources:
            done = project.update(path, None, superseded)  # saved, or changed back: the disk's text again
        else:
            done = True
        if not done or superseded():  # (a start over from the screen does not ask)
            return
        if project.state.changed:  # a superseded analysis of another file left the project behind
            project.project_phase()
        findings = project.findings_for([path])[path]
        self._publish(uri, version, text, findings)
        if project.last_way is not None:  # (after the diagnostics: the log must not delay them)
            self._send(self.ls.window_log_message, lsp.LogMessageParams(
                type=lsp.MessageType.Log, message=f"stagelint: {project.last_way}"))
            project.last_way = None
        # What changed here may change what other open files get (a helper staged from here):
        # they are judged again once no change is waiting (`_work`).
        self.others_stale = True

    def _refresh_others(self) -> None:
        """Publish again the open files whose findings the last changes altered (those whose
        buffer is still the text they were published for; the others have a job waiting)."""
        self.others_stale = False
        project = self.project
        if project.state.changed:  # a superseded analysis left the project behind its facts
            project.project_phase()
        with self.pending_lock:
            waiting = set(self.pending)
            texts = {uri: text for uri, (_, text) in self.documents.items()}
        others = {}
        for other, text in texts.items():
            published = project.published.get(other)
            if other not in waiting and published is not None and published.text == text \
                    and published.judged_by is not project.state.project:
                others[to_fs_path(other)] = other
        if others:
            for other_path, found in project.findings_for(list(others)).items():
                published = project.published[others[other_path]]
                if found != published.findings:  # (judged for the version they were published for)
                    self._publish(others[other_path], published.version, published.text, found)

    def _publish(self, uri: str, version, text: str, findings: list[Finding]) -> None:
        """Send the findings of this version of the document, unless the editor has them already
        (the same version, text and findings: judged again after a full analysis, say)."""
        findings = self._beside_syntax_error(uri, text, findings)
        path = to_fs_path(uri)
        reason = self.project.not_checked.get(self.project.state.realpath(path)) if path else None
        last = self.project.published.get(uri)
        now = self.project.published[uri] = Published(version, findings, text, self.project.state.project, reason)
        if last is not None and replace(last, judged_by=now.judged_by) == now:
            return
        lines = text.splitlines()
        diagnostics = [diagnostic(f, lines) for f in findings]
        if reason is not None:  # not analysed: said, rather than an empty list that reads as "all clear"
            diagnostics.insert(0, not_checked(reason))
        self._send(self.ls.text_document_publish_diagnostics, lsp.PublishDiagnosticsParams(
            uri=uri, version=version, diagnostics=diagnostics))

    def _beside_syntax_error(self, uri: str, text: str, findings: list[Finding]) -> list[Finding]:
        """While a buffer does not parse (a line being typed), its last parsed text's findings,
        moved with the edits, stay beside the STG000: diagnostics that vanished on every
        unclosed bracket and came back with the closing one would flicker as you type."""
        if not any(f.code == "STG000" for f in findings):
            self.project.parsed[uri] = (text, findings)
            return findings
        last = self.project.parsed.get(uri)
        if last is None:
            return findings
        return sorted(findings + carried(last[0], text, last[1]), key=Finding.sort_key)


def _server_requirement() -> str:
    """pygls as the installed distribution's `server` extra requires it."""
    from importlib.metadata import PackageNotFoundError, requires

    try:
        wanted = requires("tf-stagelint") or []
    except PackageNotFoundError:  # running from a source tree that was never installed
        wanted = []
    for req in wanted:
        name, _, marker = req.partition(";")
        if name.strip().startswith("pygls") and "server" in marker:
            return name.strip()
    return "pygls"


def main(argv: list[str] | None = None) -> int:
    """`stagelint server`: speak LSP on standard input and output."""
    if LanguageServer is None:
        # Not `pip install stagelint[server]`: `stagelint` on PyPI is an unrelated program.
        print(f"stagelint: error: the language server needs pygls (the `server` extra of tf-stagelint): "
              f"{sys.executable} -m pip install '{_server_requirement()}'", file=sys.stderr)
        return 2
    # The protocol owns the real standard output; anything else printed (by this process or
    # the analysis workers it forks) goes to standard error instead of corrupting it.
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    server = StagelintServer()
    server.ls.start_io(sys.stdin.buffer, protocol_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
