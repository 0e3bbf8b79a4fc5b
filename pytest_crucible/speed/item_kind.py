"""Running one speed case: warm-up, N measured rounds, a fresh nonce per prompt, 1..N streams at once.

A speed case is a `Case` of category `speed` with a measurement plan in its `speed:` field (see
plan.py). It runs as the `speed` item kind (kinds.py): `measure_item` asks, `finish_item` judges.
Each round sends `concurrency` requests at the same moment (threads released by one barrier). The
warm-up rounds are identical and thrown away. Every request's first message starts with a fresh random
nonce, so no prefix cache can answer the prompt and flatter the time to first token.

Outcome of a speed item (documented in docs/speed.md). A measurement is never a pass or a failure:
- measured: a plausible measurement, or one no ceiling could be computed for (UNKNOWN, said in the reason).
- error:    a request failed at the endpoint (unreachable, HTTP errors after retries), or the measurement
            is not trustworthy: past a physical ceiling (plausibility LOW, with the reason), or the model
            wrote too few tokens to time its decoding. Not scored; a resumed run measures it again.
- skipped:  the case needs more context than the model has, or more concurrent streams than the
            provider's `concurrency` allows.
Speed rows are kept out of every pass rate by the report and the comparison.
"""

from __future__ import annotations

import functools
import os
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from typing import TYPE_CHECKING

from pytest_crucible.engine.item_kinds import ItemKind
from pytest_crucible.engine.speed_settings import SpeedSettings
from pytest_crucible.local.hardware import Hardware, gpu_names, is_local_model, launch_devices, resolve_hardware
from pytest_crucible.results.request_metrics import METRIC_KEYS, MIN_DECODE_TOKENS, request_metrics, spread
from pytest_crucible.results.row import MEASURED, request_params
from pytest_crucible.speed import plausibility
from pytest_crucible.suite.speed_plan import SpeedPlan, plan_for

if TYPE_CHECKING:
    from pytest_crucible.client.response import Response


def new_nonce() -> str:
    return secrets.token_hex(5)


def with_nonce(messages, nonce: str) -> list[dict]:
    """The messages with `[nonce] ` put at the very start of the first text message."""
    out = [dict(m) for m in messages]
    for msg in out:
        if isinstance(msg.get("content"), str):
            msg["content"] = f"[{nonce}] {msg['content']}"
            break
    return out


@functools.lru_cache(maxsize=1)  # process-wide: the machine's GPUs, asked of nvidia-smi once per process
def _gpu_names_once() -> tuple[str, ...]:
    return tuple(gpu_names())


def model_hardware(model, settings: SpeedSettings, base_url: str | None) -> Hardware:
    override = settings.bandwidth_gbps
    if override:
        return resolve_hardware(model, override_gbps=override)
    devices = launch_devices(model)
    if devices is not None:
        return resolve_hardware(model, base_url=base_url, devices=devices)
    return resolve_hardware(model, base_url=base_url, gpus=list(_gpu_names_once()))


def concurrency_skip(model, streams: int) -> str | None:
    """Why `streams` requests at once do not apply to this model's endpoint, or None."""
    if streams <= 1:
        return None
    launch = getattr(model, "launch", None)
    if launch:
        args = [str(a) for a in launch.get("args") or ()]
        slots = 1
        for flag in ("--parallel", "-np"):
            if flag in args and args.index(flag) + 1 < len(args) and args[args.index(flag) + 1].isdigit():
                slots = int(args[args.index(flag) + 1])
        if launch.get("server", "python") == "python" or slots < streams:
            return (f"{streams} concurrent streams, but the launched server runs {slots} request(s) at a time "
                    "(llama-cpp-python: always 1; a llama-server binary: pass --parallel N in launch.args)")
        return None
    provider = getattr(model, "provider", None)
    if provider is not None and streams > provider.concurrency:
        return (f"{streams} concurrent streams, but provider {provider.name} allows {provider.concurrency} "
                f"(raise providers.{provider.name}.concurrency to measure batching)")
    return None


