"""The `crucible` command: everything that is not a benchmark run (runs go through pytest)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

from pytest_crucible.analysis.stats import BOOTSTRAP_ROUNDS
from pytest_crucible.apps.capacity_cli import add_capacity_command
from pytest_crucible.common.errors import CrucibleError
from pytest_crucible.common.redact import redact_base_url
from pytest_crucible.engine.options import SETTINGS

INIT_BASE_URL = "http://127.0.0.1:1234/v1"  # LM Studio's default, where the README's loopback listens


def _cmd_init(args) -> int:
    from pytest_crucible.engine.config import init_text  # lazy: CLI start-up
    from pytest_crucible.local.http import HTTPFailure  # lazy: CLI start-up
    path = Path(args.path)
    if path.exists() and not args.force:
        print(f"{path} exists; pass --force to overwrite it", file=sys.stderr)
        return 1
    base_url = args.base_url.rstrip("/")
    try:  # which ids the server serves, so the file names one it knows
        served: list[str] | None = _served_ids(base_url, None, args.timeout)
    except HTTPFailure:
        served = None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(init_text(base_url, served), encoding="utf-8")
    if served:
        print(f"wrote {path}: model my-model is {served[0]!r} at {base_url} (of {len(served)} served); run: "
              "pytest --models=my-model")
    else:
        print(f"wrote {path}: {base_url} did not say which models it serves, so model_id is a placeholder; set it "
              "(`crucible models` lists a server's ids), then run: pytest --models=my-model")
    return 0


def _cmd_report(args) -> int:
    from pytest_crucible.analysis.report import render_terminal, write_reports  # lazy: CLI start-up
    from pytest_crucible.analysis.report_rows import ReportRows  # lazy: CLI start-up
    from pytest_crucible.results.store import HTML_FILE, run_meta  # lazy: CLI start-up
    run_dir = Path(args.run_dir)
    if not (run_dir / "rows.jsonl").is_file():
        print(f"{run_dir}: no rows.jsonl here; give a run folder such as crucible-results/latest",
              file=sys.stderr)
        return 1
    report = write_reports(run_dir, ReportRows.read(run_dir), run_meta(run_dir))  # read once, texts clipped
    for line in render_terminal(report, verbosity=-2):  # one line per model; the files hold the rest
        print(line)
    print("wrote " + ", ".join(str(run_dir / name) for name in ("report.json", "report.md", HTML_FILE)))
    return 0


def _cmd_merge(args) -> int:
    from pytest_crucible.analysis.report import render_terminal, write_reports  # lazy: CLI start-up
    from pytest_crucible.results.merge import merge_runs  # lazy: CLI start-up
    run_dir, rows, meta = merge_runs(args.runs, args.out)
    for line in render_terminal(write_reports(run_dir, rows, meta), verbosity=-2):
        print(line)
    print(f"merged {len(args.runs)} shards into {run_dir} (rows.jsonl, meta.json, report.json, report.md, report.html)")
    return 0


def _cmd_recover(args) -> int:
    from pytest_crucible.analysis.report import render_terminal  # lazy: CLI start-up
    from pytest_crucible.apps.recover import recover_run  # lazy: CLI start-up
    recovery = recover_run(args.run_dir, max_tokens=args.max_tokens, force_answer=args.force_answer,
                           config_path=_setting(args, "config"), paths=[Path(p) for p in args.paths] or None)
    print(recovery.summary())
    if recovery.report is not None:
        for line in render_terminal(recovery.report):
            print(line)
    return 0


def _cmd_pairwise(args) -> int:
    from pytest_crucible.analysis.pairwise import render_table, run_pairwise  # lazy: CLI start-up
    result = run_pairwise(args.runs, judge_name=_setting(args, "judge"), config_path=_setting(args, "config"),
                          paths=[Path(p) for p in args.cases], out=args.out, rounds=args.rounds)
    for line in render_table(result):
        print(line)
    print(f"wrote {args.out}")
    return 0


def _cmd_gui(args) -> int:

    from pytest_crucible.results.runs import is_run_dir  # lazy: CLI start-up
    path, start = Path(SETTINGS["out"].resolve(args.dir)), "/"
    if is_run_dir(path):  # a run folder (or `latest`): serve the results folder, open at this run
        path = path.resolve()
        path, start = path.parent, f"/runs/{quote(path.name)}"
    elif not path.is_dir():
        print(f"{path}: no such folder; give a results folder (default crucible-results) or a run folder",
              file=sys.stderr)
        return 1
    try:
        from pytest_crucible.apps.gui import serve  # lazy: the gui extra (starlette) is optional
    except ImportError as exc:
        print(f"crucible gui needs the gui extra ({exc.name} is missing): pip install 'pytest-crucible[gui]'",
              file=sys.stderr)
        return 2
    serve(path, host=_setting(args, "gui_host"), port=_setting(args, "gui_port"), token=_setting(args, "gui_token"),
          start_path=start, announce=lambda line: print(line, flush=True))
    return 0


def _setting(args, name: str):
    """A shared setting (options.py): this command's flag, else $CRUCIBLE_NAME, else the default."""
    setting = SETTINGS[name]
    return setting.resolve(getattr(args, setting.dest))


