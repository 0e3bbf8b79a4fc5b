"""Capacity search (`crucible capacity MODEL --slo ...`): the most concurrent streams at which the model's
*correct* goodput still meets the latency targets.

Each level keeps `concurrency` requests in flight (closed loop: a stream sends its next request as soon as
its last one ends) until the level's requests are sent. The prompts are generated multiplications with a
known answer, graded by the numeric grader; each asks for one line of working before `Answer: N`, so a
reply has tokens enough to time its inter-token gaps. A request is *good* when it was answered, graded
correct, and within every target (engine.speed_settings.slo_misses: a metric the request lacks misses its
target). A level meets the SLO when at least `min_good` of its requests are good.

Search: 1, 2, 4, 8, ... up to the ceiling (the provider's `concurrency`, or --max-concurrency), then
bisection between the last level that met the SLO and the first that did not. The capacity is the highest
level that met it; 0 when level 1 did not. The search assumes that a level past the capacity fails too.

Timings are the speed kind's (results.request_metrics on the client's kernel-stamped stream); the requests
go through the run session's client, so the provider's lane and the cost caps (`max_cost_usd`,
--max-cost) apply: a capped request ends the search, and the level it was in is reported as incomplete.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pytest_crucible.common.errors import CostCapReached, InfraError, InputError, ProviderDown
from pytest_crucible.engine.session import RunSession
from pytest_crucible.engine.speed_settings import slo_misses, slo_text
from pytest_crucible.grading import grade
from pytest_crucible.local import LeaseManager
from pytest_crucible.results.request_metrics import quantile, request_metrics
from pytest_crucible.results.row import request_params
from pytest_crucible.speed.item_kind import concurrency_skip, new_nonce, with_nonce
from pytest_crucible.suite.case import Case, build_case

DEFAULT_MIN_GOOD = 0.9
DEFAULT_MAX_TOKENS = 256
REQUESTS_PER_STREAM, MIN_REQUESTS = 4, 8
LAUNCHED_LIMIT = 64  # a launched server: tried down from here to its slots (--parallel N)


@dataclass(frozen=True)
class CapacityPlan:
    slo: dict                               # parse_slo's {"ttft_s": 0.5, "itl_p95_s": 0.05}
    min_good: float = DEFAULT_MIN_GOOD      # share of a level's requests that must be good
    requests: int | None = None             # per level; None: 4 per stream, at least 8
    max_concurrency: int | None = None      # None: what the endpoint allows (the provider's concurrency)
    max_tokens: int = DEFAULT_MAX_TOKENS
    seed: int = 0

    def requests_at(self, level: int) -> int:
        return self.requests or max(MIN_REQUESTS, REQUESTS_PER_STREAM * level)


@dataclass
class SearchResult:
    capacity: int
    levels: list[dict]                      # in the order measured
    stopped: str                            # why the search ended, one line
    ceiling: int


# -- the prompts ----------------------------------------------------------------------------------

def arithmetic_cases(count: int, rng: random.Random, max_tokens: int) -> list[Case]:
    """`count` known-answer prompts: two-digit by three-digit products, graded by the numeric grader."""
    cases = []
    for i in range(count):
        a, b = rng.randint(12, 99), rng.randint(101, 999)
        cases.append(build_case({
            "id": f"capacity-{i}", "category": "math", "difficulty": "easy", "max_tokens": max_tokens,
            "prompt": f"What is {a} × {b}? Show one short line of working, then end with a line 'Answer: N'.",
            "grader": {"type": "numeric", "answer": a * b}}, Path("capacity")))
    return cases


# -- one level ------------------------------------------------------------------------------------

def ask_one(client, case: Case, params: dict, slo: dict) -> dict:
    """One request: its timings, whether it was correct, which targets it missed (raises CostCapReached and
    ProviderDown, which end the search; an endpoint failure is a sample with `error`)."""
    try:
        response = client.chat(with_nonce(case.messages, new_nonce()), max_tokens=case.max_tokens, params=params)
    except InfraError as exc:
        return {"error": str(exc)[:300], "correct": False, "good": False, "missed": list(slo)}
    metrics = request_metrics(response, case.prompt_chars)
    verdict = grade(case, response)
    missed = slo_misses(metrics, slo)
    return {"ttft_s": metrics["ttft_s"], "itl_p50_s": metrics["itl_p50_s"], "itl_p95_s": metrics["itl_p95_s"],
            "e2e_s": metrics["e2e_s"], "ttft_answer_s": metrics["ttft_answer_s"],
            "decode_tps": metrics["decode_tps"], "completion_tokens": metrics["completion_tokens"] or 0,
            "prompt_tokens": metrics["prompt_tokens"] or 0, "clock": metrics["clock"],
            "correct": verdict.passed, "missed": missed, "good": verdict.passed and not missed,
            "reason": verdict.reason[:200], "error": None}


def measure_level(ask: Callable[[Case], dict], cases: list[Case], level: int) -> tuple[list[dict], float, str | None]:
    """`level` streams in a closed loop over `cases`: (samples, wall seconds, why it stopped early or None)."""
    stop = threading.Event()
    stopped: list[str] = []

    def one(case: Case) -> dict | None:
        if stop.is_set():
            return None
        try:
            return ask(case)
        except (CostCapReached, ProviderDown) as exc:
            stop.set()
            stopped.append(str(exc))
            return None

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=level, thread_name_prefix="crucible-capacity") as pool:
        samples = [s for s in pool.map(one, cases) if s is not None]
    return samples, time.perf_counter() - started, (stopped[0] if stopped else None)


def _q(values: list[float | None], q: float) -> float | None:
    found = quantile([v for v in values if v is not None], q)
    return round(found, 6) if found is not None else None


def level_summary(level: int, samples: list[dict], wall_s: float, plan: CapacityPlan,
                  incomplete: str | None = None) -> dict:
    """One level's line of capacity.json (docs/speed.md lists the keys)."""
    n = len(samples)
    good = sum(s["good"] for s in samples)
    answered = [s for s in samples if s["error"] is None]
    tokens = sum(s["completion_tokens"] for s in answered)
    rate = good / n if n else 0.0
    missed = {key: sum(key in s["missed"] for s in samples) for key in plan.slo}
    return {
        "concurrency": level, "requests": n, "errors": n - len(answered),
        "correct": sum(s["correct"] for s in samples), "within_slo": sum(not s["missed"] for s in samples),
        "good": good, "correct_rate": round(sum(s["correct"] for s in samples) / n, 4) if n else None,
        "slo_rate": round(sum(not s["missed"] for s in samples) / n, 4) if n else None,
        "good_rate": round(rate, 4) if n else None, "missed": missed,
        "meets_slo": bool(n) and incomplete is None and rate >= plan.min_good, "incomplete": incomplete,
        "wall_s": round(wall_s, 4),
        "throughput_rps": round(len(answered) / wall_s, 3) if wall_s > 0 else None,
        "tokens_per_s": round(tokens / wall_s, 2) if wall_s > 0 else None,
        "goodput_rps": round(good / wall_s, 3) if wall_s > 0 else None,
        "ttft_p50_s": _q([s.get("ttft_s") for s in answered], 0.5),
        "ttft_p95_s": _q([s.get("ttft_s") for s in answered], 0.95),
        "itl_p50_s": _q([s.get("itl_p50_s") for s in answered], 0.5),
        "itl_p95_s": _q([s.get("itl_p95_s") for s in answered], 0.95),
        "e2e_p50_s": _q([s.get("e2e_s") for s in answered], 0.5),
        "samples": samples,
    }


