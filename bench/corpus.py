"""Fetch the pinned real-world corpus that the speed and accuracy benchmarks read.

    python bench/corpus.py            # -> bench/.corpus/<project>/... (ignored by git)

Each project is a pinned wheel from PyPI (`pip download --no-deps`), so the corpus is the same
everywhere; only its Python files are extracted. Nothing of it is committed. Running it again
reuses what is already there.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".corpus"

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


def corpus(names: tuple[str, ...] | None = None) -> list[Path]:
    return [fetch(*p) for p in PROJECTS if names is None or p[2] in names]


def main() -> int:
    for path in corpus():
        files = sum(1 for _ in path.rglob("*.py"))
        lines = sum(len(p.read_bytes().splitlines()) for p in path.rglob("*.py"))
        print(f"{path.relative_to(HERE.parent)}: {files} files, {lines} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
