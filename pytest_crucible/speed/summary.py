"""The speed part of the report: per-model medians over speed items, the concurrency sweep, goodput.

Pure functions of result rows (read as `row.Row`, whether given as records or their dicts) and the run's
SLO, so a serial run, an xdist run and `crucible report` on a saved rows.jsonl agree. `report.aggregate`
calls `speed_report` (`speed_section`, `goodput` and `accuracy_timings`) per model; `render_markdown` /
`render_terminal` call the two renderers below.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from pytest_crucible.engine.speed_settings import slo_misses, slo_text
from pytest_crucible.results.request_metrics import Spread, median, spread
from pytest_crucible.results.row import Row, as_rows

# Prefill is only measured where TTFT is mostly prefill, not the fixed per-request latency.
PREFILL_MIN_PROMPT_TOKENS = 256
CONTRACT_KEYS = ("ttft_s", "ttft_answer_s", "decode_tps", "prefill_tps", "itl_p50_s", "itl_p95_s")


# -- the shapes this module adds to report.json (pytest_crucible/schemas/report.schema.json) -----------

class SpeedItem(TypedDict):
    """`speed.items.<case id>`: one speed item's medians (min-max over its measured requests)."""
    concurrency: int
    outcome: str | None
    prompt_tokens: float | None
    completion_tokens: float | None
    ttft_s: Spread | None
    ttft_answer_s: Spread | None
    e2e_s: Spread | None
    decode_tps: Spread | None
    prefill_tps: Spread | None
    itl_p50_s: Spread | None
    itl_p95_s: Spread | None
    itl_p99_s: Spread | None
    aggregate_tps: Spread | None
    samples: int
    confidence: str | None


class SweepLevel(TypedDict):
    """`speed.concurrency.<streams>`."""
    aggregate_tps: Spread | None
    decode_tps: Spread | None
    ttft_s: Spread | None
    samples: int


class SpeedSection(TypedDict):
    """`models.<name>.speed`: the contract medians over single-stream items, plausibility, items, sweep."""
    ttft_s: float | None
    ttft_answer_s: float | None
    decode_tps: float | None
    prefill_tps: float | None
    itl_p50_s: float | None
    itl_p95_s: float | None
    samples: int
    estimated_tokens: bool
    clock: str
    plausible: bool | None
    confidence: str
    plausibility_reasons: list[str]
    decode_ceiling_tps: float | None
    hardware: str | None
    host_busy: float | None
    items: dict[str, SpeedItem]
    concurrency: dict[str, SweepLevel]


class Goodput(TypedDict):
    """`models.<name>.goodput`."""
    slo: dict[str, float]
    good: int
    correct: int
    within_slo: int
    n: int
    rate: float | None
    missed: dict[str, int]


class AccuracyTimings(TypedDict):
    """`models.<name>.timings`: medians over the graded requests."""
    ttft_s: float | None
    ttft_answer_s: float | None
    e2e_s: float | None
    decode_tps: float | None
    n: int


class SpeedReport(TypedDict):
    speed: SpeedSection | None
    goodput: Goodput | None
    timings: AccuracyTimings | None


def _speed_rows(rows: list[Row]) -> list[Row]:
    return [r for r in rows if r.category == "speed" and isinstance(r.speed, dict)]


def _concurrency(row: Row) -> int:
    return int(((row.speed or {}).get("plan") or {}).get("concurrency", 1))


def _median_of(row: Row, key: str) -> float | None:
    cell = (((row.speed or {}).get("summary") or {}).get(key)) or {}
    return cell.get("median")


