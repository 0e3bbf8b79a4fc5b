"""`crucible capacity`: the search finds the level a loopback endpoint was built to saturate at."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from loopback import Reply

from pytest_crucible.apps.cli import main
from pytest_crucible.speed.capacity import CapacityPlan, level_summary, search

SATURATES_AT = 6        # the endpoint serves this many requests at once at full speed
WINDOW = 0.03           # seconds a request waits to see who arrived with it
FIRST_TOKEN = 0.01      # then seconds to its first token ...
PENALTY = 0.2           # ... plus this much for every request in flight beyond SATURATES_AT
TOKEN = 0.01            # seconds between tokens
TTFT_TARGET = 0.15      # met with room to spare up to SATURATES_AT, missed by as much past it
PRODUCT = re.compile(r"What is (\d+) × (\d+)\?")


class SaturatingEndpoint:
    """A loopback handler whose time to first token is WINDOW + FIRST_TOKEN + PENALTY x max(0, in flight -
    SATURATES_AT): in flight counts the server's requests being answered and those still in their window, so
    streams sent together see each other, and it never counts a finished request (the server stops counting
    one before its last bytes are written). It answers the capacity prompts right (or, with `wrong`, off by
    one)."""

    def __init__(self, server, wrong: bool = False):
        self.server, self.wrong = server, wrong
        self.waiting = 0
        self.lock = threading.Lock()

    def __call__(self, body: dict) -> Reply:
        a, b = map(int, PRODUCT.search(body["messages"][-1]["content"]).groups())
        product = a * b + (1 if self.wrong else 0)
        with self.lock:
            self.waiting += 1
        time.sleep(WINDOW)
        with self.lock:
            in_flight = self.server.in_flight + self.waiting
            self.waiting -= 1
        delay = WINDOW + FIRST_TOKEN + PENALTY * max(0, in_flight - SATURATES_AT)  # from the request's arrival
        return Reply(f"{a} × {b} = {product}.\nAnswer: {product}", first_token_delay=delay, token_delay=TOKEN)


def crucible(*args, cwd):
    return subprocess.run([sys.executable, "-m", "pytest_crucible.apps.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def write_models(path, base_url: str, *, price: str = "{input: 0, output: 0}", provider_extra: str = "") -> None:
    (path / "models.yaml").write_text(textwrap.dedent(f"""\
        providers:
          loop: {{base_url: "{base_url}", concurrency: 16, max_retries: 0, timeout: 20{provider_extra}}}
        models:
          - {{name: m1, provider: loop, model_id: m1, price: {price}}}
        """))


@pytest.fixture
def project(tmp_path, monkeypatch, loopback):
    monkeypatch.setenv("CRUCIBLE_LOCK_DIR", str(tmp_path / "locks"))
    write_models(tmp_path, loopback.base_url)
    return tmp_path


def capacity_json(cwd) -> dict:
    found = list((cwd / "crucible-results").glob("*/capacity.json"))
    assert len(found) == 1
    return json.loads(found[0].read_text())


def test_finds_the_level_the_endpoint_saturates_at(project, loopback):
    loopback.script(handler=SaturatingEndpoint(loopback))
    result = crucible("capacity", "m1", "--slo", f"ttft={TTFT_TARGET},itl=0.25", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "capacity: 6 concurrent streams (6 streams meet the SLO, 7 do not)" in result.stdout
    data = capacity_json(project)
    assert data["capacity"] == SATURATES_AT
    assert data["order"] == [1, 2, 4, 8, 6, 7]  # doubling to the first miss, then bisection
    by_level = {lvl["concurrency"]: lvl for lvl in data["levels"]}
    assert all(by_level[c]["meets_slo"] for c in (1, 2, 4, 6)) and not by_level[7]["meets_slo"]
    assert by_level[8]["missed"]["ttft_s"] > 0 and by_level[6]["correct_rate"] == 1.0
    assert loopback.max_in_flight == 8  # level 8 really kept 8 requests in flight
    for lvl in data["levels"]:  # every line the brief asks for is there
        assert lvl["requests"] == max(8, 4 * lvl["concurrency"])
        assert lvl["throughput_rps"] > 0 and lvl["tokens_per_s"] > 0 and lvl["itl_p95_s"] > 0
        assert lvl["ttft_p50_s"] <= lvl["ttft_p95_s"]
    html = (next((project / "crucible-results").glob("*/report.html"))).read_text()
    assert "<svg" in html and "capacity 6" in html and "6 concurrent streams" in html
    assert not (project / "crucible-results" / "latest").exists()  # not a benchmark run


def test_a_wrong_endpoint_has_capacity_zero(project, loopback):
    loopback.script(handler=SaturatingEndpoint(loopback, wrong=True))
    result = crucible("capacity", "m1", "--slo", "ttft=1,itl=1", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "capacity: 0 (no level meets the SLO: even 1 stream misses it)" in result.stdout
    data = capacity_json(project)
    assert data["capacity"] == 0 and data["order"] == [1]
    assert data["levels"][0]["correct_rate"] == 0.0 and data["levels"][0]["slo_rate"] == 1.0


@pytest.mark.parametrize("slo, words", [
    ("ttft", "--slo takes KEY=VALUE pairs like ttft=0.5"),
    ("latency=3", "--slo: unknown target 'latency'; use ttft, ttft_answer, e2e, itl, decode"),
    ("ttft=fast", "write e.g. ttft=0.5 or ttft=500ms"),
    ("", "--slo needs at least one target, e.g. --slo ttft=0.5,itl=0.05"),
])
def test_a_bad_slo_is_refused_with_what_to_write(project, loopback, monkeypatch, capsys, slo, words):
    monkeypatch.chdir(project)
    assert main(["capacity", "m1", "--slo", slo]) == 2
    assert words in capsys.readouterr().err
    assert loopback.chat_count == 0


def test_more_streams_than_the_provider_allows_are_refused(project, loopback, monkeypatch, capsys):
    monkeypatch.chdir(project)
    assert main(["capacity", "m1", "--slo", "ttft=1", "--max-concurrency", "32"]) == 2
    assert "--max-concurrency 32: 32 concurrent streams, but provider loop allows 16" in capsys.readouterr().err
    assert loopback.chat_count == 0


def test_the_providers_cost_cap_stops_the_search(project, loopback):
    # $1 per completion token: a request books 20 (its max_tokens) and costs about 10 (one token per chunk).
    # Warm-up, levels 1 and 2 cost 150-190; level 4's 16 requests would pass the 250 cap.
    write_models(project, loopback.base_url, price="{input: 0, output: 1000000}",
                 provider_extra=", max_cost_usd: 250")
    loopback.script(handler=SaturatingEndpoint(loopback))
    result = crucible("capacity", "m1", "--slo", "ttft=1", "--max-tokens", "20", cwd=project)
    assert result.returncode == 0, result.stderr
    data = capacity_json(project)
    assert data["order"] == [1, 2, 4] and data["capacity"] == 2
    assert data["stopped"] == "stopped at 4 streams: cost cap $250 reached for provider loop"
    assert 0 < data["levels"][2]["requests"] < 16 and data["levels"][2]["incomplete"]
    assert data["cost_usd"] <= 250 and loopback.chat_count == 1 + 8 + 8 + data["levels"][2]["requests"]


def fake_level(saturates_at: int, plan: CapacityPlan):
    """measure(level) for a model that meets the SLO up to `saturates_at` streams."""
    def measure(level: int) -> dict:
        good = level <= saturates_at
        sample = {"good": good, "correct": True, "missed": [] if good else ["ttft_s"], "error": None,
                  "completion_tokens": 5, "ttft_s": 0.1, "itl_p50_s": 0.01, "itl_p95_s": 0.02}
        return level_summary(level, [sample] * 8, 1.0, plan)
    return measure


@pytest.mark.parametrize("saturates_at, ceiling, order", [
    (0, 16, [1]),
    (1, 16, [1, 2]),
    (5, 16, [1, 2, 4, 8, 6, 5]),
    (6, 16, [1, 2, 4, 8, 6, 7]),
    (13, 16, [1, 2, 4, 8, 16, 12, 14, 13]),
    (16, 16, [1, 2, 4, 8, 16]),
    (40, 12, [1, 2, 4, 8, 12]),  # the ceiling is tried even when it is no power of two
])
def test_search_doubles_then_bisects(saturates_at, ceiling, order):
    plan = CapacityPlan(slo={"ttft_s": 0.5})
    found = search(fake_level(saturates_at, plan), ceiling)
    assert found.capacity == min(saturates_at, ceiling)
    assert [lvl["concurrency"] for lvl in found.levels] == order


def test_a_cost_cap_ends_the_search_at_the_level_it_cut():
    plan = CapacityPlan(slo={"ttft_s": 0.5})
    measure = fake_level(10, plan)

    def capped(level: int) -> dict:
        if level == 4:
            return level_summary(level, [], 0.5, plan, incomplete="cost cap $0.01 reached")
        return measure(level)

    found = search(capped, 16)
    assert found.capacity == 2 and "stopped at 4 streams: cost cap $0.01 reached" in found.stopped
