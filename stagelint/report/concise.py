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
        out.write(closing(result, paint, unsafe_fixes) + "\n")


def closing(result, paint=PLAIN, unsafe_fixes: bool = False) -> str:
    """The closing lines: how many findings, how many `--fix` can fix (and how many more
    `--unsafe-fixes` would), what was not checked. Nothing checked, or a check that failed
    internally, is said as such, never "All checks passed!"."""
    n = len(result.findings)
    if n:
        text = f"Found {n} finding{'s' if n != 1 else ''}."
    elif result.files_checked == 0:
        # (files found but none analysed: "No Python files found" would be false)
        text = "Nothing was checked." if result.skipped else "No Python files found."
    else:
        text = "All checks passed!"
    if result.skipped:
        k = len(result.skipped)
        text += f" {k} path{'s' if k != 1 else ''} could not be checked (see the errors above)."
    errors = getattr(result, "errors", None)
    if errors:
        if not n and result.files_checked:
            text = "No findings."  # a rule that failed may have missed some: never "All checks passed!"
        k = len(errors)
        text += f" {k} internal error{'s' if k != 1 else ''}: those checks did not finish (see the errors above)."
    fixable = sum(1 for f in result.findings if f.fix_applies(unsafe_fixes))
    hidden = sum(1 for f in result.findings if f.fixable) - fixable
    more = hidden_fixes(hidden)
    if fixable:
        text += f"\n{paint('[*]', 'cyan')} {fixable} fixable with `--fix`" + (f" ({more})." if hidden else ".")
    elif hidden:
        text += f"\nNo fixes available ({more})."
    return text


def hidden_fixes(n: int) -> str:
    """ruff's words for the fixes only `--unsafe-fixes` applies."""
    return f"{n} hidden fix{'es' if n != 1 else ''} can be enabled with the `--unsafe-fixes` option"
