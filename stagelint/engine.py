"""`stagelint check` end to end: find files, analyse each once, join them, report findings.

Per file: one parse, one metadata resolution, one traversal (`context.analyze_module`), which
yields picklable `ModuleFacts`. Then the project phase (`staging.Project`) decides which
functions are staged and which candidates stand. The static analyzer reads files; it never
imports or runs them.
"""

from __future__ import annotations

import fnmatch
import os
import traceback
from pathlib import Path

import libcst as cst

from stagelint import facts as F
from stagelint.config import Settings
from stagelint.context import FileContext, analyze_module
from stagelint.findings import CheckResult, Finding, file_is_off, is_selected, is_suppressed
from stagelint.frameworks import TENSORFLOW
from stagelint.rules.base import REGISTRY, all_rules
from stagelint.staging import Project

#: Folders never walked into unless named on the command line.
SKIP_DIRS = frozenset({
    "__pycache__", "node_modules", "site-packages", "venv", ".venv", "env", ".env", "build", "dist",
    ".git", ".hg", ".svn", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    ".stagelint_cache", ".eggs",
})


def module_name(path: Path) -> tuple[str, bool]:
    """Dotted module name from the package folders (those with `__init__.py`) above a file."""
    path = path.resolve()
    is_package = path.name == "__init__.py"
    parts = [] if is_package else [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
    return ".".join(parts), is_package


def _excluded(path: Path, settings: Settings) -> bool:
    if not settings.exclude:
        return False
    try:
        rel = path.resolve().relative_to(Path(settings.root).resolve()).as_posix()
    except ValueError:
        rel = path.as_posix()
    parts = rel.split("/")
    for pattern in settings.exclude:
        if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel, pattern.rstrip("/") + "/*"):
            return True
        if any(fnmatch.fnmatch(p, pattern) for p in parts):
            return True
    return False


def discover(paths: list[str], settings: Settings) -> tuple[list[str], list[tuple[str, str]]]:
    """Python files under `paths`; (path, reason) for paths that do not exist."""
    files: list[str] = []
    missing: list[tuple[str, str]] = []
    seen: set[str] = set()
    for given in paths:
        p = Path(given)
        if p.is_file() or (p.suffix == ".py" and p.exists() and not p.is_dir()):
            key = os.path.realpath(p)
            if key not in seen:
                seen.add(key)
                files.append(given)
            continue
        if not p.exists():
            missing.append((given, "no such file or directory"))
            continue
        visited_dirs: set[str] = set()
        for root, dirs, names in os.walk(p, followlinks=True):
            real = os.path.realpath(root)
            if real in visited_dirs:  # a symlink loop
                dirs[:] = []
                continue
            visited_dirs.add(real)
            dirs[:] = sorted(
                d for d in dirs
                if not d.startswith(".") and d not in SKIP_DIRS and not d.endswith(".egg-info")
                and not _excluded(Path(root) / d, settings)
            )
            for name in sorted(names):
                if not name.endswith(".py"):
                    continue
                full = os.path.normpath(os.path.join(root, name))
                if not os.path.isfile(full) or _excluded(Path(full), settings):
                    continue
                key = os.path.realpath(full)
                if key not in seen:
                    seen.add(key)
                    files.append(full)
    return files, missing


def analyze_source(path: str, source: bytes, settings: Settings, project_roots=frozenset()) -> F.ModuleFacts:
    """Parse and walk one file. A syntax error is one STG000 candidate, not an exception."""
    module, is_package = module_name(Path(path))
    try:
        tree = cst.parse_module(source)
    except cst.ParserSyntaxError as e:
        line, column, message = _syntax_error_location(source, e)
        facts = F.ModuleFacts(path=path, module=module, is_package=is_package)
        facts.candidates.append(
            F.Candidate("STG000", None, F.Span(line, column, line, column), {"error": message})
        )
        return facts
    ctx = FileContext(path, module, is_package, settings, TENSORFLOW)
    ctx.project_roots = frozenset(project_roots)
    return analyze_module(tree, ctx, [r for r in all_rules() if not r.runtime_only])


def _syntax_error_location(source: bytes, error: cst.ParserSyntaxError) -> tuple[int, int, str]:
    """Python's own message and position when it agrees the file is invalid (users know its
    wording); libcst's otherwise (e.g. syntax newer than libcst's grammar)."""
    try:
        compile(source, "<stagelint>", "exec", dont_inherit=True)
    except SyntaxError as py:
        if py.lineno:
            return py.lineno, max(1, py.offset or 1), py.msg
    except (ValueError, RecursionError, MemoryError):
        pass
    message = " ".join(error.message.split()) or "invalid syntax"
    return max(1, error.raw_line), max(1, error.raw_column + 1), message


