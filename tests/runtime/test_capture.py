"""Output capture around a staged call: megabytes of output go through files, not memory."""

from __future__ import annotations

import contextlib
import os
import sys
import tracemalloc

import pytest

from stagelint.runtime import capture, executor

MB = 1 << 20


class CountingSink:
    """A text stream that keeps only how much it received (and the start of it)."""

    def __init__(self) -> None:
        self.chars = 0
        self.head = ""

    def write(self, text: str) -> int:
        if len(self.head) < 100:
            self.head += text[:100]
        self.chars += len(text)
        return len(text)

    def flush(self) -> None:
        pass


@contextlib.contextmanager
def redirected(tmp_path):
    """fds 1/2 to files and sys.stdout/sys.stderr to sinks, as pytest's capture would be, restored after."""
    saved_fds = {fd: os.dup(fd) for fd in (1, 2)}
    files = {fd: open(tmp_path / f"fd{fd}", "wb") for fd in (1, 2)}
    saved_streams = sys.stdout, sys.stderr
    sinks = CountingSink(), CountingSink()
    try:
        for fd, f in files.items():
            os.dup2(f.fileno(), fd)
        sys.stdout, sys.stderr = sinks
        yield sinks
    finally:
        sys.stdout, sys.stderr = saved_streams
        for fd, saved in saved_fds.items():
            os.dup2(saved, fd)
            os.close(saved)
        for f in files.values():
            f.close()


def test_twenty_megabytes_are_replayed_without_being_held_in_memory(tmp_path):
    line = "x" * 1023 + "\n"
    block = b"y" * MB
    out = capture.OutputCapture()
    with redirected(tmp_path) as (stdout, _):
        tracemalloc.start()
        try:
            out.start()
            for _ in range(10 * 1024):  # 10 MB through sys.stdout (print in a staged function)
                sys.stdout.write(line)
            for _ in range(10):  # 10 MB through fd 1 (tf.print, C++ code)
                os.write(1, block)
            kept = out.stop()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert stdout.chars == 10 * MB and stdout.head.startswith("xxx")
    assert os.path.getsize(tmp_path / "fd1") == 10 * MB
    assert len(kept) == capture.MAX_KEEP + 3 and kept.endswith("...") and kept.startswith("xxx")
    # Chunks of 1 MB (read, decoded) at a time; holding the output would be 20 MB or more.
    assert peak < 4 * MB, peak


def test_text_split_across_chunks_comes_back_intact(tmp_path, monkeypatch):
    monkeypatch.setattr(capture, "CHUNK", 7)  # split the two-byte characters
    out = capture.OutputCapture()
    with redirected(tmp_path) as (stdout, stderr):
        received = []
        stdout.write = lambda text: received.append(text) or len(text)
        out.start()
        print("é€ " * 50)
        print("to stderr", file=sys.stderr)
        kept = out.stop()
    assert "".join(received) == "é€ " * 50 + "\n"
    assert stderr.chars == len("to stderr\n")
    assert kept == "é€ " * 50 + "\n" + "to stderr\n"


def test_capture_is_reusable_and_empty_between_calls(tmp_path):
    out = capture.OutputCapture()
    with redirected(tmp_path):
        out.start()
        print("first")
        os.write(2, b"fd two\n")
        assert out.stop() == "first\nfd two\n"
        out.start()
        assert out.stop() == ""


@pytest.mark.parametrize("value", [b"bytes", 3])
def test_writing_a_non_string_raises_like_a_text_stream(tmp_path, value):
    out = capture.OutputCapture()
    with redirected(tmp_path):
        out.start()
        try:
            with pytest.raises(TypeError):
                sys.stdout.write(value)
        finally:
            out.stop()


def test_a_stream_writing_to_fd_1_itself_is_replayed_once_in_order(tmp_path):
    """Under `pytest -s` sys.stdout writes to fd 1: its replay must come after fd 1 is restored."""
    out = capture.OutputCapture()
    with redirected(tmp_path):
        sys.stdout = open(1, "w", closefd=False)  # what pytest -s leaves in place
        out.start()
        print("from python")
        os.write(1, b"from fd 1\n")
        kept = out.stop()
        sys.stdout.flush()
    assert kept == "from python\nfrom fd 1\n"
    assert (tmp_path / "fd1").read_text() == "from python\nfrom fd 1\n"


def test_output_tail_reads_only_the_end_of_a_huge_output(tmp_path):
    out = tmp_path / "graph.out"
    with open(out, "wb") as f:
        f.write(b"c" * (30 * MB) + b"\n")  # one 30 MB line, then pytest's last words
        f.write(b"".join(f"line {i}\n".encode() for i in range(20)))
    status = executor.RunStatus("graph", "crashed", -11, 1.0, "", str(out))
    tracemalloc.start()
    try:
        tail = executor.output_tail(status, 22)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    lines = tail.splitlines()
    assert len(lines) == 21 and lines[-1] == "line 19"
    assert lines[0] == "c" * (executor.TAIL_LINE - 3) + "..."
    assert peak < MB
