"""Aggregation of result rows into report.json / report.md and the terminal summary.

The report is a pure function of the rows (`row.Row`; the latest row of each observation, so a resumed
run's new rows replace its old error rows), so a serial run, an xdist run and `crucible report` on a
saved rows.jsonl all give the same numbers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

from pytest_crucible.analysis.json_shapes import (
    Brief,
    Estimate,
    ModelReport,
    Repeats,
    Report,
    Tally,
    TokenTotals,
    Truncated,
)
from pytest_crucible.analysis.report_rows import ReportRows, collector_paused
from pytest_crucible.analysis.stats import (
    clustered_interval,
    detectable_drop,
    effective_n,
    mean_interval,
    pass_at_k,
    pass_hat_k,
)
from pytest_crucible.common.errors import PROVIDER_DOWN
from pytest_crucible.common.numbers import dumps_finite
from pytest_crucible.results.row import MEASURED, OUTCOMES, SCORED, Row, latest_rows
from pytest_crucible.results.store import HTML_FILE
from pytest_crucible.speed.summary import render_markdown as speed_markdown
from pytest_crucible.speed.summary import render_terminal as speed_terminal
from pytest_crucible.speed.summary import speed_report
from pytest_crucible.suite.case import CATEGORIES

SCHEMA_VERSION = 1


def _tally(rows: list[Row], with_skipped: bool = True) -> Tally:
    counts = {o: 0 for o in OUTCOMES}
    # the family is the unit (a standalone case its own, repeats inside): plain Wilson without either
    by_family: dict[str, tuple[int, int]] = {}  # family -> (passed, scored answers)
    cut = {"reasoning": 0, "answer": 0}  # replies cut off by the token limit, by where
    for row in rows:  # one pass: a run's 100,000 rows go through here once per group they are in
        outcome = row.outcome
        if outcome in SCORED:
            counts[outcome] += 1
            family = row.family or row.case_id
            passed, seen = by_family.get(family, (0, 0))
            by_family[family] = (passed + (outcome == "passed"), seen + 1)
            if row.truncated in cut:
                cut[row.truncated] += 1
        else:
            counts[outcome if outcome in OUTCOMES else "error"] += 1
    passed, failed, errors = counts["passed"], counts["failed"], counts["error"]
    n = passed + failed  # errors and skips never enter the denominator
    rate = round(passed / n, 4) if n else None
    families = list(by_family.values())
    ci95 = clustered_interval(families)
    n_eff = effective_n(families)
    # a low score from a tight budget shows as such: the cut replies' share of the scored items
    truncated: Truncated = {"reasoning": cut["reasoning"], "answer": cut["answer"],
                            "rate": round((cut["reasoning"] + cut["answer"]) / n, 4) if n else None}
    tally: Tally = {"passed": passed, "failed": failed, "errors": errors, "n": n, "families": len(families),
                    "n_eff": round(n_eff, 1) if n_eff is not None else None, "rate": rate, "ci95": ci95,
                    "min_detectable_drop": detectable_drop(rate, n_eff), "truncated": truncated}
    if with_skipped:
        tally["skipped"] = counts["skipped"]
        if counts[MEASURED]:  # speed items: measurements, never in passed, failed or n
            tally["measured"] = counts[MEASURED]
    return tally


def _case_counts(rows: list[Row]) -> dict[str, tuple[int, int]]:
    """case id -> (passed, scored answers)."""
    counts: dict[str, tuple[int, int]] = {}
    for row in rows:
        if row.outcome in SCORED:
            passed, n = counts.get(row.case_id, (0, 0))
            counts[row.case_id] = (passed + (row.outcome == "passed"), n + 1)
    return counts


def _ks(k: int) -> list[int]:
    """1, the powers of two below k, and k."""
    return sorted({1, k} | {2 ** i for i in range(1, k.bit_length()) if 2 ** i < k})


def repeats_section(rows: list[Row]) -> Repeats | None:
    """`models.<name>.repeats` when a case was answered more than once: per-case rates, pass@k and
    pass^k (unbiased, averaged over the cases with at least k answers, intervals over cases) and the
    flaky cases (some answers right, some wrong). None for a run of single answers."""
    counts = _case_counts(rows)
    k_max = max((n for _, n in counts.values()), default=0)
    if k_max < 2:
        return None
    category = {r.case_id: r.category for r in rows}
    family = {r.case_id: r.family_key for r in rows}

    def estimate(estimator: Callable[[int, int, int], float | None], k: int) -> Estimate:
        found = [(family[case_id], v) for case_id, (passed, n) in counts.items()
                 if n >= k and (v := estimator(n, passed, k)) is not None]
        values = [v for _, v in found]
        return {"value": round(sum(values) / len(values), 4) if values else None,
                "ci95": mean_interval(values, [f for f, _ in found]), "cases": len(values)}

    return {
        "k": k_max,
        "cases": len(counts),
        "pass_at_k": {str(k): estimate(pass_at_k, k) for k in _ks(k_max)},
        "pass_hat_k": {str(k): estimate(pass_hat_k, k) for k in _ks(k_max)},
        "flaky": [{"case_id": case_id, "category": category[case_id], "passed": passed, "n": n,
                   "rate": round(passed / n, 4)}
                  for case_id, (passed, n) in counts.items() if 0 < passed < n],
        "case_rates": {case_id: {"passed": passed, "n": n, "rate": round(passed / n, 4)}
                       for case_id, (passed, n) in counts.items()},
    }


class _Totals(TypedDict):
    """ModelReport's skips, tokens, cost and failures."""
    skipped: int
    provider_down: int
    tokens: TokenTotals
    cost_usd: float
    judge_cost_usd: float
    failures: list[Brief]
    errors: list[Brief]


