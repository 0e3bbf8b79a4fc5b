"""compare.py and `crucible compare` on synthetic rows whose answers are known."""

from __future__ import annotations

import json

import pytest

from pytest_crucible.analysis.compare import GateSettings, RunData, compare_runs, load_run, render_text
from pytest_crucible.apps.cli import main as crucible
from pytest_crucible.common.errors import InputError

CATS = ("math", "coding", "reasoning")


def row(case: int, outcome: str = "passed", *, model: str = "m", repeat: int = 1, category: str | None = None,
        difficulty: str | None = None, reason: str = "", timings: dict | None = None, case_hash: str | None = None,
        backend: dict | None = None) -> dict:
    return {"model": model, "case_id": f"C{case:03d}", "case_hash": case_hash or f"h{case}",
            "category": category or CATS[case % 3], "difficulty": difficulty or ("hard" if case % 4 == 0 else "easy"),
            "repeat": repeat, "outcome": outcome, "reason": reason or ("" if outcome == "passed" else "answer 40, expected 44"),
            "timings": timings or {}, "backend": backend or {}}


def run(rows: list[dict], source: str = "run") -> RunData:
    return RunData(rows, {"run_id": source}, source)


def all_right(n: int, **kw) -> RunData:
    return run([row(i, **kw) for i in range(n)], "base")


def wrong_on(n: int, wrong: set[int], **kw) -> RunData:
    return run([row(i, "failed" if i in wrong else "passed", **kw) for i in range(n)], "new")


def test_ten_flips_in_a_hundred_give_p_two_to_the_minus_ten():
    result = compare_runs(all_right(100), wrong_on(100, set(range(0, 100, 10))))
    total = result["total"]
    assert total["p_value"] == 2 ** -10
    assert (total["n"], total["worse"], total["better"]) == (100, 10, 0)
    assert (total["base_rate"], total["new_rate"], total["diff"]) == (1.0, 0.9, -0.1)
    assert total["ci95"] == [-0.1591, -0.0409]
    assert len(result["flips"]["pass_to_fail"]) == 10 and result["flips"]["fail_to_pass"] == []
    flip = result["flips"]["pass_to_fail"][0]
    assert flip["case_id"] == "C000"
    assert flip["base"]["rate"] == 1.0 and flip["new"] == {"rate": 0.0, "passed": 0, "n": 1,
                                                           "reason": "answer 40, expected 44"}
    assert not result["gate"]["passed"]
    assert result["gate"]["reasons"][0].startswith("total: 100.0% -> 90.0% (-10.0 points")


def test_two_flips_in_256_pass_the_gate():
    result = compare_runs(all_right(256), wrong_on(256, {7, 200}))
    assert result["total"]["p_value"] == 0.25
    assert len(result["flips"]["pass_to_fail"]) == 2
    assert result["gate"] == {"passed": True, "reasons": [], "checked": ["total", "hard"]}


def test_flips_both_ways_cancel_out():
    base = run([row(i, "failed" if i < 10 else "passed") for i in range(100)])
    new = wrong_on(100, set(range(10, 20)))
    result = compare_runs(base, new)
    assert (result["total"]["worse"], result["total"]["better"]) == (10, 10)
    assert result["total"]["p_value"] == pytest.approx(0.588, abs=1e-3)
    assert result["total"]["diff"] == 0.0
    assert result["gate"]["passed"]
    assert {f["case_id"] for f in result["flips"]["fail_to_pass"]} == {f"C{i:03d}" for i in range(10)}


def test_a_named_category_gates_on_its_own():
    # coding: 10 of its cases break; elsewhere 6 cases get fixed, so the total is not significant
    base = run([row(i, "failed" if i in range(200, 206) else "passed", category="coding" if i < 10 else "math")
                for i in range(300)])
    new = run([row(i, "failed" if i < 10 else "passed", category="coding" if i < 10 else "math")
               for i in range(300)])
    loose = compare_runs(base, new)
    assert loose["total"]["p_value"] > 0.05 and loose["gate"]["passed"]
    assert loose["categories"]["coding"]["p_value"] == 2 ** -10
    strict = compare_runs(base, new, gate=GateSettings(categories=("coding",)))
    assert not strict["gate"]["passed"]
    assert [r.split(":")[0] for r in strict["gate"]["reasons"]] == ["category coding"]
    missing = compare_runs(base, new, gate=GateSettings(categories=("tooluse",)))
    assert not missing["gate"]["passed"]
    assert "category tooluse: no paired cases" in missing["gate"]["reasons"][0]


