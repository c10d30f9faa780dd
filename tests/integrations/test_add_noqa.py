"""`stagelint check --add-noqa` on a copy of a real corpus (the bundled examples and the
integration fixtures), then a second check that reports nothing; merging with an existing
`# noqa`, multi-line statements and notebooks."""

from __future__ import annotations

import shutil

from integration_support import FIXTURES, ROOT, stagelint, write_tree


def test_add_noqa_on_a_corpus_then_nothing_is_reported(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copytree(FIXTURES, tmp_path / "fixtures", ignore=shutil.ignore_patterns("*.ipynb"))
    before = stagelint("check", "--no-cache", "-q", "--output-format", "concise", ".", cwd=tmp_path)
    found = [line for line in before.stdout.splitlines() if ": STG" in line and ": STG000 " not in line]
    assert before.returncode == 1 and len(found) >= 15, before.stdout
    lines_with = {tuple(line.split(":")[:2]) for line in found}
    proc = stagelint("check", "--no-cache", "--add-noqa", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == f"Added {len(lines_with)} noqa directives."
    after = stagelint("check", "--no-cache", "--output-format", "concise", ".", cwd=tmp_path)
    assert after.returncode == 0 and after.stdout.strip() == "All checks passed!", after.stdout
    again = stagelint("check", "--no-cache", "--add-noqa", ".", cwd=tmp_path)
    assert again.stderr.strip() == "Added 0 noqa directives."


SOURCE = '''
import tensorflow as tf
history = []


@tf.function
def step(x):
    print("a", x)  # noqa: E501 kept, with its reason
    history.append(x); print(x)
    print("""several
    lines""", x)
    tf.print(
        x,
    ) if print(x) else None
    return x
'''


def test_merging_and_multi_line_statements(tmp_path):
    write_tree(tmp_path, {"m.py": SOURCE})
    proc = stagelint("check", "--add-noqa", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "m.py").read_text().splitlines()
    assert text[6] == '    print("a", x)  # noqa: E501,STG101 kept, with its reason'
    assert text[7] == "    history.append(x); print(x)  # noqa: STG101,STG201"
    # A string that spans lines: flake8 reads the noqa at the end of the token's last line.
    assert text[8] == '    print("""several' and text[9] == '    lines""", x)  # noqa: STG101'
    # Inside brackets each line stands alone, as flake8 reads it.
    assert text[12] == "    ) if print(x) else None  # noqa: STG101"
    assert stagelint("check", "m.py", cwd=tmp_path).stdout.strip() == "All checks passed!"


def test_notebooks_are_refused_clearly_and_usage_errors(tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n    return x")])
    nbformat.write(nb, str(tmp_path / "n.ipynb"))
    before = (tmp_path / "n.ipynb").read_bytes()
    proc = stagelint("check", "--add-noqa", "n.ipynb", cwd=tmp_path)
    assert proc.returncode == 2 and "n.ipynb: --add-noqa does not edit notebooks" in proc.stderr
    assert (tmp_path / "n.ipynb").read_bytes() == before
    for args in (["--add-noqa", "--fix", "."], ["--add-noqa", "-"]):
        assert stagelint("check", *args, cwd=tmp_path).returncode == 2


def test_a_file_swapped_for_a_fifo_after_the_check_is_refused_not_waited_on(tmp_path):
    # Between the check and the writing, the file became a named pipe with no writer: opening
    # it to read would block for ever. It is refused with the reason, as --fix refuses it.
    import os
    import threading

    from stagelint.report.addnoqa import add_noqa
    from stagelint.findings import Finding

    pipe = tmp_path / "model.py"
    os.mkfifo(pipe)
    finding = Finding("STG101", "trace-time-side-effect", str(pipe), 3, 5, 3, 10, "print runs once per trace")
    answer = []
    worker = threading.Thread(target=lambda: answer.append(add_noqa([finding])), daemon=True)
    worker.start()
    worker.join(20)
    assert answer, "add_noqa blocked on the named pipe"
    changed, refused = answer[0]
    assert changed == 0
    assert "named pipe" in refused[str(pipe)]
