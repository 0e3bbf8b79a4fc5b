"""Large runs read lean: `ReportRows.read` (one pass over rows.jsonl, texts clipped) gives the same pages as
the rows held whole, the run list counts a run's rows once, and a run's page never waits for another's."""

from __future__ import annotations

import json
import os
import random
import re
import threading
import time

import pytest
from polling import wait_for
from synthetic_run import write_run

from pytest_crucible.analysis import report_html
from pytest_crucible.analysis.compare import compare_runs, load_run
from pytest_crucible.analysis.report import aggregate, write_reports
from pytest_crucible.analysis.report_rows import Clipped, ReportRows, excerpt, lean_rows
from pytest_crucible.results import runs
from pytest_crucible.results.row import Row
from pytest_crucible.results.store import ROWS_FILE, read_rows


def test_a_clipped_text_cuts_as_the_whole_text_does():
    rng = random.Random(3)
    for length in (0, 1, 26, 80, 81, 200, 5000):
        text = "".join(rng.choice("ab c\né") for _ in range(length))
        for cap in (1, 26, 80, 300, 4000):
            clipped = Clipped.of(text, cap)
            for limit in {1, 2, cap // 3, cap // 2, cap}:
                if 0 < limit <= cap:
                    for keep in ("both", "tail"):
                        whole = (text if len(text) <= limit else
                                 f"{text[:limit // 3]}\n[... {len(text) - limit:,} characters cut ...]\n"
                                 f"{text[len(text) - (limit - limit // 3):]}" if keep == "both" else
                                 f"[... {len(text) - limit:,} characters cut ...]\n{text[-limit:]}")
                        assert clipped.cut(limit, keep) == whole == excerpt(text, limit, keep)


def resumed_run(tmp_path):
    """A synthetic run whose first rows were errors a resume asked again: later rows replace them, so the
    texts clipped while reading (for fewer listed rows) are too short and are read again."""
    run_dir = write_run(tmp_path, "20250101-100000-lean", models=2, cases=40, seed=5)
    rows = read_rows(run_dir)
    redone = []
    for r in rows[:30]:
        if r.get("category") != "speed":
            redone.append({**r, "outcome": "failed", "reason": "asked again", "answer_text": "z" * 9000 + " end"})
    first = [{**r, "outcome": "error", "reason": "endpoint down", "answer_text": "e" * 9000} for r in rows[:30]]
    with open(run_dir / ROWS_FILE, "w", encoding="utf-8") as fh:
        for r in first + rows + redone:
            fh.write(json.dumps(r) + "\n")
    return run_dir


def test_the_page_read_from_the_file_is_the_page_of_the_rows_held_whole(tmp_path):
    run_dir = resumed_run(tmp_path)
    whole = read_rows(run_dir)
    meta = json.loads((run_dir / "meta.json").read_text())
    lean = ReportRows.read(run_dir)
    assert aggregate(lean.rows, meta)["models"] == aggregate(whole, meta)["models"]
    assert all(not r.answer_text and not r.reasoning for r in lean.rows)  # the texts stay in the file
    report = aggregate(whole, meta)
    assert report_html.render_html(report, lean) == report_html.render_html(report, whole)
    # texts clipped shorter than the page's excerpts (as when a resume replaced rows): read again, same page
    tight = {"problems": (2_000, 80, 4000, 10_000), "passed": (2_000, 80, 4000, 10_000)}
    assert report_html.render_html(report, ReportRows.read(run_dir, caps=tight)) == \
        report_html.render_html(report, whole)


@pytest.mark.parametrize("page_rows", [7, 10_000])
def test_texts_kept_only_for_rows_a_list_can_show_give_the_same_page(tmp_path, monkeypatch, page_rows):
    run_dir = resumed_run(tmp_path)  # rows replaced by later ones: some dropped texts are needed again
    whole = read_rows(run_dir)
    monkeypatch.setattr(report_html, "PAGE_ROWS", page_rows)
    report = aggregate(whole, json.loads((run_dir / "meta.json").read_text()))
    few = {"problems": (1_500_000, 80, 4000, 7), "passed": (500_000, 80, 4000, 7)}  # texts of 7 rows per list
    lean = ReportRows.read(run_dir, caps=few)
    assert report_html.render_html(report, lean) == report_html.render_html(report, whole)


def test_crucible_report_writes_what_the_rows_held_whole_write(tmp_path):
    run_dir = resumed_run(tmp_path)
    meta = json.loads((run_dir / "meta.json").read_text())
    write_reports(run_dir, read_rows(run_dir), meta)
    held = {name: (run_dir / name).read_text() for name in ("report.json", "report.md", "report.html")}
    write_reports(run_dir, ReportRows.read(run_dir), meta)
    for name, text in held.items():
        stamp = re.compile(r"\d{4}-\d\d-\d\dT[\d:]+\+00:00")  # when it was written differs
        assert stamp.sub("T", (run_dir / name).read_text()) == stamp.sub("T", text), name


def test_a_big_run_s_page_holds_the_first_rows_and_says_how_many_more(tmp_path, monkeypatch):
    run_dir = write_run(tmp_path, "20250101-100000-many", models=2, cases=60, seed=4)
    rows = read_rows(run_dir)
    wrong = sum(1 for r in rows if r["outcome"] in ("failed", "error"))
    assert "more are in rows.jsonl" not in report_html.render_html(aggregate(rows), rows)
    monkeypatch.setattr(report_html, "PAGE_ROWS", 20)
    html = report_html.render_html(aggregate(rows), ReportRows.read(run_dir))
    embedded = re.search(r'id="crucible-problems">(.*?)</script>', html, re.S).group(1)
    listed = [r[3] for r in json.loads(embedded)["rows"]]
    assert len(listed) == 20 and listed == sorted(listed)  # the first by model and case
    assert f"Failures and errors ({wrong})" in html
    left_out = wrong - 20 + sum(1 for r in rows if r["outcome"] == "passed" and r["category"] != "speed") - 20
    assert f"{left_out:,} more are in rows.jsonl" in html


def test_compare_pairs_lean_rows_as_it_paired_whole_ones(tmp_path):
    base = write_run(tmp_path, "base", models=2, cases=40, seed=0)
    new = write_run(tmp_path, "new", models=2, cases=40, seed=1)
    model = "qwen3-32b"
    whole = compare_runs(*(load_run(d) for d in (base, new)), base_model=model, new_model=model)
    assert all(not r.answer_text for r in load_run(base).rows)
    from pytest_crucible.analysis.compare import RunData
    held = compare_runs(RunData([Row.from_dict(r) for r in read_rows(base)], load_run(base).meta, str(base)),
                        RunData([Row.from_dict(r) for r in read_rows(new)], load_run(new).meta, str(new)),
                        base_model=model, new_model=model)
    assert held == whole
    assert len(lean_rows(base)) == len(read_rows(base))


def test_the_run_list_counts_a_runs_rows_once_then_only_what_was_appended(tmp_path, monkeypatch):
    out = tmp_path / "results"
    run_dir = write_run(out, "20250101-100000-cnt", models=2, cases=20, seed=2)
    rows_path = run_dir / ROWS_FILE
    os.utime(rows_path, (1e9, 1e9))  # ended long ago, no report.json: counted from its rows
    counts = runs.RunCounts()
    first = runs.list_runs(out, counts)[0]
    assert first.counts == runs.list_runs(out)[0].counts  # the same as counted afresh
    read: list[int] = []
    real = runs.parse_row_line
    monkeypatch.setattr(runs, "parse_row_line", lambda raw: (read.append(1), real(raw))[1])
    again = runs.list_runs(out, counts)[0]
    assert again.counts == first.counts and read == []  # nothing re-read
    extra = {**read_rows(run_dir)[0], "case_id": "NEW-1", "outcome": "failed"}
    with open(rows_path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(extra) + "\n" + '{"model": "torn')  # a whole row, then a line not ended
    os.utime(rows_path, (1e9, 1e9))
    later = runs.list_runs(out, counts)[0]
    assert len(read) == 2  # the appended line and the unfinished one, nothing before them
    assert later.counts["failed"] == first.counts["failed"] + 1
    assert "torn: the file ends inside it" in later.damage and later.damage == runs.list_runs(out)[0].damage


def test_a_finished_runs_counts_come_from_its_report_read_once(tmp_path, monkeypatch):
    out = tmp_path / "results"
    run_dir = write_run(out, "20250101-100000-fin", models=2, cases=20, seed=2)
    write_reports(run_dir, read_rows(run_dir), {"run_id": run_dir.name})
    counts = runs.RunCounts()
    first = runs.list_runs(out, counts)[0]
    assert first.state == "finished" and sum(first.counts.values()) == len(read_rows(run_dir))
    monkeypatch.setattr(runs, "_report_counts", lambda _: pytest.fail("report.json read again"))
    assert runs.list_runs(out, counts)[0].counts == first.counts


def test_a_small_runs_page_does_not_wait_for_a_big_one(tmp_path):
    pytest.importorskip("starlette")
    from pytest_crucible.apps.gui import _render_report, build_app

    out = tmp_path / "results"
    big = write_run(out, "20250101-100000-big", models=2, cases=30, seed=1)
    small = write_run(out, "20250101-100000-small", models=1, cases=5, seed=2)
    app = build_app(out)
    pages: dict[str, str] = {}

    def render(run_dir):
        pages[run_dir.name] = _render_report(app.state, run_dir)

    with app.state.run_locks.lock(big.name):  # the big run's page is being rendered
        waiting = threading.Thread(target=render, args=(big,))
        waiting.start()
        start = time.monotonic()
        small_page = threading.Thread(target=render, args=(small,))
        small_page.start()
        small_page.join(timeout=60)
        assert small.name in pages and time.monotonic() - start < 60
        assert big.name not in pages  # a second request for the big run waits for the first
    waiting.join(timeout=60)
    assert big.name in pages and "pytest-crucible report" in pages[big.name]


def test_a_run_list_over_its_budget_answers_with_the_rows_counted_so_far_and_counts_the_rest(tmp_path):
    out = tmp_path / "results"
    run_dir = write_run(out, "20250101-100000-slow", models=2, cases=300, seed=3)
    os.utime(run_dir / ROWS_FILE, (1e9, 1e9))  # ended long ago, no report.json: counted from its rows
    whole = runs.list_runs(out)[0]
    assert not whole.counting and sum(whole.counts.values()) == len(read_rows(run_dir))
    counts = runs.RunCounts(budget_s=0.0)  # past the budget at once: the first 256 lines, then a thread
    first = runs.list_runs(out, counts)[0]
    assert first.counting and 0 < sum(first.counts.values()) < sum(whole.counts.values())
    assert "counting rows" in runs_page(out, [first])
    wait_for(lambda: not runs.list_runs(out, counts)[0].counting, timeout=60)
    later = runs.list_runs(out, counts)[0]
    assert (later.counts, later.models, later.damage) == (whole.counts, whole.models, whole.damage)


def runs_page(out, listed) -> str:
    from pytest_crucible.analysis.report_html import templates
    return templates().get_template("runs.html").render(policy=None, title="t", links=[], results_dir=str(out),
                                                        runs=listed)


def test_recover_finds_its_items_in_streamed_rows_as_in_rows_held_whole():
    from pytest_crucible.apps.recover import cut_in_reasoning
    from pytest_crucible.results.row import latest_rows

    def row(case, outcome, truncated=None, repeat=1):
        return {"model": "m", "case_id": case, "repeat": repeat, "outcome": outcome, "truncated": truncated,
                "reasoning": "x" * 50, "answer_text": ""}

    rows = [row("A", "failed", "reasoning"), row("B", "passed"), row("C", "failed", "reasoning"),
            row("A", "passed"), row("B", "failed", "reasoning"), row("C", "failed", "reasoning", repeat=2),
            row("D", "failed", "answer"), row("C", "error")]
    held = [r for r in latest_rows(rows) if r.outcome == "failed" and r.truncated == "reasoning"]
    assert [(r.case_id, r.repeat) for r in held] == [("B", 1), ("C", 2)]
    assert cut_in_reasoning(iter(rows)) == held == cut_in_reasoning(Row.from_dict(r) for r in rows)


def test_a_lean_row_is_the_row_from_dict_less_its_texts(tmp_path):
    import dataclasses

    from pytest_crucible.results.lean_rows import UNREAD_FIELDS, LeanRows

    run_dir = write_run(tmp_path, "20250101-100000-shapes", models=2, cases=30, seed=7)
    rows = read_rows(run_dir)
    rows += [{"model": "m", "case_id": "S1", "outcome": "passed", "kind": "speed", "category": "speed"},  # 0.2's
             {"model": "m", "case_id": "S2", "outcome": "failed", "category": "speed", "speed": {"plan": {}}},
             {"model": "m", "case_id": "T1", "outcome": "failed", "tags": ["a", "b"], "repeat": 3,
              "backend": {"model": "x", "server": ["nested", ["list"]]}, "timings": {"ttft_s": 0.5},
              "tokens": {"completion": 3, "prompt": 1}, "answer_text": "kept out", "params": {"t": 1}}]
    lean = LeanRows()
    made = [lean.make(r) for r in rows]
    for row, data in zip(made, rows):
        whole = Row.from_dict(data)
        for name in (f.name for f in dataclasses.fields(Row)):
            expected = getattr(whole, name) if name not in UNREAD_FIELDS else getattr(Row.from_dict({}), name, None)
            assert getattr(row, name) == expected, (data.get("case_id"), name)
    assert [r.outcome for r in made[-3:]] == ["measured", "error", "failed"]
    assert made[0].timings is not rows[0]["timings"] and list(made[0].timings) == list(rows[0]["timings"])
    assert all(a is b for a, b in zip(made[0].timings, made[1].timings))  # one string per key name
