"""The `crucible` command: everything that is not a benchmark run (runs go through pytest)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from .errors import CrucibleError


def _cmd_init(args) -> int:
    from .config import INIT_TEMPLATE
    path = Path(args.path)
    if path.exists() and not args.force:
        print(f"{path} exists; pass --force to overwrite it", file=sys.stderr)
        return 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(INIT_TEMPLATE, encoding="utf-8")
    print(f"wrote {path}; edit it, then run: pytest --models my-model")
    return 0


def _cmd_report(args) -> int:
    from .report import render_markdown, write_reports
    from .store import read_rows
    run_dir = Path(args.run_dir)
    if not (run_dir / "rows.jsonl").is_file():
        print(f"{run_dir}: no rows.jsonl here; give a run folder such as crucible-results/latest",
              file=sys.stderr)
        return 1
    old = run_dir / "report.json"
    meta = json.loads(old.read_text()).get("meta", {}) if old.is_file() else {"run_id": run_dir.resolve().name}
    report = write_reports(run_dir, read_rows(run_dir), meta)
    print(render_markdown(report))
    return 0


def _load(args):
    from .case import load_cases
    paths = [Path(p) for p in args.paths] or None
    cases = load_cases(paths)
    if getattr(args, "categories", None):
        wanted = set(args.categories.split(","))
        cases = [c for c in cases if c.category in wanted]
    return cases


def _cmd_cases_list(args) -> int:
    cases = _load(args)
    for case in cases:
        print(f"{case.id:<32} {case.category:<9} {case.difficulty:<6} {case.grader['type']:<10} "
              f"{case.file}:{case.line}")
    counts = Counter(c.category for c in cases)
    hard = sum(c.hard for c in cases)
    print(f"{len(cases)} cases ({hard} hard): " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0


def _cmd_cases_verify(args) -> int:
    from . import verify
    paths = [Path(p) for p in args.paths] or None

    def progress(done, total, case_id):
        if sys.stderr.isatty() or args.verbose:
            print(f"\r[{done}/{total}] {case_id:<40}", end="" if sys.stderr.isatty() else "\n",
                  file=sys.stderr, flush=True)

    report = verify.verify_paths(paths, categories=args.categories.split(",") if args.categories else None,
                                 imports=args.imports or [], progress=progress,
                                 allow_unsandboxed=args.allow_unsandboxed)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    for problem in report.problems:
        print(f"{problem.file}:{problem.line}: {problem.case_id}: {problem.message}")
    print(report.summary())
    return 1 if report.problems else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="crucible", description="pytest-crucible: everything but the run "
                                     "itself (runs: pytest --models NAME)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("init", help="write a commented models.yaml")
    p.add_argument("path", nargs="?", default="models.yaml")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.set_defaults(func=_cmd_init)

    p = sub.add_parser("report", help="rebuild report.json and report.md from a run's rows.jsonl")
    p.add_argument("run_dir", nargs="?", default="crucible-results/latest")
    p.set_defaults(func=_cmd_report)

    cases = sub.add_parser("cases", help="list or verify benchmark cases")
    csub = cases.add_subparsers(dest="cases_command", required=True)
    p = csub.add_parser("list", help="list cases (default: the built-in suite)")
    p.add_argument("paths", nargs="*")
    p.add_argument("--categories", help="comma-separated categories")
    p.set_defaults(func=_cmd_cases_list)
    p = csub.add_parser("verify", help="check every case: reference solutions run, answers re-derived, "
                        "haystacks rebuilt")
    p.add_argument("paths", nargs="*")
    p.add_argument("--categories", help="comma-separated categories")
    p.add_argument("--import", dest="imports", action="append", metavar="NAME",
                   help="also verify an imported public benchmark (e.g. humaneval)")
    p.add_argument("--allow-unsandboxed", action="store_true",
                   help="run reference code without bubblewrap (not isolated)")
    p.add_argument("-v", "--verbose", action="store_true", help="print progress lines")
    p.set_defaults(func=_cmd_cases_verify)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except CrucibleError as exc:
        print(f"crucible: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
