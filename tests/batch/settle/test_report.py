"""``DIR/report.html``: the numbers it shows are the run's, checked against slow references over the
output folders, and the page loads in a real headless Chromium with no console error and no request."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT, SAMPLES, cli

from cardbatch.batch.settle import report


def _with_recorded_errors(src: Path, dst: Path, seed: int = 7) -> None:
    """The sample with recorded payouts moved between seats by varied amounts (1 to 10**5 chips),
    so the mismatches have sizes in several decades and fall on several seats."""
    t = pq.read_table(src)
    pay = t.column("payout").combine_chunks()
    values = pay.values.to_numpy().copy()
    offsets = pay.offsets.to_numpy()
    rng = np.random.default_rng(seed)
    for row in rng.choice(len(pay), 60, replace=False):
        lo, hi = offsets[row], offsets[row + 1]
        if hi - lo < 2 or not pay[int(row)].is_valid:
            continue
        a, b = rng.choice(np.arange(lo, hi), 2, replace=False)
        amount = int(10 ** rng.integers(0, 6))
        values[a] += amount
        values[b] -= amount  # chips stay conserved: the mismatch is who, not how much
    fixed = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(values), mask=pay.is_null())
    pq.write_table(t.set_column(t.schema.get_field_index("payout"), "payout", fixed), dst, row_group_size=1000)


def _audit(inputs: list[str], out: Path) -> tuple[int, dict]:
    proc = cli("audit", *inputs, "--out", str(out), "--workers", "2", "-q")
    assert proc.returncode in (0, 3), proc.stderr
    return proc.returncode, json.loads((out / "summary.json").read_text())


@pytest.fixture(scope="module")
def audited(tmp_path_factory) -> tuple[Path, dict]:
    tmp = tmp_path_factory.mktemp("report")
    _with_recorded_errors(ROOT / "data" / "holdem_sample.parquet", tmp / "holdem_moved.parquet")
    inputs = [str(tmp / "holdem_moved.parquet"), *SAMPLES]
    code, summary = _audit(inputs, tmp / "out")
    assert code == 3 and summary["mismatches"] > 41
    return tmp / "out", summary


def _results(out: Path) -> list[dict]:
    rows = []
    for part in sorted((out / "results").rglob("*.parquet")):
        game = part.parent.name.split("=", 1)[1]
        for r in pq.read_table(part).to_pylist():
            rows.append({**r, "game": game})
    return rows


def test_mismatch_breakdown_is_the_slow_count(audited):
    out, summary = audited
    sizes, seats = [], {}  # (hand_id, size): the moved copy shares hand ids with the sample
    for r in _results(out):
        if not r["mismatch"]:
            continue
        ours = r["payout"] if r["payout"] is not None else r["delta"]
        theirs = r["recorded_payout"] if r["recorded_payout"] is not None else r["recorded_delta"]
        n = max(len(ours), len(theirs))
        a = [x or 0 for x in ours] + [0] * (n - len(ours))
        b = [x or 0 for x in theirs] + [0] * (n - len(theirs))
        sizes.append((r["hand_id"], sum(abs(x - y) for x, y in zip(a, b))))
        for seat in range(n):
            if a[seat] != b[seat]:
                seats[seat] = seats.get(seat, 0) + 1
    assert len(sizes) == summary["mismatches"]
    got = report.mismatch_breakdown(str(out), _parts(out))
    assert dict(got["by_seat"]) == {f"seat {k}": v for k, v in seats.items()}
    assert sum(c for _, c in got["by_size"]) == len(sizes)
    assert len(got["by_size"]) >= 4, "the moved amounts span several decades"
    for label, count in got["by_size"]:
        lo, hi = (int(x.replace(",", "")) for x in label.split(" ")[0].split("-"))
        assert count == sum(lo <= s <= hi for _, s in sizes), label
    expected = sorted(sizes, key=lambda hs: (-hs[1], hs[0]))[: report.LARGEST]
    assert [(r["hand_id"], r["size"]) for r in got["largest"]] == expected


def test_reject_examples_are_rows_of_errors_with_that_reason(audited):
    out, summary = audited
    found = report.reject_examples(str(out), summary, _parts(out))
    assert set(found) == set(summary["rejected_by_reason"])
    errors = {}
    for part in (out / "errors").rglob("*.parquet"):
        t = pq.read_table(part, columns=["hand_id", "reason", "message"])
        for h, reason, message in zip(*(t.column(c).to_pylist() for c in t.column_names)):
            errors[h, reason] = message
    for reason, rows in found.items():
        assert 1 <= len(rows) <= report.EXAMPLES
        assert len(rows) == min(report.EXAMPLES, summary["rejected_by_reason"][reason])
        for x in rows:
            assert errors[x["hand_id"], reason] == x["message"]


def test_summary_splits_add_up_to_the_totals(audited):
    _, summary = audited
    for key in ("rows_settled", "rows_rejected", "mismatches", "chips_in", "chips_paid"):
        assert sum(i[key] for i in summary["inputs"]) == summary[key], key
    assert all(i["rows"] == i["rows_settled"] + i["rows_rejected"] for i in summary["inputs"])
    parts = summary["timings"]["parts"]
    assert len(parts) == summary["parts"] and all(p["seconds"] > 0 for p in parts)


def test_the_page_escapes_what_came_from_the_input():
    summary = {
        "rows_read": 1,
        "rows_rejected": 1,
        "rejected_by_reason": {"malformed": 1},
        "inputs": [{"path": "/data/<b>bold</b>.parquet", "rows": 1}],
    }
    examples = {"malformed": [{"hand_id": 5, "game": "holdem", "message": "<script>alert(1)</script>"}]}
    page = report.render(summary, examples, None)
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>bold</b>" not in page


def test_a_clean_run_says_so(tmp_path):
    _, summary = _audit([str(ROOT / "data" / "zjh_sample.parquet")], tmp_path / "out")
    page = (tmp_path / "out" / "report.html").read_text()
    assert summary["mismatches"] == 0 and "Every recorded payout matched" in page
    assert summary["report"].endswith("report.html")


def _browser():
    """Playwright's sync API and a system Chromium, or a skip that says which is missing."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright; it is in the test extras)")
    exe = os.environ.get("CARDBATCH_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        pytest.skip("no Chromium on this machine (Debian: apt-get install chromium; .ci/run installs it)")
    return sync_playwright, exe


BROWSER_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.mark.slow  # a real browser
def test_the_report_loads_in_chromium_and_shows_the_runs_numbers(audited, tmp_path):
    out, summary = audited
    sync_playwright, exe = _browser()
    page_url = (out / "report.html").as_uri()
    console, errors, requests = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=BROWSER_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda m: console.append((m.type, m.text)))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(page_url, wait_until="load")
            totals = page.inner_text("#totals")
            body = page.inner_text("body")
            svgs = page.query_selector_all("svg")
            boxes = [s.bounding_box() for s in svgs]
            page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        finally:
            browser.close()
    assert not errors and not [m for m in console if m[0] in ("error", "warning")], (errors, console)
    assert requests == [page_url], "the page is self-contained: it asks for nothing else"
    for key in ("rows_read", "rows_settled", "rows_rejected", "mismatches", "chips_in", "chips_paid"):
        assert f"{summary[key]:,}" in totals, key
    for reason, count in summary["rejected_by_reason"].items():
        assert reason in body and f"{count:,} rows" in body
    root = os.path.commonpath([i["path"] for i in summary["inputs"]])
    for i in summary["inputs"]:  # shown from the inputs' common folder (the whole path when that is /)
        assert (i["path"] if root == os.sep else os.path.relpath(i["path"], root)) in body
    assert len(svgs) >= 4 and all(b and b["width"] > 100 and b["height"] > 10 for b in boxes)
    assert (tmp_path / "report.png").stat().st_size > 10_000


