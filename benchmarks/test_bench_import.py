"""PHH import throughput (hands/s), against pokerkit's own loader on the same text in the same run.

The text is real-shaped: the Hold'em hands of ``tests/data/phh`` repeated
(``benchmarks/phh_corpus.py``). Ours: one unit of ``cardbatch import`` (read,
parse, replay, build the Arrow tables) in this process, and the whole job
(with the Parquet write) with 1 and 2 worker processes. pokerkit: its loader
(``HandHistory.loads_all``) alone, and with the replay of every hand's
states (what it needs to know the pots), one process.

The shape most corpora come in has a group of its own: one hand per ``.phh``
file (Pluribus, WSOP, most exports), the whole ``cardbatch import`` command
with one worker, start-up included (a fresh process), against pokerkit's
``HandHistory.load`` of the same files, one by one.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import pytest

from cardbatch.batch.io.jobs import RunOptions
from cardbatch.batch.phh.job import ImportOptions, plan, run_import

sys.path.insert(0, str(Path(__file__).resolve().parent))
from phh_corpus import write_corpus  # noqa: E402

HANDS = int(os.environ.get("CARDBATCH_BENCH_PHH_HANDS", 20_000))
FILES = 4
PEER_HANDS = min(HANDS // FILES, 2_000)  # from one file; pokerkit takes about a second per thousand


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("phh")
    write_corpus(HANDS, FILES, str(folder))
    return folder


def test_import_unit(benchmark, throughput, corpus):
    from cardbatch.batch.phh.job import import_units

    _, units = plan([(str(p), p.name) for p in sorted(corpus.glob("*.phhs"))], 1)
    unit = units[0]
    n = import_units((unit,))[0].num_rows
    throughput(
        benchmark,
        "PHH import",
        "cardbatch import: parse + replay (1 process)",
        n,
        lambda: import_units((unit,)),
        ours=True,
        rounds=3,
    )


ONE_HAND_FILES = int(os.environ.get("CARDBATCH_BENCH_PHH_FILES", 10_000))
ONE_HAND = "PHH import, one hand per file"


@pytest.fixture(scope="module")
def one_hand_files(tmp_path_factory):
    """The sample hands one per ``.phh`` file, Pluribus-heavy like the real corpora (13 Pluribus
    hands for every 5 WSOP ones, as the samples hold them)."""
    from phh_corpus import sample_hands

    folder = tmp_path_factory.mktemp("phh1")
    texts = sample_hands()
    for k in range(ONE_HAND_FILES):
        (folder / f"{k:05d}.phh").write_text(texts[k % len(texts)], encoding="utf-8")
    return folder


def test_import_one_hand_files(benchmark, throughput, one_hand_files, tmp_path):
    import subprocess

    import pyarrow.parquet as pq

    out = tmp_path / "h.parquet"
    cmd = [sys.executable, "-m", "cardbatch", "import", str(one_hand_files), "--out", str(out), "--workers", "1", "-q"]
    throughput(
        benchmark,
        ONE_HAND,
        "cardbatch import (the command, 1 worker, start-up included)",
        ONE_HAND_FILES,
        lambda: subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL),
        ours=True,
        rounds=3,
    )
    meta = pq.ParquetFile(out).metadata
    print(f"\n{ONE_HAND}: {meta.num_rows:,} hands in {meta.num_row_groups} row group(s)")


@pytest.mark.peer
def test_pokerkit_one_hand_files(benchmark, throughput, one_hand_files):
    pokerkit = pytest.importorskip("pokerkit")
    files = sorted(one_hand_files.glob("*.phh"))[: min(ONE_HAND_FILES, 2_000)]

    def load():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for path in files:
                with open(path, "rb") as f:
                    hh = pokerkit.HandHistory.load(f)
                for _ in hh:
                    pass

    from importlib.metadata import version

    name = f"pokerkit {version('pokerkit')} load + replay, file by file (1 process)"
    throughput(benchmark, ONE_HAND, name, len(files), load, rounds=3)


@pytest.mark.parametrize("workers", [1, 2])
def test_import_job(benchmark, throughput, corpus, tmp_path, workers):
    """One worker in the group (one core, as pokerkit's loader); two in the scaling table."""
    out = str(tmp_path / "h.parquet")
    throughput(
        benchmark,
        "PHH import" if workers == 1 else None,
        f"cardbatch import, the job with its Parquet write ({workers} workers)",
        HANDS,
        lambda: run_import([str(corpus)], out, ImportOptions(run=RunOptions(workers=workers, quiet=True))),
        threads=workers,
        rounds=3,
        scaling="cardbatch import, the job (worker processes)",
    )


@pytest.mark.peer
@pytest.mark.parametrize("replay", [False, True])
def test_pokerkit_loader(benchmark, throughput, corpus, replay):
    pokerkit = pytest.importorskip("pokerkit")
    text = (corpus / "part-0000.phhs").read_text()
    cut = text.find(f"[{PEER_HANDS + 1}]\n")
    text = text if cut < 0 else text[:cut]

    def load():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for hh in pokerkit.HandHistory.loads_all(text):
                if replay:
                    for _ in hh:
                        pass

    what = "loads_all and the replay of each hand's states" if replay else "loads_all (parse only)"
    from importlib.metadata import version

    name = f"pokerkit {version('pokerkit')} {what} (1 process)"
    throughput(benchmark, "PHH import", name, PEER_HANDS, load, rounds=3)
