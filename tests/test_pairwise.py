"""`crucible pairwise`: both orders per pair, Bradley-Terry ratings with bootstrap intervals over cases,
pairwise.json and a table; a scripted judge on the loopback server stands in for a judge model."""

from __future__ import annotations

import json
import math
import textwrap

import pytest
from builtin_suite import builtin_cases
from scripted_judge import USAGE, scripted_judge

from pytest_crucible.analysis.pairwise import Game, Pairwise, bootstrap_intervals, bradley_terry, elo, play
from pytest_crucible.apps.cli import main as crucible
from pytest_crucible.engine.config import ModelSpec, Provider
from pytest_crucible.results.row import Row

JUDGE_ID = "judge-model"
PROSE = [c for c in builtin_cases() if c.category == "prose"][:3]
REFERENCES = {c.verify["reference"].strip() for c in PROSE}


def games(case_id, first, second, *winners):
    return [Game(case_id, first, second, w) for w in winners]


def test_bradley_terry_two_players_matches_the_closed_form():
    # 3 wins of 4, plus the prior's one virtual tie: 3.5 of 5 -> P(a beats b) = 0.7 = 1 / (1 + e^-(sa - sb))
    strengths = bradley_terry(["a", "b"], games("c1", "a", "b", "A", "A") + games("c2", "b", "a", "B", "A"))
    assert strengths["a"] - strengths["b"] == pytest.approx(math.log(0.7 / 0.3), abs=1e-8)
    assert strengths["a"] + strengths["b"] == pytest.approx(0, abs=1e-12)
    assert elo(strengths["a"]) == pytest.approx(1000 + 400 * math.log10(0.7 / 0.3) / 2, abs=0.05)


def test_bradley_terry_orders_a_chain_and_levels_a_cycle():
    chain = games("c", "a", "b", "A", "A", "A") + games("c", "b", "c", "A", "A", "A") + games("c", "a", "c", "A")
    s = bradley_terry(["a", "b", "c"], chain)
    assert s["a"] > s["b"] > s["c"]
    cycle = games("c", "a", "b", "A") + games("c", "b", "c", "A") + games("c", "c", "a", "A")
    assert all(v == pytest.approx(0, abs=1e-8) for v in bradley_terry(["a", "b", "c"], cycle).values())
    ties = games("c", "a", "b", "tie", "tie")
    assert bradley_terry(["a", "b"], ties) == {"a": pytest.approx(0, abs=1e-9), "b": pytest.approx(0, abs=1e-9)}


def test_bootstrap_intervals_resample_cases_with_a_fixed_seed():
    unanimous = [g for i in range(8) for g in games(f"c{i}", "a", "b", "A") + games(f"c{i}", "b", "a", "B")]
    point = bradley_terry(["a", "b"], unanimous)
    low, high = bootstrap_intervals(["a", "b"], unanimous, rounds=50)["a"]
    assert low == pytest.approx(point["a"]) and high == pytest.approx(point["a"])  # every draw is the same
    mixed = [g for i in range(10) for g in games(f"c{i}", "a", "b", "A" if i < 7 else "B")]
    point = bradley_terry(["a", "b"], mixed)["a"]
    first = bootstrap_intervals(["a", "b"], mixed, rounds=200, seed=3)
    low, high = first["a"]
    assert low < point < high and low < 0 < point  # 7 of 10 is not far from even
    assert bootstrap_intervals(["a", "b"], mixed, rounds=200, seed=3) == first
    assert bootstrap_intervals(["a", "b"], mixed, rounds=200, seed=4) != first
    # pinned: the 2.5th and 97.5th percentiles, interpolated between the ranks around them
    assert first["a"] == pytest.approx((-0.18386239006265864, 0.9229133452491654), rel=1e-9)


class FirstAlwaysWins:
    """A judge with pure position bias: it prefers whichever answer it reads first."""
    def __init__(self):
        self.asked = []

    def compare(self, case, a, b):
        self.asked.append((case.id, a, b))
        return "A", {"cost_usd": 0.001, "cached": False}


def test_both_orders_cancel_a_judge_that_always_prefers_the_first_answer():
    judge = FirstAlwaysWins()
    cases = {(c.id, c.content_hash): c for c in PROSE}
    answers = {key: {"x": "one answer", "y": "another answer"} for key in cases}
    result = Pairwise("biased", {"x": {}, "y": {}}, rounds=20)
    play(judge, cases, answers, result, log=lambda line: None)
    assert len(judge.asked) == 2 * len(PROSE)
    assert {(a, b) for _, a, b in judge.asked} == {("one answer", "another answer"), ("another answer", "one answer")}
    written = result.to_dict()
    assert [p["rating"] for p in written["players"]] == [1000.0, 1000.0]
    assert written["pairs"] == [{"a": "x", "b": "y", "cases": len(PROSE), "a_wins": len(PROSE),
                                 "b_wins": len(PROSE), "ties": 0, "inconsistent": len(PROSE)}]
    assert written["position"] == {"first": 2 * len(PROSE)}
    assert written["judge_cost_usd"] == pytest.approx(0.002 * len(PROSE))