def test_a_report_that_cannot_be_built_does_not_cost_the_run(tmp_path):
    """An errors part the report cannot read (the settle wrote it; damage came later) leaves the run's
    results and summary whole, and the summary says why there is no page."""
    out = tmp_path / "out"
    _, first = _audit([str(ROOT / "data" / "zjh_sample.parquet")], out)
    part = next((out / "errors").rglob("*.parquet"))
    part.write_bytes(b"x" * part.stat().st_size)  # damaged, at the size it was written (so it is reused)
    (out / "summary.json").unlink()
    code, again = _audit([str(ROOT / "data" / "zjh_sample.parquet")], out)  # every part reused
    assert code == 0 and again["report"] is None and again["report_error"]
    assert {k: again[k] for k in ("rows_settled", "rows_rejected", "chips_in")} == {
        k: first[k] for k in ("rows_settled", "rows_rejected", "chips_in")
    }


def test_sizes_take_nulls_other_widths_and_int64s_limit_exactly():
    """The size of a mismatch, chips that differ summed over seats, against plain Python ints: null
    elements and cells count as 0, a seat missing on one side counts whole, unsigned widths read by
    value, and differences beyond int64 stay exact."""
    big = 2**63 - 1
    ours = [[5, 0, 7], [None, 3], None, [big, 0], [1, 2, 3, 4], [0, 0]]
    theirs = [[4, 1, 7], [2, 3], [6], [0, big], [1, 2], [0, 0]]
    for typ in (pa.int64(), pa.uint64()):
        seats = {}
        got = report.mismatch_sizes(
            pa.chunked_array([pa.array(ours, pa.list_(typ))]), pa.chunked_array([pa.array(theirs)]), seats
        )
        want, want_seats = [], {}
        for a, b in zip(ours, theirs):
            a, b = [x or 0 for x in a or []], [x or 0 for x in b or []]
            n = max(len(a), len(b))
            a, b = a + [0] * (n - len(a)), b + [0] * (n - len(b))
            want.append(sum(abs(x - y) for x, y in zip(a, b)))
            for seat in range(n):
                if a[seat] != b[seat]:
                    want_seats[seat] = want_seats.get(seat, 0) + 1
        assert [int(x) for x in got] == want and want[3] == 2 * big
        assert seats == want_seats
    assert report.size_decades(np.array(want, dtype=object))[0] == ("0 chips (a null, or the seats differ in count)", 1)


