"""Speed metrics per request, computed from the stream's own timings."""

from __future__ import annotations

from ..response import Response


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo, hi = int(pos), min(int(pos) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def request_metrics(response: Response) -> dict:
    """TTFT, answer TTFT, decode and prefill rates, inter-token latency for one request."""
    t, usage = response.timings, response.usage
    times = t.chunk_times
    decode_tps = None
    completion = usage.completion_tokens
    if completion and completion > 1 and len(times) >= 2 and times[-1] > times[0]:
        decode_tps = (completion - 1) / (times[-1] - times[0])
    prefill_tps = None
    if usage.prompt_tokens and t.ttft_s:
        uncached = usage.prompt_tokens - (usage.cached_tokens or 0)
        prefill_tps = uncached / t.ttft_s if uncached > 0 else None
    gaps = [b - a for a, b in zip(times, times[1:])]
    return {
        "ttft_s": _r(t.ttft_s), "ttft_answer_s": _r(t.ttft_answer_s), "e2e_s": _r(t.e2e_s),
        "decode_tps": _r(decode_tps, 2), "prefill_tps": _r(prefill_tps, 2),
        "itl_p50_s": _r(_quantile(gaps, 0.5)), "itl_p95_s": _r(_quantile(gaps, 0.95)),
        "itl_p99_s": _r(_quantile(gaps, 0.99)), "chunks": len(times),
    }


def _r(value, digits: int = 5):
    return round(value, digits) if value is not None else None

