"""The output folder's manifest (batch/settle/manifest.py): what a run may write, reuse or remove. A
user's files of any name (named like our parts, our summary or our folders) and links into and out of
``--out`` are never followed, replaced or removed; a finished part is reused only when its files are
whole and the manifest made its record. Each test failed on the code before the fix it names."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import DATA, cli

SAMPLE = str(DATA / "holdem_sample.parquet")


def _tree(folder: Path) -> dict[str, bytes | str]:
    """Every file (content) and link (target) below ``folder``, never through a link."""
    out: dict[str, bytes | str] = {}
    for here, dirs, names in os.walk(folder):
        for name in dirs + names:
            p = Path(here) / name
            if p.is_symlink():
                out[str(p.relative_to(folder))] = "-> " + os.readlink(p)
            elif p.is_file():
                out[str(p.relative_to(folder))] = p.read_bytes()
    return out


def _archive(tmp_path: Path) -> tuple[Path, dict[str, bytes | str]]:
    """Another run's output folder, outside ``--out``: part files named as this run's will be."""
    archive = tmp_path / "archive"
    assert cli("settle", SAMPLE, "--out", str(archive), "--workers", "1").returncode == 0
    return archive, _tree(archive)


@pytest.mark.parametrize("mode", ["resume", "overwrite"])
def test_links_in_the_output_are_never_followed(tmp_path, mode):
    """Row 4: a link to an archive inside --out was followed and its part files deleted."""
    archive, before = _archive(tmp_path)
    out = tmp_path / "out"
    (out / "results").mkdir(parents=True)
    (out / "results" / "game=holdem_monday").symlink_to(archive / "results" / "game=holdem")
    (out / "errors").mkdir()
    (out / "errors" / "old.parquet").symlink_to(next((archive / "errors" / "game=holdem").glob("part-*.parquet")))
    for _ in range(2):
        done = cli("audit", SAMPLE, "--out", str(out), "--mode", mode, "--workers", "1")
        assert done.returncode == 3, done.stderr
        assert _tree(archive) == before
        summary = json.loads(done.stdout)
        assert sorted(summary["not_ours"]) == sorted(
            [str(out / "errors" / "old.parquet"), str(out / "results" / "game=holdem_monday")]
        )
        assert (out / "_SUCCESS").exists()


def test_a_link_where_cardbatch_writes_is_refused_before_anything_changes(tmp_path):
    """Row 4: ``results/game=holdem`` pointing at another run's folder had its parts replaced."""
    archive, before = _archive(tmp_path)
    out = tmp_path / "out"
    (out / "results").mkdir(parents=True)
    (out / "results" / "game=holdem").symlink_to(archive / "results" / "game=holdem")
    mine = _tree(out)
    done = cli("settle", SAMPLE, "--out", str(out), "--mode", "overwrite")
    assert done.returncode == 2 and "symbolic link" in done.stderr and "results/game=holdem" in done.stderr
    assert _tree(archive) == before and _tree(out) == mine


def test_a_part_like_name_in_a_folder_without_a_manifest_is_the_users(tmp_path):
    """Row 3: output "from before manifests" was recognised by name, so a user's file named like a part
    was deleted."""
    out = tmp_path / "out"
    theirs = out / "results" / "game=holdem" / "part-aaaaaaaaaaaa-00000.parquet"
    json_like = out / "_parts" / "part-bbbbbbbbbbbb-00000.json"
    for p in (theirs, json_like):
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("the user's")
    done = cli("settle", SAMPLE, "--out", str(out), "--mode", "overwrite", "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert theirs.read_text() == json_like.read_text() == "the user's"
    assert sorted(json.loads(done.stdout)["not_ours"]) == sorted([str(json_like), str(theirs)])


def test_a_users_file_where_a_part_of_this_run_goes_is_refused(tmp_path):
    """A copy of another run's part, under the very name this run writes, is the user's: the run
    refuses (exit 2) instead of replacing it."""
    archive, _ = _archive(tmp_path)
    out = tmp_path / "out"
    part = next((archive / "results" / "game=holdem").glob("part-*.parquet"))
    mine = out / "results" / "game=holdem" / part.name
    mine.parent.mkdir(parents=True)
    mine.write_text("the user's copy")
    done = cli("settle", SAMPLE, "--out", str(out), "--workers", "1")
    assert done.returncode == 2 and "is not a file cardbatch wrote" in done.stderr and part.name in done.stderr
    assert mine.read_text() == "the user's copy" and not (out / "summary.json").exists()


@pytest.mark.parametrize("mode", ["resume", "overwrite"])
def test_files_named_like_a_part_where_that_part_did_not_write_are_the_users(tmp_path, mode):
    """Found by a trial: a file named like one of the run's parts in a game folder that part never
    wrote, a JSON in results/ or a Parquet file in _parts/ was taken for cardbatch's and deleted."""
    zjh = str(DATA / "zjh_sample.parquet")
    out = tmp_path / "out"
    assert cli("settle", zjh, "--out", str(out), "--workers", "1").returncode == 0
    name = next((out / "_parts").glob("part-*.json")).stem
    theirs = [
        out / "results" / "game=holdem" / f"{name}.parquet",  # a game this zjh run never writes
        out / "results" / "game=zjh" / f"{name}.json",
        out / "errors" / "game=unknown" / f"{name}.parquet",
        out / "_parts" / f"{name}.parquet",
        out / "results" / "game=teamx" / f"{name}.parquet",
    ]
    for p in theirs:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"the user's {p.name}")
    os.utime(zjh)  # and the input looks changed: every part is settled again
    for _ in range(2):
        done = cli("settle", zjh, "--out", str(out), "--workers", "1", "--mode", mode)
        assert done.returncode == 0, done.stderr
        assert all(p.read_text() == f"the user's {p.name}" for p in theirs)
        assert sorted(json.loads(done.stdout)["not_ours"]) == sorted(str(p) for p in theirs)