def test_a_rerun_after_the_input_changed_reports_the_new_run(tmp_path):
    """Same output folder, a changed input: the page and the breakdown are the new run's, nothing of
    the old one stays (its parts are not reused; see test_reruns)."""
    src = tmp_path / "h.parquet"
    shutil.copy(ROOT / "data" / "holdem_sample.parquet", src)
    out = tmp_path / "out"
    _, first = _audit([str(src)], out)
    _with_recorded_errors(ROOT / "data" / "holdem_sample.parquet", src, seed=11)
    _, again = _audit([str(src)], out)
    assert again["mismatches"] > first["mismatches"] and again["parts_reused"] == 0
    page = (out / "report.html").read_text()
    assert f"Mismatches ({again['mismatches']:,} hands)" in page
    assert f"Mismatches ({first['mismatches']:,} hands)" not in page
    got = report.mismatch_breakdown(str(out), _parts(out))
    assert sum(c for _, c in got["by_size"]) == again["mismatches"]


def _parts(out) -> set[str]:
    """The files the folder's manifest says its parts wrote (all the report reads)."""
    import json
    from pathlib import Path

    written = json.loads((Path(out) / "_manifest.json").read_text())["written"]
    return {f for files in written.values() for f in files}


# Issue #42, rows 7 and 14: a page someone who is not the author can act on.


