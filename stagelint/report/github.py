"""GitHub Actions workflow commands: one annotation per finding, shown on the diff of a pull
request and in the run's summary, with no upload step: `::error` or `::warning` after the
rule's severity (`Rule.severity`, the level SARIF gives it too). In a notebook the annotation
sits on the line of the `.ipynb` file that holds the source line, and its title names the cell
(`STG101 name (cell 4:3:5)`). A path that could not be checked is one `::error` annotation."""

from __future__ import annotations

from stagelint.rules import severity


def _data(text: str) -> str:
    # Escaping of the message part, as in @actions/core's command.ts.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def line_for(f, cache: dict | None = None) -> str:
    from stagelint.report.sarif import notebook_line

    title = f"{f.code} {f.name}"
    if f.cell is not None:
        line = notebook_line(f, cache if cache is not None else {})
        props = [f"file={_prop(f.path)}", f"line={line}", f"title={_prop(f'{title} (cell {f.cell}:{f.line}:{f.column})')}"]
    else:
        props = [
            f"file={_prop(f.path)}",
            f"line={f.line}",
            f"col={f.column}",
            f"endLine={f.end_line}",
            f"endColumn={f.end_column}",
            f"title={_prop(title)}",
        ]
    return f"::{severity(f.code)} {','.join(props)}::{_data(f.message)}"


def render(result, out) -> None:
    cache: dict = {}
    for f in result.findings:
        out.write(line_for(f, cache) + "\n")
    for path, reason in result.skipped:
        out.write(f"::error file={_prop(path)},title=stagelint::{_data(reason)}\n")