def speed_section(rows) -> SpeedSection | None:
    """`models.<name>.speed` of report.json, or None when no speed item produced a measurement.

    The contract values are medians over the single-stream speed items (each item contributes its own
    median over its repeats); `prefill_tps` only over items whose prompt has at least
    PREFILL_MIN_PROMPT_TOKENS tokens (all items when none has). `samples` counts the measured requests
    behind them; the concurrency sweep is reported under `concurrency`."""
    measured = _speed_rows(as_rows(rows))
    if not measured:
        return None
    single = [r for r in measured if _concurrency(r) == 1]
    long_ = [r for r in single if (_median_of(r, "prompt_tokens") or 0) >= PREFILL_MIN_PROMPT_TOKENS]
    contract = {key: median([_median_of(r, key) for r in ((long_ or single) if key == "prefill_tps" else single)],
                            6 if key.endswith("_s") else 3)
                for key in CONTRACT_KEYS}
    all_samples = [s for r in measured for s in (r.speed or {}).get("samples") or []]
    clocks = {s.get("clock", "process") for s in all_samples}

    verdicts = [(r, (r.speed or {}).get("plausibility") or {}) for r in measured]
    low = [(r, v) for r, v in verdicts if v.get("confidence") == "LOW"]
    high = [v for _, v in verdicts if v.get("confidence") == "HIGH"]
    if low:
        reasons = [f"{r.case_id}: {reason}" for r, v in low for reason in v.get("reasons", [])]
    else:  # one line says why all is well, or why nothing could be checked
        reasons = [v["reasons"][0] for _, v in verdicts if v.get("reasons")][:1]
    ceilings: list[float] = [v["decode_ceiling_tps"] for _, v in verdicts if v.get("decode_ceiling_tps")]
    hardware = next(((r.speed or {}).get("hardware") for r in measured if (r.speed or {}).get("hardware")), None)
    return {
        "ttft_s": contract["ttft_s"], "ttft_answer_s": contract["ttft_answer_s"],
        "decode_tps": contract["decode_tps"], "prefill_tps": contract["prefill_tps"],
        "itl_p50_s": contract["itl_p50_s"], "itl_p95_s": contract["itl_p95_s"],
        "samples": sum(len((r.speed or {}).get("samples") or []) for r in single),
        "estimated_tokens": any(s.get("estimated_tokens") for s in all_samples),
        "clock": clocks.pop() if len(clocks) == 1 else "mixed",  # where arrival times come from
        "plausible": False if low else (True if high else None),
        "confidence": "LOW" if low else ("HIGH" if high else "UNKNOWN"),
        "plausibility_reasons": reasons,
        "decode_ceiling_tps": min(ceilings) if ceilings else None,
        "hardware": (hardware or {}).get("description"),
        # highest 1-minute load per CPU seen by a local speed item, when > 1
        "host_busy": max((_busy((r.speed or {}).get("host")) for r in measured), default=None, key=lambda b: b or 0),
        "items": {r.case_id + (f"#r{r.repeat}" if r.repeat != 1 else ""): _item(r) for r in measured},
        "concurrency": _sweep(measured),
    }


def _item(r: Row) -> SpeedItem:
    summary = (r.speed or {}).get("summary") or {}
    return {
        "concurrency": _concurrency(r),
        "outcome": r.outcome,
        "prompt_tokens": (summary.get("prompt_tokens") or {}).get("median"),
        "completion_tokens": (summary.get("completion_tokens") or {}).get("median"),
        "ttft_s": summary.get("ttft_s"), "ttft_answer_s": summary.get("ttft_answer_s"), "e2e_s": summary.get("e2e_s"),
        "decode_tps": summary.get("decode_tps"), "prefill_tps": summary.get("prefill_tps"),
        "itl_p50_s": summary.get("itl_p50_s"), "itl_p95_s": summary.get("itl_p95_s"),
        "itl_p99_s": summary.get("itl_p99_s"),
        "aggregate_tps": (r.speed or {}).get("aggregate_tps"),
        "samples": len((r.speed or {}).get("samples") or []),
        "confidence": ((r.speed or {}).get("plausibility") or {}).get("confidence"),
    }


def _sweep(measured: list[Row]) -> dict[str, SweepLevel]:
    """The sweep: items tagged `sweep` (one prompt at 1, 4, 16 streams), else every item by level."""
    swept = [r for r in measured if "sweep" in r.tags] or measured
    sweep: dict[str, SweepLevel] = {}
    for level in sorted({_concurrency(r) for r in swept}):
        at = [r for r in swept if _concurrency(r) == level]
        samples = [s for r in at for s in (r.speed or {}).get("samples") or []]
        if level == 1:
            # single stream: the aggregate is the stream's own decode rate
            agg = spread([s.get("completion_tokens") / s["e2e_s"] for s in samples
                          if s.get("completion_tokens") and s.get("e2e_s")], 3)
        else:
            agg = spread([x.get("aggregate_tps") for r in at for x in (r.speed or {}).get("rounds") or []], 3)
        sweep[str(level)] = {"aggregate_tps": agg, "decode_tps": spread([s.get("decode_tps") for s in samples], 3),
                             "ttft_s": spread([s.get("ttft_s") for s in samples]), "samples": len(samples)}
    return sweep