# -- the search -----------------------------------------------------------------------------------

def search(measure: Callable[[int], dict], ceiling: int, on_level: Callable[[dict], None] | None = None
           ) -> SearchResult:
    """Double from 1 to the ceiling, then bisect between the last good and the first bad level (see the
    module docstring). `measure(level)` returns level_summary's mapping."""
    levels: list[dict] = []

    def run(level: int) -> dict:
        result = measure(level)
        levels.append(result)
        if on_level is not None:
            on_level(result)
        return result

    good, bad, level = 0, None, 1
    while bad is None and good < ceiling:
        result = run(level)
        if result["incomplete"]:
            return SearchResult(good, levels, f"stopped at {level} streams: {result['incomplete']}", ceiling)
        if result["meets_slo"]:
            good = level
        else:
            bad = level
        level = min(level * 2, ceiling)
    while bad is not None and bad - good > 1:
        level = (good + bad) // 2
        result = run(level)
        if result["incomplete"]:
            return SearchResult(good, levels, f"stopped at {level} streams: {result['incomplete']}", ceiling)
        good, bad = (level, bad) if result["meets_slo"] else (good, level)
    if bad is None:
        stopped = (f"the ceiling ({ceiling} streams) still meets the SLO: the capacity may be higher "
                   "(raise the provider's concurrency or --max-concurrency)")
    elif good == 0:
        stopped = "no level meets the SLO: even 1 stream misses it"
    else:
        stopped = f"{good} streams meet the SLO, {bad} do not"
    return SearchResult(good, levels, stopped, ceiling)


def ceiling_for(model, wanted: int | None) -> int:
    """The highest level to try: `wanted` when the endpoint allows it (InputError saying why not), else the
    most the endpoint allows (the provider's concurrency; a launched server's slots)."""
    if wanted is not None:
        reason = concurrency_skip(model, wanted)
        if reason:
            raise InputError(f"--max-concurrency {wanted}: {reason}")
        return wanted
    provider = getattr(model, "provider", None)
    top = provider.concurrency if provider is not None and not model.launch else LAUNCHED_LIMIT
    while top > 1 and concurrency_skip(model, top):
        top -= 1
    return top