def _model_totals(rows: list[Row]) -> _Totals:
    """A model's skips, tokens, cost and failures, in one pass over its rows (floats summed by `sum`, in
    row order, as each total always was)."""
    skipped = provider_down = estimated = prompt = completion = reasoning = 0
    costs: list[float] = []
    judge_costs: list[float] = []
    failures: list[Brief] = []
    errors: list[Brief] = []
    for r in rows:
        outcome = r.outcome
        if outcome == "skipped":
            skipped += 1
            provider_down += r.reason.startswith(PROVIDER_DOWN)
        elif outcome == "failed":
            failures.append(_brief(r))
        elif outcome == "error":
            errors.append(_brief(r))
        tokens = r.tokens or {}
        prompt += tokens.get("prompt") or 0
        completion += tokens.get("completion") or 0
        reasoning += tokens.get("reasoning") or 0
        estimated += bool(tokens.get("estimated"))
        costs.append(r.cost_usd or 0)
        judge_costs.append((r.judge or {}).get("cost_usd") or 0)
    return {"skipped": skipped, "provider_down": provider_down,
            "tokens": {"prompt": prompt, "completion": completion, "reasoning": reasoning, "estimated_rows": estimated},
            "cost_usd": round(sum(costs), 6),
            # what the judge's verdicts on this model's answers cost (cached verdicts cost nothing)
            "judge_cost_usd": round(sum(judge_costs), 6),
            "failures": failures, "errors": errors}


def aggregate(rows, meta: dict | None = None) -> Report:
    """report.json from rows (Row objects or their dicts)."""
    by_model: dict[str, list[Row]] = defaultdict(list)
    for row in latest_rows(rows):
        by_model[row.model].append(row)
    models: dict[str, ModelReport] = {}
    for name in sorted(by_model):
        # suite order is not completion order under xdist: sort so the report does not depend on it
        mrows = sorted(by_model[name], key=lambda r: (str(r.case_id), r.repeat))
        by_cat: dict[str, list[Row]] = defaultdict(list)
        for row in mrows:
            by_cat[row.category or "unknown"].append(row)
        order = category_order(by_cat)
        # speed items measure the endpoint, not the model's answers: apart from total and hard
        scored = [r for r in mrows if r.category != "speed"]
        models[name] = {
            "categories": {cat: _tally(by_cat[cat]) for cat in order},
            "hard": _tally([r for r in scored if r.difficulty == "hard"], with_skipped=False),
            "total": _tally(scored, with_skipped=False),
            **_model_totals(mrows),
            "repeats": repeats_section(scored),
            "backend": backend_summary(mrows, (((meta or {}).get("models") or {}).get(name) or {}).get("local")),
            **speed_report(mrows, (meta or {}).get("slo")),
        }
    return {
        "schema": SCHEMA_VERSION,
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "meta": meta or {},
        "models": models,
    }


