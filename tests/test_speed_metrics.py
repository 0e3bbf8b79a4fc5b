"""Per-request speed metrics, settings parsing and the report's speed section (pure functions)."""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_crucible.client.response import Response, Timings, Usage
from pytest_crucible.engine.speed_settings import build, parse_slo
from pytest_crucible.results.request_metrics import MIN_DECODE_TOKENS, quantile, request_metrics, spread
from pytest_crucible.speed.summary import accuracy_timings, goodput, speed_section


def response(times, *, ttft=None, answer=None, e2e=None, usage=None, finish="stop"):
    times = list(times)
    return Response(content="x", finish_reason=finish, usage=usage or Usage(),
                    timings=Timings(ttft_s=times[0] if ttft is None and times else ttft,
                                    ttft_answer_s=answer, e2e_s=e2e if e2e is not None else (times[-1] if times else None),
                                    chunk_times=times))


def test_decode_rate_counts_the_tokens_after_the_first():
    times = [0.5 + 0.01 * i for i in range(51)]  # 51 tokens, one every 10 ms after a 0.5 s TTFT
    m = request_metrics(response(times, usage=Usage(prompt_tokens=1000, completion_tokens=51)))
    assert m["decode_tps"] == pytest.approx(100.0)
    assert m["ttft_s"] == pytest.approx(0.5)
    assert m["prefill_tps"] == pytest.approx(2000.0)
    assert m["itl_p50_s"] == pytest.approx(0.01) and m["itl_p99_s"] == pytest.approx(0.01)
    assert m["estimated_tokens"] is False and m["tokens_per_chunk"] == 1.0


def test_usage_tokens_win_over_chunk_count():
    """A server that sends 3 tokens per chunk: usage says 60 tokens over 20 chunks."""
    times = [0.1 + 0.03 * i for i in range(20)]
    m = request_metrics(response(times, usage=Usage(prompt_tokens=10, completion_tokens=60)))
    assert m["decode_tps"] == pytest.approx(59 / (0.03 * 19), rel=1e-4)
    assert m["tokens_per_chunk"] == 3.0


def test_prefill_uses_only_uncached_prompt_tokens():
    m = request_metrics(response([0.2, 0.3, 0.4, 0.5], usage=Usage(prompt_tokens=1000, completion_tokens=4,
                                                                   cached_tokens=800)))
    assert m["prefill_tps"] == pytest.approx(200 / 0.2)
    fully_cached = request_metrics(response([0.2, 0.3, 0.4, 0.5], usage=Usage(prompt_tokens=10, completion_tokens=4,
                                                                              cached_tokens=10)))
    assert fully_cached["prefill_tps"] is None


def test_missing_usage_is_counted_and_flagged():
    m = request_metrics(response([0.1, 0.2, 0.3, 0.4, 0.5]), prompt_chars=400)
    assert m["completion_tokens"] == 5 and m["prompt_tokens"] == 100 and m["estimated_tokens"] is True
    flagged = request_metrics(response([0.1, 0.2], usage=Usage(prompt_tokens=3, completion_tokens=2, estimated=True)))
    assert flagged["estimated_tokens"] is True


def test_reply_cut_off_by_the_limit_has_max_tokens_tokens():
    """No usage, 10 chunks of several tokens each, finish_reason length at max_tokens 30: 30 tokens."""
    r = response([0.1 + 0.01 * i for i in range(10)], finish="length",
                 usage=Usage(prompt_tokens=5, completion_tokens=10, estimated=True))
    r.max_tokens = 30
    m = request_metrics(r)
    assert m["completion_tokens"] == 30 and m["estimated_tokens"] is True
    assert m["decode_tps"] == pytest.approx(29 / 0.09, rel=1e-4)


def test_reasoning_tokens_kept_apart():
    m = request_metrics(response([0.1 * i for i in range(1, 11)], answer=0.6,
                                 usage=Usage(prompt_tokens=5, completion_tokens=10, reasoning_tokens=5)))
    assert m["reasoning_tokens"] == 5 and m["answer_tokens"] == 5
    assert m["ttft_s"] == pytest.approx(0.1) and m["ttft_answer_s"] == pytest.approx(0.6)


def test_too_few_tokens_give_no_decode_rate():
    short = [0.1 + 0.01 * i for i in range(MIN_DECODE_TOKENS - 1)]
    assert request_metrics(response(short))["decode_tps"] is None
    assert request_metrics(response([]))["ttft_s"] is None


