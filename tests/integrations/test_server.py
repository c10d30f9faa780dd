"""`stagelint server` driven by a real LSP client (pygls's) over the server process's standard
input and output, as an editor drives it: initialize, open, change, code actions, hover,
configuration reload, shutdown and exit."""

from __future__ import annotations

import asyncio
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
from integration_support import OVER_TWO_SECONDS, PROJECT, SLOW_TO_ANALYSE

lsp = pytest.importorskip("lsprotocol.types")  # the `server` extra, part of dev
from pygls.lsp.client import LanguageClient  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402


class Client:
    """A language client that records what the server publishes and sends."""

    def __init__(self, root: Path):
        self.root = root
        self.client = LanguageClient("stagelint-tests", "1")
        self.diagnostics: dict[str, list] = {}
        self.versions: dict[str, int | None] = {}
        #: every publication: (uri, version, diagnostics)
        self.history: list[tuple[str, int | None, list]] = []
        self.progress: list = []
        self.registrations: list = []
        #: the server's log messages (window/logMessage) and messages to show (window/showMessage)
        self.logs: list[str] = []
        self.shown: list[str] = []
        self.changed = asyncio.Event()

        @self.client.feature(lsp.WINDOW_LOG_MESSAGE)
        def logged(params):
            self.logs.append(params.message)

        @self.client.feature(lsp.WINDOW_SHOW_MESSAGE)
        def show(params):
            self.shown.append(params.message)

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params):
            self.diagnostics[params.uri] = params.diagnostics
            self.versions[params.uri] = params.version
            self.history.append((params.uri, params.version, params.diagnostics))
            self.changed.set()

        @self.client.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def create(params):
            return None

        @self.client.feature(lsp.PROGRESS)
        def progress(params):
            self.progress.append(params.value)

        @self.client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
        def register(params):
            self.registrations.extend(params.registrations)
            return None

    async def start(self, watch: bool = True):
        """`watch`: whether the client offers to watch files for the server (Neovim on Linux
        does not: `workspace.didChangeWatchedFiles.dynamicRegistration` is false there)."""
        await self.client.start_io(sys.executable, "-m", "stagelint", "server")
        caps = lsp.ClientCapabilities(
            window=lsp.WindowClientCapabilities(work_done_progress=True),
            workspace=lsp.WorkspaceClientCapabilities(
                did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(dynamic_registration=watch)),
        )
        result = await self.client.initialize_async(lsp.InitializeParams(
            capabilities=caps, root_uri=from_fs_path(str(self.root)),
            workspace_folders=[lsp.WorkspaceFolder(uri=from_fs_path(str(self.root)), name="p")]))
        self.client.initialized(lsp.InitializedParams())
        return result

    def uri(self, rel: str) -> str:
        return from_fs_path(str(self.root / rel))

    def open(self, rel: str, text: str | None = None):
        text = (self.root / rel).read_text() if text is None else text
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=self.uri(rel), language_id="python", version=1, text=text)))

    def change(self, rel: str, version: int, text: str):
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=self.uri(rel), version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))

    async def wait_for(self, rel: str, version: int, timeout: float = 120):
        """The diagnostics the server publishes for this version of the document."""
        uri = self.uri(rel)
        deadline = asyncio.get_running_loop().time() + timeout
        while self.versions.get(uri, -1) != version:
            self.changed.clear()
            left = deadline - asyncio.get_running_loop().time()
            assert left > 0, f"no diagnostics for {rel} version {version}"
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=left)
            except asyncio.TimeoutError:
                pass
        return self.diagnostics[uri]

    async def stop(self):
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await asyncio.wait_for(self.client.stop(), timeout=30)


def _codes(diagnostics) -> list[tuple[int, str]]:
    return sorted((d.range.start.line + 1, d.code) for d in diagnostics)


def _checked(tmp_path: Path, root: Path, rel: str, text: str, shown: str) -> list[tuple[int, str]]:
    """(line, code) of what `stagelint check .` reports in `shown`, on a scratch copy of the
    project at `root` with `rel` holding `text`."""
    import os

    from stagelint.config import load_settings
    from stagelint.engine import check_paths

    scratch = tmp_path / f"scratch{len(os.listdir(tmp_path))}"
    shutil.copytree(root, scratch)
    (scratch / rel).write_text(text)
    here = os.getcwd()
    os.chdir(scratch)
    try:
        result = check_paths(["."], load_settings(Path(".")), jobs=0)
    finally:
        os.chdir(here)
    return sorted((f.line, f.code) for f in result.findings if f.path == shown)