def category_order(present) -> list[str]:
    """The suite's categories in suite order, then any other (`custom`: users' own checks) by name."""
    return [c for c in CATEGORIES if c in present] + sorted(set(present) - set(CATEGORIES))


def backend_summary(rows: list[Row], local: dict | None = None) -> dict:
    """What served a model: each field's distinct values, from the rows (what the endpoint reported:
    served model id, system_fingerprint, `server` header) and, for a model the run launched, from its
    local meta (GGUF sha256 and quant, llama.cpp version). Fields never reported are left out."""
    seen: dict[str, set] = {}

    def add(key: str, value) -> None:
        if value not in (None, ""):
            seen.setdefault(key, set()).add(str(value))

    reported = {(row.backend.get("model") or row.served_model, row.backend.get("system_fingerprint"),
                 row.backend.get("server")) for row in rows}  # few distinct triples in many rows
    for served, fingerprint, server in reported:
        add("served_model", served)
        add("system_fingerprint", fingerprint)
        add("server", server)
    local = local or {}
    add("gguf_sha256", local.get("gguf_sha256"))
    add("quant", (local.get("gguf") or {}).get("quant"))
    add("llamacpp_version", local.get("llamacpp_version"))
    return {key: sorted(values) for key, values in sorted(seen.items())}


def _backend_text(backend: dict[str, list[str]]) -> str:
    return "; ".join(f"{key} {', '.join(values)}" for key, values in backend.items())


def _backend_changes(models: dict[str, ModelReport]) -> list[str]:
    """A model served by more than one backend during one run: its numbers mix them."""
    return [f"{name} was served by more than one backend during this run ({key}: {', '.join(values)})"
            for name, m in models.items() for key, values in (m.get("backend") or {}).items() if len(values) > 1]


def _brief(row: Row) -> Brief:
    return {"case_id": row.case_id, "category": row.category, "repeat": row.repeat, "reason": row.reason}


def _cell(t: Tally) -> str:
    if not t["n"] and t.get("measured"):  # speed items: measurements, never a pass rate
        return f"{t['measured']} measured" + (f" +{t['errors']} err" if t["errors"] else "")
    if not t["n"]:
        return f"- ({t['errors']} err)" if t["errors"] else "-"
    text = f"{t['rate']:.0%} ({t['passed']}/{t['n']})"
    return text + (f" +{t['errors']} err" if t["errors"] else "")


def render_markdown(report: Report) -> str:
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
    served = [f"- {name} served by: {_backend_text(m['backend'])}" for name, m in models.items() if m.get("backend")]
    lines += served + [""] * bool(served)
    lines += [f"**Warning: {text}**" for text in _backend_changes(models)]
    lines += ["| Model | Total | Hard | Errors | Skipped | Cost (USD) |", "| --- | --- | --- | --- | --- | --- |"]
    for name, m in models.items():
        lines.append(f"| {name} | {_cell(m['total'])} | {_cell(m['hard'])} | {m['total']['errors']} | "
                     f"{_skipped(m)} | {m['cost_usd']:.4f} |")
    cats = category_order({c for m in models.values() for c in m["categories"]})
    lines += ["", "| Model | " + " | ".join(cats) + " |", "| --- |" + " --- |" * len(cats)]
    for name, m in models.items():
        cells = [_cell(m["categories"][c]) if c in m["categories"] else "" for c in cats]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "Rates count passed / (passed + failed); errors (infrastructure) and skips are shown apart; "
              "speed items are measurements, never passes or failures.", ""]
    lines += _error_bars_markdown(models)
    cut = [(name, m["total"]["truncated"]) for name, m in models.items()
           if m["total"]["truncated"]["reasoning"] or m["total"]["truncated"]["answer"]]
    if cut:
        lines += [f"- {name}: {_truncated_text(t, '')} of scored replies, cut off by the token limit"
                  for name, t in cut]
        lines.append("")
    for name, m in models.items():
        if m["failures"]:
            lines += [f"## Failures: {name}", ""]
            lines += [f"- {name} [{f['category']}] {f['case_id']}: {f['reason']}" for f in m["failures"]]
            lines.append("")
        if m["errors"]:
            lines += [f"## Errors (not counted): {name}", ""]
            lines += [f"- {name} [{e['category']}] {e['case_id']}: {e['reason']}" for e in m["errors"]]
            lines.append("")
        lines += _repeats_markdown(name, m.get("repeats"))
        lines += speed_markdown(name, m)
    return "\n".join(lines) + "\n"


