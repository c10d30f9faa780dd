"""The steps `stagelint run` on tests and `stagelint run --script` share: the static findings of
what runs, the verdicts of a recorded session, the configuration's codes. Both commands import
this; neither imports the other's module."""

from __future__ import annotations

from stagelint.findings import UNUSED_NOQA, Finding, is_selected
from stagelint.runtime import executor, lint
from stagelint.runtime.arguments import UsageError
from stagelint.runtime.compare import join
from stagelint.runtime.evidence import Evidence
from stagelint.runtime.records import Run
from stagelint.runtime.report import Report
from stagelint.runtime.verdicts import judge, runtime_only, test_failures


def static_findings(files: list[str], cache: bool = True, cache_dir: str | None = None,
                    preview: bool | None = None) -> tuple[list, dict]:
    """Static findings for `files` while the runs go on; the engine's absence is reported, not fatal."""
    if not files:
        return [], {"files": [], "findings": 0}
    try:
        result = lint.static_findings(files, cache=cache, cache_dir=cache_dir, preview=preview)
    except ImportError as e:
        return [], {"files": files, "findings": 0, "error": f"static analysis unavailable ({e})"}
    except Exception as e:  # noqa: BLE001
        if type(e).__name__ == "ConfigError":
            raise UsageError(str(e)) from e
        return [], {"files": files, "findings": 0, "error": f"static analysis failed: {type(e).__name__}: {e}"}
    info = {"files": files, "findings": len(result.findings)}
    if result.errors:
        info["errors"] = [f"{p}: {code}: {msg.splitlines()[-1] if msg else ''}" for p, code, msg in result.errors]
    return list(result.findings), info


def analyse(module: str, statuses: dict, graph: Run, eager: Run, findings: list[Finding], static: dict,
            select: tuple[str, ...], ignore: tuple[str, ...]) -> Report:
    """Verdicts for the selected static findings, plus the selected runtime-only findings."""
    # (an unused `# noqa` code is about a comment: nothing a run can confirm)
    findings = [f for f in findings if is_selected(f.code, select, ignore) and f.code != UNUSED_NOQA]
    ev = Evidence(graph, eager, join(graph, eager))
    verdicts = judge(findings, ev, graph, eager)
    verdicts += [v for v in runtime_only(verdicts, ev, graph, eager) if is_selected(v.finding.code, select, ignore)]
    statuses = {mode: statuses[mode] for mode in executor.MODES if mode in statuses}  # (--script: graph alone)
    return Report(module, statuses, graph, eager, ev, verdicts, test_failures(graph, eager), static)


def settings_codes() -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """select, ignore and rule-url of the configuration."""
    try:
        from stagelint.config import load_settings

        settings = load_settings(".")
        return tuple(settings.select), tuple(settings.ignore), settings.rule_url
    except Exception:  # noqa: BLE001 - config errors were already reported by the lint step
        return ("STG",), (), ""


def write_html(report: Report, path: str, url_template: str) -> bool:
    """The HTML report written to `path` (and said on stderr); False, said, when it cannot be."""
    import sys

    from stagelint.runtime.html import render_html

    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(render_html(report, url_template))
    except OSError as e:  # checked before the runs, but the disk may have filled since
        print(f"stagelint run: could not write the report {path}: {e.strerror or e}", file=sys.stderr)
        return False
    print(f"stagelint run: HTML report written to {path}", file=sys.stderr)
    return True
