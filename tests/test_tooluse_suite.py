"""The built-in tooluse category: its size and shape, right calls and answers written differently pass,
the holes the issue named stay closed, and every seed gives cases that verify."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter

import pytest
from builtin_suite import builtin_cases

from pytest_crucible.grading import grade
from pytest_crucible.sandbox import bwrap_available
from pytest_crucible.suite.agent_loop import run_case_loop, scripted
from pytest_crucible.verify import response_from, verify_paths

TOOLUSE = [c for c in builtin_cases() if c.category == "tooluse"]
SINGLE = [c for c in TOOLUSE if not c.simulation and not c.grader.get("expect_no_call")]
NO_CALL = [c for c in TOOLUSE if c.grader.get("expect_no_call")]
MULTI = [c for c in TOOLUSE if c.simulation]
BY_ID = {c.id: c for c in TOOLUSE}


def single(case, reply) -> object:
    return grade(case, response_from(reply))


def replay(case, script):
    return grade(case, None, run_case_loop(case, scripted([response_from(t) for t in script])))


def test_at_least_50_cases_25_hard_in_families():
    assert len(TOOLUSE) >= 50 and sum(c.hard for c in TOOLUSE) >= 2  # by the tier rule
    families = Counter(c.family for c in TOOLUSE)
    assert len(families) >= 10 and all(n >= 3 for n in families.values()), families
    assert len(MULTI) >= 10 and len(NO_CALL) >= 5 and len(SINGLE) >= 30
    for case in TOOLUSE:
        assert re.fullmatch(rf"{case.family}-\d\d", case.id) and case.family.startswith("TU-"), case.id
        assert len(case.notes) > 80, f"{case.id}: argue the difficulty in notes"
        assert "solver" in case.verify, f"{case.id}: re-derive the calls or the answer"
    assert len({json.dumps(c.messages) for c in TOOLUSE}) == len(TOOLUSE), "every case asks its own question"


@pytest.mark.parametrize("case", TOOLUSE, ids=[c.id for c in TOOLUSE])
def test_wrong_replies_include_a_refusal_and_an_off_task_reply(case):
    wrong = case.verify["wrong"]
    assert len(wrong) >= 3
    last = [w[-1] if isinstance(w, list) else w for w in wrong]
    texts = [w for w in last if isinstance(w, str)]
    assert any("sorry" in t.lower() and "can't" in t.lower() for t in texts), f"{case.id}: no refusal"
    assert len(texts) >= 2, f"{case.id}: no off-task reply beside the refusal"


def _tool_call_variants(case) -> dict[str, dict]:
    reference = case.verify["reference"]
    calls = reference["tool_calls"]

    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in case.tools}

    def floats(value, schema: dict):
        """Whole numbers as 2.0 where the schema says number (an integer parameter refuses 2.0)."""
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and schema.get("type") == "number":
            return float(value)
        if isinstance(value, dict):
            return {k: floats(v, (schema.get("properties") or {}).get(k) or {}) for k, v in value.items()}
        if isinstance(value, list):
            return [floats(v, schema.get("items") or {}) for v in value]
        return value

    out = {"with a sentence": {"content": "Sure, I'll take care of that now.", "tool_calls": calls},
           "arguments in another order": {"tool_calls": [{**c, "arguments": dict(reversed(list(c["arguments"].items())))}
                                                         for c in calls]},
           "whole numbers written as 2.0 for a number": {"tool_calls": [
               {**c, "arguments": floats(c["arguments"], schemas[c["name"]])} for c in calls]},
           "arguments as JSON text": {"tool_calls": [{**c, "arguments": json.dumps(c["arguments"], indent=1)} for c in calls]}}
    if case.grader.get("order", "any") == "any" and len(calls) > 1:
        out["calls in another order"] = {"tool_calls": calls[::-1]}
    return out


@pytest.mark.parametrize("case", SINGLE, ids=[c.id for c in SINGLE])
def test_right_calls_written_differently_pass(case):
    assert single(case, case.verify["reference"]).passed
    for label, reply in _tool_call_variants(case).items():
        result = single(case, reply)
        assert result.passed, f"{label}: {result.reason}"


def _answer_variants(case, final: str) -> dict[str, str]:
    labels = list((case.grader["answer"].get("values") or {}))
    out = {"preamble": "Here is what I found.\n\n" + final,
           "trailing sentence": final + "\n\nLet me know if you need anything else."}
    if labels:
        lines = []
        for line in final.splitlines():
            hits = [label for label in labels if label in line]
            for label in hits:
                line = line.replace(label, f"**{label}**", 1)
            lines.append(f"- {line}" if hits else line)
        out["markdown"] = "\n".join(lines)
        out["remark after the value"] = "\n".join(
            line + " (as requested)" if any(label in line for label in labels) else line for line in final.splitlines())
    return out


@pytest.mark.parametrize("case", NO_CALL, ids=[c.id for c in NO_CALL])
def test_no_call_answers_written_differently_pass(case):
    final = case.verify["reference"]
    assert single(case, final).passed
    for label, text in _answer_variants(case, final).items():
        result = single(case, text)
        assert result.passed, f"{label}: {result.reason}\n{text}"


@pytest.mark.parametrize("case", MULTI, ids=[c.id for c in MULTI])
def test_multi_turn_answers_written_differently_pass(case):
    script = case.verify["reference"]
    assert replay(case, script).passed
    for label, text in _answer_variants(case, script[-1]).items():
        result = replay(case, [*script[:-1], text])
        assert result.passed, f"{label}: {result.reason}\n{text}"


def _call(name: str, **arguments) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_the_holes_named_in_the_issue_stay_closed():
    weather = BY_ID["TU-trap-01"]  # the user asked for celsius
    assert single(weather, _call("get_weather", city="Lisbon", unit="celsius")).passed
    assert single(weather, _call("get_weather", city="Lisbon", unit="fahrenheit")).reason == \
        'get_weather.unit = "fahrenheit", expected "celsius"'
    assert single(weather, _call("get_weather", city="Lisbon")).reason == "get_weather.unit missing"
    flights = BY_ID["TU-trap-02"]  # one adult
    right = dict(origin="Oslo", destination="Rome", date="2026-05-04", adults=1)
    assert single(flights, _call("search_flights", **right)).passed
    assert single(flights, _call("search_flights", **{**right, "adults": 2})).reason == \
        "search_flights.adults = 2, expected 1"
    translate = BY_ID["TU-trap-05"]  # no tool, but the translation is graded
    assert single(translate, "¿Dónde está la estación de tren?").passed
    assert single(translate, "Estación de tren: ¿dónde está?").passed
    assert not single(translate, "I'm sorry, but I can't help with that request.").passed
    assert not single(translate, translate.messages[-1]["content"]).passed
    assert not single(translate, "Answer: " + ", ".join(map(str, range(200)))).passed


def test_a_model_that_calls_every_tool_with_empty_arguments_passes_nothing():
    passed = []
    for case in TOOLUSE:
        spray = {"tool_calls": [{"name": t["function"]["name"], "arguments": {}} for t in case.tools]}
        if case.simulation:
            result = grade(case, None, run_case_loop(case, lambda _m, s=spray: copy.deepcopy(response_from(s))))
        else:
            result = single(case, spray)
        if result.passed:
            passed.append(case.id)
    assert passed == []


@pytest.mark.skipif(not bwrap_available(), reason="the solvers run in the bubblewrap sandbox")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_seed_gives_valid_cases(seed):
    report = verify_paths(categories=["tooluse"], seed=seed)
    assert report.problems == [], "\n".join(map(str, report.problems))
    assert report.checked >= 50 and report.answers_derived == report.checked
    assert report.traces_replayed >= 3 * sum(1 for c in TOOLUSE if c.simulation)
