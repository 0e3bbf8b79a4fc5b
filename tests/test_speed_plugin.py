"""`pytest --models NAME -m speed` end to end (pytester runs) against the loopback endpoint."""

from __future__ import annotations

import json
import shutil
import textwrap
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from loopback import Reply

CONTRACT = ("ttft_s", "ttft_answer_s", "decode_tps", "prefill_tps", "itl_p50_s", "itl_p95_s", "samples",
            "estimated_tokens", "plausible")
FAST = ("--crucible-speed-warmup", "0", "--crucible-speed-repeats", "2")
SPEED_CASES = Path(__file__).resolve().parent.parent / "cases" / "speed" / "speed_cases.py"


def models_yaml(base_url: str, tags: str = "[]") -> str:
    return textwrap.dedent(f"""\
        providers:
          loop:
            base_url: {base_url}
            max_retries: 0
            timeout: 20
            concurrency: 4
        models:
          - name: m1
            provider: loop
            model_id: m1
            tags: {tags}
        """)


@pytest.fixture
def project(pytester, loopback, tmp_path, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_LOCK_DIR", str(tmp_path / "locks"))
    loopback.script(default=Reply(" ".join(["tok"] * 30), first_token_delay=0.01, token_delay=0.002))
    pytester.makefile(".yaml", models=models_yaml(loopback.base_url))
    # the built-in speed cases, copied: collecting them in place would load the repository's conftest.py
    (pytester.path / "speed").mkdir()
    shutil.copy(SPEED_CASES, pytester.path / "speed" / SPEED_CASES.name)
    return pytester


def run(pytester, *args):
    return pytester.runpytest("-p", "no:cacheprovider", "--crucible-no-builtin-cases", "speed", *args)


def latest(pytester, name: str):
    path = pytester.path / "crucible-results" / "latest" / name
    if name.endswith(".json"):
        return json.loads(path.read_text())
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_speed_run_prints_the_block_and_fills_the_contract(project, loopback):
    result = run(project, "--models", "m1", "-m", "speed", "--crucible-slo", "ttft=0.5,e2e=20", *FAST)
    out = result.stdout.str()
    assert result.ret == 0, out[-3000:]
    outcomes = result.parseoutcomes()
    assert outcomes.get("measured") == 5 and outcomes.get("skipped") == 1  # 16 streams > concurrency 4
    assert "passed" not in outcomes and "failed" not in outcomes  # measurements, never passes or failures
    result.stdout.fnmatch_lines(["*crucible summary*", "*SPEED m1 (median, min-max*",
                                 "*SP01-short-50*decode*tok/s*TTFT*", "*streams 1 / 4:*aggregate*",
                                 "*plausibility: *"])
    report = latest(project, "report.json")
    m = report["models"]["m1"]
    speed = m["speed"]
    for key in CONTRACT:
        assert key in speed, key
    assert speed["decode_tps"] == pytest.approx(500, rel=0.25) and speed["samples"] == 8
    assert speed["ttft_s"] >= 0.01 and speed["prefill_tps"] > 1000  # the ~4k-token prompt
    assert m["total"]["n"] == 0 and m["categories"]["speed"]["measured"] == 5
    assert report["meta"]["slo"] == {"ttft_s": 0.5, "e2e_s": 20.0}
    assert m["goodput"] is not None and m["goodput"]["n"] == 0  # no accuracy items in this run
    md = (project.path / "crucible-results" / "latest" / "report.md").read_text()
    assert "## Speed: m1" in md and "| SP04-prefill-4k | 1 |" in md
    # 5 items: (1 + 1 + 1 + 1) x 2 single requests + 2 rounds x 4 streams
    assert loopback.chat_count == 4 * 2 + 2 * 4


def test_implausible_speed_is_flagged(project, loopback):
    project.makefile(".yaml", models=models_yaml(loopback.base_url, tags="[weights_gb=2]"))
    result = run(project, "--models", "m1", "-m", "speed", "-k", "SP01", "--crucible-bandwidth", "100", *FAST)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*IMPLAUSIBLE (confidence LOW): decode * tok/s is above the ceiling 50.0 tok/s*",
                                 "*plausibility: LOW*"])
    speed = latest(project, "report.json")["models"]["m1"]["speed"]
    assert speed["plausible"] is False and speed["decode_ceiling_tps"] == 50.0


def test_bad_speed_options_are_usage_errors(project):
    result = run(project, "--models", "m1", "--crucible-slo", "latency=3", "--collect-only")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--crucible-slo: unknown target 'latency'*"])
    result = run(project, "--models", "m1", "--crucible-bandwidth", "fast", "--collect-only")
    assert result.ret == 4


def test_speed_items_never_overlap_under_xdist(project, loopback):
    loopback.script(default=Reply(" ".join(["tok"] * 30), first_token_delay=0.05, token_delay=0.005))
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "--crucible-no-builtin-cases", "speed", "--models", "m1",
                                          "-m", "speed", "-n", "3", *FAST)
    assert result.ret == 0, result.stdout.str()[-3000:]
    spans = []
    for row in latest(project, "rows.jsonl"):
        if row["outcome"] != "measured":
            continue
        start = datetime.fromisoformat(row["started_at"])
        spans.append((start, start + timedelta(seconds=row["wall_s"])))
    spans.sort()
    assert len(spans) == 5
    assert all(a[1] <= b[0] + timedelta(milliseconds=5) for a, b in zip(spans, spans[1:])), spans
