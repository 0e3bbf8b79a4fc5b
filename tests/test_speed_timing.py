"""Timing truth: the speed runner's numbers against a loopback server with injected delays.

The server runs in its own process (benchmarks/timing_accuracy.py starts it), so it shares no GIL with
the client, and reports when it really received each request and wrote each token. Asserted, as the
speed issue targets them:

- TTFT within 2 ms of the injected delay (median), and never earlier than it;
- decode tok/s within 2 % of the injected rate (median);
- the time from the first token to the first answer token within 2 ms of the injected reasoning time;
- the client's own part of the error (measured TTFT minus the server's real arrival-to-first-send
  time: the two trips over loopback and the client) within 1 ms.

The client reads the kernel's receive stamps (pytest_crucible/client/wire.py), so a busy machine delaying the
client process does not show up in these numbers; `python benchmarks/timing_accuracy.py` prints them
beside the same measurements taken with the process clock.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import timing_accuracy as ta  # noqa: E402

from pytest_crucible.client.chat import ChatClient  # noqa: E402

DECODE_TOLERANCE_PCT = 2.0
TTFT_TOLERANCE_MS = 2.0
CLIENT_OWN_TOLERANCE_MS = 1.0
EARLY_TOLERANCE_MS = 0.5     # clock granularity: a measured TTFT is never shorter than the truth


@pytest.fixture(scope="module")
def timed_endpoint():
    with ta.loopback_process() as base_url:
        client = ChatClient(base_url, None, model_id=ta.MODEL_ID, max_retries=0, timeout=30)
        yield base_url, client
        client.close()


@pytest.fixture(autouse=True)
def private_locks(tmp_path, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_LOCK_DIR", str(tmp_path / "locks"))


@pytest.mark.parametrize("scenario", [ta.SCENARIOS[1], ta.SCENARIOS[2], ta.SCENARIOS[4]], ids=lambda s: s.name)
def test_ttft_and_decode_match_the_injected_delays(timed_endpoint, scenario):
    base_url, client = timed_endpoint
    result = ta.measure_scenario(base_url, scenario, repeats=7, client=client)
    assert result["samples"] == 7 and not result["estimated"]
    assert min(result["ttft_error_ms"]) >= -EARLY_TOLERANCE_MS, result["ttft_error_ms"]
    assert result["ttft_error_median_ms"] <= TTFT_TOLERANCE_MS, result["ttft_error_ms"]
    assert abs(result["client_error_median_ms"]) <= CLIENT_OWN_TOLERANCE_MS, result["client_error_ms"]
    assert abs(result["decode_error_median_pct"]) <= DECODE_TOLERANCE_PCT, result["decode_error_pct"]


def test_time_to_first_answer_token_skips_reasoning(timed_endpoint):
    base_url, client = timed_endpoint
    scenario = ta.SCENARIOS[-1]
    assert scenario.reasoning > 0
    result = ta.measure_scenario(base_url, scenario, repeats=7, client=client)
    assert -EARLY_TOLERANCE_MS <= result["ttft_error_median_ms"] <= TTFT_TOLERANCE_MS
    assert -EARLY_TOLERANCE_MS <= result["ttft_answer_error_median_ms"] <= TTFT_TOLERANCE_MS, \
        result["ttft_answer_error_ms"]
    # the answer starts `reasoning` token delays after the first token
    gap_ms = (result["ttft_answer_median"] - result["ttft_median"]) * 1000
    assert abs(gap_ms - scenario.reasoning * scenario.token_delay * 1000) <= TTFT_TOLERANCE_MS
    # decode covers reasoning and answer tokens alike
    assert abs(result["decode_error_median_pct"]) <= DECODE_TOLERANCE_PCT


def test_benchmark_prints_ratios_beside_the_truth(timed_endpoint):
    base_url, client = timed_endpoint
    scenario = ta.SCENARIOS[1]
    naive_client = ChatClient(base_url, None, model_id=ta.MODEL_ID, max_retries=0, timeout=30, wire_clock=False)
    try:
        wired = ta.measure_scenario(base_url, scenario, repeats=2, warmup=0, client=client)
        naive = ta.measure_scenario(base_url, scenario, repeats=2, warmup=0, client=naive_client)
    finally:
        naive_client.close()
    lines = ta.loopback_table([wired], [naive])
    assert "truth" in lines[0] and "ratio" in lines[0] and "process clock" in lines[0]
    ttft_row = lines[1].split()
    assert lines[1].startswith(scenario.name) and "50.00ms" in ttft_row
    assert ttft_row[-1] == f"{naive['ttft_error_median_ms']:+.2f}ms"  # the process clock's error, beside
    decode_row = lines[4].split()
    assert lines[4].startswith(scenario.name)
    ratio = float(decode_row[-3])  # decode measured / injected
    assert abs(ratio - 1) < DECODE_TOLERANCE_PCT / 100
    assert wired["clock"] == (["kernel"] if sys.platform.startswith("linux") else ["process"])
    assert naive["clock"] == ["process"]