def _cmd_compare(args) -> int:
    from pytest_crucible.analysis.compare import GateSettings, compare_runs, load_run, render_text  # lazy: CLI start-up
    if args.new is None and not (args.base_model and args.new_model):
        print("crucible compare: with one run, name both sides: --base-model A --new-model B", file=sys.stderr)
        return 2
    gate = GateSettings(alpha=_setting(args, "alpha"), categories=tuple(_setting(args, "gate_categories") or ()),
                        speed_tolerance=_setting(args, "speed_tolerance"))
    base = load_run(args.base)
    new = load_run(args.new) if args.new else base
    result = compare_runs(base, new, base_model=args.base_model, new_model=args.new_model, gate=gate)
    print(json.dumps(result, indent=2) if args.json else "\n".join(render_text(result)))
    return 1 if _setting(args, "gate") and not result["gate"]["passed"] else 0


def _load(args):
    from pytest_crucible.suite.case import load_cases  # lazy: CLI start-up
    paths = [Path(p) for p in args.paths] or None
    cases = load_cases(paths, seed=_setting(args, "seed"))
    categories = _setting(args, "categories")
    if categories:
        wanted = set(categories.split(","))
        cases = [c for c in cases if c.category in wanted]
    return cases


def _cmd_cases_list(args) -> int:
    from pytest_crucible.suite.case import DIFFICULTIES  # lazy: CLI start-up
    from pytest_crucible.suite.node_ids import case_node_id  # lazy: CLI start-up
    from pytest_crucible.suite.profiles import select  # lazy: CLI start-up
    cases = _load(args)
    profiles = _config_for(args).profiles
    name = _setting(args, "profile")
    if name:
        if name not in profiles:
            print(f"unknown profile {name!r}; known: {', '.join(sorted(profiles))}", file=sys.stderr)
            return 2
        cases = select(cases, profiles[name])[0]
    for case in cases:  # ids that paste into pytest (all models; add [MODEL] for one)
        where = f" {case.file}:{case.line}" if args.where else ""
        print(f"{case_node_id(case):<56} {case.category:<9} {case.difficulty:<6} "
              f"{case.grader.get('type', case.category):<10}{where}".rstrip())
    categories = sorted({c.category for c in cases})
    print(f"\n{'':<10}" + "".join(f"{d:>8}" for d in DIFFICULTIES) + f"{'total':>8}")
    for category in categories:
        tiers = Counter(c.difficulty for c in cases if c.category == category)
        print(f"{category:<10}" + "".join(f"{tiers[d]:>8}" for d in DIFFICULTIES) + f"{sum(tiers.values()):>8}")
    tiers = Counter(c.difficulty for c in cases)
    print(f"{'all':<10}" + "".join(f"{tiers[d]:>8}" for d in DIFFICULTIES) + f"{len(cases):>8}")
    _print_distinct(cases, categories)
    if not name:
        print("\nprofiles (--crucible-profile NAME): cases selected")
        for profile, spec in profiles.items():
            chosen = select(cases, spec)[0]
            per = Counter(c.category for c in chosen)
            print(f"  {profile:<10} {len(chosen):>4} ({sum(c.hard for c in chosen)} hard): "
                  + ", ".join(f"{k} {per[k]}" for k in categories if per[k]))
    return 0


def _print_distinct(cases: list, categories: list[str]) -> None:
    """Distinct templates beside the case counts: family siblings are one problem with new numbers."""
    from pytest_crucible.suite.case import DIFFICULTIES  # lazy: CLI start-up
    from pytest_crucible.suite.tiers import distinct_templates, distinct_total  # lazy: CLI start-up
    cells = distinct_templates(cases)
    print(f"\ndistinct templates (a family counts once per tier it has)\n{'':<10}"
          + "".join(f"{d:>8}" for d in DIFFICULTIES) + f"{'total':>8}")
    for category in categories:
        mine = [c for c in cases if c.category == category]
        print(f"{category:<10}" + "".join(f"{cells.get((category, d), 0):>8}" for d in DIFFICULTIES)
              + f"{distinct_total(mine):>8}")
    print(f"{'all':<10}" + "".join(f"{distinct_total(cases, d):>8}" for d in DIFFICULTIES)
          + f"{distinct_total(cases):>8}")
    print(f"{distinct_total(cases)} distinct templates, {distinct_total(cases, 'hard')} distinct hard")


