"""flake8 plugin: `flake8 --select STG` reports what `stagelint check` reports, through the same
engine.

flake8 hands a plugin one file at a time, but a finding may sit in a helper module that only
another module stages (`train_step` in model.py calls `log_metrics` in utils.py). Checking
each file with only the modules it imports would lose that finding, so the plugin checks the
paths flake8 was given as one project, exactly as `stagelint check PATHS` does, once per
flake8 run, and hands each file its share:

* `parse_options` (flake8's main process, before it forks its workers) runs the check, so the
  workers inherit the result; where flake8 does not fork, the first file a worker gets runs it
  in that worker, in-process.
* The check starts with the byte-level screen (`stagelint.pipeline.screen`), so a file or project that
  stages nothing costs a read and two regular expressions, not a parse; and it uses the same
  result cache as `stagelint check` (`.stagelint_cache/`; `--stagelint-no-cache` turns it off),
  so a run after an edit analyses the edited files again, not the project.
* flake8 loads and runs every installed plugin whatever `--select` says, and filters the
  reports afterwards. When flake8's select/ignore options turn every STG code off
  (`--select E,F,W`, `--extend-ignore STG`), the plugin does no work at all.
* A file whose text differs from the disk (flake8 reading standard input, an editor's unsaved
  buffer) is checked on its own from that text, with the project modules it imports, whose
  facts come from the result cache: only the buffer is analysed.
* The cache lives in the project root (the folder of the nearest pyproject.toml, setup.cfg or
  .git above the checked paths), whatever folder flake8 starts in; `--stagelint-cache-dir` or
  `$STAGELINT_CACHE_DIR` move it.

Configuration: the analysis settings come from `[tool.stagelint]` in the nearest
pyproject.toml (or the file named by flake8's `--stagelint-config` option, which flake8 also
reads from `stagelint-config =` in its own config file), just as for `stagelint check`;
`--stagelint-preview` (`stagelint-preview = true`) turns the preview tier on, as `--preview`.
flake8's own `select`, `ignore`, `extend-ignore`, `per-file-ignores` and `# noqa` then apply
on top: a finding shows when both let it through. Inline `# noqa` is left to flake8 (so
`--disable-noqa` works); stagelint's file-level `# stagelint: noqa` is applied here, flake8
not knowing it.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys

from stagelint import __version__

#: Everything the plugin computes, keyed by what determines it; lives for the process.
_sessions: dict[tuple, _Session] = {}


class _Session:
    def __init__(self, paths: tuple[str, ...], config: str | None, use_cache: bool = True,
                 cache_dir: str | None = None, preview: bool = False):
        from stagelint.config import load_settings

        self.use_cache = use_cache
        self.cache_dir = cache_dir
        self.paths = list(paths)
        # Like `stagelint check PATH ...`: the config found from the first path.
        self.settings = load_settings(self.paths[0] if self.paths else ".", config)
        if preview:  # `--stagelint-preview`, as `stagelint check --preview`
            self.settings = self.settings.with_overrides(preview=True)
        self.by_path: dict[str, list] | None = None
        #: real paths the session did not check (skipped, not read): each said once, by `run`
        self.not_checked: set[str] = set()

    def run(self) -> None:
        if self.by_path is not None:
            return
        from stagelint.engine import check_paths

        daemonic = multiprocessing.current_process().daemon
        cache = self.cache(self.paths)
        # Folder walks find notebooks, whose findings flake8 never asks for: leave them out.
        from stagelint.pipeline.discovery import discover

        files, not_found = discover(self.paths, self.settings)
        files = [f for f in files if not f.endswith(".ipynb")]
        result = _set_aside_after(check_paths, files, self.settings, noqa=False, jobs=0 if daemonic else None,
                                  cache=cache, whole_project=True)
        self.by_path = {}
        for f in result.findings:
            self.by_path.setdefault(os.path.realpath(f.path), []).append(f)
        for path, _ in not_found + result.skipped:
            self.not_checked.add(os.path.realpath(path))
        _say_not_checked(not_found + result.skipped, result.errors)

    def cache(self, paths):
        """The result cache of the project `paths` belong to (`stagelint.pipeline.cache.open_cache`)."""
        from stagelint.pipeline.cache import open_cache

        return open_cache(paths, enabled=self.use_cache, directory=self.cache_dir)

    def findings_for(self, filename: str) -> list:
        self.run()
        return self.by_path.get(os.path.realpath(filename), [])


def _session(paths, config, use_cache: bool = True, cache_dir: str | None = None, preview: bool = False) -> _Session:
    from stagelint.config import ConfigError

    paths = tuple(p for p in (paths or ["."]) if p != "-")
    key = (paths, os.getcwd(), config, use_cache, cache_dir, preview)
    if key not in _sessions:
        try:
            _sessions[key] = _Session(paths, config, use_cache, cache_dir, preview)
        except ConfigError as e:
            # Exit 2 with the file and the key, as `stagelint check` does, not a traceback.
            print(f"stagelint: error: {e}", file=sys.stderr)
            raise SystemExit(2) from None
    return _sessions[key]


def _any_code_selected(options) -> bool:
    """Whether flake8's select/ignore options let any STGnnn code through (by flake8's own
    decision rules); True when that cannot be told."""
    try:
        from flake8.style_guide import Decision, DecisionEngine

        engine = DecisionEngine(options)
        return any(engine.decision_for(f"STG{n:03d}") is Decision.Selected for n in range(1000))
    except Exception:
        return True


def _same_as_disk(filename: str, text: str, settings) -> bool:
    from stagelint.pipeline.discovery import root_of
    from stagelint.pipeline.files import read_source

    try:
        disk = read_source(filename, settings.max_file_size, (root_of(filename),)).decode("utf-8", errors="replace")
    except OSError:
        return False
    return disk.lstrip("\ufeff").replace("\r\n", "\n") == text.lstrip("\ufeff").replace("\r\n", "\n")


class StagelintChecker:
    name = "stagelint"
    version = __version__

    #: Set by `parse_options`: the paths flake8 checks, the `--stagelint-config` value, whether
    #: the cache is used, and whether flake8's select/ignore let any STG code through.
    _paths: tuple[str, ...] | None = None
    _config: str | None = None
    _use_cache: bool = True
    _cache_dir: str | None = None
    _selected: bool = True
    _preview: bool = False

    def __init__(self, tree, filename: str, lines: list[str]):
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, manager) -> None:
        manager.add_option(
            "--stagelint-config",
            default=None,
            parse_from_config=True,
            metavar="FILE",
            help="stagelint configuration (default: the nearest pyproject.toml with [tool.stagelint])",
        )
        manager.add_option(
            "--stagelint-preview",
            action="store_true",
            parse_from_config=True,
            help="report stagelint's preview tier too (as `stagelint check --preview`; default: the "
                 "configuration's preview, else off)",
        )
        manager.add_option(
            "--stagelint-no-cache",
            action="store_true",
            parse_from_config=True,
            help="neither read nor write stagelint's result cache (.stagelint_cache/)",
        )
        manager.add_option(
            "--stagelint-cache-dir",
            default=None,
            parse_from_config=True,
            metavar="DIR",
            help="keep stagelint's result cache in DIR (default: $STAGELINT_CACHE_DIR, else .stagelint_cache/ "
                 "in the project root: the folder of the nearest pyproject.toml, setup.cfg or .git)",
        )

    @classmethod
    def parse_options(cls, options) -> None:
        cls._paths = tuple(getattr(options, "filenames", None) or ["."])
        cls._config = getattr(options, "stagelint_config", None)
        cls._use_cache = not getattr(options, "stagelint_no_cache", False)
        cls._cache_dir = getattr(options, "stagelint_cache_dir", None)
        cls._preview = bool(getattr(options, "stagelint_preview", False))
        cls._selected = _any_code_selected(options)
        if not cls._selected:
            return
        session = _session(cls._paths, cls._config, cls._use_cache, cls._cache_dir, cls._preview)
        if cls._paths != ("-",) and not multiprocessing.current_process().daemon:
            session.run()  # before flake8 forks: its workers inherit the findings

    def run(self):
        if not self._selected or self.filename.endswith(".ipynb"):
            # flake8 reads a notebook (`--filename '*.ipynb'`) as lines of JSON, with no cells to
            # report in: notebooks are `stagelint check`'s (docs/integrations.md).
            return
        paths = self._paths if self._paths is not None else (self.filename,)
        session = _session(paths, self._config, self._use_cache, self._cache_dir, self._preview)
        text = "".join(self.lines)
        if session.paths:
            session.run()
            if os.path.realpath(self.filename) in session.not_checked:
                return  # said by the session: checking it again alone would only skip it again
        if session.paths and _same_as_disk(self.filename, text, session.settings):
            findings = session.findings_for(self.filename)
        else:  # standard input, or a buffer that differs from the file
            findings = self._check_text(session, text)
        for f in findings:
            # flake8 counts columns from 0 and prints them from 1, as stagelint does.
            yield f.line, max(0, f.column - 1), f"{f.code} [{f.name}] {f.message}", type(self)

    def _check_text(self, session: _Session, text: str) -> list:
        from stagelint.engine import check_paths

        real = os.path.realpath(self.filename)
        # The project's other files come from the cache (their facts, the screen's summaries):
        # an editor's run analyses only its buffer once the project has been checked.
        daemonic = multiprocessing.current_process().daemon
        result = _set_aside_after(check_paths, [self.filename], session.settings, noqa=False,
                                  jobs=0 if daemonic else None, sources={real: text.encode("utf-8")},
                                  cache=session.cache([self.filename]), whole_project=True)
        _say_not_checked([(p, r) for p, r in result.skipped if os.path.realpath(p) == real],
                         [e for e in result.errors if os.path.realpath(e[0]) == real])
        return [f for f in result.findings if os.path.realpath(f.path) == real]


def _say_not_checked(skipped, errors) -> None:
    """A line on standard error per file not checked (over a budget, unreadable) and per
    internal error: flake8 has no place for them among its reports."""
    for path, reason in skipped:
        if reason != "no such file or directory":  # flake8 says so itself
            print(f"stagelint: {path}: {reason}", file=sys.stderr)
    for path, where, _ in errors:
        print(f"stagelint: internal error in {where} on {path} (run `stagelint check --verbose` for details)",
              file=sys.stderr)


def _set_aside_after(check, *args, **kwargs):
    """`check(*args, **kwargs)`, its garbage set aside: the check's project (every file's facts,
    half a million objects in reference cycles) is garbage once it returns, and the collector
    would walk and free it while flake8 goes on, a fifth of an editor's run. flake8 ends soon
    after; the objects are left to the end of the process (`gc.freeze`)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return check(*args, **kwargs)
    finally:
        gc.freeze()
        if collecting:
            gc.enable()
