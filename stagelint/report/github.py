"""GitHub Actions workflow commands: one `::error` annotation per finding, shown on the diff
of a pull request and in the run's summary, with no upload step."""

from __future__ import annotations


def _data(text: str) -> str:
    # Escaping of the message part, as in @actions/core's command.ts.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def line_for(f) -> str:
    props = [
        f"file={_prop(f.path)}",
        f"line={f.line}",
        f"col={f.column}",
        f"endLine={f.end_line}",
        f"endColumn={f.end_column}",
        f"title={_prop(f'{f.code} {f.name}')}",
    ]
    return f"::error {','.join(props)}::{_data(f.message)}"


def render(result, out) -> None:
    for f in result.findings:
        out.write(line_for(f) + "\n")
