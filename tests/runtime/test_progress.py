"""The progress line: counted from the growing records, rewritten in place only on a terminal."""

from __future__ import annotations

import io

from stagelint.runtime.progress import Progress, RecordTail


def test_tail_counts_tests_in_a_growing_record(tmp_path):
    path = tmp_path / "graph.jsonl"
    tail = RecordTail(str(path))
    tail.poll()
    assert tail.text() == "0/? tests"
    with open(path, "w") as f:
        f.write('{"ev":"start","mode":"graph"}\n{"ev":"collected","n":12}\n{"ev":"test","i":0,"nodeid":"a"}\n')
        f.write('{"ev":"test","i":1,"nodeid":"b"}\n{"ev":"test","i":2,"no')  # a line still being written
        f.flush()
        tail.poll()
        assert tail.text() == "2/12 tests (b)"
        f.write('deid":"c"}\n{"ev":"outcome","nodeid":"a","when":"call","outcome":"failed"}\n')
    tail.poll()
    assert tail.text() == "3/12 tests, 1 failed (c)"
    assert tail.text(current=False) == "3/12 tests, 1 failed"


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_terminal_line_is_rewritten_and_a_log_gets_few_lines():
    terminal = _Terminal()
    progress = Progress(terminal)
    progress.show("graph 1/3")
    progress.show("graph 2/3")
    progress.show("graph 3/3 ok", final=True)
    assert terminal.getvalue() == "\r\033[Kgraph 1/3\r\033[Kgraph 2/3\r\033[Kgraph 3/3 ok\n"
    log = io.StringIO()
    progress = Progress(log)
    for i in range(50):
        progress.show(f"graph {i}/50")
    progress.show("graph 50/50 ok", final=True)
    assert log.getvalue() == "graph 0/50\ngraph 50/50 ok\n"
