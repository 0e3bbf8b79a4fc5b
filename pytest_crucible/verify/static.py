"""The checks that need nothing but the case: its grader spec, the tools it names, its verification data.
What a grader demands beyond the common rules it says itself (grading.base.Grader's hooks)."""

from __future__ import annotations

from pytest_crucible.grading import check_spec, get_grader, known_types
from pytest_crucible.grading.base import as_list
from pytest_crucible.suite.speed_plan import check_plan
from pytest_crucible.verify.case_run import CaseRun

VERIFY_KEYS = ("solver", "solution", "reference", "wrong", "accepted", "haystack", "notes")


def check_static(run: CaseRun) -> None:
    case = run.case
    if case.speed is not None:
        # a speed case carries a measurement plan, not an answer: its plan is all there is to check
        run.spec_ok = False  # nothing to grade or run
        for fld, message in check_plan(case.speed):
            run.problem(f"speed{'.' + fld if fld else ''}: {message}")
        return
    try:
        spec_problems = check_spec(case.grader)
    except Exception as exc:  # a grader's own check crashed: report it, keep going
        spec_problems = [(None, f"grader check raised {type(exc).__name__}: {exc}")]
    for fld, message in spec_problems:
        run.spec_ok = False
        run.problem(f"grader{'.' + fld if fld else ''}: {message}")
    _check_tools(run)
    _check_verification_data(run)


def _check_tools(run: CaseRun) -> None:
    """Every tool the grader (or a scripted assistant turn) names is defined in the case's tools."""
    case, grader = run.case, run.grader
    defined = {t.get("function", {}).get("name") for t in case.tools if isinstance(t, dict)}
    if grader.needs_tools and not case.tools and not case.grader.get("expect_no_call"):
        run.problem(f"{case.grader.get('type')} grader but the case defines no tools")
    for name in dict.fromkeys(grader.tools_named(case.grader)):
        if name not in defined:
            run.problem(f"grader names tool {name!r}, which is not defined in tools "
                        f"(defined: {', '.join(sorted(n for n in defined if n)) or 'none'})")
    for problem in grader.case_problems(case):
        run.spec_ok = False
        run.problem(problem)
    for msg in case.messages:
        for call in msg.get("tool_calls") or []:
            called = (call.get("function") or {}).get("name") if isinstance(call, dict) else None
            if called not in defined:
                run.problem(f"messages: an assistant turn calls tool {called!r}, which is not defined in tools")


def _check_verification_data(run: CaseRun) -> None:
    case, v, grader = run.case, run.verify, run.grader
    unknown = sorted(set(v) - set(VERIFY_KEYS))
    if unknown:
        run.problem(f"verify.{unknown[0]}: unknown key; allowed: {', '.join(VERIFY_KEYS)}")
    if not any(k in v for k in VERIFY_KEYS if k != "notes"):
        run.problem("no verification data: add verify.solver (a program printing the answer), "
                    "verify.solution (code), verify.reference (a passing reply) or verify.haystack")
        return
    if "wrong" in v and not isinstance(v["wrong"], list):
        run.problem("verify.wrong must be a list of replies that must fail")
    # accepted replies are graded together, without a sandbox
    if "accepted" in v and (not isinstance(v["accepted"], list) or case.simulation or grader.uses_sandbox):
        run.problem("verify.accepted is a list of single replies (not for code or multi-turn cases)")
    for key in ("solver", "solution"):
        if key in v and (not isinstance(v[key], str) or not v[key].strip()):
            run.problem(f"verify.{key} must be Python source text")
    for message in grader.verification_problems(case, v):
        run.problem(message)
    if case.simulation and len(as_list(v.get("wrong"))) < 2:
        run.problem("a multi-turn case needs at least two wrong scripts in verify.wrong (a refusal and an "
                    "off-task run, plus a hedge or an invented report)")
    if "solver" in v and not grader.compares_answers:
        run.problem(f"verify.solver cannot be compared with a {case.grader.get('type')} grader "
                    f"(supported: {', '.join(_comparing_types())})")


def _comparing_types() -> list[str]:
    """The grader types whose answers a solver can be compared with."""
    found = []
    for name in known_types():
        try:
            if get_grader(name).compares_answers:
                found.append(name)
        except Exception:  # an entry point that does not load compares nothing
            continue
    return found


__all__ = ["VERIFY_KEYS", "check_static"]