def test_alpha_decides():
    base, new = all_right(256), wrong_on(256, {1, 2, 3, 5, 6})  # 5 of 5 discordant: p = 1/32
    assert not compare_runs(base, new)["gate"]["passed"]
    assert compare_runs(base, new, gate=GateSettings(alpha=0.01))["gate"]["passed"]
    with pytest.raises(InputError, match="alpha must be between 0 and 1"):
        GateSettings(alpha=5)


def test_changed_missing_and_unscored_cases_are_not_paired():
    base = all_right(10)
    rows = [row(i) for i in range(3, 10)] + [row(10)]
    rows[0] = row(3, case_hash="edited")            # C003 changed between the runs
    rows[1] = row(4, "error", reason="HTTP 503")    # C004 has no scored answer on the new side
    rows[2] = row(5, "skipped", reason="needs 65536 tokens of context")
    result = compare_runs(base, run(rows))
    assert result["paired"] == 4
    assert result["unpaired"]["changed"] == ["C003"]
    assert result["unpaired"]["only_base"] == ["C000", "C001", "C002"]
    assert result["unpaired"]["only_new"] == ["C010"]
    assert result["unpaired"]["unscored"] == [
        {"case_id": "C004", "base": "", "new": "HTTP 503"},
        {"case_id": "C005", "base": "", "new": "needs 65536 tokens of context"}]
    assert result["total"]["n"] == 4 and result["flips"]["pass_to_fail"] == []  # an error is not a failure


def test_repeats_pair_per_case_rates():
    base = run([row(i, repeat=r) for i in range(20) for r in (1, 2, 3)])
    new_rows = [row(i, repeat=r) for i in range(20) for r in (1, 2, 3)]
    new_rows[0] = row(0, "failed", repeat=1)        # C000: 2 of 3
    new_rows[3] = row(1, "failed", repeat=1)        # C001: 0 of 3 (three repeats fail)
    new_rows[4] = row(1, "failed", repeat=2)
    new_rows[5] = row(1, "failed", repeat=3)
    result = compare_runs(base, run(new_rows))
    assert result["base"]["repeats"] == result["new"]["repeats"] == 3
    total = result["total"]
    assert (total["n"], total["worse"], total["better"]) == (20, 2, 0)  # cases, not rows
    assert total["p_value"] == 0.25
    assert total["new_rate"] == round((2 / 3 + 0 + 18) / 20, 4)
    assert total["diff"] == round(-(1 / 3 + 1) / 20, 4)
    flips = {f["case_id"]: f["new"] for f in result["flips"]["pass_to_fail"]}
    assert flips["C000"]["rate"] == round(2 / 3, 4) and flips["C000"]["n"] == 3
    assert flips["C001"]["rate"] == 0.0
    text = "\n".join(render_text(result))
    assert "C000 [math] base passed | new 2/3 passed: answer 40, expected 44" in text


def test_hard_tier_reported_apart_and_gated():
    base = all_right(200)
    new = wrong_on(200, set(range(0, 48, 4)))  # 12 hard cases break (every 4th case is hard)
    result = compare_runs(base, new)
    assert result["hard"]["n"] == 50 and result["hard"]["worse"] == 12
    assert any(r.startswith("hard:") for r in result["gate"]["reasons"])


def test_speed_cases_stay_out_of_the_total():
    base = run([row(i) for i in range(10)] + [row(99, category="speed")])
    new = run([row(i) for i in range(10)] + [row(99, "failed", category="speed")])
    result = compare_runs(base, new)
    # measurements, never passes or failures: no speed group, no flip, no p-value
    assert result["total"]["n"] == 10 and "speed" not in result["categories"]
    assert not any(f["case_id"] == "C099" for flips in result["flips"].values() for f in flips)