def _cmd_cases_verify(args) -> int:
    from pytest_crucible import verify  # lazy: CLI start-up
    paths = [Path(p) for p in args.paths] or None

    def progress(done, total, case_id):
        if sys.stderr.isatty() or args.verbose:
            print(f"\r[{done}/{total}] {case_id:<40}", end="" if sys.stderr.isatty() else "\n",
                  file=sys.stderr, flush=True)

    categories = _setting(args, "categories")

    def run(judge=None):
        return verify.verify_paths(paths, categories=categories.split(",") if categories else None,
                                   imports=_setting(args, "import") or [], progress=progress, judge=judge,
                                   seed=_setting(args, "seed"), allow_unsandboxed=_setting(args, "allow_unsandboxed"))
    judge_name = _setting(args, "judge")
    if judge_name:
        from pytest_crucible.engine.session import judge_from_config  # lazy: CLI start-up
        with judge_from_config(judge_name, _setting(args, "config")) as judge:
            report = run(judge)
    else:
        report = run()
    if sys.stderr.isatty():
        print(file=sys.stderr)
    for problem in report.problems:
        print(f"{problem.file}:{problem.line}: {problem.case_id}: {problem.message}")
    for rejected in report.rejected:  # within the share of possible answers a grader may refuse
        print(f"rejected possible answer: {rejected}")
    print(report.summary())
    return 1 if report.problems else 0


# -- status and models (local models, leases, providers) --------------------------------------------


def _config_for(args):
    from pytest_crucible.engine.config import find_config_path, load_config  # lazy: CLI start-up
    return load_config(find_config_path(_setting(args, "config")))


def _served_ids(base_url: str, token: str | None, timeout: float) -> list[str]:
    """The model ids GET {base_url}/models lists (raises local.http.HTTPFailure)."""
    from pytest_crucible.local.http import request_json  # lazy: CLI start-up
    body = request_json("GET", f"{base_url}/models", timeout=timeout, token=token)
    data = body.get("data") if isinstance(body, dict) else None
    return sorted(str(m.get("id")) for m in data or [] if isinstance(m, dict) and m.get("id"))


def _probe(provider, timeout: float) -> tuple[bool, str, list[str]]:
    """(up, detail, served model ids) from a quick GET {base_url}/models. The key is sent, never shown."""
    from pytest_crucible.local.http import HTTPFailure  # lazy: CLI start-up
    try:
        ids = _served_ids(provider.base_url, provider.api_key(), timeout)
    except HTTPFailure as exc:
        if exc.status is None:
            return False, f"down ({str(exc).split(': ', 1)[-1]})", []
        return exc.status not in (502, 503, 504), f"HTTP {exc.status}", []
    return True, f"up, {len(ids)} model(s)", ids


def _probe_all(providers, timeout: float) -> dict:
    if not providers:
        return {}
    with ThreadPoolExecutor(max_workers=min(8, len(providers))) as pool:
        futures = {name: pool.submit(_probe, p, timeout) for name, p in providers.items()}
        return {name: f.result() for name, f in futures.items()}


def _local_line(model) -> str:
    from pytest_crucible.local import local_model_meta  # lazy: CLI start-up
    meta = local_model_meta(model) or {}
    what = meta.get("gguf_summary") or f"NOT READY: {meta.get('error', 'unknown problem')}"
    devices = ", ".join(d["id"] for d in meta.get("devices", [])) or meta.get("devices_error", "?")
    served = f"; chat template {meta['chat_template']}" if meta.get("chat_template") else ""
    tools = "" if model.calls_tools else "; no tool calling (tool-use and agent cases skip)"
    return f"{meta.get('source')}: {what}; context {meta.get('context')}; devices {devices}{served}{tools}"