def test_diagnostics_actions_hover_and_reload(tmp_path):
    root = tmp_path / "p"
    shutil.copytree(PROJECT, root)
    (root / "pyproject.toml").write_text("[tool.stagelint]\n")
    asyncio.run(_session(root))


async def _session(root: Path):
    c = Client(root)
    result = await c.start()
    assert result.capabilities.hover_provider and result.capabilities.code_action_provider
    try:
        # A helper staged from another module: its findings come from the project in memory.
        c.open("pkg/utils.py")
        utils = await c.wait_for("pkg/utils.py", 1)
        assert (7, "STG101") in _codes(utils)
        assert all(d.source == "stagelint" for d in utils)
        # Its proof is the related information, each fact where it is seen (in model.py).
        proof = next(d for d in utils if d.range.start.line == 6).related_information
        assert [(r.location.uri, r.location.range.start.line + 1, r.message) for r in proof] == [
            (c.uri("pkg/model.py"), 7, "because: `train_step` is decorated with `tf.function`, which traces it into a graph"),
            (c.uri("pkg/model.py"), 9, "because: `train_step` calls `pkg.utils.log_metrics`, which is traced with it"),
        ]
        # The initial analysis reported work-done progress, from begin to end.
        kinds = [v["kind"] if isinstance(v, dict) else v.kind for v in c.progress]
        assert kinds[0] == "begin" and kinds[-1] == "end"
        assert any(r.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in c.registrations)

        model = (root / "pkg" / "model.py").read_text()
        c.open("pkg/model.py", model)
        first = _codes(await c.wait_for("pkg/model.py", 1))
        assert (11, "STG101") in first and (10, "STG101") not in first  # line 10 has a noqa

        # An unsaved change: a new print in the staged function, and a line moved down.
        edited = model.replace("    log_metrics(loss)\n", "    log_metrics(loss)\n    print('unsaved')\n")
        c.change("pkg/model.py", 2, edited)
        after = _codes(await c.wait_for("pkg/model.py", 2))
        assert (10, "STG101") in after and (12, "STG101") in after and (11, "STG101") not in after

        # The helper is no longer staged once model.py stops calling it: its findings go.
        c.change("pkg/model.py", 3, edited.replace("    log_metrics(loss)\n", ""))
        await c.wait_for("pkg/model.py", 3)
        for _ in range(100):
            if not c.diagnostics[c.uri("pkg/utils.py")]:
                break
            await asyncio.sleep(0.1)
        assert not c.diagnostics[c.uri("pkg/utils.py")]

        # Code actions: `# noqa: CODE` on the finding's line, and the rule's fix where it has one.
        target = min(c.diagnostics[c.uri("pkg/model.py")], key=lambda d: d.range.start.line)
        assert (target.range.start.line, target.code) == (8, "STG101")  # print('unsaved')
        actions = await c.client.text_document_code_action_async(lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=c.uri("pkg/model.py")), range=target.range,
            context=lsp.CodeActionContext(diagnostics=[target])))
        noqa = [a for a in actions if "noqa" in a.title]
        assert noqa, [a.title for a in actions]
        edit = noqa[0].edit.changes[c.uri("pkg/model.py")][0]
        assert edit.new_text == "  # noqa: STG101" and edit.range.start.line == 8
        assert edit.range.start.character == len("    print('unsaved')")

        # Hover on a finding: the rule's page, as `stagelint rule STG101` prints it.
        hover = await c.client.text_document_hover_async(lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=c.uri("pkg/model.py")), position=target.range.start))
        from stagelint.report.docs import render_rule
        from stagelint.rules import get_rule

        assert hover.contents.value == render_rule(get_rule("STG101"))
        assert "Message (on the first flagged example below, line 5): `print()` runs only while `f` is traced" in hover.contents.value

        # The configuration changes on disk: the project is analysed again under it.
        (root / "pyproject.toml").write_text('[tool.stagelint]\nignore = ["STG101"]\n')
        c.client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
            lsp.FileEvent(uri=c.uri("pyproject.toml"), type=lsp.FileChangeType.Changed)]))
        for _ in range(600):
            codes = _codes(c.diagnostics[c.uri("pkg/model.py")])
            if codes and all(code != "STG101" for _, code in codes) or not codes:
                break
            await asyncio.sleep(0.1)
        assert all(code != "STG101" for _, code in _codes(c.diagnostics[c.uri("pkg/model.py")]))
    finally:
        await c.stop()


