"""report.html: what it shows, that it loads nothing, that a reply cannot break out of it, and that it
works in a real browser (headless Chromium)."""

from __future__ import annotations

import json
import re

import pytest
from markupsafe import escape
from synthetic_run import write_run

from pytest_crucible.analysis import charts, report_html
from pytest_crucible.analysis.report import aggregate, write_reports
from pytest_crucible.results.store import HTML_FILE, read_rows


def row(model, case, category, difficulty, outcome, reason="", **extra):
    return {"model": model, "case_id": case, "category": category, "difficulty": difficulty,
            "outcome": outcome, "reason": reason, **extra}


HOSTILE = "</script><script>document.title='owned'</script><img src=x onerror=alert(1)>"
ROWS = [
    row("a", "M1", "math", "hard", "passed", answer=44, answer_text="Answer: 44",
        timings={"ttft_s": 0.5, "e2e_s": 2.0, "decode_tps": 40.0}, cost_usd=0.01),
    row("a", "M2", "math", "easy", "failed", "answer 40, expected 44", answer=40,
        answer_text="I think " + HOSTILE + "\nAnswer: 40", timings={"ttft_s": 0.7, "e2e_s": 3.0, "decode_tps": 38.0}),
    row("a", "M3", "math", "hard", "error", "endpoint unreachable"),
    row("a", "C1", "coding", "hard", "failed", "timeout >15s", answer_text="def f(): while True: pass"),
    row("b", "M1", "math", "hard", "passed", answer=44, answer_text="**Answer: 44**",
        timings={"ttft_s": 0.2, "e2e_s": 1.0, "decode_tps": 90.0}),
]
META = {"run_id": "r-html", "profile": "quick", "seed": 7, "sandbox": "bwrap", "crucible_version": "0.1.0",
        "models": {"a": {"model_id": "a-7b", "provider": "loop"}, "b": {"model_id": "b-9b", "provider": "loop"}}}


def page_of(rows=ROWS, meta=META) -> str:
    return report_html.render_html(aggregate(rows, meta), rows)


def embedded_problems(html: str) -> list[dict]:
    blob = re.search(r'<script type="application/json" id="crucible-problems">(.*?)</script>', html, re.S).group(1)
    table = json.loads(blob)
    return [dict(zip(table["fields"], r)) for r in table["rows"]]


def test_the_page_shows_rates_failures_and_meta():
    html = page_of()
    # model a: 1 of 3 graded right (the error is not counted), 1 of 2 on the hard tier
    assert 'title="1/3 passed; 95% interval 6%-79%; 1 errors not counted"' in html
    assert re.search(r">33%<small>1/3 \+1 err</small>", html)
    problems = embedded_problems(html)
    assert [(p["model"], p["case"], p["outcome"], p["reason"]) for p in problems] == [
        ("a", "C1", "failed", "timeout >15s"), ("a", "M2", "failed", "answer 40, expected 44"),
        ("a", "M3", "error", "endpoint unreachable")]
    assert problems[1]["answer"] == "40" and problems[1]["reply"].endswith("Answer: 40")
    for text in ("a-7b", "b-9b", "quick", "bwrap", "r-html"):
        assert f"<dd>{text}</dd>" in html or f"<td>{text}</td>" in html
    for chart in ("chart-rates", "chart-categories", "chart-tradeoff", "chart-distribution"):
        assert f'<figure id="{chart}"><svg' in html
    assert 'id="chart-sweep"' not in html  # no speed sweep in these rows: no empty chart


def test_the_page_loads_nothing_from_anywhere():
    html = page_of()
    assert f'content="{escape(report_html.page_policy())}"' in html and "default-src &#39;none&#39;" in html
    # no attribute that fetches (src, href, url(...)) points anywhere but the page itself or data:
    fetches = re.findall(r'(?:src|href)\s*=\s*"([^"#][^"]*)"|url\(\s*[\'"]?([^)#\'"][^)\'"]*)', html)
    assert [f for f in fetches if not any(v.startswith("data:") for v in f if v)] == []
    assert "@import" not in html and "@font-face" not in html


def test_a_reply_cannot_break_out_of_the_page():
    html = page_of()
    assert HOSTILE not in html and "</script><script>document.title" not in html
    assert HOSTILE in embedded_problems(html)[1]["reply"]  # shown as text, byte for byte


