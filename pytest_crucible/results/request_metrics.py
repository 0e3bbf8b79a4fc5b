"""Speed metrics of one request, computed from the arrival times the client saw on the stream.

Definitions (every number is measured on the client, from the moment the request was sent):

    ttft_s          first token of any kind (reasoning included)
    ttft_answer_s   first answer token (or tool-call delta), reasoning excluded
    e2e_s           request sent -> stream closed
    decode_tps      (completion tokens - 1) / (last token time - first token time)
                    the first token is the end of prefill, so it is not counted as decoded
    prefill_tps     uncached prompt tokens / ttft_s  (a lower bound: TTFT also holds the network
                    round trip and any queueing on the server)
    itl_*_s         gaps between consecutive token chunks (p50 / p95 / p99)
    clock           "kernel": arrival times are the kernel's receive stamps (see wire.py);
                    "process": the client's clock after each read (later by any wait for a CPU)

Token counts come from the server's usage when it reports them. When it does not, the completion is
counted as one token per streamed chunk (or taken as max_tokens when the reply was cut off by that
limit) and the prompt as characters / 4, and `estimated` is True.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from fractions import Fraction
from typing import Any, TypedDict

from pytest_crucible.client.response import Response

# Below this many completion tokens a decode rate says more about jitter than about the model.
MIN_DECODE_TOKENS = 4
CHARS_PER_TOKEN = 4  # the rough rule used only when the server reports no prompt tokens
QUANTILE_DENOMINATOR = 10_000

METRIC_KEYS = ("ttft_s", "ttft_answer_s", "e2e_s", "decode_tps", "prefill_tps",
               "itl_p50_s", "itl_p95_s", "itl_p99_s")


def quantile(values: Iterable[float], q: float) -> float | None:
    """The q-quantile, interpolated linearly between the closest ranks (numpy's default method, the
    standard library's "inclusive" one); None for no values. `q` is taken as the nearest fraction with a
    denominator up to QUANTILE_DENOMINATOR: exact for percentiles and bootstrap tails."""
    data = list(values)
    if not data:
        return None
    step = Fraction(q).limit_denominator(QUANTILE_DENOMINATOR)
    if step <= 0 or len(data) == 1:
        return min(data)
    if step >= 1:
        return max(data)
    # statistics.quantiles(data, n=step.denominator, method="inclusive")[step.numerator - 1], without the
    # other denominator - 2 cut points it makes (the same arithmetic, so the same float)
    data.sort()
    cuts = step.denominator
    j, delta = divmod(step.numerator * (len(data) - 1), cuts)
    return (data[j] * (cuts - delta) + data[j + 1] * delta) / cuts


def token_counts(response: Response, prompt_chars: int | None = None) -> dict[str, Any]:
    """Prompt / completion / reasoning / cached tokens, from usage or counted (flagged estimated)."""
    usage, times = response.usage, response.timings.chunk_times
    estimated = bool(usage.estimated)
    completion = usage.completion_tokens
    if completion is None:
        completion = len(times)
        estimated = True
    if estimated and response.finish_reason == "length" and response.max_tokens and response.max_tokens > completion:
        # cut off by the limit: the server generated exactly max_tokens, however it grouped them in chunks
        completion = response.max_tokens
    prompt = usage.prompt_tokens
    if prompt is None and prompt_chars:
        prompt = max(1, round(prompt_chars / CHARS_PER_TOKEN))
        estimated = True
    return {"prompt": prompt, "completion": completion, "reasoning": usage.reasoning_tokens,
            "cached": usage.cached_tokens, "estimated": estimated}


def request_metrics(response: Response, prompt_chars: int | None = None) -> dict[str, Any]:
    """Timing metrics of one request (see the module docstring). Missing measurements are None."""
    t = response.timings
    times = list(t.chunk_times)
    tokens = token_counts(response, prompt_chars)
    completion = tokens["completion"]

    decode_tps = None
    if completion and completion >= MIN_DECODE_TOKENS and len(times) >= 2 and times[-1] > times[0]:
        decode_tps = (completion - 1) / (times[-1] - times[0])

    prefill_tps = None
    ttft = t.ttft_s if t.ttft_s is not None else (times[0] if times else None)
    if tokens["prompt"] and ttft and ttft > 0:
        uncached = tokens["prompt"] - (tokens["cached"] or 0)
        prefill_tps = uncached / ttft if uncached > 0 else None

    gaps = [b - a for a, b in zip(times, times[1:])]
    answer_tokens = None
    if completion is not None:
        answer_tokens = max(0, completion - (tokens["reasoning"] or 0))
    return {
        "ttft_s": _r(ttft), "ttft_answer_s": _r(t.ttft_answer_s), "e2e_s": _r(t.e2e_s),
        "decode_tps": _r(decode_tps, 3), "prefill_tps": _r(prefill_tps, 2),
        "itl_p50_s": _r(quantile(gaps, 0.5)), "itl_p95_s": _r(quantile(gaps, 0.95)),
        "itl_p99_s": _r(quantile(gaps, 0.99)),
        "chunks": len(times),
        "tokens_per_chunk": round(completion / len(times), 3) if completion and times else None,
        "prompt_tokens": tokens["prompt"], "completion_tokens": completion,
        "reasoning_tokens": tokens["reasoning"], "answer_tokens": answer_tokens,
        "cached_tokens": tokens["cached"], "estimated_tokens": tokens["estimated"],
        "clock": t.clock,
    }


class Spread(TypedDict):
    """Several measurements of one metric, as report.json and the speed rows give them."""
    median: float
    min: float
    max: float
    n: int


def spread(values: Iterable[float | None], digits: int = 5) -> Spread | None:
    """{median, min, max, n} of the values that are not None; None when there are none."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return {"median": round(statistics.median(vals), digits), "min": round(min(vals), digits),
            "max": round(max(vals), digits), "n": len(vals)}


def median(values: Iterable[float | None], digits: int = 5) -> float | None:
    vals = [v for v in values if v is not None]
    return round(statistics.median(vals), digits) if vals else None


def _r(value: float | None, digits: int = 6) -> float | None:
    return round(value, digits) if value is not None else None