def test_a_changed_configuration_is_seen_when_the_client_watches_no_files(tmp_path):
    """Neovim's client on Linux offers no watched-file registration, and pyproject.toml is not
    one of its buffers: nothing tells the server the file changed. The next analysis notices it."""
    root = tmp_path / "p"
    shutil.copytree(PROJECT, root)
    (root / "pyproject.toml").write_text("[tool.stagelint]\n")
    asyncio.run(_unwatched_session(root))


def test_a_changed_setup_cfg_section_is_seen_when_the_client_watches_no_files(tmp_path):
    """The settings can come from setup.cfg's [stagelint] (config.CONFIG_FILES): a change there is
    seen as one in pyproject.toml is."""
    root = tmp_path / "p"
    shutil.copytree(PROJECT, root)
    config = root / "setup.cfg"
    flake8_only = config.read_text()

    async def session():
        c = Client(root)
        await c.start(watch=False)
        try:
            model = (root / "pkg" / "model.py").read_text()
            c.open("pkg/model.py", model)
            assert (11, "STG101") in _codes(await c.wait_for("pkg/model.py", 1))
            config.write_text(flake8_only + "\n[stagelint]\nignore = STG101\n")
            c.change("pkg/model.py", 2, model + "# typed\n")
            assert _codes(await c.wait_for("pkg/model.py", 2)) == []  # model.py's findings are all STG101
        finally:
            await c.stop()

    asyncio.run(session())


async def _unwatched_session(root: Path):
    c = Client(root)
    await c.start(watch=False)
    config = root / "pyproject.toml"
    try:
        model = (root / "pkg" / "model.py").read_text()
        c.open("pkg/model.py", model)
        assert (11, "STG101") in _codes(await c.wait_for("pkg/model.py", 1))
        assert not c.registrations  # nothing to register with this client

        def begins() -> int:
            return sum(1 for v in c.progress if (v["kind"] if isinstance(v, dict) else v.kind) == "begin")

        begun = begins()

        # Edited on disk, no notification; the next keystroke in model.py sees it.
        config.write_text('[tool.stagelint]\nignore = ["STG101"]\n')
        c.change("pkg/model.py", 2, model + "# typed\n")
        codes = _codes(await c.wait_for("pkg/model.py", 2))
        assert codes == []  # model.py's findings are all STG101
        assert begins() == begun + 1  # the project was analysed again under the new settings

        # The file changes but the settings do not (another tool's table): no new analysis.
        config.write_text('[tool.stagelint]\nignore = ["STG101"]\n\n[tool.other]\nx = 1\n')
        c.change("pkg/model.py", 3, model + "# typed again\n")
        assert _codes(await c.wait_for("pkg/model.py", 3)) == codes
        assert begins() == begun + 1

        # An invalid configuration is shown, and the last valid settings stay.
        config.write_text('[tool.stagelint]\nignore = "STG101"\n')
        c.change("pkg/model.py", 4, model + "# and again\n")
        assert _codes(await c.wait_for("pkg/model.py", 4)) == codes
        assert any("pyproject.toml: [tool.stagelint] ignore must be a list of strings" in m for m in c.shown), c.shown

        # Back to the defaults: STG101 is reported again.
        config.write_text("[tool.stagelint]\n")
        c.change("pkg/model.py", 5, model)
        assert (11, "STG101") in _codes(await c.wait_for("pkg/model.py", 5))
    finally:
        await c.stop()