def _read(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _decode_lines(source: bytes) -> list[str]:
    text = source.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.splitlines()


def _imported_files(facts: F.ModuleFacts, search_roots: list[Path]) -> list[str]:
    """Files of project modules a module imports, found under the search roots."""
    names = set(facts.imports.values())
    for f in facts.functions.values():
        names.update(e.target[1] for e in f.calls if e.target[0] == "name")
    out = []
    for name in sorted(names):
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            rel = Path(*parts[:i])
            for root in search_roots:
                for candidate in (root / rel.with_suffix(".py"), root / rel / "__init__.py"):
                    if candidate.is_file():
                        out.append(_display_path(candidate))
                        break
                else:
                    continue
                break
            else:
                continue
            break
    return out


def _display_path(path: Path) -> str:
    """Relative to the working directory when below it, as paths given on the command line are."""
    rel = os.path.relpath(path)
    return path.as_posix() if rel.startswith("..") else Path(rel).as_posix()


def _package_root(path: Path) -> Path:
    directory = path.resolve().parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        directory = directory.parent
    return directory


def check_paths(
    paths: list[str],
    settings: Settings | None = None,
    follow_imports: bool = True,
    report_imported: bool = False,
) -> CheckResult:
    """Analyse files and directories; report findings in them (and, if asked, in the project
    modules they import, which are always analysed for the call graph)."""
    settings = settings or Settings()
    result = CheckResult()
    files, missing = discover(paths, settings)
    result.skipped.extend(missing)
    roots = frozenset(module_name(Path(f))[0].split(".")[0] for f in files)
    search_roots = sorted({_package_root(Path(f)) for f in files} | {Path.cwd()}, key=str)
    modules: list[F.ModuleFacts] = []
    sources: dict[str, bytes] = {}
    reported: set[str] = set()
    queue = list(files)
    given = {os.path.realpath(f) for f in files}
    analysed: set[str] = set()
    while queue:
        path = queue.pop(0)
        real = os.path.realpath(path)
        if real in analysed:
            continue
        analysed.add(real)
        try:
            source = _read(path)
        except OSError as e:
            if real in given:
                result.skipped.append((path, f"cannot read: {e.strerror or e}"))
            continue
        try:
            facts = analyze_source(path, source, settings, roots)
        except RecursionError:
            result.skipped.append((path, "too deeply nested to analyse"))
            continue
        except Exception:  # one file's internal error must not lose the others' findings
            result.errors.append((path, "engine", traceback.format_exc(limit=6)))
            continue
        modules.append(facts)
        sources[path] = source
        if real in given:
            reported.add(path)
            result.files_checked += 1
        if follow_imports and len(analysed) < 2000:
            queue.extend(p for p in _imported_files(facts, search_roots) if os.path.realpath(p) not in analysed)
    if report_imported:
        reported = set(sources)
    project = Project(modules, settings, TENSORFLOW)
    result.findings = sorted(_findings(project, modules, reported, sources, settings), key=Finding.sort_key)
    return result


def _findings(project: Project, modules, reported: set[str], sources: dict[str, bytes], settings: Settings):
    by_module = {m.module: m for m in modules}
    candidates: list[tuple[F.ModuleFacts, F.Candidate]] = [(m, c) for m in modules for c in m.candidates]
    for rule in all_rules():
        for module, cand in rule.project_candidates(project):
            candidates.append((by_module[module], cand))
    seen = set()
    lines_cache: dict[str, list[str]] = {}
    for m, cand in candidates:
        if m.path not in reported:
            continue
        rule = REGISTRY[cand.code]
        if not is_selected(rule.code, settings.select, settings.ignore) or _ignored_for_file(m.path, rule.code, settings):
            continue
        fields = dict(cand.fields)
        entry = None
        if not rule.always:
            key = (m.module, cand.function)
            if cand.fields.get("_anchors"):
                # Found outside staged code (a call site, a rebinding): it stands for the first
                # staged function it concerns, which its message names.
                key = next((tuple(a) for a in cand.fields["_anchors"] if tuple(a) in project.reached), None)
            if key not in project.reached:
                continue
            verdict = rule.confirm(cand, project, m)
            if not verdict:
                continue
            if isinstance(verdict, dict):  # what only the project shows, for the message
                fields.update(verdict)
            fields.setdefault("func", project.function_phrase(key))
            entry = project.display(project.reached[key], m.module)
        finding = Finding(
            code=rule.code,
            name=rule.name,
            path=m.path,
            line=cand.span.line,
            column=cand.span.column,
            end_line=cand.span.end_line,
            end_column=cand.span.end_column,
            message=rule.message.format(**fields),
            function=cand.function,
            entry_point=entry,
            fixable=rule.fixable,
        )
        if finding.sort_key() + (finding.message,) in seen:
            continue
        seen.add(finding.sort_key() + (finding.message,))
        lines = lines_cache.get(m.path)
        if lines is None:
            lines = lines_cache[m.path] = _decode_lines(sources[m.path])
        if rule.code != "STG000" and (file_is_off(lines) or is_suppressed(finding, lines)):
            continue
        yield finding


def _ignored_for_file(path: str, code: str, settings: Settings) -> bool:
    if not settings.per_file_ignores:
        return False
    try:
        rel = Path(path).resolve().relative_to(Path(settings.root).resolve()).as_posix()
    except ValueError:
        rel = Path(path).as_posix()
    for pattern, codes in settings.per_file_ignores:
        if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(Path(path).as_posix(), pattern):
            if any(code.startswith(c) or c == "ALL" for c in codes):
                return True
    return False


def check_source(source: str, path: str = "example.py", settings: Settings | None = None) -> list[Finding]:
    """Check one in-memory module (used by the examples' tests and the docs)."""
    settings = settings or Settings()
    data = source.encode("utf-8")
    facts = analyze_source(path, data, settings)
    project = Project([facts], settings, TENSORFLOW)
    return sorted(_findings(project, [facts], {path}, {path: data}, settings), key=Finding.sort_key)