def write_run(folder, model_name, answer_of):
    folder.mkdir(parents=True)
    model = ModelSpec(model_name, model_name, Provider("loop", "http://127.0.0.1:9/v1"))
    with (folder / "rows.jsonl").open("w") as out:
        for case in PROSE:
            row = Row.begin(case, model, run_id=folder.name)
            row.outcome, row.answer_text = "error", answer_of(case)  # answered; its judge had failed a canary
            out.write(json.dumps(row.to_dict()) + "\n")
    return folder


@pytest.fixture
def two_runs(tmp_path, loopback, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CRUCIBLE_JUDGE", raising=False)
    config = tmp_path / "models.yaml"
    config.write_text(textwrap.dedent(f"""\
        providers:
          loop: {{base_url: "{loopback.base_url}", max_retries: 0, timeout: 20}}
        models:
          - {{name: judge, provider: loop, model_id: {JUDGE_ID}, price: {{input: 1.0, output: 2.0}}}}
        """))
    good = write_run(tmp_path / "run-a", "good", lambda c: c.verify["reference"])
    bad = write_run(tmp_path / "run-b", "bad", lambda c: c.verify["wrong"][-1])  # each case's near miss
    return config, good, bad


def test_pairwise_ranks_the_runs_with_the_judge_in_both_orders(two_runs, loopback, tmp_path, capsys):
    config, good, bad = two_runs
    loopback.script(handler=scripted_judge(REFERENCES))
    out = tmp_path / "ranking" / "pairwise.json"
    assert crucible(["pairwise", str(good), str(bad), "--judge", "judge", "--config", str(config),
                     "--out", str(out), "--rounds", "100"]) == 0
    n = len(PROSE)
    assert loopback.chat_count == 6 + 2 * n  # the canary, then each case in both orders
    first_read = [r.body["messages"][-1]["content"].split("ANSWER A:\n<<<\n", 1)[1][:40]
                  for r in loopback.chat_requests[6:]]
    assert len(set(first_read)) == 2 * n  # each case's two answers, each read first once
    result = json.loads(out.read_text())
    assert [p["name"] for p in result["players"]] == ["good", "bad"]
    best, worst = result["players"]
    assert (best["wins"], best["losses"], best["ties"]) == (2 * n, 0, 0)
    # 2n wins and the prior's half: P = (2n + 0.5) / (2n + 1)
    assert best["rating"] - worst["rating"] == pytest.approx(400 * math.log10((2 * n + 0.5) / 0.5), abs=0.2)
    assert best["interval"][0] == pytest.approx(best["rating"], abs=0.1)  # unanimous: no spread
    assert result["pairs"] == [{"a": "bad", "b": "good", "cases": n, "a_wins": 0, "b_wins": 2 * n, "ties": 0,
                                "inconsistent": 0}]
    assert result["position"] == {"first": n, "second": n}
    per_game = (USAGE["prompt_tokens"] * 1.0 + USAGE["completion_tokens"] * 2.0) / 1e6  # the judge's prices
    assert result["judge_cost_usd"] == pytest.approx(2 * n * per_game)
    assert best["run"] == "run-a" and best["model"] == "good" and result["errors"] == []
    table = capsys.readouterr().out
    assert f"| 1 | good | {best['rating']:.0f} |" in table and f"| bad vs good | {n} | 0-{2 * n} | 0 | 0 |" in table


def test_the_same_model_in_two_runs_is_two_players(two_runs, loopback, tmp_path):
    config, good, _ = two_runs
    again = write_run(tmp_path / "run-c", "good", lambda c: c.verify["wrong"][-1])
    loopback.script(handler=scripted_judge(REFERENCES))
    out = tmp_path / "pairwise.json"
    assert crucible(["pairwise", str(good), str(again), "--judge", "judge", "--config", str(config),
                     "--out", str(out), "--rounds", "20"]) == 0
    assert [p["name"] for p in json.loads(out.read_text())["players"]] == ["good@run-a", "good@run-c"]


def test_a_judge_that_fails_its_canary_ranks_nothing(two_runs, loopback, tmp_path, capsys):
    config, good, bad = two_runs
    loopback.script(default="Both answers are lovely.")
    out = tmp_path / "pairwise.json"
    assert crucible(["pairwise", str(good), str(bad), "--judge", "judge", "--config", str(config),
                     "--out", str(out)]) == 2
    assert "judge judge failed its canary" in capsys.readouterr().err
    assert not out.exists() and loopback.chat_count == 1


def test_pairwise_needs_a_judge_and_two_answered_runs(two_runs, tmp_path, capsys):
    config, good, bad = two_runs
    assert crucible(["pairwise", str(good), str(bad), "--config", str(config)]) == 2
    assert "--judge MODEL" in capsys.readouterr().err
    assert crucible(["pairwise", str(good), str(tmp_path), "--judge", "judge", "--config", str(config)]) == 2
    assert "no rows.jsonl" in capsys.readouterr().err
    assert crucible(["pairwise", str(good), str(bad), "--judge", "judge", "--config", str(config), "--rounds", "0"]) == 2
    assert "--rounds must be at least 1" in capsys.readouterr().err
