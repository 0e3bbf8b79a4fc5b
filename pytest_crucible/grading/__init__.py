"""The graders. One module per grader kind; each exposes

    check(spec: dict) -> list[tuple[str | None, str]]   # (field, message) problems in the case's grader spec
    grade(case: Case, response: Response) -> Grade       # pure; spec is case.grader

A grader of multi-turn runs sets GRADES_TRACE = True and takes the agent_loop.Trace instead of one
response. A grader that runs code sets `USES_SANDBOX = True` and takes `sandbox=` (the run's, or None for
the process default). A grader that asks a judge model sets `NEEDS_JUDGE = True` and takes `judge=` (the
run's judge.Judge, or None); it shows no truncated reply to the judge. `grade()` below is the single
entry point: it refuses to grade a truncated reply as complete.

Other packages add grader types through the entry point group `pytest_crucible.graders` (the entry
point's name is the type a case writes in `grader.type`; its value a module or object with `check` and
`grade` as above); the registry is in pytest_crucible/suite/grader_types.py, where loading a case checks its
grader spec.
"""

from __future__ import annotations

from pytest_crucible.grading.base import Grade
from pytest_crucible.suite.grader_types import ENTRY_POINT_GROUP, GRADERS, check_spec, grader_module, known_types


def uses_sandbox(spec: dict) -> bool:
    """Whether this grader runs code (its module sets USES_SANDBOX): it is handed the run's sandbox."""
    return bool(getattr(grader_module(spec["type"]), "USES_SANDBOX", False))


def needs_judge(spec: dict) -> bool:
    """Whether this grader asks a judge model (its module sets NEEDS_JUDGE)."""
    return bool(getattr(grader_module(spec["type"]), "NEEDS_JUDGE", False))


def grade(case, response, trace=None, *, sandbox=None, judge=None) -> Grade:
    """Grade one reply; for a case graded on a multi-turn run, its trace (`response` is then the final
    turn's, or None for trace.final)."""
    module = grader_module(case.grader["type"])
    if getattr(module, "NEEDS_JUDGE", False):
        result = module.grade(case, response, judge=judge)
    elif getattr(module, "GRADES_TRACE", False):
        if trace is None:
            raise ValueError(f"case {case.id}: the {case.grader['type']} grader needs the run's trace")
        response = response if response is not None else trace.final
        result = module.grade(case, trace)
    elif getattr(module, "USES_SANDBOX", False):
        result = module.grade(case, response, sandbox=sandbox)
    else:
        result = module.grade(case, response)
    if response.truncated:
        reason = _truncation(response, case)
        if not result.passed and result.reason and response.cut_off != "reasoning":  # no answer came to judge
            reason += f"; {result.reason}"
        return Grade(passed=False, reason=reason, answer=result.answer, details=result.details)
    return result


def _truncation(response, case) -> str:
    usage = response.usage
    limit = response.max_tokens or case.max_tokens
    used = usage.completion_tokens
    early = used is not None and not usage.estimated and used < limit
    if response.cut_off == "reasoning":
        # every token it wrote was reasoning: the count is the completion's when the server gives no split
        thought = usage.reasoning_tokens if usage.reasoning_tokens else used
        if early:
            return (f"TRUNCATED in reasoning after {thought} tokens (budget {limit}): the server stopped early "
                    "(its context window filled, or its own output limit)")
        return f"TRUNCATED in reasoning after {thought if thought is not None else limit} tokens (budget {limit})"
    thought = f" ({usage.reasoning_tokens} reasoning)" if usage.reasoning_tokens else ""
    if early:
        # raising max_tokens would not help here: say so, or the case's author chases the wrong limit
        return (f"TRUNCATED after {used} of max_tokens {limit}{thought}: the server stopped early (its context "
                "window filled, or its own output limit)")
    return f"TRUNCATED at {limit} tokens{thought}"


__all__ = ["ENTRY_POINT_GROUP", "GRADERS", "Grade", "check_spec", "grade", "grader_module", "known_types",
           "needs_judge", "uses_sandbox"]
