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
    for i in summary["inputs"]:
        assert i["path"] in body
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