def test_a_users_summary_in_a_new_folder_is_refused(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("mine")
    done = cli("settle", SAMPLE, "--out", str(out))
    assert done.returncode == 2 and "summary.json" in done.stderr
    assert (out / "summary.json").read_text() == "mine"


@pytest.mark.parametrize("name", ["results", "errors", "_parts"])
def test_a_users_file_where_cardbatch_writes_a_folder_is_refused_in_our_words(tmp_path, name):
    """From an independent trial: the refusal was the filesystem's ("[Errno 17] ... non-directory
    entry exists"), and a file named _parts left empty results/ and errors/ behind."""
    out = tmp_path / "out"
    out.mkdir()
    (out / name).write_text("mine")
    done = cli("settle", SAMPLE, "--out", str(out))
    assert done.returncode == 2 and f"{name} is not a folder, and cardbatch writes a folder there" in done.stderr
    assert [p.name for p in out.iterdir()] == [name] and (out / name).read_text() == "mine"


def test_a_folder_where_a_top_file_goes_is_refused_before_anything_is_made(tmp_path):
    """Found by a trial: a folder named summary.json was refused only after .lock, results/,
    errors/ and _parts/ were made."""
    out = tmp_path / "out"
    (out / "summary.json").mkdir(parents=True)
    done = cli("settle", SAMPLE, "--out", str(out), "--workers", "1")
    assert done.returncode == 2 and "summary.json" in done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["summary.json"]


def _fresh_parts(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.glob("*/game=*/part-*.parquet"))}


@pytest.mark.parametrize("damage", ["delete_results", "delete_errors", "truncate", "link"])
def test_a_finished_part_whose_files_are_not_whole_is_settled_again(tmp_path, damage):
    """Found by a second trial: a rerun reused a finished part whose file was deleted, truncated or
    replaced by a link, and wrote _SUCCESS over output that was not there."""
    zjh = str(DATA / "zjh_sample.parquet")
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    assert cli("settle", zjh, "--out", str(fresh), "--workers", "1").returncode == 0
    assert cli("settle", zjh, "--out", str(out), "--workers", "1").returncode == 0
    kind = "errors" if damage == "delete_errors" else "results"
    part = next((out / kind / "game=zjh").glob("part-*.parquet"))
    if damage.startswith("delete"):
        part.unlink()
    elif damage == "truncate":
        part.write_bytes(part.read_bytes()[:100])
    else:
        part.unlink()
        part.symlink_to(tmp_path / "elsewhere.parquet")
    done = cli("settle", zjh, "--out", str(out), "--workers", "1")
    if damage == "link":  # a link where the part goes: left alone, and this run cannot write there
        assert done.returncode == 2 and "is not a file cardbatch wrote" in done.stderr
        assert part.is_symlink() and not (out / "_SUCCESS").exists()
        return
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["parts_reused"] == 0
    assert _fresh_parts(out) == _fresh_parts(fresh) and (out / "report.html").exists()


def test_a_record_in_parts_is_reused_only_when_the_manifest_made_it(tmp_path):
    """Found by a second trial: a part record copied into _parts/ of a folder with no manifest was
    trusted, so the input was never settled (exit 0, _SUCCESS, no results)."""
    zjh = str(DATA / "zjh_sample.parquet")
    ref = tmp_path / "ref"
    assert cli("settle", zjh, "--out", str(ref), "--workers", "1").returncode == 0
    out = tmp_path / "out"
    (out / "_parts").mkdir(parents=True)
    record = next((ref / "_parts").glob("part-*.json"))
    (out / "_parts" / record.name).write_bytes(record.read_bytes())
    done = cli("settle", zjh, "--out", str(out), "--workers", "1")
    assert done.returncode == 2 and "is not a file cardbatch wrote" in done.stderr
    assert (out / "_parts" / record.name).read_bytes() == record.read_bytes()


def test_a_users_file_a_refused_run_found_stays_the_users(tmp_path):
    """Found by a second trial: a run refused for a user's file where its part goes wrote a manifest
    listing that part, and the next run took the file for its own and replaced it."""
    zjh = str(DATA / "zjh_sample.parquet")
    ref = tmp_path / "ref"
    assert cli("settle", zjh, "--out", str(ref), "--workers", "1").returncode == 0
    name = next((ref / "results" / "game=zjh").glob("part-*.parquet")).name
    out = tmp_path / "out"
    mine = out / "results" / "game=zjh" / name
    mine.parent.mkdir(parents=True)
    mine.write_text("MY DATA")
    for mode in ("resume", "resume", "overwrite"):
        done = cli("settle", zjh, "--out", str(out), "--workers", "1", "--mode", mode)
        assert done.returncode == 2 and mine.read_text() == "MY DATA", done.stderr
