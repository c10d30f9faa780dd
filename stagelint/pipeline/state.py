"""The state of one project's check: what the stages of `stagelint.pipeline.stages` read and
fill in, in order. The command line and the flake8 plugin run every stage once over a fresh
state; the language server keeps the state, and re-runs the last stages when a file changes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from stagelint.analysis import facts as F
from stagelint.config import Settings
from stagelint.findings import CheckResult
from stagelint.pipeline.paths import ModuleNames


@dataclass
class Options:
    """How a check runs; none of it changes a finding, except `follow_imports`,
    `report_imported` and `whole_project` (which files it looks at and reports)."""

    #: analyse the project modules the given files import (for the call graph)
    follow_imports: bool = True
    #: report findings in those imported modules too
    report_imported: bool = False
    #: a file given on its own is checked as part of its project (the folder of the nearest
    #: pyproject.toml, setup.cfg or .git): its findings are those of a check of the project
    whole_project: bool = False
    #: worker processes; 0 analyses in this process (inside a daemonic worker, such as
    #: flake8's, which may not start processes); None: one per CPU
    jobs: int | None = None
    #: apply inline `# noqa` (False leaves it to the host, as flake8 applies its own)
    noqa: bool = True
    #: the byte-level screen (`stagelint.pipeline.screen`); False analyses every file, for testing
    #: that the screen changes nothing
    screen: bool = True
    #: how worker processes start (`multiprocessing`): None forks where it can
    start_method: str | None = None


@dataclass
class ProjectState:
    settings: Settings
    #: the paths as given (files and folders)
    paths: list[str]
    options: Options = field(default_factory=Options)
    #: real path -> contents that replace the disk's (an editor's unsaved buffer)
    sources: dict[str, bytes] = field(default_factory=dict)
    #: a `stagelint.pipeline.cache.Cache`, or None: analyse everything afresh
    cache: object = None

    # discover ---------------------------------------------------------------------------------
    names: ModuleNames = field(default_factory=ModuleNames)
    #: the files of the check, as shown: the given ones and, for `whole_project`, their projects'
    files: list[str] = field(default_factory=list)
    #: real paths of the files the check was asked about (their findings are reported)
    asked: set[str] = field(default_factory=set)
    #: real paths of `files`
    given: set[str] = field(default_factory=set)
    #: the top-level packages checked (calls into them are recorded as call sites)
    roots: frozenset = frozenset()
    #: where imported project modules are looked for
    search_roots: list[Path] = field(default_factory=list)
    #: the project roots of the given paths (real paths, `discovery.root_of`): no file outside
    #: them is read (`files.read_source`)
    within: tuple[str, ...] = ()
    result: CheckResult = field(default_factory=CheckResult)

    # screen -----------------------------------------------------------------------------------
    #: `stagelint.pipeline.screen.Selection`, or None without the screen
    selection: object = None
    #: the files of the first round
    first_round: list[str] = field(default_factory=list)
    #: live files not analysed yet (real path -> as shown); the rounds take from them
    deferred: dict[str, str] = field(default_factory=dict)
    #: name-only facts of the files the screen ruled out
    placeholders: list[F.ModuleFacts] = field(default_factory=list)
    #: deferred files no round needed (real path -> as shown): placeholders until a change
    #: of the staged code needs them (`stages.analyse_demanded`)
    unneeded: dict[str, str] = field(default_factory=dict)
    #: the SHA-256 of every file read, by real path
    digests: dict[str, str] = field(default_factory=dict)
    #: real path -> the optional frameworks that cannot stage anything there (`screen.framework_reach`)
    absent: dict[str, frozenset] = field(default_factory=dict)
    #: follow each analysed file's imports (without the screen, or when it gave up)
    follow: bool = True
    queued: set[str] = field(default_factory=set)
    imported_memo: dict = field(default_factory=dict)

    # plan the rounds --------------------------------------------------------------------------
    plan_key: str | None = None
    #: the screen's split the plan is made for (`pipeline.plans.PlanRecord` without its rounds)
    plan_basis: object = None
    #: the deferred files of the later rounds, from the cache (None: decided round by round)
    planned: list[str] | None = None
    rounds: list[str] = field(default_factory=list)

    # analyse ----------------------------------------------------------------------------------
    #: the facts of every file analysed, by real path
    modules: dict[str, F.ModuleFacts] = field(default_factory=dict)
    #: paths as shown whose findings are reported
    reported: set[str] = field(default_factory=set)
    #: no crash, hang or internal error (the rounds' plan may be kept)
    clean: bool = True

    # project phase ----------------------------------------------------------------------------
    #: `stagelint.analysis.staging.Project` over the analysed files and placeholders
    project: object = None
    #: the facts the project was built from, sorted by path
    project_modules: list[F.ModuleFacts] = field(default_factory=list)
    #: real paths of the files analysed again (`reanalyse`) since the project was built
    changed: set[str] = field(default_factory=set)
    #: the project-level candidates (`rule.project_candidates`) of `project`, once asked for
    project_extra: list | None = None

    @property
    def realpath(self):
        return self.names.realpath

    def read(self, path: str) -> bytes:
        """A file's bytes from the disk, as the check reads every file (`files.read_source`:
        within the project roots, regular files, at most `max-file-size`); `NotRead` or another
        OSError when they cannot be."""
        from stagelint.pipeline.files import read_source

        return read_source(path, self.settings.max_file_size, self.within)

    def absent_for(self, path: str) -> frozenset:
        """The frameworks left out of a file's analysis (path as shown or real): none unless the
        screen showed they cannot stage anything there."""
        return self.absent.get(self.realpath(path), frozenset())

    @property
    def use_cache(self) -> bool:
        return self.cache is not None and getattr(self.cache, "enabled", False)

    def fact_settings(self) -> tuple:
        from stagelint.pipeline.cache import analysis_settings

        return (analysis_settings(self.settings), tuple(sorted(self.roots)))