def _busy(host: dict | None) -> float | None:
    """Load average per CPU on a local server's machine during an item, when it was oversubscribed."""
    if not host or not host.get("cpus"):
        return None
    load = max((host.get(k) or 0) for k in ("load_1m_before", "load_1m_after"))
    per_cpu = load / host["cpus"]
    return round(per_cpu, 2) if per_cpu > 1 else None


def goodput(rows, slo: dict | None) -> Goodput | None:
    """Correct goodput: of the accuracy requests that were graded (passed + failed), the share that was
    both correct and within every latency target. None without targets. A target whose metric the
    request lacks (e.g. no answer token) counts as missed."""
    if not slo:
        return None
    graded = [r for r in as_rows(rows) if r.category != "speed" and r.outcome in ("passed", "failed")]
    good = within = 0
    missed = {key: 0 for key in slo}
    for row in graded:
        misses = slo_misses(row.timings or {}, slo)
        for key in misses:
            missed[key] += 1
        ok = not misses
        within += ok
        good += ok and row.outcome == "passed"
    n = len(graded)
    return {"slo": dict(slo), "good": good, "correct": sum(r.outcome == "passed" for r in graded),
            "within_slo": within, "n": n, "rate": round(good / n, 4) if n else None, "missed": missed}


def accuracy_timings(rows) -> AccuracyTimings | None:
    """Medians of the timings recorded on accuracy rows (the same request that was graded)."""
    timed = [r.timings or {} for r in as_rows(rows) if r.category != "speed" and r.outcome in ("passed", "failed")]
    if not timed:
        return None
    return {"ttft_s": median([t.get("ttft_s") for t in timed], 6),
            "ttft_answer_s": median([t.get("ttft_answer_s") for t in timed], 6),
            "e2e_s": median([t.get("e2e_s") for t in timed], 6),
            "decode_tps": median([t.get("decode_tps") for t in timed], 3),
            "n": len(timed)}


# ---- rendering ---------------------------------------------------------------------------------------

def _fmt(cell: dict | None, unit: str, scale: float = 1.0, digits: int = 3) -> str:
    if not cell or cell.get("median") is None:
        return "-"
    med, lo, hi = (cell[k] * scale for k in ("median", "min", "max"))
    if cell.get("n", 1) <= 1 or lo == hi:
        return f"{med:.{digits}f}{unit}"
    return f"{med:.{digits}f}{unit} ({lo:.{digits}f}-{hi:.{digits}f})"