def _cmd_status(args) -> int:
    from pytest_crucible.local import default_lease_dir, list_leases  # lazy: CLI start-up
    from pytest_crucible.local.device_leases import LeaseDir  # lazy: CLI start-up
    from pytest_crucible.local.devices import discover_devices  # lazy: CLI start-up
    config = _config_for(args)
    print(f"config: {config.path or 'none found (built-in models only; crucible init writes one)'}")
    lease_dir = LeaseDir(args.lease_dir or default_lease_dir())
    infos = list_leases(lease_dir)
    print(f"leases ({lease_dir.path}):")
    for info in infos:
        print(f"  {info.describe()}")
    if not infos:
        print("  none taken yet")
    print("devices:")
    for device in discover_devices():
        print(f"  {device.describe()}")
    print("providers:")
    probes = _probe_all(config.providers, args.timeout)
    for name, provider in config.providers.items():
        _, detail, _ = probes[name]
        print(f"  {name:<14} {redact_base_url(provider.base_url):<40} {detail:<24} {provider.key_state()}")
    if not config.providers:
        print("  none configured")
    local = [m for m in config.models.values() if m.launch]
    if local:
        print("local models:")
        for model in local:
            print(f"  {model.name:<14} {_local_line(model)}")
    try:
        from pytest_crucible.sandbox import bwrap_available, find_bwrap  # lazy: CLI start-up
        sandbox = f"bwrap found ({find_bwrap()})" if bwrap_available() else \
            "bwrap NOT found: coding cases are skipped (apt install bubblewrap)"
    except ImportError:
        sandbox = "not available in this installation"
    print(f"sandbox: {sandbox}")
    try:
        from pytest_crucible.suite.case import load_cases  # lazy: CLI start-up
        cases = load_cases(None)
    except CrucibleError as exc:
        print(f"cases: cannot load the built-in suite: {exc}")
        return 1
    counts = Counter(c.category for c in cases)
    hard = Counter(c.category for c in cases if c.hard)
    print(f"cases: {len(cases)} ({sum(hard.values())} hard): " + ", ".join(
        f"{k} {v}" + (f" ({hard[k]} hard)" if hard[k] else "") for k, v in sorted(counts.items())))
    return 0


def _cmd_models(args) -> int:
    config = _config_for(args)
    probes = _probe_all(config.providers, args.timeout)
    configured: dict[str, list] = {}
    for model in config.models.values():
        if model.provider is not None:
            configured.setdefault(model.provider.name, []).append(model)
    for name, provider in config.providers.items():
        up, detail, served = probes[name]
        print(f"provider {name} ({redact_base_url(provider.base_url)}): {detail}")
        aliases: dict[str, list[str]] = {}
        for model in configured.get(name, []):
            aliases.setdefault(model.model_id, []).append(model.name)
        for model_id in served:
            note = f"   <- --models {', '.join(aliases[model_id])}" if model_id in aliases else ""
            print(f"  {model_id}{note}")
        for model in configured.get(name, []):
            if up and served and model.model_id not in served:
                print(f"  ({model.model_id} is configured as {model.name} but NOT served)")
    print("configured models:")
    for model in config.models.values():
        if model.launch:
            where = "launched locally: " + _local_line(model)
        else:
            where = f"{model.provider.name} / {model.model_id}"
        builtin = " (built in)" if "builtin" in model.tags else ""
        print(f"  {model.name:<14} {where}{builtin}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="crucible", description="pytest-crucible: everything but the run "
                                     "itself (runs: pytest --models NAME)")
    sub = parser.add_subparsers(dest="command", required=True)

    _add_init(sub)
    _add_run_commands(sub)
    _add_service_commands(sub)
    _add_cases_commands(sub)
    add_capacity_command(sub)
    return parser


def _add_init(sub) -> None:
    p = sub.add_parser("init", help="write a commented models.yaml naming a model the server serves")
    p.add_argument("path", nargs="?", default="models.yaml")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.add_argument("--base-url", default=INIT_BASE_URL, help="the OpenAI-compatible endpoint, asked which models it "
                   "serves (default %(default)s)")
    p.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for it (default 3)")
    p.set_defaults(func=_cmd_init)