def timed(n: int, outcome_of=lambda i: "passed", **timings) -> RunData:
    return run([row(i, outcome_of(i), timings={k: v * (1 + 0.01 * (i % 7)) for k, v in timings.items()})
                for i in range(n)])


def test_fifty_percent_later_first_token_fails_on_ttft_with_every_answer_right():
    base = timed(64, ttft_s=0.2, ttft_answer_s=0.2, decode_tps=40.0)
    new = timed(64, ttft_s=0.3, ttft_answer_s=0.3, decode_tps=40.0)
    result = compare_runs(base, new)
    ttft = result["speed"]["ttft_s"]
    assert ttft["ratio"] == pytest.approx(1.5) and ttft["ci95"][0] > 1.1 and ttft["regressed"]
    assert not result["speed"]["decode_tps"]["regressed"]
    assert result["total"]["worse"] == 0
    assert not result["gate"]["passed"]
    assert result["gate"]["reasons"][0].startswith("TTFT median rose to 1.50x the base")


def test_speed_within_tolerance_or_too_few_answers_passes():
    assert compare_runs(timed(64, ttft_s=0.2), timed(64, ttft_s=0.21))["gate"]["passed"]   # 5% slower
    assert compare_runs(timed(64, ttft_s=0.2), timed(64, ttft_s=0.3),
                        gate=GateSettings(speed_tolerance=0.6))["gate"]["passed"]
    few = compare_runs(timed(4, ttft_s=0.2), timed(4, ttft_s=0.4))
    assert few["speed"]["ttft_s"]["ratio"] == pytest.approx(2.0) and few["gate"]["passed"]
    assert "TTFT" not in few["gate"]["checked"]


def test_decode_rate_is_better_higher():
    slow = compare_runs(timed(64, decode_tps=50.0), timed(64, decode_tps=30.0))
    assert slow["speed"]["decode_tps"]["regressed"] and not slow["gate"]["passed"]
    assert "decode tok/s median fell to 0.60x" in slow["gate"]["reasons"][0]
    fast = compare_runs(timed(64, decode_tps=50.0), timed(64, decode_tps=80.0))
    assert fast["gate"]["passed"]


def test_backend_warnings():
    served = lambda model, **kw: run([row(i, model=model, backend={"model": kw.get("served", model), **kw})
                                      for i in range(5)])
    same = compare_runs(served("q", served="qwen-a"), served("q", served="qwen-b"))
    assert same["backend"]["base"]["served_model"] == ["qwen-a"]
    assert any("served_model differs (qwen-a -> qwen-b) though the same model name" in w
               for w in same["backend"]["warnings"])
    upgrade = compare_runs(served("q", server="llama.cpp"), served("q2", server="llama.cpp"))
    assert upgrade["backend"]["warnings"] == []  # a new model name is expected to serve another model
    stack = compare_runs(served("q", server="llama.cpp"), served("q2", server="vllm"))
    assert ["server differs (llama.cpp -> vllm) though the serving software was expected to stay: "
            "the difference may come from the backend"] == stack["backend"]["warnings"]
    mixed = run([row(i, backend={"system_fingerprint": f"fp{i % 2}"}) for i in range(4)])
    assert "base run was served by more than one backend (system_fingerprint: fp0, fp1)" in \
        compare_runs(mixed, all_right(4))["backend"]["warnings"][0]


def test_launched_models_backend_comes_from_the_meta():
    base = run([row(i) for i in range(3)])
    base.meta["models"] = {"m": {"local": {"gguf_sha256": "aa", "gguf": {"quant": "Q4_K_M"}, "llamacpp_version": "b1"}}}
    new = run([row(i) for i in range(3)])
    new.meta["models"] = {"m": {"local": {"gguf_sha256": "bb", "gguf": {"quant": "Q8_0"}, "llamacpp_version": "b1"}}}
    result = compare_runs(base, new)
    assert result["backend"]["new"] == {"gguf_sha256": ["bb"], "llamacpp_version": ["b1"], "quant": ["Q8_0"]}
    assert [w.split(" differs")[0] for w in result["backend"]["warnings"]] == ["gguf_sha256", "quant"]


