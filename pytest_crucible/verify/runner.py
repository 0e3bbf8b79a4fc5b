"""The order of the checks, for every case at once: static checks, regexes, replies, then the sandbox
jobs (in parallel on a few threads), then a judge's verdicts."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from concurrent.futures import Executor, ThreadPoolExecutor, as_completed
from functools import partial
from pathlib import Path

import pytest_crucible.sandbox as sandbox_module
from pytest_crucible.common.errors import CaseError, CrucibleError
from pytest_crucible.grading.base import VerifyJob
from pytest_crucible.grading.judge_model import JudgeError
from pytest_crucible.suite.case import Case, builtin_cases_dir, iter_case_files, load_case_file
from pytest_crucible.suite.importers import load_import
from pytest_crucible.suite.python_case_files import TreeStamp
from pytest_crucible.verify.answers import check_haystack, run_solver
from pytest_crucible.verify.case_run import CaseRun
from pytest_crucible.verify.regexes import probe_regex
from pytest_crucible.verify.report import ACCEPTED_SHARE, CaseProblem, Progress, VerifyReport
from pytest_crucible.verify.static import check_static
from pytest_crucible.verify.tiers import check_tier

MAX_WORKERS = 4


def verify_paths(paths: Iterable[Path] | None = None, *, categories: Iterable[str] | None = None,
                 imports: Iterable[str] = (), progress: Progress | None = None, sandbox=None,
                 allow_unsandboxed: bool = False, seed: int | None = None, judge=None) -> VerifyReport:
    """Load every case file under `paths` (default: the built-in suite) and verify the cases.

    A file that fails to load is reported (file, line, case, field) and counts as one checked case
    with a problem; the other files are still verified."""
    wanted = set(categories) if categories else None
    cases, load_problems = _load(paths, imports, seed)
    cases = [c for c in cases if wanted is None or c.category in wanted]
    report = verify_cases(cases, sandbox=sandbox, progress=progress, allow_unsandboxed=allow_unsandboxed,
                          judge=judge)
    report.problems[:0] = load_problems
    report.checked += len({(p.file, p.case_id) for p in load_problems})
    return report


def _load(paths: Iterable[Path] | None, imports: Iterable[str], seed: int | None
          ) -> tuple[list[Case], list[CaseProblem]]:
    problems: list[CaseProblem] = []
    cases: list[Case] = []
    paths = [Path(p) for p in paths] if paths else [builtin_cases_dir()]
    problems += [CaseProblem("", str(p), 0, "no such file or directory") for p in paths if not p.exists()]
    stamp = TreeStamp()
    for path in iter_case_files([p for p in paths if p.exists()]):
        try:
            cases.extend(load_case_file(path, seed, stamp))
        except CaseError as exc:
            where = f"field '{exc.field}': " if exc.field else ""
            problems.append(CaseProblem(exc.case_id or "", exc.file or str(path), exc.line or 0,
                                        f"does not load: {where}{exc.message}"))
    for name in imports:
        try:
            cases.extend(load_import(name))
        except CaseError as exc:
            problems.append(CaseProblem(exc.case_id or "", exc.file or f"import {name}", exc.line or 0,
                                        f"import {name}: {exc.message}"))
        except CrucibleError as exc:
            problems.append(CaseProblem("", f"import {name}", 0, str(exc)))
    return cases, problems


def verify_cases(cases: list[Case], *, sandbox=None, progress: Progress | None = None,
                 allow_unsandboxed: bool = False, judge=None) -> VerifyReport:
    """Verify already-loaded cases. `sandbox`: a Sandbox to run solvers and solutions in (default:
    a new bubblewrap sandbox; unsandboxed only with allow_unsandboxed=True). `judge`: a judge.Judge that
    must pass each judged case's reference and fail its near misses (without one, their shape is checked)."""
    started = time.monotonic()
    report = VerifyReport(checked=len(cases))
    runs = [CaseRun(case) for case in cases]
    _flag_duplicates(runs)
    for run in runs:
        check_static(run)
        check_tier(run)
        run.jobs = _sandbox_jobs(run)
    box, note = (sandbox, None) if sandbox is not None else (
        _make_sandbox(allow_unsandboxed) if any(run.jobs for run in runs) else (None, None))
    report.sandbox_note = note
    workers = max(2, min(MAX_WORKERS, os.cpu_count() or 2))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="crucible-verify") as pool:
        # regexes first: nothing greps a reply with a pattern that may never finish
        _probe_patterns(pool, runs)
        for run in runs:  # pure and fast
            if run.spec_ok and run.regex_ok:
                run.grader.verify_replies(run.case, run)
            check_haystack(run)
        _run_sandbox_jobs(pool, runs, box, note, progress)
    if judge is not None:
        _judge_replies(runs, judge, report)
    _collect(runs, report)
    report.elapsed_s = time.monotonic() - started
    return report


def _flag_duplicates(runs: list[CaseRun]) -> None:
    seen: dict[str, Case] = {}
    for run in runs:
        first = seen.setdefault(run.case.id, run.case)
        if first is not run.case:
            run.problem(f"duplicate id (first defined at {first.file}:{first.line})")