@given(st.floats(0.0, 5.0), st.floats(0.0005, 0.5), st.integers(MIN_DECODE_TOKENS, 500))
def test_uniform_stream_gives_exact_rate(ttft, gap, n):
    times = [ttft + gap * i for i in range(n)]
    m = request_metrics(response(times, usage=Usage(prompt_tokens=10, completion_tokens=n)))
    assert m["decode_tps"] == pytest.approx(1 / gap, rel=1e-3)
    assert m["itl_p50_s"] == pytest.approx(gap, rel=1e-3, abs=1e-5)


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=50), st.floats(0, 1))
def test_quantile_between_min_and_max(values, q):
    v = quantile(values, q)
    assert min(values) <= v <= max(values) or math.isclose(v, min(values)) or math.isclose(v, max(values))
    assert quantile(values, 0) == min(values) and quantile(values, 1) == max(values)


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=60),
       st.sampled_from([0.01, 0.025, 0.1, 0.25, 1 / 3, 0.5, 0.9, 0.95, 0.975, 0.99]))
def test_quantile_is_the_standard_librarys_inclusive_cut_point(values, q):
    """quantile() takes one cut point without making the others: the same float statistics.quantiles gives."""
    step = Fraction(q).limit_denominator(10_000)
    assert quantile(values, q) == statistics.quantiles(values, n=step.denominator, method="inclusive")[step.numerator - 1]


def test_quantile_is_linear_interpolation_between_ranks():
    """numpy's default method, pinned: p95 of 7 gaps lies 70% of the way from the 6th to the 7th."""
    gaps = [0.031, 0.012, 0.047, 0.02, 0.09, 0.015, 0.033]
    expected = {0: 0.012, 0.025: 0.01245, 0.25: 0.0175, 0.5: 0.031, 0.95: 0.0771, 0.975: 0.08355, 0.99: 0.08742,
                1: 0.09}
    assert {q: quantile(gaps, q) for q in expected} == pytest.approx(expected, abs=1e-12)
    assert quantile([5.0], 0.95) == 5.0 and quantile([1, 2], 0.5) == 1.5 and quantile([], 0.5) is None
    times = [0.2 + t for t in (0, 0.01, 0.03, 0.04, 0.1, 0.11, 0.12, 0.16)]  # gaps .01 .02 .01 .06 .01 .01 .04
    m = request_metrics(response(times, usage=Usage(prompt_tokens=10, completion_tokens=8)))
    assert (m["itl_p50_s"], m["itl_p95_s"], m["itl_p99_s"]) == (0.01, 0.054, 0.0588)


def test_spread_ignores_none():
    assert spread([None, 3.0, 1.0, 2.0]) == {"median": 2.0, "min": 1.0, "max": 3.0, "n": 3}
    assert spread([None]) is None


# ---- settings --------------------------------------------------------------------------------------

def test_parse_slo():
    assert parse_slo("ttft=0.5,e2e=20") == {"ttft_s": 0.5, "e2e_s": 20.0}
    assert parse_slo("ttft_answer=800ms, decode=30, itl=0.05") == {
        "ttft_answer_s": 0.8, "decode_tps": 30.0, "itl_p95_s": 0.05}
    assert parse_slo(None) == {}
    for bad, words in (("ttft", "KEY=VALUE"), ("latency=3", "unknown target"), ("e2e=fast", "not a number"),
                       ("e2e=0", "positive")):
        with pytest.raises(ValueError, match=words):
            parse_slo(bad)


def test_build_settings():
    s = build(bandwidth="960", slo="ttft=0.5", warmup="0", repeats="5")
    assert (s.bandwidth_gbps, s.slo, s.warmup, s.repeats) == (960.0, {"ttft_s": 0.5}, 0, 5)
    assert s.to_meta() == {"bandwidth_gbps": 960.0, "slo": {"ttft_s": 0.5}, "speed_warmup": 0, "speed_repeats": 5}
    assert build(bandwidth="1792 GB/s").bandwidth_gbps == 1792.0
    with pytest.raises(ValueError, match="--crucible-bandwidth"):
        build(bandwidth="fast")
    with pytest.raises(ValueError, match="--crucible-speed-repeats"):
        build(repeats="0")


# ---- report section --------------------------------------------------------------------------------

def _speed_row(case_id, *, decode, ttft, prompt=50, concurrency=1, confidence="HIGH", tags=(), rounds=()):
    samples = [{"ttft_s": t, "ttft_answer_s": t, "decode_tps": d, "prefill_tps": prompt / t, "itl_p50_s": 1 / d,
                "itl_p95_s": 1.2 / d, "e2e_s": t + 100 / d, "completion_tokens": 100, "prompt_tokens": prompt,
                "estimated_tokens": False} for d, t in zip(decode, ttft)]
    summary = {k: spread([s[k] for s in samples]) for k in samples[0]
               if k not in ("estimated_tokens",)}
    return {"model": "m", "case_id": case_id, "category": "speed", "difficulty": "easy", "repeat": 1,
            "tags": list(tags), "outcome": "passed" if confidence != "LOW" else "failed",
            "speed": {"plan": {"concurrency": concurrency}, "samples": samples, "summary": summary,
                      "rounds": list(rounds), "plausibility": {"confidence": confidence, "reasons": [
                          "decode above the ceiling" if confidence == "LOW" else "within the ceiling"],
                          "decode_ceiling_tps": 500.0},
                      "hardware": {"description": "NVIDIA RTX 4090 (1008 GB/s)"}}}


