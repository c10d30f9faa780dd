"""Editor latency: how soon `stagelint server` publishes diagnostics after a change.

Usage (from the repository root, after `.venv/bin/python bench/corpus.py`):

    .venv/bin/python bench/editor.py [--corpus bench/.corpus/tf_models]
        [--file official/vision/modeling/layers/nn_layers.py] [--edits 20]

It starts the language server as an editor does (`python -m stagelint server`, LSP over its
standard input and output, driven by pygls's client), opens the corpus folder as the
workspace, waits for the initial analysis of the project to end (its work-done progress), and
opens the file. Then it edits the buffer `--edits` times, as typing does (each edit waits for
the diagnostics of the one before): a line of code added in a staged `call` method
(`print(...)`, which is a finding; every line below moves), taken out again, and so on. The latency of
an edit is the time from sending `textDocument/didChange` to receiving the
`textDocument/publishDiagnostics` of that document version.

In the same run, as a floor, it times the per-file phase alone in this process (one parse and
one traversal of the edited text, `pipeline.perfile.analyze_source`): what any re-analysis of
the file costs before the project phase, and libcst's parse alone, its first part. It prints
the medians, the load average (on a shared machine, compare the latency with the floor of the
same run), the ratio of the latency to the 150 ms target and to the floor, and exits 1 when
the median misses the target.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import corpus  # noqa: E402

TARGET_MS = 150.0
#: the server's log line for each analysed buffer (`stagelint.server`: how it was analysed)
ways: list[str] = []


def edits(text: str, n: int) -> list[str]:
    """Buffer versions as typing makes them: a line of code typed into a staged method (a
    `print(...)`, which is a finding, every line below it moving down), then taken out again."""
    lines = text.splitlines(keepends=True)
    call = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def call(") and line.rstrip().endswith(":"))
    indent = " " * (len(lines[call + 1]) - len(lines[call + 1].lstrip()))
    out = []
    for k in range(n):
        if k % 2 == 0:
            out.append("".join(lines[: call + 1] + [f"{indent}print('edit {k}')\n"] + lines[call + 1:]))
        else:
            out.append(text)
    return out


async def session(root: Path, rel: str, versions: list[str]) -> tuple[float, list[float], int]:
    from lsprotocol import types as lsp
    from pygls.lsp.client import LanguageClient
    from pygls.uris import from_fs_path

    client = LanguageClient("stagelint-bench", "1")
    published: dict[int, tuple[float, int]] = {}
    ways.clear()
    arrived = asyncio.Event()
    ended = asyncio.Event()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params):
        if params.uri == uri and params.version is not None:
            published.setdefault(params.version, (time.perf_counter(), len(params.diagnostics)))
            arrived.set()

    @client.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def create(params):
        return None

    @client.feature(lsp.PROGRESS)
    def progress(params):
        value = params.value
        kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
        if kind == "end":
            ended.set()

    @client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register(params):
        return None

    @client.feature(lsp.WINDOW_LOG_MESSAGE)
    def logged(params):
        # how the server analysed each buffer: spliced ("... walked again") or whole
        if rel in params.message:
            ways.append(params.message)

    uri = from_fs_path(str(root / rel))
    await client.start_io(sys.executable, "-m", "stagelint", "server")
    start = time.perf_counter()
    await client.initialize_async(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(window=lsp.WindowClientCapabilities(work_done_progress=True)),
        root_uri=from_fs_path(str(root)),
        workspace_folders=[lsp.WorkspaceFolder(uri=from_fs_path(str(root)), name=root.name)]))
    client.initialized(lsp.InitializedParams())
    await asyncio.wait_for(ended.wait(), timeout=1800)
    initial = time.perf_counter() - start

    async def wait_version(version: int) -> tuple[float, int]:
        while version not in published:
            arrived.clear()
            await asyncio.wait_for(arrived.wait(), timeout=300)
        return published[version]

    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=(root / rel).read_text())))
    _, first_count = await wait_version(1)
    latencies = []
    for i, text in enumerate(versions):
        version = i + 2
        sent = time.perf_counter()
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))
        at, _ = await wait_version(version)
        latencies.append((at - sent) * 1000)
    await client.shutdown_async(None)
    client.exit(None)
    await asyncio.wait_for(client.stop(), timeout=60)
    return initial, latencies, first_count


def floor(root: Path, rel: str, versions: list[str]) -> tuple[list[float], list[float]]:
    """The per-file phase of each version alone, and libcst's parse alone (its first part)."""
    import gc
    import os

    import libcst as cst

    from stagelint.config import load_settings
    from stagelint.pipeline.perfile import analyze_source

    here = os.getcwd()
    os.chdir(root)
    try:
        settings = load_settings(".")
        out, parse = [], []
        for text in versions:
            data = text.encode()
            gc.disable()
            t = time.perf_counter()
            cst.parse_module(data)
            t1 = time.perf_counter()
            analyze_source(rel, data, settings, frozenset({rel.split("/")[0]}))
            out.append((time.perf_counter() - t1) * 1000)
            parse.append((t1 - t) * 1000)
            gc.enable()
        return out, parse
    finally:
        os.chdir(here)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--file", default="official/vision/modeling/layers/nn_layers.py")
    parser.add_argument("--edits", type=int, default=20)
    args = parser.parse_args(argv)
    root = (args.corpus or corpus(("tf_models",))[0]).resolve()
    versions = edits((root / args.file).read_text(), args.edits)
    initial, latencies, count = asyncio.run(session(root, args.file, versions))
    floors, parses = floor(root, args.file, versions)
    median = statistics.median(latencies)
    base = statistics.median(floors)
    print(f"workspace {root.name}: initial analysis {initial:.1f} s; {args.file}: {count} findings when opened")
    print(f"edits: {len(latencies)}; diagnostics after a change: median {median:.0f} ms "
          f"(min {min(latencies):.0f}, max {max(latencies):.0f})")
    spliced = sum("walked again" in w for w in ways)
    walked = sorted({w.split(": ", 2)[-1].split(" top-level")[0] for w in ways if "walked again" in w})
    print(f"edits spliced (only the top-level statements an edit can touch walked again): {spliced} "
          f"of {len(ways)} ({', '.join(walked)}); the others analysed whole")
    print(f"floor, the file's per-file phase alone in one process: median {base:.0f} ms "
          f"(of which libcst's parse: {statistics.median(parses):.0f} ms)")
    try:
        print(f"load average while it ran: {os.getloadavg()[0]:.1f}")
    except OSError:
        pass
    print(f"ratio to the {TARGET_MS:.0f} ms target: {median / TARGET_MS:.2f}; to the floor: {median / base:.2f}")
    return 0 if median <= TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