def run_capacity(model_name: str, plan: CapacityPlan, *, config_path: str | None = None,
                 max_cost: float | None = None, on_level: Callable[[dict], None] | None = None,
                 log: Callable[[str], None] = print) -> dict:
    """Search one model's capacity; capacity.json's mapping (without the run folder's name)."""
    session = RunSession(models=model_name, config_path=config_path, max_cost=max_cost)
    leases = None
    try:
        if len(session.models) != 1:
            raise InputError(f"crucible capacity measures one model; {model_name!r} names {len(session.models)}")
        model = session.models[0]
        ceiling = ceiling_for(model, plan.max_concurrency)
        if model.launch:
            leases = LeaseManager(run_id=session.run_id, log=log, secret_env_names=session.secret_env_names())
            server = leases.server_for(model)
            client = session.client_for(model, server.base_url, server.api_key)
        else:
            client = session.client_for(model)
        rng = random.Random(plan.seed)
        started_at = datetime.now(UTC).isoformat(timespec="seconds")
        warm = arithmetic_cases(1, rng, plan.max_tokens)[0]  # connection and a cold server: not measured
        warmed = client.chat(with_nonce(warm.messages, new_nonce()), max_tokens=warm.max_tokens,
                             params=request_params(warm, model))
        warm_cost = model.cost(warmed.usage.prompt_tokens, warmed.usage.completion_tokens)

        def measure(level: int) -> dict:
            cases = arithmetic_cases(plan.requests_at(level), rng, plan.max_tokens)
            params = request_params(cases[0], model)
            samples, wall, incomplete = measure_level(lambda case: ask_one(client, case, params, plan.slo),
                                                      cases, level)
            summary = level_summary(level, samples, wall, plan, incomplete)
            summary["cost_usd"] = round(sum(model.cost(s.get("prompt_tokens"), s.get("completion_tokens"))
                                            for s in samples), 8)
            return summary

        found = search(measure, ceiling, on_level)
        return {
            "model": model.name, "model_id": model.model_id,
            "provider": model.provider.name if model.provider else "local", "started_at": started_at,
            "slo": dict(plan.slo), "slo_text": slo_text(plan.slo), "min_good": plan.min_good,
            "requests_per_level": plan.requests, "max_tokens": plan.max_tokens, "seed": plan.seed,
            "ceiling": found.ceiling, "capacity": found.capacity, "stopped": found.stopped,
            "order": [lvl["concurrency"] for lvl in found.levels],
            "levels": sorted(found.levels, key=lambda lvl: lvl["concurrency"]),
            "cost_usd": round(warm_cost + sum(lvl["cost_usd"] for lvl in found.levels), 6),
            "meta": session.meta(),
        }
    finally:
        session.close()
        if leases is not None:
            leases.close()


def header_lines(model: str, slo: dict, min_good: float) -> list[str]:
    return [f"capacity of {model} at {slo_text(slo)} (a level meets it when >= {min_good:.0%} of its requests "
            "are correct and within every target)",
            (f"{'streams':>7} {'requests':>8} {'correct':>8} {'in SLO':>7} {'good':>6} {'req/s':>7} {'good/s':>7} "
             f"{'tok/s':>8} {'TTFT p50':>9} {'TTFT p95':>9} {'ITL p50':>8} {'ITL p95':>8}")]


def level_line(level: dict) -> str:
    def pct(value):
        return f"{value:.0%}" if value is not None else "-"

    def ms(value):
        return f"{value * 1000:.1f}ms" if value is not None else "-"

    mark = "ok" if level["meets_slo"] else ("stopped" if level["incomplete"] else "MISS")
    return (f"{level['concurrency']:>7} {level['requests']:>8} {pct(level['correct_rate']):>8} "
            f"{pct(level['slo_rate']):>7} {pct(level['good_rate']):>6} {level['throughput_rps'] or 0:>7.2f} "
            f"{level['goodput_rps'] or 0:>7.2f} "
            f"{level['tokens_per_s'] or 0:>8.1f} {ms(level['ttft_p50_s']):>9} {ms(level['ttft_p95_s']):>9} "
            f"{ms(level['itl_p50_s']):>8} {ms(level['itl_p95_s']):>8}  {mark}")


def verdict_line(result: dict) -> str:
    cost = f"; cost ${result['cost_usd']:.4f}" if result.get("cost_usd") else ""
    if result["capacity"] == 0:
        return f"capacity: 0 ({result['stopped']}){cost}"
    return f"capacity: {result['capacity']} concurrent streams ({result['stopped']}){cost}"
