"""`crucible capacity MODEL --slo ...`: the command's flags and its run (the search is speed/capacity.py)."""

from __future__ import annotations

import argparse
import sys

from pytest_crucible.engine.options import SETTINGS


def _setting(args, name: str):
    """A shared setting (options.py): this command's flag, else $CRUCIBLE_NAME, else the default."""
    setting = SETTINGS[name]
    return setting.resolve(getattr(args, setting.dest))


def _cmd_capacity(args) -> int:
    from pytest_crucible.analysis.capacity_report import write_capacity_run  # lazy: CLI start-up
    from pytest_crucible.engine.speed_settings import parse_slo  # lazy: CLI start-up
    from pytest_crucible.speed import capacity  # lazy: CLI start-up
    try:
        slo = parse_slo(args.slo, option="--slo")
    except ValueError as exc:
        print(f"crucible capacity: {exc}", file=sys.stderr)
        return 2
    if not slo:
        print("crucible capacity: --slo needs at least one target, e.g. --slo ttft=0.5,itl=0.05", file=sys.stderr)
        return 2
    given = {"min_good": args.min_good, "max_tokens": args.max_tokens, "seed": args.seed}
    plan = capacity.CapacityPlan(slo=slo, requests=args.requests, max_concurrency=args.max_concurrency,
                                 **{key: value for key, value in given.items() if value is not None})
    print("\n".join(capacity.header_lines(args.model, slo, plan.min_good)), flush=True)
    result = capacity.run_capacity(args.model, plan, config_path=_setting(args, "config"),
                                   max_cost=_setting(args, "max_cost"),
                                   on_level=lambda level: print(capacity.level_line(level), flush=True))
    run_dir = write_capacity_run(_setting(args, "out"), result)
    print(capacity.verdict_line(result))
    print(f"wrote {run_dir / 'capacity.json'}, {run_dir / 'report.html'}")
    return 0


def _share(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"a share between 0 and 1 (0.9 is 90%), got {text}")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"a whole number of at least 1, got {text}")
    return value


def add_capacity_command(sub) -> None:
    p = sub.add_parser(
        "capacity", help="the most concurrent streams at which a model's correct goodput meets latency targets",
        description="Raise the concurrent streams 1, 2, 4, 8, ... (each level a closed loop of known-answer "
        "prompts, graded) until a level misses the SLO or the ceiling is reached, then bisect until the last "
        "level that met it and the first that did not are adjacent; a cost cap ends the search early. A "
        "level meets the SLO when at least --min-good of its requests are correct AND within every target "
        "(so with 0.9 the 90th percentile of TTFT and of each request's p95 ITL are within the targets, and at "
        "least 90% are correct). Writes OUT/<run-id>/capacity.json and report.html (docs/speed.md).")
    p.add_argument("model", help="a model name from models.yaml")
    p.add_argument("--slo", required=True, metavar="TARGETS", help="latency targets per request, e.g. "
                   "ttft=0.5,itl=0.05 (seconds; ms accepted: ttft=500ms). Keys: ttft, ttft_answer, e2e, itl "
                   "(the request's p95 inter-token gap), decode (a minimum tok/s)")
    p.add_argument("--min-good", type=_share, metavar="SHARE", help="share of a level's requests "
                   "that must be correct and within every target (default 0.9)")
    p.add_argument("--requests", type=_positive, metavar="N", help="requests per level (default: 4 per "
                   "stream, at least 8)")
    p.add_argument("--max-concurrency", type=_positive, metavar="N", help="the highest level to try (default: "
                   "the provider's concurrency in models.yaml; more is refused)")
    p.add_argument("--max-tokens", type=_positive, metavar="N", help="completion limit per request "
                   "(default 256)")
    p.add_argument("--seed", type=int, metavar="N", help="seed of the generated prompts (default 0)")
    SETTINGS["config"].add_to(p)
    p.add_argument("--out", **SETTINGS["out"].argparse_kwargs())
    p.add_argument("--max-cost", **SETTINGS["max_cost"].argparse_kwargs())
    p.set_defaults(func=_cmd_capacity)
