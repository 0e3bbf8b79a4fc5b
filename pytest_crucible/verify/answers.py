"""Answers re-derived: a case's verify.solver runs in the sandbox, and a long-context case's prompt is
rebuilt from its verify.haystack parameters; the case's grader compares what they derive with its spec
(Grader.read_solver_output, Grader.compare_answer)."""

from __future__ import annotations

import json
from typing import Any

from pytest_crucible.grading.base import AnswerError
from pytest_crucible.suite import haystack
from pytest_crucible.verify.case_run import CaseRun

SOLVER_TIMEOUT_S = 60.0


def run_solver(run: CaseRun, box) -> None:
    """The sandbox job of a verify.solver: it must print one answer, the one the grader expects."""
    result = box.run_python(run.verify["solver"], timeout_s=SOLVER_TIMEOUT_S)
    if getattr(result, "timed_out", False):
        run.problem(f"verify.solver did not finish within {SOLVER_TIMEOUT_S:g} s")
        return
    if result.returncode != 0:
        tail = (result.stderr or "").strip().splitlines()[-1:] or [f"exit status {result.returncode}"]
        run.problem(f"verify.solver failed: {tail[0][:200]}")
        return
    lines = [ln.strip() for ln in (result.stdout or "").splitlines() if ln.strip()]
    problem = _solver_problem(run, lines)
    run.count("answers_derived")
    if problem:
        run.problem(problem)


def _solver_problem(run: CaseRun, lines: list[str]) -> str | None:
    if not lines:
        return "verify.solver printed nothing; it must print the answer"
    spec = run.case.grader
    try:
        derived = run.grader.read_solver_output(spec, lines)
    except AnswerError as exc:
        return f"verify.solver {exc}"
    mismatch = run.grader.compare_answer(spec, derived)
    return f"verify.solver derives {lines[0][:80]}, but {mismatch}" if mismatch else None


def check_haystack(run: CaseRun) -> None:
    params = run.verify.get("haystack")
    if params is None:
        return
    if not isinstance(params, dict):
        run.problem("verify.haystack must be the generator parameters {seed, target_tokens, needles, ...}")
        return
    users = [m for m in run.case.messages if m.get("role") == "user"]
    prompt = users[-1].get("content") if users else None
    if not isinstance(prompt, str):
        run.problem("verify.haystack: the case has no user prompt to compare with")
        return
    run.count("haystacks_rebuilt")
    problems = haystack.check_haystack(params, prompt)
    for message in problems:
        run.problem(f"verify.haystack: {message}")
    if problems:
        return
    try:
        derived = haystack.expected_answer(params, prompt)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        run.problem(f"verify.haystack: {exc}")
        return
    mismatch = run.grader.compare_answer(run.case.grader, derived)
    if mismatch:
        run.problem(f"verify.haystack: the haystack supports {_short_value(derived)}, but {mismatch}")


def _short_value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)


__all__ = ["SOLVER_TIMEOUT_S", "check_haystack", "run_solver"]