def _add_run_commands(sub) -> None:
    """Commands that read finished runs: report, merge, recover, pairwise, compare."""
    p = sub.add_parser("report", help="rebuild report.json, report.md and report.html from a run's rows.jsonl, "
                       "and say where they are")
    p.add_argument("run_dir", nargs="?", default="crucible-results/latest")
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("merge", help="join the runs of --crucible-shard=K/N into one run folder with its reports; "
                       "refuses (exit 2) shards of different suites or settings, and a missing or doubled shard")
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="every shard's run folder")
    p.add_argument("--out", required=True, metavar="DIR", help="the merged run's folder (new or empty)")
    p.set_defaults(func=_cmd_merge)

    p = sub.add_parser("recover", help="ask again the items of a run cut off inside their reasoning, with a larger "
                       "limit or asking for the final answer; rows marked recovered, report rebuilt")
    p.add_argument("run_dir", help="the run folder, e.g. crucible-results/latest")
    p.add_argument("paths", nargs="*", help="the run's own case files (the built-in suite is always looked in)")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--max-tokens", type=int, metavar="N", help="ask again with a completion limit of N tokens")
    how.add_argument("--force-answer", action="store_true", help="continue the conversation: its reasoning, "
                     "then a request for the final answer, thinking switched off")
    SETTINGS["config"].add_to(p)
    p.set_defaults(func=_cmd_recover)

    p = sub.add_parser("pairwise", help="a judge compares the answers of two or more runs to the same judged "
                       "cases, in both orders; Bradley-Terry ratings with bootstrap intervals, pairwise.json and "
                       "a table")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folders, e.g. crucible-results/<run-id>")
    p.add_argument("--cases", nargs="*", default=[], metavar="PATH",
                   help="the runs' own case files (the built-in suite is always looked in)")
    p.add_argument("--out", default="pairwise.json", metavar="PATH", help="where to write the result "
                   "(default: pairwise.json)")
    p.add_argument("--rounds", type=int, default=BOOTSTRAP_ROUNDS, metavar="N", help="bootstrap rounds (%(default)s)")
    SETTINGS["judge"].add_to(p)
    SETTINGS["config"].add_to(p)
    p.set_defaults(func=_cmd_pairwise)

    p = sub.add_parser("compare", help="compare two runs case by case (paired): rates, flips, speed; with "
                       "--gate, exit 1 when NEW is significantly worse or slower than BASE")
    p.add_argument("base", help="the baseline run: a run folder (or its rows.jsonl / report.json)")
    p.add_argument("new", nargs="?", help="the candidate run (default: BASE itself, comparing two of its models)")
    p.add_argument("--base-model", help="the baseline's model, when its run has several")
    p.add_argument("--new-model", help="the candidate's model, when its run has several")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    for name in ("gate", "alpha", "gate_categories", "speed_tolerance"):
        SETTINGS[name].add_to(p)
    p.set_defaults(func=_cmd_compare)


def _add_service_commands(sub) -> None:
    """Commands about what this machine reaches: status, models, the gui."""
    p = sub.add_parser("status", help="leases, devices, providers (up or down, key set or not), local models, "
                       "sandbox and case counts")
    SETTINGS["config"].add_to(p)
    p.add_argument("--lease-dir", help="lease directory (default: $CRUCIBLE_LEASE_DIR or the user cache dir)")
    p.add_argument("--timeout", type=float, default=2.0, help="seconds to wait for each provider (default 2)")
    p.set_defaults(func=_cmd_status)

    p = sub.add_parser("models", help="the models each provider serves, and the configured models")
    SETTINGS["config"].add_to(p)
    p.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for each provider (default 5)")
    p.set_defaults(func=_cmd_models)

    p = sub.add_parser("gui", help="a read-only web view of the results: runs, reports, a live view of a run in "
                       "progress, two runs compared (needs the gui extra)")
    p.add_argument("dir", nargs="?", help="results folder, or one run's folder (default: $CRUCIBLE_OUT, else "
                   "crucible-results)")
    for name in ("gui_host", "gui_port", "gui_token"):
        SETTINGS[name].add_to(p)
    p.set_defaults(func=_cmd_gui)


def _add_cases_commands(sub) -> None:
    cases = sub.add_parser("cases", help="list or verify benchmark cases")
    csub = cases.add_subparsers(dest="cases_command", required=True)
    p = csub.add_parser("list", help="list cases (default: the built-in suite), counts per category and "
                        "difficulty, distinct templates, and what each profile selects")
    p.add_argument("paths", nargs="*")
    p.add_argument("--where", action="store_true", help="also print each case's file:line")
    for name in ("categories", "seed", "profile", "config"):
        SETTINGS[name].add_to(p)
    p.set_defaults(func=_cmd_cases_list)
    p = csub.add_parser("verify", help="check every case: reference solutions run, answers re-derived, "
                        "haystacks rebuilt")
    p.add_argument("paths", nargs="*")
    for name in ("categories", "seed", "import", "allow_unsandboxed", "judge", "config"):
        SETTINGS[name].add_to(p)
    p.add_argument("-v", "--verbose", action="store_true", help="print progress lines")
    p.set_defaults(func=_cmd_cases_verify)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except CrucibleError as exc:
        print(f"crucible: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `crucible cases list | head`: the reader has gone, which is no error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes
        return 0


if __name__ == "__main__":
    sys.exit(main())