def _one_request(client, case, params: dict, nonce: str) -> tuple[Response, float, float]:
    messages = with_nonce(case.messages, nonce)
    started = time.perf_counter()
    response = client.chat(messages, max_tokens=case.max_tokens, tools=list(case.tools) or None,
                           tool_choice=case.tool_choice, params=params)
    return response, started, time.perf_counter()


def _round(client, case, params: dict, streams: int) -> list[tuple[Response, float, float, str]]:
    """`streams` requests released together; raises the first InfraError any of them met."""
    nonces = [new_nonce() for _ in range(streams)]
    if streams == 1:
        response, t0, t1 = _one_request(client, case, params, nonces[0])
        return [(response, t0, t1, nonces[0])]
    barrier = threading.Barrier(streams)

    def go(i: int):
        barrier.wait()
        return _one_request(client, case, params, nonces[i])

    with ThreadPoolExecutor(max_workers=streams, thread_name_prefix="crucible-speed") as pool:
        futures = [pool.submit(go, i) for i in range(streams)]
        results = []
        first_error: BaseException | None = None
        for fut in futures:
            try:
                results.append(fut.result())
            except BaseException as exc:  # collect every stream before raising
                first_error = first_error or exc
    if first_error is not None:
        raise first_error
    return [(r, t0, t1, n) for (r, t0, t1), n in zip(results, nonces)]


def measure(client, case, params: dict, plan: SpeedPlan) -> dict:
    """Run the warm-up and measured rounds; per-request samples and per-round aggregate throughput."""
    samples: list[dict] = []
    rounds: list[dict] = []
    totals = {"prompt": 0, "completion": 0, "requests": 0, "estimated": False}
    first_response = None
    for index in range(plan.warmup + plan.repeats):
        warm = index < plan.warmup
        results = _round(client, case, params, plan.concurrency)
        measured = [request_metrics(response, case.prompt_chars) for response, _, _, _ in results]
        for m in measured:
            totals["prompt"] += m["prompt_tokens"] or 0
            totals["completion"] += m["completion_tokens"] or 0
            totals["requests"] += 1
            totals["estimated"] = totals["estimated"] or m["estimated_tokens"]
        if warm:
            continue
        number = index - plan.warmup + 1
        for stream, ((response, _, _, nonce), sample) in enumerate(zip(results, measured)):
            first_response = first_response or response
            sample.update(round=number, stream=stream, attempts=response.attempts,
                          finish_reason=response.finish_reason, nonce=nonce)
            samples.append(sample)
        if plan.concurrency > 1:
            start = min(t0 for _, t0, _, _ in results)
            end = max(t1 for _, _, t1, _ in results)
            tokens = sum(s["completion_tokens"] or 0 for s in samples if s["round"] == number)
            rounds.append({"round": number, "streams": plan.concurrency, "wall_s": round(end - start, 5),
                           "completion_tokens": tokens,
                           "aggregate_tps": round(tokens / (end - start), 3) if end > start else None})
    return {"samples": samples, "rounds": rounds, "totals": totals, "first_response": first_response}


def summarize(samples: list[dict]) -> dict:
    keys = METRIC_KEYS + ("prompt_tokens", "completion_tokens", "reasoning_tokens")
    return {k: spread([s.get(k) for s in samples]) for k in keys}


def skip_reason(item) -> str | None:
    """Why the item's plan does not apply to its model's endpoint (too many streams), or None."""
    return concurrency_skip(item.model, plan_for(item.case, item.settings.speed).concurrency)


def measure_item(item) -> dict:
    """The speed kind's ask: the plan's rounds against the item's client (raises InfraError)."""
    plan = plan_for(item.case, item.settings.speed)
    started = time.perf_counter()
    load_before = _load()
    result = measure(item.client, item.case, request_params(item.case, item.model), plan)
    result.update(plan=plan, load_before=load_before, wall_s=time.perf_counter() - started)
    return result