def test_a_line_being_typed_keeps_the_findings_beside_the_syntax_error(tmp_path):
    """While the buffer does not parse, the last parsed text's findings stay, moved with the
    edits (those on edited lines dropped), beside the STG000, until it parses again."""
    root = tmp_path / "p"
    shutil.copytree(PROJECT, root)
    (root / "pyproject.toml").write_text("[tool.stagelint]\n")
    asyncio.run(_typing_session(tmp_path, root))


async def _typing_session(tmp_path: Path, root: Path):
    c = Client(root)
    await c.start()
    try:
        model = (root / "pkg" / "model.py").read_text()
        c.open("pkg/model.py", model)
        assert _codes(await c.wait_for("pkg/model.py", 1)) == [(11, "STG101"), (12, "STG101")]

        # A line being typed above them: an unclosed bracket, two lines added.
        typing = model.replace("    loss = tf.reduce_sum(x)\n", "    loss = tf.reduce_sum(x)\n    scale = (\n\n")
        c.change("pkg/model.py", 2, typing)
        diags = await c.wait_for("pkg/model.py", 2)
        assert [d.code for d in diags].count("STG000") == 1
        assert [d for d in _codes(diags) if d[1] != "STG000"] == [(13, "STG101"), (14, "STG101")]
        moved = next(d for d in diags if d.code == "STG101")
        assert typing.splitlines()[moved.range.start.line].startswith('    print("loss is"')
        # No fix is offered for a finding carried over (its edit was made for the old text).
        actions = await c.client.text_document_code_action_async(lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=c.uri("pkg/model.py")), range=moved.range,
            context=lsp.CodeActionContext(diagnostics=[moved])))
        assert [a.title for a in actions] == ["Ignore STG101 on this line (# noqa: STG101)"]

        # Still broken, and the line of the first print edited: its finding goes, the other stays.
        edited = typing.replace('print("loss is", loss)', 'print("loss", loss, "is")')
        c.change("pkg/model.py", 3, edited)
        diags = await c.wait_for("pkg/model.py", 3)
        assert [d for d in _codes(diags) if d[1] != "STG000"] == [(14, "STG101")]

        # It parses again: exactly what `stagelint check .` reports, and no STG000.
        fixed = edited.replace("    scale = (\n", "    scale = (1,)\n")
        c.change("pkg/model.py", 4, fixed)
        diags = await c.wait_for("pkg/model.py", 4)
        assert _codes(diags) == _checked(tmp_path, root, "pkg/model.py", fixed, "pkg/model.py")
        assert _codes(diags) == [(13, "STG101"), (14, "STG101")]

        # A buffer that has not parsed since it was opened has nothing to keep: the STG000 alone.
        utils = (root / "pkg" / "utils.py").read_text()
        c.open("pkg/utils.py", utils.replace("def log_metrics(", "def log_metrics(("))
        assert [d.code for d in await c.wait_for("pkg/utils.py", 1)] == ["STG000"]
    finally:
        await c.stop()


async def _until(predicate, timeout: float = 60) -> bool:
    for _ in range(int(timeout * 10)):
        if predicate():
            return True
        await asyncio.sleep(0.1)
    return predicate()


def test_an_edit_stages_a_helper_in_another_open_file_and_unstages_it(tmp_path):
    """Incremental edits: a staged caller typed in one file makes a helper's finding appear in
    another open file, as `stagelint check .` of the same texts reports it; removing the call
    clears it. Both files keep the findings of a fresh check after each step."""

    root = tmp_path / "p"
    shutil.copytree(PROJECT, root)
    (root / "pyproject.toml").write_text("[tool.stagelint]\n")
    model = (root / "pkg" / "model.py").read_text()
    calling = model.replace("from pkg.utils import log_metrics\n", "from pkg.utils import log_metrics, unused\n") \
        .replace("    log_metrics(loss)\n", "    log_metrics(loss)\n    unused(x)\n")

    def expected(model_text: str) -> list[tuple[int, str]]:
        """`stagelint check .` on the texts, for pkg/utils.py (a scratch copy of the project)."""
        return _checked(tmp_path, root, "pkg/model.py", model_text, "pkg/utils.py")

    async def session():
        c = Client(root)
        await c.start()
        try:
            c.open("pkg/utils.py")
            before = _codes(await c.wait_for("pkg/utils.py", 1))
            c.open("pkg/model.py", model)
            await c.wait_for("pkg/model.py", 1)
            c.change("pkg/model.py", 2, calling)
            await c.wait_for("pkg/model.py", 2)
            assert await _until(lambda: (12, "STG101") in _codes(c.diagnostics[c.uri("pkg/utils.py")]))
            during = _codes(c.diagnostics[c.uri("pkg/utils.py")])
            c.change("pkg/model.py", 3, model)
            await c.wait_for("pkg/model.py", 3)
            assert await _until(lambda: (12, "STG101") not in _codes(c.diagnostics[c.uri("pkg/utils.py")]))
            after = _codes(c.diagnostics[c.uri("pkg/utils.py")])
            return before, during, after
        finally:
            await c.stop()

    before, during, after = asyncio.run(session())
    assert (12, "STG101") not in before and (7, "STG101") in before
    assert during == expected(calling) and (12, "STG101") in during
    assert before == after == expected(model)


