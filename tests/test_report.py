"""Report aggregation: the contract scripts rely on, and rows read back after a crash."""

import json

import pytest

from pytest_crucible.analysis.report import aggregate, render_markdown, render_terminal, write_reports
from pytest_crucible.analysis.stats import wilson_interval
from pytest_crucible.results.row import Row
from pytest_crucible.results.store import RunStore, read_rows


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
                                       "families": 2, "n_eff": 2.0, "rate": 0.5, "ci95": wilson_interval(1, 2),
                                       "min_detectable_drop": None,  # two cases cannot show a drop
                                       "truncated": {"reasoning": 0, "answer": 0, "rate": 0.0}}
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


def test_truncated_replies_are_counted_by_where_per_category_and_model():
    rows = [row("a", "M1", "math", "hard", "failed", "TRUNCATED in reasoning after 80 tokens (budget 80)",
                truncated="reasoning"),
            row("a", "M2", "math", "hard", "failed", "TRUNCATED in reasoning after 80 tokens (budget 80)",
                truncated="reasoning"),
            row("a", "M3", "math", "easy", "passed"),
            row("a", "M4", "math", "easy", "error", "endpoint unreachable", truncated="reasoning"),  # not scored
            row("a", "C1", "coding", "hard", "failed", "TRUNCATED at 64 tokens", truncated="answer"),
            row("a", "C2", "coding", "hard", "passed")]
    report = aggregate(rows)
    a = report["models"]["a"]
    assert a["categories"]["math"]["truncated"] == {"reasoning": 2, "answer": 0, "rate": round(2 / 3, 4)}
    assert a["categories"]["coding"]["truncated"] == {"reasoning": 0, "answer": 1, "rate": 0.5}
    assert a["total"]["truncated"] == {"reasoning": 2, "answer": 1, "rate": 0.6}
    assert a["hard"]["truncated"] == {"reasoning": 2, "answer": 1, "rate": 0.75}
    from pytest_crucible.analysis.report import render_terminal
    lines = render_terminal(report)
    assert lines[0].endswith(", truncated 60% (2 in reasoning, 1 in answer)")
    [math] = [line for line in lines if line.startswith("  math ")]
    assert math.endswith(" 33% (1/3) [6%-79%] n_eff 3 +1 err, truncated 67% (2 in reasoning, 0 in answer)")
    assert "- a: truncated 60% (2 in reasoning, 1 in answer) of scored replies" in render_markdown(report)


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


def repeated(case, outcomes, category="math", difficulty="easy"):
    return [row("r", case, category, difficulty, outcome, "" if outcome == "passed" else "wrong", repeat=i + 1)
            for i, outcome in enumerate(outcomes)]


REPEATED = (repeated("A", ["passed"] * 4) + repeated("B", ["passed", "failed", "passed", "failed"])
            + repeated("C", ["failed"] * 4, "coding") + repeated("D", ["passed", "error", "failed", "passed"]))


def test_repeats_give_pass_at_k_pass_hat_k_and_flaky_cases():
    rep = aggregate(REPEATED)["models"]["r"]["repeats"]
    assert (rep["k"], rep["cases"]) == (4, 4)
    at, hat = rep["pass_at_k"], rep["pass_hat_k"]
    assert list(at) == ["1", "2", "4"]
    # by hand: per-case pass@2 = 1 - C(n-c,2)/C(n,2): A 1, B 1 - 1/6, C 0, D (2 of 3 scored) 1
    assert at["1"]["value"] == round((1 + 0.5 + 0 + 2 / 3) / 4, 4)
    assert at["2"]["value"] == round((1 + 5 / 6 + 0 + 1) / 4, 4)
    # pass@4 over A, B, C (D has only 3 answers): 1, 1, 0; mean 2/3, sd sqrt(1/3), half-width
    # 1.96 * sqrt(1/3) / sqrt(3) = 0.6533, the upper end clipped at 1
    assert at["4"] == {"value": round(2 / 3, 4), "ci95": [0.0133, 1.0], "cases": 3}
    # pass^2 = C(c,2)/C(n,2): A 1, B 1/6, C 0, D 1/3
    assert hat["2"]["value"] == round((1 + 1 / 6 + 0 + 1 / 3) / 4, 4)
    assert hat["4"]["value"] == round(1 / 3, 4)
    assert rep["flaky"] == [{"case_id": "B", "category": "math", "passed": 2, "n": 4, "rate": 0.5},
                            {"case_id": "D", "category": "math", "passed": 2, "n": 3, "rate": 0.6667}]
    assert rep["case_rates"]["C"] == {"passed": 0, "n": 4, "rate": 0.0}


