"""Aggregation of result rows into report.json / report.md and the terminal summary.

The report is a pure function of the rows (`row.Row`; the latest row of each observation, so a resumed
run's new rows replace its old error rows), so a serial run, an xdist run and `crucible report` on a
saved rows.jsonl all give the same numbers.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

from .case import CATEGORIES
from .row import OUTCOMES, Row, latest_rows
from .speed.summary import render_markdown as speed_markdown
from .speed.summary import render_terminal as speed_terminal
from .speed.summary import speed_report
from .store import HTML_FILE

SCHEMA_VERSION = 1


def wilson_interval(passed: int, n: int, z: float = 1.96) -> list[float] | None:
    """95% Wilson score interval: honest for small n and for rates near 0 or 1."""
    if n == 0:
        return None
    p = passed / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def _tally(rows: list[Row], with_skipped: bool = True) -> dict:
    counts = {o: 0 for o in OUTCOMES}
    for row in rows:
        outcome = row.outcome if row.outcome in OUTCOMES else "error"
        counts[outcome] += 1
    n = counts["passed"] + counts["failed"]  # errors and skips never enter the denominator
    out = {"passed": counts["passed"], "failed": counts["failed"], "errors": counts["error"]}
    if with_skipped:
        out["skipped"] = counts["skipped"]
    out["n"] = n
    out["rate"] = round(counts["passed"] / n, 4) if n else None
    out["ci95"] = wilson_interval(counts["passed"], n)
    return out


def _tokens(rows: list[Row], key: str) -> int:
    return sum((row.tokens or {}).get(key) or 0 for row in rows)


def aggregate(rows, meta: dict | None = None) -> dict:
    """report.json from rows (Row objects or their dicts)."""
    by_model: dict[str, list[Row]] = defaultdict(list)
    for row in latest_rows(rows):
        by_model[row.model].append(row)
    models = {}
    for name in sorted(by_model):
        # suite order is not completion order under xdist: sort so the report does not depend on it
        mrows = sorted(by_model[name], key=lambda r: (str(r.case_id), r.repeat))
        by_cat: dict[str, list[Row]] = defaultdict(list)
        for row in mrows:
            by_cat[row.category or "unknown"].append(row)
        order = [c for c in CATEGORIES if c in by_cat] + sorted(set(by_cat) - set(CATEGORIES))
        # speed items measure the endpoint, not the model's answers: apart from total and hard
        scored = [r for r in mrows if r.category != "speed"]
        models[name] = {
            "categories": {cat: _tally(by_cat[cat]) for cat in order},
            "hard": _tally([r for r in scored if r.difficulty == "hard"], with_skipped=False),
            "total": _tally(scored, with_skipped=False),
            "skipped": sum(1 for r in mrows if r.outcome == "skipped"),
            "tokens": {
                "prompt": _tokens(mrows, "prompt"),
                "completion": _tokens(mrows, "completion"),
                "reasoning": _tokens(mrows, "reasoning"),
                "estimated_rows": sum(1 for r in mrows if (r.tokens or {}).get("estimated")),
            },
            "cost_usd": round(sum(r.cost_usd or 0 for r in mrows), 6),
            "failures": [_brief(r) for r in mrows if r.outcome == "failed"],
            "errors": [_brief(r) for r in mrows if r.outcome == "error"],
            **speed_report(mrows, (meta or {}).get("slo")),
        }
    return {
        "schema": SCHEMA_VERSION,
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "meta": meta or {},
        "models": models,
    }


def _brief(row: Row) -> dict:
    return {"case_id": row.case_id, "category": row.category, "repeat": row.repeat, "reason": row.reason}


def _cell(t: dict) -> str:
    if not t["n"]:
        return f"- ({t['errors']} err)" if t["errors"] else "-"
    text = f"{t['rate']:.0%} ({t['passed']}/{t['n']})"
    return text + (f" +{t['errors']} err" if t["errors"] else "")


def render_markdown(report: dict) -> str:
    models = report["models"]
    meta = report.get("meta") or {}
    lines = [f"# pytest-crucible report {meta.get('run_id', '')}".rstrip(), ""]
    if meta.get("unsandboxed"):
        lines += ["**Warning: code cases ran UNSANDBOXED (--crucible-allow-unsandboxed).**", ""]
    local = _local_summaries(meta)
    if local:
        lines += [f"- {name}: {text}" for name, text in local] + [""]
    if not models:
        return "\n".join(lines + ["No results."]) + "\n"
    lines += ["| Model | Total | Hard | Errors | Skipped | Cost (USD) |", "| --- | --- | --- | --- | --- | --- |"]
    for name, m in models.items():
        lines.append(f"| {name} | {_cell(m['total'])} | {_cell(m['hard'])} | {m['total']['errors']} | "
                     f"{m['skipped']} | {m['cost_usd']:.4f} |")
    cats = [c for c in CATEGORIES if any(c in m["categories"] for m in models.values())]
    lines += ["", "| Model | " + " | ".join(cats) + " |", "| --- |" + " --- |" * len(cats)]
    for name, m in models.items():
        cells = [_cell(m["categories"][c]) if c in m["categories"] else "" for c in cats]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "Rates count passed / (passed + failed); errors (infrastructure) and skips are shown apart.", ""]
    for name, m in models.items():
        if m["failures"]:
            lines += [f"## Failures: {name}", ""]
            lines += [f"- {name} [{f['category']}] {f['case_id']}: {f['reason']}" for f in m["failures"]]
            lines.append("")
        if m["errors"]:
            lines += [f"## Errors (not counted): {name}", ""]
            lines += [f"- {name} [{e['category']}] {e['case_id']}: {e['reason']}" for e in m["errors"]]
            lines.append("")
        lines += speed_markdown(name, m)
    return "\n".join(lines) + "\n"


def _local_summaries(meta: dict) -> list[tuple[str, str]]:
    """(model, 'GGUF size 98.4 MB, quant Q4_1, ...') for each model the run launched itself."""
    out = []
    for name, info in (meta.get("models") or {}).items():
        local = info.get("local") if isinstance(info, dict) else None
        if local:
            out.append((name, local.get("gguf_summary") or local.get("error") or local.get("source", "")))
    return out


BAR_WIDTH = 20


def text_bar(rate: float | None, width: int = BAR_WIDTH, glyphs: str = "█░") -> str:
    """A pass rate as a bar of `width` cells (`glyphs`: filled, empty); blank without a rate."""
    if rate is None:
        return " " * width
    filled = round(rate * width)
    return glyphs[0] * filled + glyphs[1] * (width - filled)


def _interval(t: dict) -> str:
    return f" [{t['ci95'][0]:.0%}-{t['ci95'][1]:.0%}]" if t.get("ci95") else ""


def render_terminal(report: dict, verbosity: int = 0, glyphs: str = "█░") -> list[str]:
    """The end-of-run summary: a card per model (total and hard with their 95% intervals, a bar per
    category, TTFT / decode, cost, errors), then the speed block. pytest -q leaves out the speed block,
    -qq prints one line per model."""
    out = [f"{name}: {text}" for name, text in _local_summaries(report.get("meta") or {})]
    if (report.get("meta") or {}).get("unsandboxed"):
        out.append("WARNING: code cases ran unsandboxed (--crucible-allow-unsandboxed)")
    for name, m in report["models"].items():
        total, hard = m["total"], m["hard"]
        rate = f"{total['rate']:.1%}" if total["rate"] is not None else "n/a"
        out.append(f"{name}: {rate} ({total['passed']}/{total['n']}){_interval(total)}, hard {_cell(hard)}, "
                   f"errors {total['errors']}, skipped {m['skipped']}, cost ${m['cost_usd']:.4f}")
        if verbosity < -1:
            continue
        for cat, t in m["categories"].items():
            if cat == "speed":
                continue  # the speed items' verdicts: the speed block below says more
            line = f"  {cat:<10} {text_bar(t['rate'], glyphs=glyphs)} {_cell(t)}"
            out.append(line + (f", {t['skipped']} skipped" if t["skipped"] else ""))
        timings = m.get("timings")
        if timings:
            ttft, decode = timings.get("ttft_s"), timings.get("decode_tps")
            out.append(f"  {'latency':<10} TTFT {f'{ttft:.3f} s' if ttft is not None else '-'}, decode "
                       f"{f'{decode:.1f} tok/s' if decode is not None else '-'} (medians of {timings['n']} graded "
                       "requests)")
        if verbosity >= 0:
            out += speed_terminal(name, m)
    return out


def write_reports(run_dir: Path, rows, meta: dict | None = None) -> dict:
    """report.json, report.md and report.html in `run_dir`; returns the report."""
    from .report_html import render_html  # matplotlib: loaded only when a report is written
    report = aggregate(rows, meta)
    run_dir = Path(run_dir)
    (run_dir / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (run_dir / "report.md").write_text(render_markdown(report), encoding="utf-8")
    (run_dir / HTML_FILE).write_text(render_html(report, rows), encoding="utf-8")
    return report
