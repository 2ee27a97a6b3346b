"""What a unit of work reads (batch/settle/parts.py): row groups read one at a time where Arrow
cannot read several at once (a list of dictionary-encoded text cards)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
from conftest import cli

from cardbatch.batch.generate import generate_hands


def test_cards_as_dictionary_text_a_seat_in_several_row_groups_settle(tmp_path):
    """Found by a trial: Arrow cannot read a list of dictionary-encoded strings from several row groups
    at once, so such a file was exit 2 ("nested data conversions not implemented"), while the same
    table settled through the API; its row groups are now read one at a time."""
    t = generate_hands("holdem", 900, seed=4, bad_rate=0.05, text_cards=True).table
    cards = t.column("cards").combine_chunks()
    coded = pa.ListArray.from_arrays(cards.offsets, cards.values.dictionary_encode())
    pq.write_table(
        t.set_column(t.column_names.index("cards"), "cards", coded), tmp_path / "d.parquet", row_group_size=200
    )
    pq.write_table(t, tmp_path / "plain.parquet", row_group_size=200)
    for name in ("d", "plain"):
        done = cli("settle", tmp_path / f"{name}.parquet", "--out", tmp_path / f"o_{name}", "-q")
        assert done.returncode == 0, done.stderr
    got, want = (pq.read_table(tmp_path / f"o_{n}" / "results").sort_by("hand_id") for n in ("d", "plain"))
    assert got.num_rows > 800 and got.equals(want)