def _section(page: str, title: str) -> str:
    """The page from the heading ``title`` to the next ``<h2>``."""
    start = page.index(f"<h2>{title}")
    end = page.find("<h2>", start + 4)
    return page[start : end if end > 0 else len(page)]


@pytest.fixture(scope="module")
def by_day(tmp_path_factory) -> tuple[Path, dict, Path]:
    """Logs in day=D folders: one file a day for two days (one with moved payouts: mismatches), and a
    third day of four small files, which the run reads together as one part."""
    tmp = tmp_path_factory.mktemp("by_day")
    logs = tmp / "logs"
    for day in ("2026-12-01", "2026-12-02", "2026-12-03"):
        (logs / f"day={day}").mkdir(parents=True)
    _with_recorded_errors(ROOT / "data" / "holdem_sample.parquet", logs / "day=2026-12-01" / "h.parquet")
    t = pq.read_table(ROOT / "data" / "holdem_sample.parquet")
    pq.write_table(t.slice(0, 1500), logs / "day=2026-12-02" / "h.parquet")
    for k in range(4):
        pq.write_table(t.slice(1500 + 200 * k, 200), logs / "day=2026-12-03" / f"f{k}.parquet")
    code, summary = _audit([str(logs)], tmp / "out")
    assert code == 3 and len(summary["timings"]["parts"]) == 3, summary["timings"]["parts"]
    return tmp / "out", summary, logs


def _hands_of(path: Path) -> set[int]:
    return set(pq.read_table(path, columns=["hand_id"]).column(0).to_pylist())


def test_examples_and_mismatches_name_their_input_file_and_folders(by_day):
    """Row 7: an example or mismatch row named a hand by id and game only; it now names its input,
    relative to the inputs' root with its name=value folders, and the file holds that hand (a part
    of several small files names them all, the row's file among them)."""
    import re

    out, summary, logs = by_day
    page = (out / "report.html").read_text()
    rejects = _section(page, "Rejected rows by reason")
    found = re.findall(r"hand (\d+) \(holdem, ([^)]*)\)", rejects)
    assert len(found) == sum(min(report.EXAMPLES, n) for n in summary["rejected_by_reason"].values())
    mismatches = _section(page, "Mismatches")
    rows = re.findall(r"<tr><td>(\d+)</td><td>holdem</td><td>([^<]*)</td>", mismatches)
    assert len(rows) == report.LARGEST
    grouped = "day=2026-12-03/, one of f0.parquet, f1.parquet, f2.parquet, f3.parquet"
    for hand, where in found + rows:
        if where.startswith("day=2026-12-03/"):
            assert where == grouped
            assert any(int(hand) in _hands_of(logs / "day=2026-12-03" / f"f{k}.parquet") for k in range(4))
        else:
            assert re.fullmatch(r"day=2026-12-0[12]/h\.parquet", where), where
            assert int(hand) in _hands_of(logs / where)
    assert ("<i>one of</i>" in rejects) == any(w == grouped for _, w in found)
    assert f"inputs below <code>{logs}/</code>" in page
    sources = report.part_sources(str(out), _parts(out))  # which examples a run shows depends on part names
    src = report.Sources(summary, sources)
    assert sorted(src.of_part(p) for p in sources["parts"]) == [
        "day=2026-12-01/h.parquet",
        "day=2026-12-02/h.parquet",
        grouped,
    ]


def test_the_timing_chart_names_every_file_of_a_grouped_part(by_day):
    """Row 14: the part-timing chart named a part of several small files by its first file only."""
    out, _, _ = by_day
    timing = _section((out / "report.html").read_text(), "How long each part took")
    for k in range(4):
        assert f"f{k}.parquet" in timing, k
    assert "day=2026-12-03/f0.parquet and 3 more files" in timing
    assert "day=2026-12-01/h.parquet, row group 0" in timing and "day=2026-12-02/h.parquet" in timing


