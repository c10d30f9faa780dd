"""One line per finding: `path:line:col: CODE [name] message` (flake8/ruff concise); in a
notebook `path:cell N:line:col: ...`; `[*]` after the code when `--fix` can fix it (with
`--unsafe-fixes`, also when its fix is an unsafe one)."""

from __future__ import annotations

from stagelint.report.colors import PLAIN


def line_for(f, paint=PLAIN, unsafe_fixes: bool = False) -> str:
    mark = " " + paint("[*]", "cyan") if f.fix_applies(unsafe_fixes) else ""
    where = paint(":", "cyan").join([paint(f.path, "bold"), *f.location[len(f.path) + 1:].split(":")])
    return f"{where}{paint(':', 'cyan')} {paint(f.code, 'bold', 'red')}{mark} [{f.name}] {f.message}"


def render(result, out, summary: bool = True, paint=PLAIN, unsafe_fixes: bool = False) -> None:
    for f in result.findings:
        out.write(line_for(f, paint, unsafe_fixes) + "\n")
    if summary:
        from stagelint.report.full import closing

        out.write(closing(result, paint, unsafe_fixes) + "\n")
