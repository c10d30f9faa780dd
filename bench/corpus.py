"""Fetch the pinned real-world corpus that the speed and accuracy benchmarks read.

    python bench/corpus.py            # -> bench/.corpus/<project>/... (ignored by git)
    python bench/corpus.py --source tf_docs=/path/to/docs.git   # a git dir or URL holding the pin

Two kinds of project, each pinned so the corpus is the same everywhere; nothing of it is
committed, and running it again reuses what is already there:

- `PROJECTS`: a pinned wheel from PyPI (`pip download --no-deps`); its Python files.
- `GIT_PROJECTS`: a pinned commit of a git repository, read from a local git directory (a bare
  mirror or a clone) or cloned from a URL. `tf_docs` is the tensorflow/docs guide and tutorial
  notebooks, each converted to one `.py` module by `bench/notebooks.py` (cell markers, IPython
  magics commented out, line numbers stable); `tf_examples` is the Python files of
  tensorflow/examples. The source is, first found: `--source FOLDER=PATH_OR_URL`, the
  environment variable the project names (`STAGELINT_TF_DOCS`, `STAGELINT_TF_EXAMPLES`), the
  local mirror `/work/.mirror/<owner>+<name>/repo`, then the project's GitHub URL.
- `JAX_GIT_PROJECTS` (fetched only when named: `--projects flax,equinox,jax_examples`): the
  examples and guide notebooks of google/flax, patrick-kidger/equinox and jax-ml/jax at pinned
  commits, `.py` and `.ipynb` files as they are (stagelint reads notebooks itself).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".corpus"
sys.path.insert(0, str(HERE))

from notebooks import convert  # noqa: E402

#: (wheel name, pinned version, folder) — code no one here wrote, from Google and Keras teams.
PROJECTS = (
    ("tf-models-official", "2.20.0", "tf_models"),
    ("tf-agents", "0.19.0", "tf_agents"),
    ("tensorflow-probability", "0.25.0", "tfp"),
    ("tensorflow-addons", "0.23.0", "tfa"),
    ("keras-hub", "0.32.0", "keras_hub"),
)


def fetch(name: str, version: str, folder: str) -> Path:
    target = CACHE / folder
    done = target / ".complete"
    if done.exists():
        return target
    wheels = CACHE / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wheel = next(wheels.glob(f"{name.replace('-', '_')}-{version}-*.whl"), None)
    if wheel is None:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q",
             "-d", str(wheels), f"{name}=={version}"],
            check=True,
        )
        wheel = next(wheels.glob(f"{name.replace('-', '_')}-{version}-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        for member in zf.namelist():
            if member.endswith(".py") and ".dist-info/" not in member:
                zf.extract(member, target)
    done.write_text(f"{name}=={version}\n")
    return target


@dataclass(frozen=True)
class GitProject:
    folder: str
    repo: str  # owner/name on GitHub
    commit: str
    paths: tuple[str, ...]  # what is taken from the commit (all of it when empty; git pathspecs)
    strip: str  # a leading folder removed from the paths in the corpus
    notebooks: bool  # convert `.ipynb` to `.py` (else: take the `.py` files)
    env: str  # environment variable naming the source
    keep: tuple[str, ...] = ()  # take files with these endings as they are (stagelint reads `.ipynb`)

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repo}.git"

    @property
    def mirror(self) -> Path:
        return Path("/work/.mirror") / self.repo.replace("/", "+") / "repo"


#: Code that users of TensorFlow write and read: the tensorflow/docs guide and tutorial notebooks
#: (118 notebooks) and the tensorflow/examples repository (its Python files).
GIT_PROJECTS = (
    GitProject("tf_docs", "tensorflow/docs", "7c3650212740204359d4ceae481abc79345541be",
               ("site/en/guide", "site/en/tutorials"), "site/en", True, "STAGELINT_TF_DOCS"),
    GitProject("tf_examples", "tensorflow/examples", "608f7db8c511e3dcc420afc564496e4516ceb800",
               (), "", False, "STAGELINT_TF_EXAMPLES"),
)

#: Code that users of JAX write and read (issue 14): the examples and guide notebooks of Flax,
#: Equinox and JAX itself, `.py` and `.ipynb` as they are. Fetched only when named
#: (`--projects flax,...`; `bench/audit.py --jax`), so the TensorFlow benchmarks stay as they were.
JAX_GIT_PROJECTS = (
    # docs_nnx/examples/vit_training.ipynb is left out: the local mirror lacks its (large) blob.
    GitProject("flax", "google/flax", "18f8f311c275d57f46d95e41b15aa97b454754c0",
               ("examples", "docs", "docs_nnx/guides", "docs_nnx/hijax", "docs_nnx/key_concepts.ipynb",
                "docs_nnx/mnist_tutorial.ipynb", "docs_nnx/nnx_basics.ipynb",
                *(f"docs_nnx/examples/{name}.ipynb" for name in (
                    "digits_diffusion_model", "gemma", "image_segmentation", "machine_translation", "minigpt",
                    "object_detection_detr"))),
               "", False, "STAGELINT_FLAX", (".py", ".ipynb")),
    GitProject("equinox", "patrick-kidger/equinox", "9336d820b2ef66b360fc6cb3611b3da5cefbb14d",
               ("docs/examples/*.ipynb",), "", False, "STAGELINT_EQUINOX", (".py", ".ipynb")),
    GitProject("jax_examples", "jax-ml/jax", "cec06d116c05f0d52adfceee3d3b730fdbcb0ce5",
               ("examples", "docs/notebooks/*.ipynb"), "", False, "STAGELINT_JAX_EXAMPLES", (".py", ".ipynb")),
)

#: Every corpus folder, wheels first (TensorFlow); the JAX corpus apart.
FOLDERS = tuple(p[2] for p in PROJECTS) + tuple(g.folder for g in GIT_PROJECTS)
JAX_FOLDERS = tuple(g.folder for g in JAX_GIT_PROJECTS)


def _git(git_dir: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, check=False, **kw)


def _has_commit(git_dir: Path, commit: str) -> bool:
    return _git(git_dir, "cat-file", "-e", f"{commit}^{{commit}}").returncode == 0


def _git_dir(project: GitProject, source: str | None) -> Path:
    """A local git directory holding the pinned commit: the source given, or a clone of it."""
    candidates = [source] if source else [os.environ.get(project.env) or None,
                                          str(project.mirror) if project.mirror.exists() else None,
                                          project.url]
    tried = []
    for cand in filter(None, candidates):
        path = Path(cand).expanduser()
        if path.exists():
            git_dir = path / ".git" if (path / ".git").exists() else path
            if _has_commit(git_dir, project.commit):
                return git_dir
            tried.append(f"{cand}: no commit {project.commit[:12]} there")
            continue
        if "://" not in cand and not cand.startswith("git@"):
            tried.append(f"{cand}: no such folder")
            continue
        clone = CACHE / "git" / f"{project.folder}.git"
        if not clone.exists():
            print(f"{project.folder}: cloning {cand} (no blobs until needed) ...", file=sys.stderr)
            done = subprocess.run(["git", "clone", "--bare", "--filter=blob:none", "-q", cand, str(clone)],
                                  capture_output=True, text=True, check=False)
            if done.returncode:
                shutil.rmtree(clone, ignore_errors=True)
                tried.append(f"{cand}: git clone failed: {done.stderr.strip()[-300:]}")
                continue
        if not _has_commit(clone, project.commit):
            _git(clone, "fetch", "-q", "origin", project.commit)
        if _has_commit(clone, project.commit):
            return clone
        tried.append(f"{cand}: no commit {project.commit[:12]} there")
    raise SystemExit(
        f"{project.folder}: cannot find {project.repo} at commit {project.commit}.\n  tried: "
        + "\n  tried: ".join(tried or ["nothing"])
        + f"\nGive a git directory or URL that holds that commit: `python bench/corpus.py --source "
          f"{project.folder}=PATH_OR_URL` (or set {project.env}), e.g. after "
          f"`git clone {project.url}`.")


def fetch_git(project: GitProject, source: str | None = None) -> Path:
    target = CACHE / project.folder
    done = target / ".complete"
    if done.exists() and done.read_text().strip() == f"{project.repo}@{project.commit}":
        return target
    git_dir = _git_dir(project, source)
    archive = _git(git_dir, "archive", "--format=tar", project.commit, *project.paths)
    if archive.returncode:
        raise SystemExit(f"{project.folder}: git archive failed: {archive.stderr.decode()[-500:]}")
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    prefix = project.strip.rstrip("/") + "/" if project.strip else ""
    suffix = project.keep or (".ipynb" if project.notebooks else ".py")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        for member in tar.getmembers():
            if not member.isfile() or not member.name.endswith(suffix) or ".ipynb_checkpoints" in member.name:
                continue
            rel = member.name.removeprefix(prefix)
            data = tar.extractfile(member).read()
            out = target / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            if project.notebooks:
                out.with_suffix(".py").write_text(convert(json.loads(data.decode("utf-8"))), encoding="utf-8")
            else:
                out.write_bytes(data)
    done.write_text(f"{project.repo}@{project.commit}\n")
    return target


def corpus(names: tuple[str, ...] | None = None, sources: dict[str, str] | None = None) -> list[Path]:
    """The corpus folders, in `FOLDERS` order (only `names` when given), fetched when missing."""
    sources = sources or {}
    wheels = [fetch(*p) for p in PROJECTS if names is None or p[2] in names]
    jax = [fetch_git(g, sources.get(g.folder)) for g in JAX_GIT_PROJECTS if names is not None and g.folder in names]
    return wheels + [fetch_git(g, sources.get(g.folder)) for g in GIT_PROJECTS
                     if names is None or g.folder in names] + jax


def parse_sources(items: list[str] | None) -> dict[str, str]:
    out = {}
    for item in items or []:
        folder, sep, value = item.partition("=")
        if not sep or folder not in {g.folder for g in GIT_PROJECTS + JAX_GIT_PROJECTS}:
            raise SystemExit(f"--source {item!r}: expected FOLDER=PATH_OR_URL with FOLDER one of "
                             + ", ".join(g.folder for g in GIT_PROJECTS + JAX_GIT_PROJECTS))
        out[folder] = value
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--projects", help="comma list of corpus folders (default: all)")
    ap.add_argument("--source", action="append", metavar="FOLDER=PATH_OR_URL",
                    help="where a git project's pinned commit is (a git directory or a URL)")
    args = ap.parse_args(argv)
    names = tuple(args.projects.split(",")) if args.projects else None
    for path in corpus(names, parse_sources(args.source)):
        files = sum(1 for _ in path.rglob("*.py")) + sum(1 for _ in path.rglob("*.ipynb"))
        lines = sum(len(p.read_bytes().splitlines()) for p in path.rglob("*.py"))
        print(f"{path.relative_to(HERE.parent)}: {files} files, {lines} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