def render_markdown(name: str, model: Mapping[str, Any]) -> list[str]:
    """Markdown lines of one model's speed table, concurrency sweep, plausibility and goodput."""
    speed, good = model.get("speed"), model.get("goodput")
    lines: list[str] = []
    if speed:
        lines += [f"## Speed: {name}", "",
                  "Median (min-max) over the measured requests of each item; warm-up excluded; every prompt "
                  "starts with a fresh nonce.", "",
                  "| Case | Streams | Prompt tok | TTFT s | TTFT answer s | Decode tok/s | Prefill tok/s | "
                  "ITL p50 ms | ITL p95 ms | Confidence |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for case_id, item in speed["items"].items():
            prompt = item.get("prompt_tokens")
            lines.append(
                f"| {case_id} | {item['concurrency']} | {f'{prompt:.0f}' if prompt is not None else '-'} | "
                f"{_fmt(item.get('ttft_s'), '')} | {_fmt(item.get('ttft_answer_s'), '')} | "
                f"{_fmt(item.get('decode_tps'), '', digits=1)} | {_fmt(item.get('prefill_tps'), '', digits=0)} | "
                f"{_fmt(item.get('itl_p50_s'), '', 1000, 1)} | {_fmt(item.get('itl_p95_s'), '', 1000, 1)} | "
                f"{item.get('confidence') or '-'} |")
        lines.append("")
        lines.append(f"Medians over single-stream items: {_contract_line(speed)}.")
        if len(speed["concurrency"]) > 1:
            lines += ["", "| Streams | Aggregate tok/s | Decode tok/s per stream | TTFT s |",
                      "| --- | --- | --- | --- |"]
            for level, c in speed["concurrency"].items():
                lines.append(f"| {level} | {_fmt(c['aggregate_tps'], '', digits=1)} | "
                             f"{_fmt(c['decode_tps'], '', digits=1)} | {_fmt(c['ttft_s'], '')} |")
        lines += ["", f"Plausibility: **{speed['confidence']}**" +
                  (f" - {'; '.join(speed['plausibility_reasons'])}" if speed["plausibility_reasons"] else "")]
        if speed.get("estimated_tokens"):
            lines.append("Token counts are estimated (the server reported no usage).")
        lines.append(_clock_text(speed.get("clock")) + ".")
        if speed.get("host_busy"):
            lines.append(f"Warning: this machine was busy while measuring (load {speed['host_busy']:.1f} per CPU).")
        lines.append("")
    if good:
        if not speed:
            lines += [f"## Speed: {name}", ""]
        lines += [f"Correct goodput ({slo_text(good['slo'])}): "
                  f"{_pct(good['rate'])} ({good['good']}/{good['n']} correct and within the targets; "
                  f"{good['correct']} correct, {good['within_slo']} within the targets)", ""]
    return lines


def _clock_text(clock: str | None) -> str:
    if clock == "kernel":
        return "Arrival times: the kernel's receive stamps"
    which = "some arrival times" if clock == "mixed" else "arrival times"
    return (f"Note: {which} are the client's clock after each read (TLS or not Linux), so a busy client "
            "adds to them")


def _pct(rate) -> str:
    return f"{rate:.0%}" if rate is not None else "n/a"


def _contract_line(speed: dict) -> str:
    def num(key, unit, scale=1.0, digits=3):
        value = speed.get(key)
        return f"{value * scale:.{digits}f}{unit}" if value is not None else "-"
    return (f"TTFT {num('ttft_s', ' s')}, TTFT answer {num('ttft_answer_s', ' s')}, "
            f"decode {num('decode_tps', ' tok/s', digits=1)}, prefill {num('prefill_tps', ' tok/s', digits=0)}, "
            f"ITL p50 {num('itl_p50_s', ' ms', 1000, 1)}, p95 {num('itl_p95_s', ' ms', 1000, 1)} "
            f"({speed['samples']} requests)")


def render_terminal(name: str, model: Mapping[str, Any]) -> list[str]:
    """The console speed block of one model, in the spirit of the first tool's output."""
    speed, good = model.get("speed"), model.get("goodput")
    out: list[str] = []
    if speed:
        out.append(f"  SPEED {name} (median, min-max; warm-up excluded; nonce-prefixed prompts)")
        for case_id, item in speed["items"].items():
            if item["concurrency"] != 1:
                continue
            line = (f"    {case_id:<24} decode {_fmt(item.get('decode_tps'), ' tok/s', digits=1):<28} "
                    f"TTFT {_fmt(item.get('ttft_s'), ' s')}")
            prompt = item.get("prompt_tokens") or 0
            if prompt >= PREFILL_MIN_PROMPT_TOKENS and item.get("prefill_tps"):
                line += f"  prefill {_fmt(item.get('prefill_tps'), ' tok/s', digits=0)}"
            out.append(line.rstrip())
        levels = speed["concurrency"]
        if len(levels) > 1:
            agg = " / ".join(f"{(c['aggregate_tps'] or {}).get('median', 0) or 0:.0f}" for c in levels.values())
            per = " / ".join(f"{(c['decode_tps'] or {}).get('median', 0) or 0:.0f}" for c in levels.values())
            out.append(f"    streams {' / '.join(levels)}: {agg} tok/s aggregate (per stream {per})")
        out.append(f"    {_contract_line(speed)}")
        verdict = f"    plausibility: {speed['confidence']}"
        if speed["plausibility_reasons"]:
            verdict += f" - {speed['plausibility_reasons'][0]}"
            if len(speed["plausibility_reasons"]) > 1:
                verdict += f" (+{len(speed['plausibility_reasons']) - 1} more)"
        out.append(verdict)
        if speed.get("estimated_tokens"):
            out.append("    token counts estimated: the server reported no usage")
        if speed.get("clock") not in (None, "kernel"):
            out.append(f"    {_clock_text(speed['clock'])}")
        if speed.get("host_busy"):
            out.append(f"    warning: this machine was busy while measuring (load {speed['host_busy']:.1f} per CPU): "
                       "other work slowed the local server")
    if good:
        out.append(f"  goodput ({slo_text(good['slo'])}): {_pct(good['rate'])} "
                   f"({good['good']}/{good['n']} correct and within the targets)")
    return out


def speed_report(rows: list[Row], slo: dict | None) -> SpeedReport:
    """The keys `report.aggregate` adds to each model: speed, goodput, timings (see above)."""
    return {"speed": speed_section(rows), "goodput": goodput(rows, slo), "timings": accuracy_timings(rows)}
