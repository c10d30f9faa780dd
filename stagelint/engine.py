"""`stagelint check` end to end: the stages of `stagelint.pipeline.stages` over a fresh
`ProjectState`, and `check_source` for one in-memory module.

Per file: one parse, one metadata resolution, one traversal (`analysis.walk.analyze_module`), which
yields picklable `ModuleFacts`. Then the project phase (`staging.Project`) decides which
functions are staged and which candidates stand. The static analyzer reads files; it never
imports or runs them.
"""

from __future__ import annotations

import gc
import os

from stagelint.config import Settings
from stagelint.pipeline.discovery import SKIP_DIRS, discover  # noqa: F401  (re-exported)
from stagelint.findings import CheckResult, Finding
from stagelint.frameworks import STAGING
from stagelint.pipeline import stages
from stagelint.pipeline.paths import ModuleNames, module_name  # noqa: F401  (re-exported)
from stagelint.pipeline.state import Options, ProjectState
from stagelint.analysis.staging import Project


def check_paths(
    paths: list[str],
    settings: Settings | None = None,
    follow_imports: bool = True,
    report_imported: bool = False,
    jobs: int | None = None,
    *,
    noqa: bool = True,
    sources: dict[str, bytes] | None = None,
    screen: bool = True,
    cache=None,
    whole_project: bool = False,
) -> CheckResult:
    """Analyse files and directories; report findings in them (and, if asked, in the project
    modules they import, which are always analysed for the call graph).

    `noqa=False` leaves inline `# noqa` to the host (flake8 applies its own). `sources` maps
    paths to contents that replace the disk's (an editor's unsaved buffer); those files are
    analysed in this process. `jobs=0` analyses everything in this process (inside a daemonic
    worker, such as flake8's, which may not start processes). `screen=False` turns off the
    byte-level screen (`stagelint.pipeline.screen`), for testing that it changes nothing. `cache` (a
    `stagelint.pipeline.cache.Cache`) serves and keeps per-file outcomes by content (`stagelint.pipeline.cache`);
    None analyses everything afresh. `whole_project=True` checks a file given on its own as
    part of its project (the folder of the nearest pyproject.toml, setup.cfg or .git), so that
    it gets the findings a check of the whole project gives it (`stagelint check` does)."""
    state = ProjectState(
        settings=settings or Settings(),
        paths=list(paths),
        options=Options(follow_imports=follow_imports, report_imported=report_imported, whole_project=whole_project,
                        jobs=jobs, noqa=noqa, screen=screen),
        sources={os.path.realpath(k): v for k, v in (sources or {}).items()},
        cache=cache,
    )
    return run(state)


def run(state: ProjectState) -> CheckResult:
    """Every stage over `state`, without the cyclic garbage collector."""
    # Facts arrive as many small objects and stay to the end: the cyclic garbage collector
    # would walk them over and over (unpickling the facts of a thousand files takes ten
    # times longer with it on), and nothing here makes garbage cycles worth collecting.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return stages.run(state)
    finally:
        if collecting:
            gc.enable()


def check_source(source: str, path: str = "example.py", settings: Settings | None = None) -> list[Finding]:
    """Check one in-memory module (used by the examples' tests and the docs)."""
    from stagelint.pipeline.perfile import analyze_source
    from stagelint.pipeline.verdicts import findings as judged_findings

    settings = settings or Settings()
    data = source.encode("utf-8")
    facts = analyze_source(path, data, settings)
    project = Project([facts], settings, STAGING)
    return sorted(judged_findings(project, [facts], {path}, {path: data}, settings), key=Finding.sort_key)


def __getattr__(name: str):
    # Re-exported, imported on first use: `check_paths` answered from the result cache
    # (`stagelint.pipeline.checkcache`) needs neither libcst nor the rules.
    if name == "analyze_source":
        from stagelint.pipeline.perfile import analyze_source

        return analyze_source
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
