"""Report aggregation: the contract scripts rely on, and rows read back after a crash."""

import json

import pytest

from pytest_crucible.report import aggregate, render_markdown, wilson_interval, write_reports
from pytest_crucible.row import Row
from pytest_crucible.store import RunStore, read_rows


def row(model, case, category, difficulty, outcome, reason="", **extra):
    return {"model": model, "case_id": case, "category": category, "difficulty": difficulty,
            "outcome": outcome, "reason": reason, **extra}


ROWS = [
    row("a", "M1", "math", "hard", "passed", tokens={"prompt": 10, "completion": 5}, cost_usd=0.01),
    row("a", "M2", "math", "easy", "failed", "answer 40, expected 44"),
    row("a", "M3", "math", "hard", "error", "endpoint unreachable"),
    row("a", "C1", "coding", "hard", "failed", "timeout >15s"),
    row("a", "C2", "coding", "medium", "skipped", "no sandbox"),
    row("b", "M1", "math", "hard", "error", "endpoint unreachable"),
]


def test_contract_counts_and_denominators():
    report = aggregate(ROWS)
    a = report["models"]["a"]
    assert a["categories"]["math"] == {"passed": 1, "failed": 1, "errors": 1, "skipped": 0, "n": 2,
                                       "rate": 0.5, "ci95": wilson_interval(1, 2)}
    assert a["categories"]["coding"]["skipped"] == 1 and a["categories"]["coding"]["n"] == 1
    assert a["categories"]["coding"]["rate"] == 0.0
    assert {k: a["hard"][k] for k in ("passed", "failed", "errors", "n", "rate")} == \
        {"passed": 1, "failed": 1, "errors": 1, "n": 2, "rate": 0.5}
    assert {k: a["total"][k] for k in ("passed", "failed", "errors", "n")} == \
        {"passed": 1, "failed": 2, "errors": 1, "n": 3}
    assert a["total"]["rate"] == pytest.approx(1 / 3, abs=1e-4)
    assert a["failures"] == [  # sorted by case id, whatever order the items finished in
        {"case_id": "C1", "category": "coding", "repeat": 1, "reason": "timeout >15s"},
        {"case_id": "M2", "category": "math", "repeat": 1, "reason": "answer 40, expected 44"}]
    assert a["tokens"]["prompt"] == 10 and a["cost_usd"] == 0.01
    # A model whose endpoint was down has no rate at all, not 0%.
    b = report["models"]["b"]
    assert b["total"]["n"] == 0 and b["total"]["rate"] is None and b["total"]["errors"] == 1


def test_wilson_interval_brackets_the_rate():
    lo, hi = wilson_interval(9, 10)
    assert lo < 0.9 < hi <= 1.0
    assert wilson_interval(0, 0) is None
    assert wilson_interval(0, 5)[0] == 0.0


def test_markdown_lists_failures_and_errors_apart():
    text = render_markdown(aggregate(ROWS, {"run_id": "r1"}))
    assert "| a | 33% (1/3) +1 err | 50% (1/2) +1 err | 1 | 1 |" in text
    assert "- a [math] M2: answer 40, expected 44" in text
    assert "## Errors (not counted): a" in text and "- a [math] M3: endpoint unreachable" in text


def test_store_appends_and_survives_a_torn_last_line(tmp_path):
    store = RunStore(tmp_path, "run-1")
    store.append(Row.from_dict(ROWS[0]))
    store.append(Row.from_dict(ROWS[1]))
    store.close()
    assert (tmp_path / "latest").resolve() == (tmp_path / "run-1").resolve()
    with open(tmp_path / "run-1" / "rows.jsonl", "a") as fh:
        fh.write('{"model": "a", "case_id": "half')  # the process died mid-write
    rows = read_rows(tmp_path / "latest")
    assert [r["case_id"] for r in rows] == ["M1", "M2"]


def test_write_reports_files(tmp_path):
    report = write_reports(tmp_path, ROWS, {"run_id": "x"})
    on_disk = json.loads((tmp_path / "report.json").read_text())
    assert on_disk["models"] == report["models"]
    assert (tmp_path / "report.md").read_text().startswith("# pytest-crucible report x")
