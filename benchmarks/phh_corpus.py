"""A real-shaped PHH corpus for the import benchmarks: the Hold'em hands of ``tests/data/phh``
(13 Pluribus hands, 5 WSOP final-table hands) repeated into ``.phhs`` files.

    python benchmarks/phh_corpus.py --hands 1000000 --files 50 --out /tmp/phh-corpus
"""

from __future__ import annotations

import argparse
import glob
import os

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "phh")


def sample_hands() -> list[str]:
    texts = [open(p, encoding="utf-8").read() for p in sorted(glob.glob(os.path.join(SAMPLE, "*", "*.phh")))]
    return [t for t in texts if "variant = 'NT'" in t or "variant = 'FT'" in t]


def write_corpus(hands: int, files: int, out: str) -> list[str]:
    """``files`` .phhs files holding ``hands`` hands in all; returns their paths."""
    os.makedirs(out, exist_ok=True)
    texts = sample_hands()
    paths, k = [], 0
    for f in range(files):
        n = hands // files + (f < hands % files)
        path = os.path.join(out, f"part-{f:04d}.phhs")
        with open(path, "w", encoding="utf-8") as fh:
            for i in range(n):
                fh.write(f"[{i + 1}]\n{texts[k % len(texts)]}\n\n")
                k += 1
        paths.append(path)
    return paths


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    write_corpus(a.hands, a.files, a.out)