def test_2v2_chips_read_the_same_by_game_and_by_input(audited):
    """Row 14: a 2v2 table's chips were blank in 'By game' and 0 in 'By input'; both now say it
    counts coins, not chips."""
    import re

    out, summary = audited
    page = (out / "report.html").read_text()
    game_row = re.search(r"<tr><td>team2v2</td>(.*?)</tr>", _section(page, "By game")).group(1)
    input_row = re.search(r"<tr><td>[^<]*/team2v2_sample\.parquet</td>(.*?)</tr>", _section(page, "By input")).group(1)
    cells = [re.findall(r"<td class='n'>([^<]*)</td>", row) for row in (game_row, input_row)]
    assert cells[0][4:7] == cells[1][4:7] == ["—"] * 3  # chips in, paid, raked
    assert cells[0][7:] == [f"{summary['coins_moved']:,}", f"{summary['coins_fee']:,}"]
    holdem = re.search(r"<tr><td>holdem</td>(.*?)</tr>", _section(page, "By game")).group(1)
    assert f"{summary['by_game']['holdem']['chips_in']:,}" in holdem


def test_numbers_are_written_one_way():
    """Row 14: '-1,000' stood beside '4129.5' (floats were written as Python prints them)."""
    summary = {
        "equity": {
            "all_in": 3,
            "rows": 10,
            "by_player": {
                "7": {"hands": 1200, "net": -1000, "ev_net": -5129.5},
                "8": {"hands": 3, "net": 12345, "ev_net": 11000.25},
            },
        },
        "timings": {"parts": [{"part": "p", "path": "/d/h.parquet", "seconds": 1234.5, "first_row_group": 0}]},
    }
    from cardbatch.batch.settle.equity.report import section  # the --equity section, the run adds it

    page = report.render(summary, {}, None, None, [section(summary)])
    assert "4129.5" not in page and "4,129.5" in page and "-1,000" in page and "1,344.8" in page
    assert "1,200" in page and "1,234.500 s" in page and "median 1,234.500 s" in page
    assert "4,129.500" not in page, "chips: one decimal in the chart as in the table"


def test_charts_are_sized_to_the_page():
    svg = report.bars([("a", 1), ("b", 2)], "rows", "t")
    assert "width='100%'" in svg and "viewBox='0 0 1000" in svg


def test_paths_are_shown_from_the_inputs_root_with_their_folders():
    assert report.input_root(["/d/day=1/a.parquet", "/d/day=2/b.parquet"]) == "/d/"
    assert report.input_root(["/d/day=1/room=x/a.parquet"]) == "/d/"
    assert report.input_root(["/d/x/a.parquet", "/d/y/b.parquet"]) == "/d/"
    assert report.shown_path("/d/day=1/a.parquet", "/d/") == "day=1/a.parquet"
    assert report.input_root(["/a/x.parquet", "/b/y.parquet"]) == "", "/ is no root a reader knows"


def test_a_users_parquet_in_results_does_not_break_the_report(tmp_path):
    """Row 2: the report read every Parquet file under results/, and a user's exited 1."""
    sample = str(ROOT / "data" / "holdem_sample.parquet")
    out = tmp_path / "out"
    notes = out / "results" / "game=holdem" / "my_notes.parquet"
    notes.parent.mkdir(parents=True)
    pq.write_table(pa.table({"note": ["keep me"]}), notes)
    content = notes.read_bytes()
    for _ in range(2):
        done = cli("audit", sample, "--out", str(out), "--workers", "1")
        assert done.returncode == 3, done.stderr
        summary = json.loads((out / "summary.json").read_text())
        assert summary["mismatches"] > 0 and summary["report"].endswith("report.html")
        assert (out / "_SUCCESS").exists() and notes.read_bytes() == content
        assert summary["not_ours"] == [str(notes)]