def finish_item(item, result: dict) -> None:
    """The speed kind's finish: plausibility against the hardware, and the row (see the module doc)."""
    model, client, row = item.model, item.client, item.row
    plan: SpeedPlan = result["plan"]
    row.params["speed_plan"] = asdict(plan)
    samples, summary = result["samples"], summarize(result["samples"])
    totals = result["totals"]
    medians = {k: (v or {}).get("median") for k, v in summary.items()}
    base_url = getattr(client, "base_url", None)
    hw = item.settings.hardware or model_hardware(model, item.settings.speed, base_url)
    weights = plausibility.model_weights(model)
    uncached = [(s["prompt_tokens"] or 0) - (s["cached_tokens"] or 0) for s in samples if s["prompt_tokens"]]
    verdict = plausibility.check(
        decode_tps=medians["decode_tps"], ttft_s=medians["ttft_s"],
        uncached_prompt_tokens=min(uncached) if uncached else None, hardware=hw, weights=weights)
    first = result["first_response"]
    row.answer_text = first.content[:500] if first is not None else ""
    row.finish_reason = first.finish_reason if first is not None else None
    row.served_model = first.model if first is not None else None
    row.attempts = sum(s["attempts"] for s in samples)
    row.retries = max(0, row.attempts - len(samples))
    row.timings = {**medians, "chunks": spread([s["chunks"] for s in samples]),
                   "estimated_tokens": any(s["estimated_tokens"] for s in samples)}
    row.tokens = {"prompt": totals["prompt"], "completion": totals["completion"],
                  "reasoning": sum(s["reasoning_tokens"] or 0 for s in samples),
                  "cached": sum(s["cached_tokens"] or 0 for s in samples), "estimated": totals["estimated"],
                  "requests": totals["requests"]}
    row.cost_usd = round(model.cost(totals["prompt"], totals["completion"]), 8)
    lock = getattr(item, "lock", None)
    row.speed = {
        "plan": asdict(plan), "nonce": True,
        "summary": summary,
        "samples": samples,
        "rounds": result["rounds"],
        "aggregate_tps": spread([r["aggregate_tps"] for r in result["rounds"]], 3),
        "plausibility": verdict.to_dict(),
        "hardware": hw.to_dict(),
        "weights": weights.to_dict() if weights is not None else None,
        "lock": lock.to_dict() if lock is not None else None,
        # a local server shares this machine: how busy it was says how far to trust the numbers
        "host": ({"cpus": os.cpu_count(), "load_1m_before": result["load_before"], "load_1m_after": _load()}
                 if is_local_model(model, base_url) else None),
    }
    row.settle(*judge(medians, verdict, samples))


SPEED = ItemKind("speed", applies=lambda case: case.speed is not None, ask=measure_item, finish=finish_item,
                 exclusive=True, skip=skip_reason)


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def judge(medians: dict, verdict: plausibility.Verdict, samples: list[dict]) -> tuple[str, str]:
    """measured / error and one readable line (see the module docstring)."""
    if medians.get("decode_tps") is None:
        most = max((s["completion_tokens"] or 0 for s in samples), default=0)
        return "error", (f"no decode rate: at most {most} tokens per reply (needs at least "
                          f"{MIN_DECODE_TOKENS})")
    text = f"decode {medians['decode_tps']:.1f} tok/s"
    if medians.get("ttft_s") is not None:
        text += f", TTFT {medians['ttft_s']:.3f} s"
    if medians.get("prefill_tps") is not None:
        text += f", prefill {medians['prefill_tps']:.0f} tok/s"
    if verdict.confidence == plausibility.LOW:
        return "error", "IMPLAUSIBLE (confidence LOW): " + "; ".join(verdict.reasons)
    return MEASURED, f"{text} (confidence {verdict.confidence}: {verdict.reasons[0]})"
