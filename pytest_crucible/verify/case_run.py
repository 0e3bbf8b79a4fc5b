"""One case's verification state, which is the VerifyContext its grader's hooks report through, and the
reply check every grader gets by default: verify.reference must pass grade(), verify.wrong must fail it,
verify.accepted is graded together, and a multi-turn case's scripts are replayed against its simulation."""

from __future__ import annotations

import json
import threading
from collections import Counter
from typing import Any

from pytest_crucible.client.response import Response, ToolCall
from pytest_crucible.common.errors import CaseError
from pytest_crucible.grading import get_grader, grade
from pytest_crucible.grading.base import BaseGrader, Grade, Grader, VerifyJob, as_list
from pytest_crucible.suite.agent_loop import ScriptExhausted, run_case_loop, scripted
from pytest_crucible.suite.case import Case
from pytest_crucible.verify.report import COUNTERS, CaseProblem


class _UnloadedGrader(BaseGrader):
    """Stands in for a grader type that does not load (the spec check reports that): the verification
    data is still checked against the defaults."""

    def check(self, spec: dict) -> list[tuple[str | None, str]]:
        return []

    def grade(self, case: Any, reply: Any, *args: Any, **kwargs: Any) -> Grade:
        raise NotImplementedError(f"grader type {case.grader.get('type')!r} does not load")


def grader_of(case: Case) -> Grader:
    try:
        return get_grader(case.grader["type"])
    except Exception:  # unknown, or an entry point that does not load: the spec check says which
        return _UnloadedGrader()


class CaseRun:
    """Problems and counts are added from worker threads (sandbox jobs); each case keeps its own."""

    def __init__(self, case: Case):
        self.case = case
        self.grader = grader_of(case)
        self.problems: list[CaseProblem] = []
        self.rejected: list[CaseProblem] = []  # verify.accepted replies the grader refused
        self.counts: Counter[str] = Counter()
        self.jobs: list[VerifyJob] = []
        self.spec_ok = True
        self.regex_ok = True
        self.outstanding = 0  # sandbox jobs not yet finished
        self._lock = threading.Lock()

    @property
    def verify(self) -> dict:
        return self.case.verify if isinstance(self.case.verify, dict) else {}

    def problem(self, message: str) -> None:
        self.problems.append(CaseProblem(self.case.id, self.case.file, self.case.line, message))

    def count(self, counter: str, n: int = 1) -> None:
        if counter not in COUNTERS:
            raise ValueError(f"no verify counter {counter!r}; counters: {', '.join(COUNTERS)}")
        with self._lock:
            self.counts[counter] += n

    # ------------------------------------------------------------------------------ the default reply check

    def grade_replies(self) -> None:
        case, v = self.case, self.verify
        entries = [("verify.reference", v["reference"], True)] if "reference" in v else []
        entries += [(f"verify.wrong[{i}]", w, False) for i, w in enumerate(as_list(v.get("wrong")))]
        if isinstance(v.get("accepted"), list) and not case.simulation:
            self._grade_accepted(v["accepted"])
        for label, reply, should_pass in entries:
            if case.simulation:
                self._replay_script(label, reply, should_pass)
                continue
            try:
                result = grade(case, response_from(reply))
            except ValueError as exc:
                self.problem(f"{label}: {exc}")
                continue
            except Exception as exc:
                self.problem(f"{label}: the grader raised {type(exc).__name__}: {exc}")
                continue
            self.count("references_graded")
            self._expect(label, result, should_pass, reply)

    def _expect(self, label: str, result: Grade, should_pass: bool, reply: Any) -> None:
        if should_pass and not result.passed:
            self.problem(f"{label} fails its own grader: {result.reason}")
        elif not should_pass and result.passed:
            self.problem(f"{label} passes the grader but must fail: {short(reply)}")

    def _grade_accepted(self, replies: list) -> None:
        """Grade each accepted reply; a refused one is listed in `rejected`, not a problem of the case."""
        for i, reply in enumerate(replies):
            label = f"verify.accepted[{i}]"
            try:
                result = grade(self.case, response_from(reply))
            except (ValueError, CaseError) as exc:
                self.problem(f"{label}: {exc}")
                continue
            self.count("accepted_graded")
            if not result.passed:
                self.rejected.append(CaseProblem(self.case.id, self.case.file, self.case.line,
                                                 f"{label} {short(reply)}: {result.reason}"))

    def _replay_script(self, label: str, script: Any, should_pass: bool) -> None:
        """Replay a script of assistant turns against the case's simulation and grade the trace."""
        case = self.case
        try:
            turns = [response_from(t) for t in (script if isinstance(script, list) else [script])]
        except ValueError as exc:
            self.problem(f"{label}: {exc}")
            return
        try:
            trace = run_case_loop(case, scripted(turns))
        except ScriptExhausted as exc:
            self.problem(f"{label}: {exc}; end the script with a turn that calls no tool")
            return
        except CaseError as exc:
            self.problem(f"{label}: {exc.message}")
            return
        if len(trace.turns) < len(turns):
            self.problem(f"{label}: the loop stopped after turn {len(trace.turns)} ({trace.stop}), the script "
                         f"has {len(turns)} turns")
            return
        if should_pass and "tools" in case.simulation:
            unanswered = [r for r in trace.results if r.rule is None]
            if unanswered:
                r = unanswered[0]
                self.problem(f"{label}: {r.name}({r.arguments}) fits no rule of the simulation: {r.content}")
        try:
            result = grade(case, None, trace)
        except Exception as exc:
            self.problem(f"{label}: the grader raised {type(exc).__name__}: {exc}")
            return
        self.count("references_graded")
        self.count("traces_replayed")
        self._expect(label, result, should_pass, script)


def response_from(reply: Any) -> Response:
    """A Response from a verify.reference / verify.wrong entry: a string (the answer text) or a
    mapping {content, reasoning, tool_calls: [{name, arguments}]} with arguments as a mapping or
    JSON text."""
    if isinstance(reply, str):
        return Response(content=reply, finish_reason="stop")
    if not isinstance(reply, dict) or not set(reply) <= {"content", "reasoning", "tool_calls"}:
        raise ValueError("a reply is a string or a mapping with content, reasoning and tool_calls")
    calls = []
    for call in reply.get("tool_calls") or []:
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise ValueError("each tool call is {name, arguments}")
        args = call.get("arguments", {})
        calls.append(ToolCall(call["name"], args if isinstance(args, str) else json.dumps(args)))
    return Response(content=reply.get("content") or "", reasoning=reply.get("reasoning") or "",
                    tool_calls=calls, finish_reason="tool_calls" if calls else "stop")


def short(reply: Any) -> str:
    text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."


__all__ = ["CaseRun", "grader_of", "response_from", "short"]