def _sandbox_jobs(run: CaseRun) -> list[VerifyJob]:
    if not run.spec_ok:
        return []
    jobs = list(run.grader.sandbox_jobs(run.case, run))
    if isinstance(run.verify.get("solver"), str):
        jobs.append(VerifyJob("verify.solver", partial(run_solver, run), phase=0))
    return jobs


def _make_sandbox(allow_unsandboxed: bool):
    """(sandbox, None) or (None, why there is none)."""
    if not sandbox_module.bwrap_available() and not allow_unsandboxed:
        return None, "bubblewrap (bwrap) is not installed; install it, or pass --allow-unsandboxed"
    try:
        box = sandbox_module.Sandbox(allow_unsandboxed=allow_unsandboxed)
        canary = getattr(box, "canary", None)
        if canary is not None:
            canary()  # a known-good program first: a broken sandbox is not a broken case
        return box, None
    except Exception as exc:
        return None, f"the sandbox cannot start: {type(exc).__name__}: {exc}"


def _probe_patterns(pool: Executor, runs: list[CaseRun]) -> None:
    probes = [(run, probe) for run in runs if run.spec_ok for probe in run.grader.patterns(run.case.grader)]
    futures = {pool.submit(probe_regex, probe): (run, probe.label) for run, probe in probes}
    for future in as_completed(futures):
        run, label = futures[future]
        message = future.result()
        if message:
            run.regex_ok = False
            run.problem(f"{label}: {message}")


def _run_sandbox_jobs(pool: Executor, runs: list[CaseRun], box, note: str | None,
                      progress: Progress | None) -> None:
    """Phase 0 runs programs that must succeed (solvers, reference solutions: the code grader calibrates
    time limits on these, so they run before anything that burns CPU on purpose); phase 1 runs what may
    run until its time limit (wrong code replies)."""
    phases: dict[int, list[tuple[CaseRun, VerifyJob]]] = {}
    for run in runs:
        if run.jobs and box is None:
            run.problem(f"not verified: {', '.join(job.name for job in run.jobs)} need the sandbox, "
                        f"which is not available ({note})")
            continue
        for job in run.jobs:
            phases.setdefault(job.phase, []).append((run, job))
            run.outstanding += 1
    done = _Done(len(runs), progress)
    for run in runs:
        if run.outstanding == 0:
            done.one(run)
    for phase in sorted(phases):
        pending = {pool.submit(job.run, box): run for run, job in phases[phase]}
        for future in as_completed(pending):
            run = pending[future]
            try:
                future.result()
            except Exception as exc:  # an infrastructure failure is a problem, never a pass
                run.problem(f"sandbox failed: {type(exc).__name__}: {exc}")
            run.outstanding -= 1
            if run.outstanding == 0:
                done.one(run)


class _Done:
    def __init__(self, total: int, progress: Progress | None):
        self.total, self.progress, self.count = total, progress, 0

    def one(self, run: CaseRun) -> None:
        self.count += 1
        if self.progress is not None:
            self.progress(self.count, self.total, run.case.id)


def _judge_replies(runs: list[CaseRun], judge, report: VerifyReport) -> None:
    """A judge's verdicts on the replies graders leave to one (Grader.judged_replies): a reply that must pass
    must be passed, one that must fail failed. A judge that fails its canary judges nothing; one problem says so."""
    judged = [(run, replies) for run in runs if run.spec_ok for replies in [run.grader.judged_replies(run.case)]
              if replies]
    if not judged:
        return
    try:
        judge.ensure_canary()
    except JudgeError as exc:
        report.problems.append(CaseProblem("", f"judge {judge.name}", 0, str(exc)))
        return
    for run, replies in judged:
        for label, answer, must_pass in replies:
            try:
                verdict = judge.grade(run.case, answer)
            except JudgeError as exc:
                run.problem(f"{label}: {exc}")
                continue
            run.count("judged")
            if verdict.passed != must_pass:
                run.problem(f"judge {judge.name} {'failed' if must_pass else 'passed'} {label}: "
                            f"{verdict.reasons or 'no reasons'}")


def _collect(runs: list[CaseRun], report: VerifyReport) -> None:
    for run in runs:
        report.problems.extend(run.problems)
        report.rejected.extend(run.rejected)
        for counter, n in run.counts.items():
            setattr(report, counter, getattr(report, counter) + n)
    if report.accepted_graded:
        share = 1 - len(report.rejected) / report.accepted_graded
        if share < ACCEPTED_SHARE:
            first = report.rejected[0]
            report.problems.append(CaseProblem("", "verify.accepted", 0,
                                               f"{len(report.rejected)} of {report.accepted_graded} possible "
                                               f"answers rejected ({100 * (1 - share):.2f}%; at most "
                                               f"{100 * (1 - ACCEPTED_SHARE):g}% may be), e.g. {first}"))


__all__ = ["MAX_WORKERS", "verify_cases", "verify_paths"]