def _error_bars_markdown(models: dict[str, ModelReport]) -> list[str]:
    """Every rate with its interval clustered by family, n beside the effective n, and the detectable drop."""
    lines = ["## Error bars", "",
             "| Model | Group | Rate | 95% CI | n | Families | n_eff | Detectable drop (points) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, m in models.items():
        groups = [("total", m["total"]), ("hard", m["hard"])]
        groups += [(cat, t) for cat, t in m["categories"].items() if cat != "speed"]
        for group, t in groups:
            if not t["n"]:
                continue
            ci, drop = t["ci95"], t.get("min_detectable_drop")
            lines.append(f"| {name} | {group} | {t['rate']:.1%} | "
                         f"{f'{ci[0]:.1%}-{ci[1]:.1%}' if ci else '-'} | {t['n']} | {t.get('families', '-')} | "
                         f"{_n_eff(t)} | {f'{drop * 100:.1f}' if drop is not None else '-'} |")
    return lines + ["", ERROR_BARS_NOTE, ""]


ERROR_BARS_NOTE = (
    "Intervals are clustered by family (siblings of one template, and repeats of a case, are not independent; "
    "a case outside a family is its own): the Wilson interval at n_eff = n / design effect, the design effect "
    "being the family-clustered variance of the rate over the independent-answers variance (Miller, \"Adding "
    "Error Bars to Evals\", 2024). Detectable drop: the drop a paired comparison with another run would detect "
    "at 80% power, one-sided alpha 0.05, if the two runs' answers agreed no more than chance.")


def _n_eff(t: Tally) -> str:
    n_eff = t.get("n_eff")
    return "-" if n_eff is None else f"{n_eff:g}"


def _estimate(cell: Estimate) -> str:
    if cell["value"] is None:
        return "-"
    ci = f" [{cell['ci95'][0]:.1%}, {cell['ci95'][1]:.1%}]" if cell["ci95"] else ""
    return f"{cell['value']:.1%}{ci}"


def _repeats_markdown(name: str, rep: Repeats | None) -> list[str]:
    if not rep:
        return []
    lines = [f"## Repeats: {name} (up to {rep['k']} answers per case, {rep['cases']} cases)", "",
             "| k | pass@k (some answer right) | pass^k (every answer right) |", "| --- | --- | --- |"]
    lines += [f"| {k} | {_estimate(rep['pass_at_k'][k])} | {_estimate(rep['pass_hat_k'][k])} |"
              for k in rep["pass_at_k"]]
    lines += ["", "Unbiased estimators averaged over cases; intervals are clustered by family, as the rates' ci95.",
              ""]
    if rep["flaky"]:
        lines += [f"Flaky cases ({len(rep['flaky'])}: right in some answers, wrong in others):", ""]
        lines += [f"- [{f['category']}] {f['case_id']}: {f['passed']}/{f['n']} ({f['rate']:.0%})" for f in rep["flaky"]]
        lines.append("")
    return lines


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


def _interval(t: Tally) -> str:
    ci = t["ci95"]
    return f" [{ci[0]:.0%}-{ci[1]:.0%}] n_eff {_n_eff(t)}" if ci else ""


def _card_cell(t: Tally) -> str:
    """A rate on the card: as in report.md, with its interval and effective n."""
    if not t["n"]:
        return _cell(t)
    return f"{t['rate']:.0%} ({t['passed']}/{t['n']}){_interval(t)}" + (f" +{t['errors']} err" if t["errors"] else "")


def _drops_line(m: ModelReport) -> str | None:
    """What drop the run's rates could show against a later run, at 80% power."""
    groups = [("overall", m["total"])] + [(cat, t) for cat, t in m["categories"].items() if cat != "speed"]
    drops = [f"{drop * 100:.0f} points {'in ' * (label != 'overall')}{label}" for label, t in groups
             if (drop := t.get("min_detectable_drop")) is not None]
    if not drops:
        return None
    return (f"  {'detects':<10} a drop of " + ", ".join(drops)
            + " (80% power, one-sided alpha 0.05; intervals and n_eff count families)")


def render_terminal(report: Report, verbosity: int = 0, glyphs: str = "█░") -> list[str]:
    """The end-of-run summary: a card per model (total and hard with their 95% intervals, a bar per
    category, TTFT / decode, cost, errors), then the speed block. pytest -q leaves out the speed block,
    -qq prints one line per model."""
    local = dict(_local_summaries(report.get("meta") or {}))  # each printed with its own model's card
    out = []
    if (report.get("meta") or {}).get("unsandboxed"):
        out.append("WARNING: code cases ran unsandboxed (--crucible-allow-unsandboxed)")
    out += [f"WARNING: {text}" for text in _backend_changes(report["models"])]
    for name, m in report["models"].items():
        total, hard = m["total"], m["hard"]
        rate = f"{total['rate']:.1%}" if total["rate"] is not None else "n/a"
        if name in local:
            out.append(f"{name}: {local[name]}")
        cost = f", cost ${m['cost_usd']:.4f}" if m["cost_usd"] else ""  # none: no price set (a free model)
        out.append(f"{name}: {rate} ({total['passed']}/{total['n']}){_interval(total)}, hard {_card_cell(hard)}, "
                   f"errors {total['errors']}, skipped {_skipped(m)}{cost}" + _truncated_text(total["truncated"], ", "))
        if verbosity < -1:
            continue
        for cat, t in m["categories"].items():
            if cat == "speed":
                continue  # measurements: the speed block below says them
            line = f"  {cat:<10} {text_bar(t['rate'], glyphs=glyphs)} {_card_cell(t)}"
            out.append(line + (f", {t['skipped']} skipped" if t["skipped"] else "")
                       + _truncated_text(t["truncated"], ", "))
        drops = _drops_line(m)
        if drops:
            out.append(drops)
        rep = m.get("repeats")
        if rep:
            k = str(rep["k"])
            out.append(f"  repeats    {rep['k']} per case: pass@1 {_estimate(rep['pass_at_k']['1'])}, pass@{k} "
                       f"{_estimate(rep['pass_at_k'][k])}, pass^{k} {_estimate(rep['pass_hat_k'][k])}; "
                       f"{len(rep['flaky'])} flaky cases (listed in report.md)")
        timings = m.get("timings")
        if timings:
            ttft, decode = timings.get("ttft_s"), timings.get("decode_tps")
            out.append(f"  {'latency':<10} TTFT {f'{ttft:.3f} s' if ttft is not None else '-'}, decode "
                       f"{f'{decode:.1f} tok/s' if decode is not None else '-'} (medians of {timings['n']} graded "
                       "requests)")
        if verbosity >= 0:
            out += speed_terminal(name, m)
    return out


def _skipped(m: ModelReport) -> str:
    """The skipped count, with those skipped because their provider was down said apart."""
    down = m.get("provider_down") or 0
    return f"{m['skipped']} ({down} provider down)" if down else str(m["skipped"])


def _truncated_text(truncated: Truncated, lead: str) -> str:
    """', truncated 40% (4 in reasoning, 0 in answer)', or "" when nothing was cut off."""
    if not truncated["reasoning"] and not truncated["answer"]:
        return ""
    return (f"{lead}truncated {truncated['rate']:.0%} ({truncated['reasoning']} in reasoning, "
            f"{truncated['answer']} in answer)")


def write_reports(run_dir: Path, rows, meta: dict | None = None) -> Report:
    """report.json, report.md and report.html in `run_dir` from its rows (a ReportRows: `crucible report`
    reads a big run's rows.jsonl that way; or the rows themselves); returns the report."""
    from pytest_crucible.analysis.report_html import render_html  # lazy: matplotlib, only when a report is written
    if not isinstance(rows, ReportRows):
        rows = ReportRows.of(rows)
    with collector_paused():  # 100,000 rows held: the collector would walk them over and over
        report = aggregate(rows.rows, meta)
        run_dir = Path(run_dir)
        (run_dir / "report.json").write_text(dumps_finite(report, indent=2) + "\n", encoding="utf-8")
        (run_dir / "report.md").write_text(render_markdown(report), encoding="utf-8")
        (run_dir / HTML_FILE).write_text(render_html(report, rows), encoding="utf-8")
    return report