def test_a_newer_change_supersedes_the_analysis_of_an_older_one(tmp_path):
    """Changes typed faster than a file is analysed: the analysis of an older text is dropped
    once a newer one waits (its diagnostics are never published), the versions published only
    go up, each once, and the last one has the findings of its own text."""
    (tmp_path / "pyproject.toml").write_text("[tool.stagelint]\n")
    # big enough that one analysis outlasts the sending of all the changes
    body = "import tensorflow as tf\n\n" + "".join(
        f"@tf.function\ndef f{j}(x):\n    y = x * {j}\n    return y + 1\n\n" for j in range(400))
    (tmp_path / "big.py").write_text(body)
    texts = [body.replace(f"    y = x * {j}\n", f"    y = x * {j}\n    print(y)\n")
             for j in range(1, 6)]  # version k + 2 has its one print in f{k + 1}

    async def session():
        c = Client(tmp_path)
        await c.start()
        try:
            c.open("big.py", body)
            assert not await c.wait_for("big.py", 1)
            for k, text in enumerate(texts):
                c.change("big.py", k + 2, text)
            final = await c.wait_for("big.py", len(texts) + 1)
            await asyncio.sleep(1)  # anything published late would show now
            return [v for uri, v, _ in c.history if uri == c.uri("big.py")], final
        finally:
            await c.stop()

    versions, final = asyncio.run(session())
    # The first change's analysis starts before the others arrive and is dropped once they
    # wait: only the newest text is published. (The document opened while the project was
    # analysed: the initial analysis publishes it, and its own job finds nothing left to do.)
    assert versions == [1, len(texts) + 1], versions
    printed = texts[-1].splitlines().index("    print(y)") + 1
    assert [(d.code, d.range.start.line + 1) for d in final] == [("STG101", printed)]


def test_fix_code_action_edits_like_check_fix(tmp_path):
    """A fixable finding offers its fix, and the edits make what `stagelint check --fix` makes."""
    source = textwrap.dedent('''
        import numpy as np
        import tensorflow as tf


        @tf.function
        def noisy(x):
            return x + np.random.uniform()


        def run(batches):
            for x in batches:  # each call after the first reuses the trace
                noisy(x)
    ''').lstrip()
    titles = _fix_action_like_check_fix(tmp_path, source, "STG104")
    # np.random -> tf.random is unsafe (docs/fixes.md): offered, said to be, and not preferred
    assert titles[0] == "Fix STG104: frozen-python-value (unsafe)"


def test_an_unused_noqa_code_is_removed_by_its_quick_fix(tmp_path):
    """STG001's fix takes the code out of the comment, as `--fix` does; it offers no `# noqa`
    for itself (that would hide the stale comment instead of removing it)."""
    source = textwrap.dedent('''
        import tensorflow as tf


        @tf.function
        def step(x):
            tf.print(x)  # noqa: STG101,E501  # a comment that stays
            return x
    ''').lstrip()
    titles = _fix_action_like_check_fix(tmp_path, source, "STG001")
    assert titles == ["Fix STG001: unused-noqa"]


