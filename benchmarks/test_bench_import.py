"""PHH import throughput (hands/s), against pokerkit's own loader on the same text in the same run.

The text is real-shaped: the Hold'em hands of ``tests/data/phh`` repeated
(``benchmarks/phh_corpus.py``). Ours: one unit of ``cardbatch import`` (read,
parse, replay, build the Arrow tables) in this process, and the whole job
(with the Parquet write) with 1 and 2 worker processes. pokerkit: its loader
(``HandHistory.loads_all``) alone, and with the replay of every hand's
states (what it needs to know the pots), one process.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import pytest

from cardbatch.batch.importer import ImportOptions, plan, run_import

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
    from cardbatch.batch.importer import import_unit

    _, units = plan([(str(p), p.name) for p in sorted(corpus.glob("*.phhs"))], 1)
    unit = units[0]
    n = import_unit(unit)[0].num_rows
    throughput(
        benchmark,
        "PHH import",
        "cardbatch import: parse + replay (1 process)",
        n,
        lambda: import_unit(unit),
        ours=True,
        rounds=5,
    )


@pytest.mark.parametrize("workers", [1, 2])
def test_import_job(benchmark, throughput, corpus, tmp_path, workers):
    out = str(tmp_path / "h.parquet")
    throughput(
        benchmark,
        "PHH import",
        f"cardbatch import, the job with its Parquet write ({workers} workers)",
        HANDS,
        lambda: run_import([str(corpus)], out, ImportOptions(workers=workers, quiet=True)),
        rounds=3,
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