def test_models_are_picked_by_flag_by_name_or_alone():
    two = run([row(i, model=m) for i in range(5) for m in ("a", "b")], "two")
    with pytest.raises(InputError, match="several models .a, b.: pick one with --base-model"):
        compare_runs(two, all_right(5))
    result = compare_runs(two, two, base_model="a", new_model="b")
    assert (result["base"]["model"], result["new"]["model"]) == ("a", "b")
    # the other side's name is used when this side has it
    assert compare_runs(two, run([row(i, model="b") for i in range(5)]))["base"]["model"] == "b"
    with pytest.raises(InputError, match="model 'c' is not in this run"):
        compare_runs(two, two, base_model="c", new_model="b")


def test_a_resumed_item_counts_its_latest_row_once():
    rows = [row(i) for i in range(10)]
    rows[3] = row(3, "error", reason="HTTP 500")
    rows.append(row(3, "failed"))  # the resumed run asked C003 again
    rows.append(row(4, "passed"))  # and C004 once more, with the same outcome
    result = compare_runs(all_right(10), RunData(rows, {}, "new"))
    assert result["paired"] == 10 and result["total"]["n"] == 10
    assert [f["case_id"] for f in result["flips"]["pass_to_fail"]] == ["C003"]
    assert result["flips"]["pass_to_fail"][0]["new"]["n"] == 1