def _fix_action_like_check_fix(tmp_path, source: str, code: str) -> list[str]:
    """The server's fix for the one fixable `code` finding of `source` makes what `apply_fixes`
    makes of the finding's fix; returns the titles of the actions offered for it."""
    from stagelint.engine import check_source

    fixable = [f for f in check_source(source, "m.py") if f.fixable]
    assert [f.code for f in fixable] == [code], fixable
    (tmp_path / "m.py").write_text(source)
    (tmp_path / "pyproject.toml").write_text("[tool.stagelint]\n")

    async def session():
        c = Client(tmp_path)
        await c.start()
        try:
            c.open("m.py")
            diags = await c.wait_for("m.py", 1)
            target = next(d for d in diags if d.code == fixable[0].code)
            actions = await c.client.text_document_code_action_async(lsp.CodeActionParams(
                text_document=lsp.TextDocumentIdentifier(uri=c.uri("m.py")), range=target.range,
                context=lsp.CodeActionContext(diagnostics=[target])))
            fix = next(a for a in actions if a.title.startswith("Fix"))
            assert bool(fix.is_preferred) == fixable[0].fix.safe  # an editor may apply a preferred one alone
            return fix.edit.changes[c.uri("m.py")], [a.title for a in actions]
        finally:
            await c.stop()

    edits, titles = asyncio.run(session())
    lines = source.splitlines(keepends=True)
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start = sum(len(x) for x in lines[: e.range.start.line]) + e.range.start.character
        end = sum(len(x) for x in lines[: e.range.end.line]) + e.range.end.character
        text = "".join(lines)
        lines = (text[:start] + e.new_text + text[end:]).splitlines(keepends=True)
    from stagelint.fix import apply_fixes
    from stagelint.pipeline.files import digest

    expected, _, _ = apply_fixes(source.encode(), [fixable[0].fix])
    assert "".join(lines) == expected.decode()
    assert digest(expected) != digest(source.encode())
    return titles


def test_exit_ends_the_process_while_the_client_keeps_stdin_open(tmp_path):
    """`exit` ends the server at once, even mid-analysis and with its stdin still open (an
    editor may close the pipe late): no process outlives the session."""
    import json
    import subprocess

    (tmp_path / "pyproject.toml").write_text("[tool.stagelint]\n")
    # Enough staged modules that the background analysis is still running when `exit` comes.
    for i in range(300):
        (tmp_path / f"m{i}.py").write_text(
            "import tensorflow as tf\n\n" + "".join(
                f"@tf.function\ndef f{j}(x):\n    print(x)\n    return x + {j}\n\n" for j in range(20)))

    def message(obj) -> bytes:
        body = json.dumps({"jsonrpc": "2.0", **obj}).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    proc = subprocess.Popen([sys.executable, "-m", "stagelint", "server"], cwd=tmp_path,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        proc.stdin.write(message({"id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": from_fs_path(str(tmp_path)), "capabilities": {}}}))
        proc.stdin.write(message({"method": "initialized", "params": {}}))
        proc.stdin.write(message({"id": 2, "method": "shutdown"}))
        proc.stdin.write(message({"method": "exit"}))
        proc.stdin.flush()  # and stdin stays open
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdin.close()
        proc.stdout.close()


LAYERS = Path(__file__).resolve().parent.parent / "data" / "splice" / "layers.py"