def test_long_replies_are_cut_to_the_budget_keeping_both_ends():
    reply = "step " * 40_000 + "Answer: 17"
    rows = [row("a", f"M{i}", "math", "hard", "failed", "answer 17, expected 18", answer_text=reply,
                reasoning="think " * 50_000 + "so 17") for i in range(3)]
    problems = embedded_problems(page_of(rows, {}))
    first = problems[0]
    assert first["reply_chars"] == len(reply) and first["reasoning_chars"] == 300_005
    assert first["reply"].startswith("step step") and first["reply"].endswith("Answer: 17")
    assert re.search(r"\[\.\.\. [\d,]+ characters cut \.\.\.\]", first["reply"])
    assert first["reasoning"].endswith("so 17")  # the end of the reasoning, where it decided
    assert len(first["reply"]) + len(first["reasoning"]) <= report_html.EXCERPT_MAX + 2 * 50  # + a note each


def test_excerpt_budget_shrinks_per_row_as_rows_grow():
    many = [row("a", f"M{i:04d}", "math", "easy", "failed", "wrong", answer_text="x" * 5000) for i in range(2000)]
    problems = embedded_problems(page_of(many, {}))
    per_row = max(report_html.EXCERPT_MIN, report_html.EXCERPT_BUDGET // 2000)
    assert all(len(p["reply"]) <= per_row + 50 for p in problems)
    assert sum(len(p["reply"]) for p in problems) <= report_html.EXCERPT_BUDGET + 2000 * 50


def test_same_report_same_page():
    report = aggregate(ROWS, META)
    assert report_html.render_html(report, ROWS) == report_html.render_html(report, ROWS)


def test_no_prices_says_so_instead_of_plotting_zero():
    html = page_of()
    assert "no prices in models.yaml" not in html  # model a has a cost
    free = [dict(r, cost_usd=0.0) for r in ROWS]
    assert "no prices in models.yaml" in page_of(free)
    # the table says "free" where no price is set, not 0.0000
    assert '<td class="num">free</td>' in page_of(free) and '<td class="num">0.0000</td>' not in page_of(free)


def test_write_reports_writes_the_page_beside_the_others(tmp_path):
    write_reports(tmp_path, ROWS, META)
    assert {p.name for p in tmp_path.iterdir()} >= {"report.json", "report.md", HTML_FILE}
    assert (tmp_path / HTML_FILE).read_text().startswith("<!DOCTYPE html>")


def test_speed_sweep_and_distributions_from_a_synthetic_run(tmp_path):
    run_dir = write_run(tmp_path, models=3, cases=42)
    rows = read_rows(run_dir)
    html = report_html.render_html(aggregate(rows, json.loads((run_dir / "meta.json").read_text())), rows)
    assert '<figure id="chart-sweep"><svg' in html
    ttft, decode = report_html.timing_samples(rows)
    # each model: its graded requests plus the 3 single-stream speed samples (the 4- and 16-stream
    # items are the sweep, not the distribution)
    graded = {m: sum(1 for r in rows if r["model"] == m and r["outcome"] in ("passed", "failed")
                     and r["category"] != "speed") for m in ttft}
    assert {m: len(v) for m, v in ttft.items()} == {m: n + 3 for m, n in graded.items()}
    assert {m: len(v) for m, v in decode.items()} == {m: n + 3 for m, n in graded.items()}


def test_in_chromium_no_errors_no_requests_and_the_table_filters(tmp_path, browser_page):
    run_dir = write_run(tmp_path, models=4, cases=70)
    rows = read_rows(run_dir)
    write_reports(run_dir, rows, json.loads((run_dir / "meta.json").read_text()))
    url = (run_dir / HTML_FILE).as_uri()
    page = browser_page.page
    page.goto(url)
    assert browser_page.errors == []
    assert browser_page.requests == [url]  # the file itself and nothing else
    for chart in ("rates", "categories", "tradeoff", "distribution", "sweep"):
        box = page.locator(f"#chart-{chart} svg").bounding_box()
        assert box and box["width"] > 500 and box["height"] > 100, chart
    problems = [r for r in rows if r["outcome"] in ("failed", "error")]
    assert page.locator("#problems-table tbody tr").count() == min(100, len(problems))
    assert page.inner_text("#f-count") == f"showing {min(100, len(problems))} of {len(problems)}"
    model = rows[0]["model"]
    page.select_option("#f-model", model)
    mine = [r for r in problems if r["model"] == model]
    assert page.inner_text("#f-count") == f"showing {len(mine)} of {len(mine)}"
    page.select_option("#f-outcome", "error")
    errors = [r for r in mine if r["outcome"] == "error"]
    assert page.locator("#problems-table tbody tr").count() == len(errors)
    page.select_option("#f-outcome", "failed")
    first = page.locator("#problems-table tbody tr").first
    first.locator("summary").click()
    # the reply opens in a row of its own as wide as the table, not in the narrow Reply column
    opened = page.locator("#problems-table tr.reply-row")
    assert "Answer:" in opened.locator("pre").first.inner_text()
    table_width = page.locator("#problems-table").bounding_box()["width"]
    assert opened.locator("td").bounding_box()["width"] > 0.9 * table_width
    first.locator("summary").click()
    # the toggle event fires after the click returns: wait for the row to go (fails after 30 s if it stays)
    page.wait_for_selector("#problems-table tr.reply-row", state="detached")
    assert opened.count() == 0
    page.select_option("#f-outcome", "passed")  # the passed answers too, behind their own filter
    passed = [r for r in rows if r["model"] == model and r["outcome"] == "passed" and r["category"] != "speed"]
    assert page.inner_text("#f-count") == f"showing {min(100, len(passed))} of {len(passed)}"
    assert set(page.locator("#problems-table tbody td.outcome-passed").all_inner_texts()) == {"passed"}
    page.select_option("#f-outcome", "failed")
    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    assert (tmp_path / "report.png").stat().st_size > 50_000
    assert browser_page.errors == []


def test_a_run_writes_report_html_and_its_card_points_at_it(pytester, loopback, monkeypatch):
    """Through pytest: the page is written beside report.md, the card has a bar per category and the
    page's path; -q drops the speed block, -qq keeps one line per model."""
    from loopback import Reply
    monkeypatch.setenv("COLUMNS", "200")
    loopback.script(rules=[("two", Reply("Answer: 2"))], default=Reply("Answer: -1"))
    pytester.makefile(".yaml", models=f"providers:\n  loop: {{base_url: {loopback.base_url}, max_retries: 1}}\n"
                      "models:\n  - {name: m1, provider: loop}\n")
    pytester.makefile(".cases.yaml", mine="cases:\n"
                      "  - {id: U01, category: math, difficulty: hard, prompt: one, grader: {type: numeric, answer: 1}}\n"
                      "  - {id: U02, category: math, difficulty: easy, prompt: two, grader: {type: numeric, answer: 2}}\n"
                      "  - {id: U03, category: reasoning, difficulty: easy, prompt: two too, grader: {type: numeric, answer: 2}}\n")
    args = ("-p", "no:cacheprovider", "--models=m1", "--crucible-no-builtin-cases", "mine.cases.yaml")
    result = pytester.runpytest(*args)
    run_dir = (pytester.path / "crucible-results" / "latest").resolve()
    page = (run_dir / HTML_FILE).read_text()
    assert "pytest-crucible report " + run_dir.name in page
    assert "served_model m1; server loopback/1 (tests)" in page  # report.json's backend
    result.stdout.fnmatch_lines([
        "*crucible summary*",
        # a free model: no "cost $0.0000"
        "m1: 66.7% (2/3) [[]21%-94%[]] n_eff 3, hard 0% (0/1) [[]0%-79%[]] n_eff 1, errors 0, skipped 0",
        "  math       ██████████░░░░░░░░░░ 50% (1/2) [[]9%-91%[]] n_eff 2",
        "  reasoning  ████████████████████ 100% (1/1) [[]21%-100%[]] n_eff 1",
        "  latency    TTFT * s, decode * (medians of 3 graded requests)",
        f"report: {run_dir.relative_to(pytester.path)}/report.html (beside it: report.json, report.md, rows.jsonl)",
    ])
    meta = json.loads((run_dir / "meta.json").read_text())  # what chose the items, and how many per model
    assert meta["selection"] == {"models": "m1", "paths": ["mine.cases.yaml"]} and meta["items"] == {"m1": 3}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", meta["started_at"])
    assert "<dt>Selection</dt><dd>--models m1 mine.cases.yaml</dd>" in page
    quiet = pytester.runpytest(*args, "-q").stdout.str()
    assert "  math       ██████████░░░░░░░░░░ 50% (1/2)" in quiet
    very_quiet = pytester.runpytest(*args, "-qq").stdout.str()
    assert "m1: 66.7% (2/3)" in very_quiet and "  math " not in very_quiet


@pytest.mark.parametrize("rows", [
    [],
    [row("a", "M1", "math", "hard", "error", "endpoint unreachable")],
    [row("a", "M1", "math", "hard", "skipped", "needs 131072 tokens of context")],
    [row("a", "M1", "math", "easy", "passed", timings={"ttft_s": 0.0, "e2e_s": 0.0, "decode_tps": None})],
    [row("a", "T1", "tooluse", "easy", "failed", "1 calls, expected 3", answer={"calls": [1]},
         tool_calls=[{"name": "f", "arguments": {"x": 1}}], turns=[{}, {}])],
], ids=["no rows", "errors only", "skips only", "zero timings", "tool calls"])
def test_thin_runs_still_make_a_page_without_warnings(rows, recwarn):
    html = page_of(rows, {})
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert [str(w.message) for w in recwarn] == []


def test_a_resumed_item_shows_its_latest_row_only():
    rows = [row("a", "M1", "math", "hard", "error", "endpoint unreachable"),
            row("a", "M2", "math", "easy", "failed", "answer 3, expected 4"),
            row("a", "M1", "math", "hard", "passed", answer=44)]  # the resume asked M1 again
    assert [(p["case"], p["outcome"]) for p in embedded_problems(page_of(rows, {}))] == [("M2", "failed")]


def test_names_beside_close_points_move_down_a_line_until_they_cover_no_other():
    # the highest keeps its place 3 points up; the one just below it and to its left goes down a line of 8
    # points (at -5 its bottom is 9 points from the first's); a third far right is free
    assert charts.spread_labels([(100, 200, 50), (102, 201, 50), (300, 200, 50)], 8) == [-5, 3, 3]
    # a stack of equal points: each one line lower than the one before
    assert charts.spread_labels([(0, 0, 40)] * 3, 8) == [3, -5, -13]
    # points on the axis (a pass rate of 0): the names stack upwards, none is written across the axis
    assert charts.spread_labels([(0, 0, 40)] * 3, 8, floor=0) == [3, 11, 19]


def test_a_model_without_decode_data_gets_no_empty_decode_axis():
    rows = [row("a", "M1", "math", "easy", "passed", timings={"ttft_s": 0.5, "e2e_s": 1.0})]
    svg = charts.distribution_chart(*report_html.timing_samples(rows), {"a": "#123456"})
    assert "no decode data" in svg and "0.05" not in svg  # no 0-0.05 scale drawn for nothing
    both = [row("a", "M1", "math", "easy", "passed", timings={"ttft_s": 0.5, "decode_tps": 30.0}),
            row("b", "M1", "math", "easy", "passed", timings={"ttft_s": 0.5})]
    svg = charts.distribution_chart(*report_html.timing_samples(both), {"a": "#123456", "b": "#654321"})
    assert svg.count("no decode data") == 1  # b's row says so; a's has its box


def test_the_runs_selection_is_shown():
    meta = {**META, "selection": {"models": "a,b", "profile": "quick", "-k": "math", "-m": "not speed",
                                  "paths": ["tests/x.cases.yaml"]}}
    assert ("<dt>Selection</dt><dd>--models a,b --profile quick -k &#39;math&#39; -m &#39;not speed&#39; "
            "tests/x.cases.yaml</dd>") in page_of(meta=meta)


def test_in_chromium_one_turn_and_code_keeps_its_lines(tmp_path, browser_page):
    code = "def f():\n    return 1"
    rows = [row("a", "C1", "coding", "easy", "failed", "wrong", answer=code, answer_text=f"```python\n{code}\n```",
                turns=[{"role": "assistant"}])]
    path = tmp_path / "report.html"
    path.write_text(page_of(rows, {}), encoding="utf-8")
    page = browser_page.page
    page.goto(path.as_uri())
    summary = page.locator("#problems-table tbody tr summary").first.inner_text()
    assert summary.endswith(" in 1 turn")
    answer = page.locator("#problems-table tbody td.answer").first
    assert answer.inner_text() == code  # the line break and the indent kept, not one flattened line
    assert answer.evaluate("td => getComputedStyle(td).whiteSpace") == "pre-wrap"
    assert browser_page.errors == []