def test_repeats_make_intervals_clustered_by_case():
    total = aggregate(REPEATED)["models"]["r"]["total"]
    assert (total["passed"], total["n"]) == (8, 15)
    # A and C agree with themselves: the 15 answers are worth fewer than 15 independent ones
    lo, hi = total["ci95"]
    wlo, whi = wilson_interval(8, 15)
    assert hi - lo > whi - wlo
    # by hand: deviations of case sums from n * 8/15 are 28/15, -2/15, -32/15, 6/15, so the clustered
    # variance is 1848/225/225 against 56/3375 for independent answers: deff 2.2, effective n 75/11
    effective = 15 / 2.2
    assert total["ci95"] == wilson_interval(8 / 15 * effective, effective) == [0.2216, 0.821]


def test_single_answers_have_no_repeats_section():
    assert aggregate(ROWS)["models"]["a"]["repeats"] is None


def test_markdown_and_terminal_show_repeats():
    report = aggregate(REPEATED)
    text = render_markdown(report)
    assert "## Repeats: r (up to 4 answers per case, 4 cases)" in text
    assert "| 2 | 70.8% [" in text
    assert "Flaky cases (2: right in some answers, wrong in others):" in text
    assert "- [math] B: 2/4 (50%)" in text
    line = next(l for l in render_terminal(report) if "repeats" in l)
    assert "4 per case: pass@1 54.2%" in line and "2 flaky cases" in line


def test_backend_recorded_per_model_and_a_change_mid_run_warned():
    rows = [row("a", f"M{i}", "math", "easy", "passed",
                backend={"model": "qwen3-27b", "system_fingerprint": "b4589" if i < 2 else "b4600",
                         "server": "llama.cpp"}) for i in range(3)]
    rows.append(row("a", "M9", "math", "easy", "error"))  # no reply, no backend: nothing to add
    meta = {"models": {"a": {"local": {"gguf_sha256": "ab12", "gguf": {"quant": "Q4_K_M"},
                                       "llamacpp_version": "llama-server 4589"}}}}
    report = aggregate(rows, meta)
    assert report["models"]["a"]["backend"] == {
        "gguf_sha256": ["ab12"], "llamacpp_version": ["llama-server 4589"], "quant": ["Q4_K_M"],
        "served_model": ["qwen3-27b"], "server": ["llama.cpp"], "system_fingerprint": ["b4589", "b4600"]}
    text = render_markdown(report)
    assert "- a served by: gguf_sha256 ab12; llamacpp_version llama-server 4589; quant Q4_K_M;" in text
    warning = "a was served by more than one backend during this run (system_fingerprint: b4589, b4600)"
    assert f"**Warning: {warning}**" in text
    assert f"WARNING: {warning}" in render_terminal(report)
    assert aggregate(ROWS)["models"]["a"]["backend"] == {}


def test_card_prints_each_gguf_line_with_its_model_and_cost_only_when_priced():
    rows = [row("a", "M1", "math", "easy", "passed"), row("b", "M1", "math", "easy", "passed", cost_usd=0.25)]
    meta = {"models": {"a": {"local": {"gguf_summary": "GGUF a-summary"}},
                       "b": {"local": {"gguf_summary": "GGUF b-summary"}}}}
    lines = render_terminal(aggregate(rows, meta), verbosity=-2)
    assert lines == ["a: GGUF a-summary", lines[1], "b: GGUF b-summary", lines[3]]
    assert lines[1].startswith("a: 100.0% (1/1)") and "cost" not in lines[1]  # free: no "$0.0000"
    assert lines[3].startswith("b: 100.0% (1/1)") and lines[3].endswith("cost $0.2500")
