"""A synthetic run folder (rows.jsonl and meta.json) shaped like the plugin's, for report and GUI tests,
`benchmarks/report_html.py` and the README screenshot (`docs/screenshots/make_report_screenshot.py`).

Each model has a skill, a price and a speed; each case a category and a difficulty. Outcomes, reasons,
reply lengths, timings, tokens and costs are drawn from a seeded generator, so a seed always gives the
same run. Speed items carry samples and rounds the way the speed runner writes them, summarised by the
runner's own `summarize`, so the report reads them through the same code as a real run's.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from pytest_crucible.results.request_metrics import spread
from pytest_crucible.speed.item_kind import summarize

ACCURACY_CATEGORIES = ("coding", "math", "reasoning", "tooluse", "instruct", "longctx", "agent")
DIFFICULTIES = ("easy", "medium", "hard")
WORDS = ("the harbour wall keeps the boats from the winter swell while the baker counts loaves and the "
         "keeper trims the lamp so we add the two remainders and check each case in turn before the "
         "final step").split()
SWEEP = (("SP02-medium-200", 1), ("SP05-sweep-4-streams", 4), ("SP06-sweep-16-streams", 16))
MODEL_NAMES = ("qwen3-32b", "gemma3-27b", "mistral-small", "llama3-70b", "phi4", "deepseek-v3",
               "olmo2-32b", "granite-8b", "smollm2", "glm4-32b")


def _text(rng: random.Random, chars: int) -> str:
    words: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(WORDS)
        words.append(word)
        size += len(word) + 1
    return " ".join(words)


def _model_profiles(count: int, rng: random.Random) -> list[dict]:
    out = []
    for i in range(count):
        name = MODEL_NAMES[i] if i < len(MODEL_NAMES) else f"model-{i:02d}"
        out.append({"name": name, "skill": 0.35 + 0.55 * (count - i) / count * rng.uniform(0.85, 1.0),
                    "price_in": round(rng.choice((0.0, 0.1, 0.3, 0.6, 1.2)), 2),
                    "price_out": round(rng.choice((0.0, 0.4, 1.0, 2.0, 4.0)), 2),
                    "decode_tps": rng.uniform(20, 120), "ttft_s": rng.uniform(0.15, 1.2),
                    "thinks": i % 3 == 0})
    return out


def _accuracy_row(rng: random.Random, run_id: str, model: dict, index: int, repeat: int = 1) -> dict:
    category = ACCURACY_CATEGORIES[index % len(ACCURACY_CATEGORIES)]
    difficulty = DIFFICULTIES[(index // len(ACCURACY_CATEGORIES)) % 3]
    p_pass = model["skill"] * {"easy": 1.15, "medium": 0.9, "hard": 0.55}[difficulty]
    draw = rng.random()
    outcome = ("error" if draw < 0.01 else "skipped" if draw < 0.02
               else "passed" if rng.random() < p_pass else "failed")
    expected = rng.randint(10, 9999)
    given = expected + rng.choice((-7, -1, 1, 12, 100))
    reasons = {"passed": "", "skipped": "needs 131072 tokens of context, model has 32768",
               "error": "endpoint unreachable after 4 retries: connection refused",
               "failed": rng.choice((f"answer {given}, expected {expected}", "TRUNCATED at 4096 tokens (3900 reasoning)",
                                     "1 calls, expected 3", "AssertionError in test 3: expected 7, got 6"))}
    row = {"run_id": run_id, "model": model["name"], "model_id": model["name"], "provider": "synthetic",
           "case_id": f"{category[:2].upper()}-{index:04d}", "category": category, "difficulty": difficulty,
           "tags": [], "repeat": repeat, "started_at": "2025-01-01T00:00:00.000+00:00", "outcome": outcome,
           "reason": reasons[outcome], "params": {"max_tokens": 4096, "temperature": 0}}
    if outcome in ("error", "skipped"):
        return row
    completion = rng.randint(80, 1500)
    reasoning = rng.randint(400, 3000) if model["thinks"] else 0
    ttft = model["ttft_s"] * rng.lognormvariate(0, 0.25)
    decode = model["decode_tps"] * rng.uniform(0.85, 1.1)
    e2e = ttft + (completion + reasoning) / decode
    prompt = rng.randint(80, 3000)
    answer = given if outcome == "failed" else expected
    row.update(
        answer=answer, answer_text=_text(rng, rng.randint(200, 3000)) + f"\n\nAnswer: {answer}",
        reasoning=_text(rng, reasoning * 4) if reasoning else "", tool_calls=[], finish_reason="stop",
        served_model=model["name"], attempts=1,
        backend={"model": model["name"], "system_fingerprint": f"fp_{model['name'][:4]}01", "server": "synthetic/1.0"},
        timings={"ttft_s": round(ttft, 4), "ttft_answer_s": round(ttft + reasoning / decode, 4),
                 "e2e_s": round(e2e, 4), "decode_tps": round(decode, 2), "prefill_tps": round(prompt / ttft, 1),
                 "itl_p50_s": round(1 / decode, 5), "itl_p95_s": round(1.6 / decode, 5), "itl_p99_s": round(2 / decode, 5)},
        tokens={"prompt": prompt, "completion": completion + reasoning, "reasoning": reasoning, "cached": 0,
                "estimated": False},
        cost_usd=round((prompt * model["price_in"] + (completion + reasoning) * model["price_out"]) / 1e6, 8),
        wall_s=round(e2e + 0.01, 4))
    return row


def _speed_row(rng: random.Random, run_id: str, model: dict, case_id: str, streams: int) -> dict:
    per_stream = model["decode_tps"] / (1 + 0.08 * (streams - 1))  # batching: each stream slows a little
    samples, rounds = [], []
    for number in (1, 2, 3):
        wall = 0.0
        for stream in range(streams):
            decode = per_stream * rng.uniform(0.92, 1.05)
            ttft = model["ttft_s"] * (1 + 0.1 * streams) * rng.uniform(0.9, 1.2)
            e2e = ttft + 127 / decode
            wall = max(wall, e2e)
            samples.append({"ttft_s": round(ttft, 5), "ttft_answer_s": round(ttft, 5), "e2e_s": round(e2e, 5),
                            "decode_tps": round(decode, 3), "prefill_tps": None, "itl_p50_s": round(1 / decode, 6),
                            "itl_p95_s": round(1.5 / decode, 6), "itl_p99_s": round(2 / decode, 6),
                            "prompt_tokens": 60, "completion_tokens": 128, "reasoning_tokens": 0,
                            "cached_tokens": 0, "chunks": 128, "estimated_tokens": False, "clock": "kernel",
                            "round": number, "stream": stream, "attempts": 1, "finish_reason": "length"})
        if streams > 1:
            rounds.append({"round": number, "streams": streams, "wall_s": round(wall, 5),
                           "completion_tokens": 128 * streams, "aggregate_tps": round(128 * streams / wall, 3)})
    summary = summarize(samples)
    return {"run_id": run_id, "model": model["name"], "model_id": model["name"], "provider": "synthetic",
            "case_id": case_id, "category": "speed", "difficulty": "easy", "tags": ["sweep"], "repeat": 1,
            "kind": "speed", "outcome": "measured", "reason": "", "params": {"max_tokens": 128},
            "timings": {k: (v or {}).get("median") for k, v in summary.items()},
            "tokens": {"prompt": 60 * len(samples), "completion": 128 * len(samples), "reasoning": 0},
            "cost_usd": 0.0,
            "speed": {"plan": {"type": "speed", "warmup": 1, "repeats": 3, "concurrency": streams},
                      "summary": summary, "samples": samples, "rounds": rounds,
                      "aggregate_tps": spread([r["aggregate_tps"] for r in rounds], 3),
                      "plausibility": {"confidence": "HIGH", "reasons": ["decode below the bandwidth ceiling"],
                                       "decode_ceiling_tps": 400.0},
                      "hardware": {"description": "synthetic GPU, 1000 GB/s"}}}


def write_run(out_dir: Path, run_id: str = "20250101-120000-synt", *, models: int = 3, cases: int = 60,
              seed: int = 0, speed: bool = True, repeats: int = 1) -> Path:
    """Write `out_dir/run_id/rows.jsonl` and `meta.json`; return the run folder. `repeats`: answers per
    accuracy case (10 models x 1,000 cases x 10 repeats is the 100,000-row benchmark)."""
    rng = random.Random(seed)
    profiles = _model_profiles(models, rng)
    run_dir = Path(out_dir) / run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    meta = {"run_id": run_id, "crucible_version": "0.1.0", "profile": "full", "repeats": repeats, "seed": 20250101,
            "sandbox": "bwrap", "unsandboxed": False, "host": "bench-host", "pid": 0,
            "models": {m["name"]: {"model_id": m["name"], "provider": "synthetic"} for m in profiles}}
    (run_dir / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    with open(run_dir / "rows.jsonl", "w", encoding="utf-8") as fh:
        for model in profiles:
            rows = [_accuracy_row(rng, run_id, model, i, repeat) for repeat in range(1, repeats + 1)
                    for i in range(cases)]
            if speed:
                rows += [_speed_row(rng, run_id, model, case_id, streams) for case_id, streams in SWEEP]
            for row in rows:
                fh.write(json.dumps(row) + "\n")
    return run_dir
