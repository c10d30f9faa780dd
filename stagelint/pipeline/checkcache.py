"""A whole check's result, kept in the result cache and given again while nothing it depends on
has changed (a warm run over an unchanged project, an editor linting a buffer it linted before).

The per-file entries of `stagelint.pipeline.cache` spare a warm run the parse and the analysis of every
file, but it still decodes the facts of every analysed file, runs the project phase and judges
every candidate, which is most of a warm run's time. The findings of a check are a function of:

* the bytes of every file the screen read (the given files and every project file they import,
  transitively: `Selection.known` and `Selection.digests`), including an editor's buffer, which
  the screen reads in place of the disk's file;
* which paths were given, as given, and the working directory (findings show paths as given);
* every setting (report settings included: `select`, `ignore`, per-file ignores) and the options
  of the check that change what it reports (`Options`, but the number of processes);
* stagelint itself (the cache's folder is per stagelint fingerprint, and entries are signed).

So the result is kept under a key of all of these, once a check has finished cleanly (no crash,
hang or internal error in any file: those are tried again next run). A check that cannot know
every file it depends on (no screen, or a screen that gave up and follows imports instead) is
neither answered from nor kept in this cache.
"""

from __future__ import annotations

import os
from dataclasses import fields

from stagelint.findings import CheckResult

KIND = "result"


def result_key(state) -> str | None:
    """The key of the result of `state`'s check once the screen has run, or None when the
    check's inputs are not all known (then it is neither looked up nor kept)."""
    if not state.use_cache:
        return None
    selection = state.selection
    if selection is None or not selection.known or state.follow:
        return None
    options = state.options
    settings = tuple((f.name, repr(getattr(state.settings, f.name))) for f in fields(state.settings))
    digests = selection.digests
    return state.cache.key(
        KIND, settings, state.fact_settings(),
        (options.follow_imports, options.report_imported, options.whole_project, options.noqa, options.screen),
        os.getcwd(), list(state.paths), sorted(state.asked), sorted(state.given), sorted(state.sources),
        sorted((real, digests.get(real)) for real in selection.known),
    )


def reuse(state) -> bool:
    """Fill `state.result` from the cache when a clean check of the same inputs is kept there."""
    key = result_key(state)
    if key is None:
        return False
    kept = state.cache.get(KIND, key, CheckResult)
    if kept is None:
        return False
    result = state.result
    result.findings = kept.findings
    result.skipped = kept.skipped
    result.errors = kept.errors
    result.files_checked = kept.files_checked
    return True


def keep(state) -> None:
    """Keep the result of a finished check, unless a file crashed, hung or raised an internal
    error (the next run tries it again)."""
    result = state.result
    if not state.clean or result.errors:
        return
    key = result_key(state)
    if key is not None:
        state.cache.put(KIND, key, result)