def test_edits_inside_a_body_are_spliced_and_publish_what_check_reports(tmp_path):
    """Edits typed into the bodies of a module of many layers and helpers: after the first
    (the whole file), each is analysed by walking only the units it can touch
    (`pipeline.splice`, said in the server's log), and every version's diagnostics are those
    `stagelint check .` reports for the same text; a module-level edit is analysed whole."""

    root = tmp_path / "p"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text("[tool.stagelint]\n")
    text = LAYERS.read_text()
    (root / "pkg" / "layers.py").write_text(text)
    # nothing in the module shows Keras tracing its layers: their findings are in the preview
    # tier (`Project.keras_unshown`), which the server publishes as `check` does
    (root / "pyproject.toml").write_text("[tool.stagelint]\npreview = true\n")
    steps = [  # (old, new, spliced)
        ("  if new_value < 0.9 * value:\n", "  if new_value < 0.9 * value:\n    print(value)\n", False),
        ("    x = tf.reduce_mean(inputs, [1, 2], keepdims=True)\n",
         "    x = tf.reduce_mean(inputs, [1, 2], keepdims=True)\n    print('typed')\n", True),
        ("  return tf.clip_by_value(x, low, high)\n", "  print(low)\n  return tf.clip_by_value(x, low, high)\n", True),
        ("    print('typed')\n", "", True),
        ("EPSILON = 1e-3\n", "EPSILON = 1e-4\n", False),
        ("    self.calls = 0\n", "    self.calls = 0\n    self.count = tf.Variable(0)\n", True),
    ]
    versions = []
    for old, new, _ in steps:
        assert old in text, old
        text = text.replace(old, new, 1)
        versions.append(text)

    def expected(layers_text: str) -> list[tuple[int, str]]:
        return _checked(tmp_path, root, "pkg/layers.py", layers_text, "pkg/layers.py")

    async def session():
        c = Client(root)
        await c.start()
        try:
            c.open("pkg/layers.py")
            await c.wait_for("pkg/layers.py", 1)
            published, ways = [], []
            for k, version in enumerate(versions):
                c.change("pkg/layers.py", k + 2, version)
                published.append(_codes(await c.wait_for("pkg/layers.py", k + 2)))
                assert await _until(lambda: any("pkg/layers.py:" in m for m in c.logs))
                ways.append([m for m in c.logs if "pkg/layers.py:" in m][-1])
                c.logs.clear()
            return published, ways
        finally:
            await c.stop()

    published, ways = asyncio.run(session())
    for (_, _, spliced), way in zip(steps, ways):
        assert ("walked again" in way) is spliced and ("whole file" in way) is not spliced, way
    for version, got in zip(versions, published):
        assert got == expected(version)
    typed = versions[1].splitlines().index("    print('typed')") + 1
    assert (typed, "STG101") in published[1] and (typed, "STG101") not in published[3]


def test_a_file_over_the_size_budget_says_so_in_the_editor(tmp_path):
    """A file the server does not analyse (over `max-file-size`, on disk or as a buffer) gets one
    diagnostic saying why, not an empty list that reads as "no findings" (issue 27)."""
    root = tmp_path / "p"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.stagelint]\nmax-file-size = 2000\n")
    staged = "import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    print(x)\n"
    (root / "big.py").write_text(staged + "# padding\n" * 300)
    (root / "ok.py").write_text(staged)

    async def session():
        c = Client(root)
        await c.start()
        try:
            c.open("big.py")
            big = await c.wait_for("big.py", 1)
            assert [(d.range.start.line, d.message) for d in big] == [
                (0, f"stagelint did not check this file: skipped: {len(staged) + 3000:,} bytes, over the size budget "
                    "(2,000 bytes; max-file-size)")]
            c.open("ok.py")
            assert _codes(await c.wait_for("ok.py", 1)) == [(6, "STG101")]
            c.change("ok.py", 2, staged + "#" * 3000 + "\n")  # an unsaved buffer over the budget
            over = await c.wait_for("ok.py", 2)
            assert len(over) == 1 and over[0].message.startswith(
                f"stagelint did not check this file: skipped: {len(staged) + 3001:,} bytes")
            c.change("ok.py", 3, staged)
            assert _codes(await c.wait_for("ok.py", 3)) == [(6, "STG101")]
        finally:
            await c.stop()

    asyncio.run(session())


def test_an_edit_over_the_time_budget_is_abandoned_and_said_in_the_editor(tmp_path):
    """`file-timeout` holds in the server, whose edits are analysed in its own process (on a
    thread of its own, where neither a kill nor a signal reaches): the edit is abandoned at
    the budget, the editor is told so on the file's first line, and the next edit is analysed
    as usual."""
    (tmp_path / "pyproject.toml").write_text("[tool.stagelint]\nfile-timeout = 2\n")
    fast = "import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    print(x)\n    return x\n"
    # On disk it stages nothing (no worker process analyses it when the server starts): every
    # analysis of it is of the editor's buffer, in the server's process.
    (tmp_path / "m.py").write_text("x = 1\n")

    async def session():
        c = Client(tmp_path)
        await c.start()
        try:
            c.open("m.py", fast)
            first = await c.wait_for("m.py", 1)
            loop = asyncio.get_running_loop()
            start = loop.time()
            c.change("m.py", 2, SLOW_TO_ANALYSE)
            slow = await c.wait_for("m.py", 2, timeout=60)
            took = loop.time() - start
            c.change("m.py", 3, fast.replace("print(x)", "print(x)\n    print(x)"))
            again = await c.wait_for("m.py", 3)
            return first, slow, took, again
        finally:
            await c.stop()

    first, slow, took, again = asyncio.run(session())
    assert _codes(first) == [(6, "STG101")]
    assert [(d.range.start.line, d.code, d.message) for d in slow] == [
        (0, None, f"stagelint did not check this file: {OVER_TWO_SECONDS}")]
    assert took < 40  # the budget, not the analysis' minute (generous: a shared machine)
    assert _codes(again) == [(6, "STG101"), (7, "STG101")]


