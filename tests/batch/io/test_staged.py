"""The staging folder of one-file outputs: parts whole or absent, reuse by the same plan only, and
nothing of the user's touched."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest

from cardbatch.batch.io import staged
from cardbatch.batch.io.errors import InputError

TABLE = pa.table({"x": pa.array([1, 2, 3], pa.int64()), "s": ["a", None, "c"]})


def _staging(tmp_path, plan=None) -> tuple[staged.Staging, frozenset[str]]:
    s = staged.Staging(str(tmp_path / "out.parquet"), "generate")
    return s, s.begin(plan or {"hands": 10})


def test_a_part_reads_back_equal_and_the_same_plan_reuses_it(tmp_path):
    s, reused = _staging(tmp_path)
    assert reused == frozenset() and s.folder == str(tmp_path / ".out.parquet.parts")
    staged.write_part(s.path(staged.part_name(0)), TABLE)
    staged.write_part(s.path(staged.part_name(1, "errors")), TABLE.slice(1))
    assert staged.read_part(s.path(staged.part_name(0))).equals(TABLE)
    again, reused = _staging(tmp_path)
    assert reused == {"part-000000.arrow", "part-000001.errors.arrow"}
    assert [t.num_rows for t in staged.parts_in_order(again, sorted(reused))] == [3, 2]


def test_another_plan_and_a_half_written_part_start_again(tmp_path):
    s, _ = _staging(tmp_path)
    staged.write_part(s.path(staged.part_name(0)), TABLE)
    half = s.path(staged.part_name(1)) + ".tmp"
    with open(half, "wb") as f:
        f.write(b"ARROW1 half")
    _, reused = _staging(tmp_path)
    assert reused == {"part-000000.arrow"} and not os.path.exists(half)  # the half part is gone, the whole one kept
    other, reused = _staging(tmp_path, {"hands": 11})
    assert reused == frozenset()
    assert not os.path.exists(s.path(staged.part_name(0)))  # the other plan's parts removed
    assert set(os.listdir(other.folder)) == {"plan.json", other.digest}


def test_finish_removes_only_its_own_files(tmp_path):
    s, _ = _staging(tmp_path)
    staged.write_part(s.path(staged.part_name(0)), TABLE)
    s.finish()
    assert os.listdir(tmp_path) == []
    s, _ = _staging(tmp_path)
    staged.write_part(s.path(staged.part_name(0)), TABLE)
    (tmp_path / ".out.parquet.parts" / "notes.txt").write_text("mine")
    s.finish()
    assert os.listdir(tmp_path / ".out.parquet.parts") == ["notes.txt"]  # the user's file stays, and its folder


@pytest.mark.parametrize("kind", ["folder", "file", "link"])
def test_a_folder_file_or_link_of_the_users_at_the_name_is_refused(tmp_path, kind):
    at = tmp_path / ".out.parquet.parts"
    if kind == "folder":
        at.mkdir()
        (at / "part-000000.arrow").write_text("the user's")
    elif kind == "file":
        at.write_text("the user's")
    else:
        (tmp_path / "elsewhere").mkdir()
        at.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(InputError, match="did not make it|symbolic link"):
        _staging(tmp_path)
    if kind == "folder":
        assert (at / "part-000000.arrow").read_text() == "the user's"
    elif kind == "link":
        assert os.listdir(tmp_path / "elsewhere") == []


def test_path_before_begin_is_a_bug():
    with pytest.raises(RuntimeError):
        staged.Staging("x.parquet", "generate").path("part-000000.arrow")


def test_a_part_cut_short_or_not_a_part_is_made_again(tmp_path):
    """From a trial: a truncated part made every rerun fail (exit 1)."""
    s, _ = _staging(tmp_path)
    staged.write_part(s.path(staged.part_name(0)), TABLE)
    staged.write_parquet_part(s.path(staged.part_name(1, ext="parquet")), TABLE)
    staged.write_parquet_part(s.path(staged.part_name(2, ext="parquet")), TABLE)
    os.truncate(s.path(staged.part_name(2, ext="parquet")), 20)
    with open(s.path(staged.part_name(3)), "wb") as f:
        f.write(b"not arrow")
    _, reused = _staging(tmp_path)
    assert reused == {"part-000000.arrow", "part-000001.parquet"}
    assert not os.path.exists(s.path(staged.part_name(2, ext="parquet")))


@pytest.mark.parametrize("name", [".a.parquet.parts", ".a.parquet.tmp", "stage/.h.parquet.parts/plan.json"])
def test_an_output_at_a_name_of_cardbatchs_own_form_is_refused(name, tmp_path):
    """From a trial: `--out .a.parquet.parts` was written, and every later run of `--out a.parquet`
    refused the folder it had itself made."""
    from conftest import cli

    res = cli("generate", "--hands", "5", "--out", str(tmp_path / name), "-q")
    assert res.returncode == 2 and "cardbatch's own" in res.stderr, res.stderr
    assert not list(tmp_path.iterdir())
