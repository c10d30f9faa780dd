"""What reading the result cache costs: the checked JSON entries next to pickle, in one run.

Usage (from the repository root, after `.venv/bin/python bench/corpus.py`):

    .venv/bin/python bench/cache_codec.py [--corpus bench/.corpus/tf_models] [--files 400]

It analyses `--files` files of the corpus once (the facts a cold run caches), then times, on
the same facts, alternating, best of `--repeat`:

* pickle: `pickle.loads` of each file's facts (what the cache used to do, unsafe);
* JSON: `stagelint.pipeline.datacodec.loads` (parse + check every value against its type);
* a whole warm lookup: `Cache.get` of every entry (open, read, signature, parse, check),
  next to open + read + `pickle.loads` of the same facts pickled.

It prints the sizes and the ratios (JSON / pickle). A warm `stagelint check` spends most of
its time in these reads; `bench/speed.py` times whole runs.
"""

from __future__ import annotations

import argparse
import gc
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stagelint.pipeline import datacodec  # noqa: E402
from stagelint.pipeline.cache import Cache  # noqa: E402
from stagelint.config import Settings  # noqa: E402
from stagelint.analysis.facts import ModuleFacts  # noqa: E402
from stagelint.pipeline.workers import analyse_one  # noqa: E402


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        gc.enable()
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="bench/.corpus/tf_models")
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    corpus = Path(args.corpus).resolve()
    if not corpus.is_dir():
        sys.exit(f"{args.corpus}: no such folder; run `.venv/bin/python bench/corpus.py` first")
    paths = sorted(str(p) for p in corpus.rglob("*.py"))[: args.files]
    settings = Settings()
    facts = []
    for path in paths:
        outcome = analyse_one(path, settings, ())
        if outcome.status == "ok":
            facts.append(outcome.facts)
    pickled = [pickle.dumps(f, protocol=pickle.HIGHEST_PROTOCOL) for f in facts]
    encoded = [datacodec.dumps(f, ModuleFacts) for f in facts]
    assert all(datacodec.loads(e, ModuleFacts) == f for e, f in zip(encoded, facts))

    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(tmp)
        keys = [cache.key("bench", i) for i in range(len(facts))]
        for key, f in zip(keys, facts):
            cache.put("facts", key, f)
        pickle_dir = Path(tmp) / "pickles"
        pickle_dir.mkdir()
        for i, data in enumerate(pickled):
            (pickle_dir / str(i)).write_bytes(data)

        def pickle_loads():
            for data in pickled:
                pickle.loads(data)

        def json_loads():
            for data in encoded:
                datacodec.loads(data, ModuleFacts)

        def pickle_files():
            for i in range(len(pickled)):
                with open(os.path.join(pickle_dir, str(i)), "rb") as fh:
                    pickle.loads(fh.read())

        def cache_gets():
            for key in keys:
                assert cache.get("facts", key, ModuleFacts) is not None

        rows = []
        for _ in range(2):  # alternating rounds: the machine's load touches both alike
            rows.append((_best(pickle_loads, args.repeat), _best(json_loads, args.repeat),
                         _best(pickle_files, args.repeat), _best(cache_gets, args.repeat)))
    p_loads, j_loads, p_files, c_gets = (min(col) for col in zip(*rows))
    print(f"corpus: {corpus} ({len(facts)} files' facts)")
    print(f"sizes: pickle {sum(map(len, pickled)) / 1e6:.2f} MB, JSON {sum(map(len, encoded)) / 1e6:.2f} MB")
    print(f"decode only:  pickle {p_loads * 1e3:7.1f} ms   checked JSON {j_loads * 1e3:7.1f} ms   "
          f"ratio {j_loads / p_loads:.2f}x")
    print(f"whole lookup: pickle {p_files * 1e3:7.1f} ms   Cache.get    {c_gets * 1e3:7.1f} ms   "
          f"ratio {c_gets / p_files:.2f}x")
    print(f"per file:     pickle {p_files / len(facts) * 1e6:7.0f} us   Cache.get    "
          f"{c_gets / len(facts) * 1e6:7.0f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