class RawServer:
    """The server process driven by hand-written JSON-RPC messages (what a client library would
    never send), its answers read by a thread of their own."""

    def __init__(self, cwd: Path):
        import queue
        import subprocess
        import threading

        self.proc = subprocess.Popen([sys.executable, "-m", "stagelint", "server"], cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.received: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        import json

        out = self.proc.stdout
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line or length is None:
                return
            self.received.put(json.loads(out.read(length)))

    def send(self, obj=None, body: bytes | None = None):
        import json

        body = json.dumps({"jsonrpc": "2.0", **obj}).encode() if body is None else body
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def answer(self, msg_id, timeout: float = 60):
        """The server's answer to request `msg_id` (anything else it sends is passed over)."""
        import queue
        import time

        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = self.received.get(timeout=left)
            except queue.Empty:
                break
            if "method" not in message and message.get("id", "none") == msg_id:
                return message
        raise AssertionError(f"no answer to request {msg_id!r} in {timeout} s")

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()


def test_every_request_is_answered_even_invalid_ones_and_after_shutdown(tmp_path):
    """JSON-RPC answers every request: params that do not fit the method get InvalidParams, a
    request after `shutdown` gets InvalidRequest (as the LSP specification says), and so does
    one that is not JSON-RPC 2.0; a body that is not JSON gets ParseError with a null id. The
    server goes on answering valid requests between them, and `exit` still ends it."""
    (tmp_path / "pyproject.toml").write_text("[tool.stagelint]\n")
    (tmp_path / "m.py").write_text("x = 1\n")
    uri = from_fs_path(str(tmp_path / "m.py"))
    hover = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}
    server = RawServer(tmp_path)
    try:
        server.send({"id": 1, "method": "initialize",
                     "params": {"processId": None, "rootUri": from_fs_path(str(tmp_path)), "capabilities": {}}})
        assert "capabilities" in server.answer(1)["result"]
        server.send({"method": "initialized", "params": {}})
        server.send({"id": 2, "method": "textDocument/hover", "params": 5})
        assert server.answer(2)["error"]["code"] == -32602
        server.send({"id": "three", "method": "textDocument/hover", "params": {"textDocument": {"uri": 5}}})
        assert server.answer("three")["error"]["code"] == -32602
        server.send({"id": 4, "method": "textDocument/codeAction", "params": {"textDocument": {"uri": uri}}})
        assert server.answer(4)["error"]["code"] == -32602  # `range` and `context` missing
        server.send({"id": 5, "method": "textDocument/hover", "params": hover, "jsonrpc": "1.0"})
        assert server.answer(5)["error"]["code"] == -32600
        server.send(body=b'{"jsonrpc": "2.0", "id": 6, "method": ')
        assert server.answer(None)["error"]["code"] == -32700
        server.send({"id": 7, "method": "textDocument/hover", "params": hover})
        assert server.answer(7) == {"jsonrpc": "2.0", "id": 7, "result": None}  # still answering
        server.send({"id": 8, "method": "shutdown"})
        assert server.answer(8)["result"] is None
        server.send({"id": 9, "method": "textDocument/hover", "params": hover})
        refused = server.answer(9)["error"]
        assert refused["code"] == -32600 and "after shutdown" in refused["message"]
        server.send({"id": 10, "method": "shutdown"})
        assert server.answer(10)["error"]["code"] == -32600
        server.send({"method": "exit"})
        assert server.proc.wait(timeout=60) == 0
    finally:
        server.close()