def write_run(path, rows, meta=None):
    path.mkdir(parents=True)
    (path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    if meta is not None:
        (path / "meta.json").write_text(json.dumps(meta))
    return path


def test_load_run_reads_folders_rows_and_report_paths(tmp_path):
    rows = [row(i) for i in range(4)] + [row(2, "failed")]  # C002 asked again
    folder = write_run(tmp_path / "r1", rows, {"run_id": "r1", "models": {}})
    (folder / "report.json").write_text("{}")
    for given in (folder, folder / "rows.jsonl", folder / "report.json"):
        loaded = load_run(given)
        assert loaded.run_id == "r1" and len(loaded.rows) == 5
    result = compare_runs(load_run(folder), load_run(folder))
    assert result["total"]["new_rate"] == 0.75  # C002's later row counts, once
    with pytest.raises(InputError, match="no rows.jsonl here"):
        load_run(tmp_path)


def test_cli_compare_exit_codes_and_json(tmp_path, capsys):
    base = write_run(tmp_path / "base", [row(i) for i in range(256)], {"run_id": "base"})
    bad = write_run(tmp_path / "bad", [row(i, "failed" if i % 5 == 0 else "passed") for i in range(256)])
    fine = write_run(tmp_path / "fine", [row(i, "failed" if i in (9, 99) else "passed") for i in range(256)])
    assert crucible(["compare", str(base), str(bad)]) == 0          # no --gate: a report, exit 0
    assert "gate: FAILED" in capsys.readouterr().out
    assert crucible(["compare", str(base), str(bad), "--gate"]) == 1
    capsys.readouterr()
    assert crucible(["compare", str(base), str(fine), "--gate", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["gate"]["passed"] is True and data["gate"]["reasons"] == []
    assert len(data["flips"]["pass_to_fail"]) == 2 and data["flips"]["fail_to_pass"] == []
    assert set(data["categories"]["math"]) >= {"base_rate", "new_rate", "diff", "ci95", "p_value"}
    assert crucible(["compare", str(base), str(bad), "--gate", "--alpha", "1e-30"]) == 0
    capsys.readouterr()
    assert crucible(["compare", str(base)]) == 2
    assert "--base-model A --new-model B" in capsys.readouterr().err
    assert crucible(["compare", str(base), str(tmp_path / "nothing")]) == 2
    assert "no rows.jsonl here" in capsys.readouterr().err


def test_cli_compares_two_models_of_one_run(tmp_path, capsys):
    rows = [row(i, model="a") for i in range(50)] + [row(i, "failed" if i < 20 else "passed", model="b")
                                                     for i in range(50)]
    folder = write_run(tmp_path / "both", rows)
    assert crucible(["compare", str(folder), "--base-model", "a", "--new-model", "b", "--gate"]) == 1
    out = capsys.readouterr().out
    assert "worse (pass -> fail): 20" in out and "gate: FAILED" in out


def test_cli_gate_settings_from_the_environment(tmp_path, capsys, monkeypatch):
    """CI can set the gate once for every command: CRUCIBLE_GATE_CATEGORIES, CRUCIBLE_ALPHA, ..."""
    base = write_run(tmp_path / "base", [row(i, category="coding" if i < 10 else "math") for i in range(300)])
    new = write_run(tmp_path / "new", [row(i, "failed" if i < 10 else "passed", category="coding" if i < 10 else "math")
                                       for i in range(300)])
    # ten coding cases break: the total (p = 2^-10 as well) fails at 0.05 but not at 1e-4; coding is named
    monkeypatch.setenv("CRUCIBLE_ALPHA", "1e-4")
    assert crucible(["compare", str(base), str(new), "--gate"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("CRUCIBLE_ALPHA", "0.01")
    monkeypatch.setenv("CRUCIBLE_GATE_CATEGORIES", "coding")
    assert crucible(["compare", str(base), str(new), "--gate", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["settings"] == {"alpha": 0.01, "gate_categories": ["coding"], "speed_tolerance": 0.1}
    assert [r.split(":")[0] for r in data["gate"]["reasons"]] == ["total", "category coding"]


def test_a_baseline_is_checked_as_the_run_starts(tmp_path):
    from pytest_crucible.analysis.compare import Baseline
    two = write_run(tmp_path / "two", [row(i, model=m) for i in range(3) for m in ("a", "b")])
    assert Baseline.load(two, GateSettings(), True, ["b"]).run.models == ["a", "b"]  # b is there by name
    with pytest.raises(InputError, match="several models .a, b. and none is c: give a baseline run of one model"):
        Baseline.load(two, GateSettings(), True, ["c"])
    with pytest.raises(InputError, match="a baseline is compared with one model; --models names 2"):
        Baseline.load(two, GateSettings(), True, ["a", "b"])
    empty = write_run(tmp_path / "empty", [])
    with pytest.raises(InputError, match="the baseline run has no rows"):
        Baseline.load(empty, GateSettings(), False, ["a"])


def test_baseline_compare_writes_compare_json_and_fails_without_rows(tmp_path):
    from pytest_crucible.analysis.compare import Baseline
    base = write_run(tmp_path / "base", [row(i) for i in range(20)])
    baseline = Baseline.load(base, GateSettings(), True, ["m"])
    (tmp_path / "new").mkdir()
    result = baseline.compare([row(i, "failed" if i < 6 else "passed") for i in range(20)], {"run_id": "new"},
                              tmp_path / "new", "m")
    assert json.loads((tmp_path / "new" / "compare.json").read_text()) == result
    assert result["total"]["worse"] == 6 and not result["gate"]["passed"]   # p = 2^-6
    empty = baseline.compare([], {"run_id": "new"}, tmp_path / "new", "m")
    assert empty["gate"] == {"passed": False, "reasons": [empty["error"]], "checked": []}
    assert "the new run has no rows" in empty["error"]


def test_render_brief_and_failed_comparisons():
    result = compare_runs(all_right(100), wrong_on(100, set(range(10))))
    assert render_text(result, brief=True) == [
        "gate: FAILED (checked: total, hard)",
        "  - total: 100.0% -> 90.0% (-10.0 points, 95% CI [-15.9, -4.1]), 10 cases worse, 0 better, p = 0.00098 < 0.05"]
    failed = {"error": "the new run has no rows", "gate": {"passed": False, "reasons": ["the new run has no rows"],
                                                          "checked": []}}
    assert render_text(failed) == ["gate: FAILED (checked: nothing)", "  - the new run has no rows"]