def test_speed_section_contract_and_medians():
    rows = [_speed_row("SP01", decode=[80, 90, 100], ttft=[0.2, 0.3, 0.4]),
            _speed_row("SP02", decode=[70, 70, 70], ttft=[0.5, 0.5, 0.5]),
            _speed_row("SP04", decode=[60, 60, 60], ttft=[2.0, 2.0, 2.0], prompt=4000),
            _speed_row("SP05", decode=[50] * 8, ttft=[0.6] * 8, concurrency=4, tags=["sweep"],
                       rounds=[{"aggregate_tps": 190.0}, {"aggregate_tps": 200.0}])]
    s = speed_section(rows)
    for key in ("ttft_s", "ttft_answer_s", "decode_tps", "prefill_tps", "itl_p50_s", "itl_p95_s", "samples",
                "estimated_tokens", "plausible"):
        assert key in s, key
    assert s["decode_tps"] == 70.0          # median of the single-stream items' medians (90, 70, 60)
    assert s["ttft_s"] == 0.5
    assert s["prefill_tps"] == 2000.0       # only the item with a long prompt
    assert s["samples"] == 9                # single-stream requests behind the medians
    assert s["plausible"] is True and s["confidence"] == "HIGH"
    assert s["concurrency"]["4"]["aggregate_tps"]["median"] == 195.0
    rows.append(_speed_row("SP03", decode=[900], ttft=[0.1], confidence="LOW"))
    low = speed_section(rows)
    assert low["plausible"] is False and low["confidence"] == "LOW"
    assert low["plausibility_reasons"] == ["SP03: decode above the ceiling"]
    assert speed_section([{"category": "math", "outcome": "passed"}]) is None


def _acc_row(outcome, ttft, e2e):
    return {"model": "m", "category": "math", "difficulty": "easy", "outcome": outcome,
            "timings": {"ttft_s": ttft, "e2e_s": e2e, "ttft_answer_s": ttft, "decode_tps": 50.0}}


def test_goodput_counts_correct_and_within_targets():
    rows = [_acc_row("passed", 0.2, 5), _acc_row("passed", 0.9, 5), _acc_row("failed", 0.1, 1),
            _acc_row("passed", 0.3, 30), _acc_row("error", None, None), _acc_row("passed", None, 4),
            _speed_row("SP01", decode=[80], ttft=[0.1])]
    g = goodput(rows, {"ttft_s": 0.5, "e2e_s": 20.0})
    assert (g["good"], g["n"], g["correct"], g["within_slo"]) == (1, 5, 4, 2)
    assert g["rate"] == 0.2 and g["missed"] == {"ttft_s": 2, "e2e_s": 1}
    assert goodput(rows, {}) is None
    assert goodput(rows, {"decode_tps": 40.0})["good"] == 4
    assert accuracy_timings(rows)["n"] == 5


def test_busy_host_is_reported():
    quiet = _speed_row("SP01", decode=[80], ttft=[0.1])
    quiet["speed"]["host"] = {"cpus": 2, "load_1m_before": 0.5, "load_1m_after": 1.2}
    assert speed_section([quiet])["host_busy"] is None
    busy = _speed_row("SP02", decode=[80], ttft=[0.1])
    busy["speed"]["host"] = {"cpus": 2, "load_1m_before": 3.0, "load_1m_after": 5.0}
    assert speed_section([quiet, busy])["host_busy"] == 2.5


def test_the_speed_block_says_where_arrival_times_come_from():
    from pytest_crucible.speed.summary import render_markdown, render_terminal

    def model(*clocks):
        rows = []
        for i, clock in enumerate(clocks):
            row = _speed_row(f"SP0{i + 1}", decode=[80], ttft=[0.1])
            row["speed"]["samples"][0]["clock"] = clock
            rows.append(row)
        return {"speed": speed_section(rows)}

    kernel, process, mixed = model("kernel", "kernel"), model("process"), model("kernel", "process")
    assert (kernel["speed"]["clock"], process["speed"]["clock"], mixed["speed"]["clock"]) == \
        ("kernel", "process", "mixed")
    assert "Arrival times: the kernel's receive stamps." in render_markdown("m", kernel)
    assert not any("arrival times" in line.lower() for line in render_terminal("m", kernel))
    note = [line for line in render_terminal("m", mixed) if "arrival times" in line]
    assert note == ["    Note: some arrival times are the client's clock after each read (TLS or not Linux), "
                    "so a busy client adds to them"]
