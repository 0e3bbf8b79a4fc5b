"""A grading corpus for the tool_calls grader (issue 19): wrong calls written the way models fail must fail,
right calls in the forms models write them (and the forms a case lists) must pass, across every built-in
single-turn tool case. Each reply is derived from the case's own reference, so every seed's numbers work;
the test prints how many of each it graded."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

from pytest_crucible.grading import grade
from pytest_crucible.grading.matchers import is_matcher
from pytest_crucible.suite.case import load_cases
from pytest_crucible.verify import response_from

TOOLUSE = [c for c in load_cases() if c.category == "tooluse" and c.grader["type"] == "tool_calls"]
CALLING = [c for c in TOOLUSE if not c.grader.get("expect_no_call")]
NO_CALL = [c for c in TOOLUSE if c.grader.get("expect_no_call")]
ATTACKER = "archive@mailbox-sync.example"


def _properties(case) -> dict[str, dict]:
    return {t["function"]["name"]: t["function"]["parameters"].get("properties") or {} for t in case.tools}


def _plain_strings(case) -> set[tuple[str, str]]:
    """(tool, argument) pairs whose expected value is a plain string: the user dictated it."""
    return {(c["name"], k) for c in case.grader["calls"] for k, v in (c.get("arguments") or {}).items()
            if isinstance(v, str)}


def _accepted_forms(case) -> Iterator[tuple[str, str, str]]:
    """(tool, argument, form) for every alternative form an expected argument lists."""
    for call in case.grader["calls"]:
        for key, want in (call.get("arguments") or {}).items():
            if is_matcher(want) and "one_of" in want:
                for form in want["one_of"][1:]:
                    if isinstance(form, str):
                        yield call["name"], key, form


def _with(calls: list[dict], i: int, **arguments: Any) -> dict:
    out = [dict(c) for c in calls]
    out[i] = {**out[i], "arguments": {**out[i]["arguments"], **arguments}}
    return {"tool_calls": out}


def _each_argument(calls: list[dict]) -> Iterator[tuple[int, str, Any]]:
    for i, call in enumerate(calls):
        for key, value in call["arguments"].items():
            yield i, key, value


def right_replies(case) -> Iterator[tuple[str, dict]]:
    reference = case.verify["reference"]
    calls = [dict(c) for c in reference["tool_calls"]]
    props = _properties(case)
    yield "a sentence before the calls", {"content": "Sure, I'll do that now.", "tool_calls": calls}
    yield "arguments in another order", {"tool_calls": [{**c, "arguments": dict(reversed(c["arguments"].items()))}
                                                        for c in calls]}
    yield "arguments as indented JSON text", {"tool_calls": [{**c, "arguments": json.dumps(c["arguments"], indent=2)}
                                                             for c in calls]}
    if case.grader.get("order", "any") == "any" and len(calls) > 1:
        yield "calls in another order", {"tool_calls": calls[::-1]}
    free = [(i, k, v) for i, k, v in _each_argument(calls)  # strings the schema does not pin to an enum or pattern
            if isinstance(v, str) and not {"enum", "pattern"} & set(props[calls[i]["name"]].get(k, {}))]
    if free:
        i, key, value = free[0]
        yield "a string in another case", _with(calls, i, **{key: value.swapcase()})
        yield "a string with extra blanks", _with(calls, i, **{key: f"  {value.replace(' ', '  ')} "})
    hyphened = [(i, k, v) for i, k, v in free if "-" in v]
    if hyphened:
        i, key, value = hyphened[0]
        yield "a non-breaking hyphen (U+2011)", _with(calls, i, **{key: value.replace("-", "\u2011")})
        yield "a typographic dash (U+2010)", _with(calls, i, **{key: value.replace("-", "\u2010")})
    numbers = [(i, k, v) for i, k, v in _each_argument(calls)
               if type(v) is int and props[calls[i]["name"]].get(k, {}).get("type") == "number"]
    if numbers:
        i, key, value = numbers[0]
        yield "a whole number as 2.0 for a number", _with(calls, i, **{key: float(value)})
    for name, key, form in _accepted_forms(case):
        i = next((j for j, c in enumerate(calls) if c["name"] == name and key in c["arguments"]), None)
        if i is not None and ":" in form:
            yield "a time with seconds (listed by the case)", _with(calls, i, **{key: form})


def wrong_replies(case) -> Iterator[tuple[str, dict | str]]:
    reference = case.verify["reference"]
    calls = [dict(c) for c in reference["tool_calls"]]
    props = _properties(case)
    yield "an extra argument carrying an attacker's address", _with(calls, 0, cc=ATTACKER)
    yield "dry_run: true", _with(calls, 0, dry_run=True)
    yield "an undeclared confirm: false", _with(calls, len(calls) - 1, confirm=False)
    integers = [(i, k, v) for i, k, v in _each_argument(calls)
                if type(v) is int and props[calls[i]["name"]].get(k, {}).get("type") == "integer"]
    if integers:
        i, key, value = integers[0]
        yield "an integer written as 2.0", _with(calls, i, **{key: float(value)})
        yield "an integer as a string", _with(calls, i, **{key: str(value)})
        if value:
            yield "a number with its sign flipped", _with(calls, i, **{key: -value})
    floats = [(i, k, v) for i, k, v in _each_argument(calls) if type(v) is float and v]
    if floats:
        i, key, value = floats[0]
        yield "a number with its sign flipped", _with(calls, i, **{key: -value})
    for i, key, value in _each_argument(calls):
        if isinstance(value, str) and "@" in value:
            yield "an address without its @", _with(calls, i, **{key: value.replace("@", "")})
            break
    for i, key, value in _each_argument(calls):
        if isinstance(value, str) and len(value) == 10 and value[4] == "-" and value[7] == "-":
            yield "a date written with slashes", _with(calls, i, **{key: value.replace("-", "/")})
            break
    plain = _plain_strings(case)
    titles = [(i, k, v) for i, k, v in _each_argument(calls) if isinstance(v, str) and (calls[i]["name"], k) in plain
              and "enum" not in props[calls[i]["name"]].get(k, {}) and len(v) > 3]
    if titles:
        i, key, value = titles[0]
        yield "a dictated string with more words", _with(calls, i, **{key: f"{value} (draft)"})
        yield "a dictated string cut short", _with(calls, i, **{key: value[:len(value) // 2]})
    yield "the prompt parroted back", str(case.messages[-1]["content"])
    yield "a refusal", "I'm sorry, but I can't help with that request."
    if len(calls) > 1:
        yield "one call left out", {"tool_calls": calls[1:]}
    yield "the first call twice", {"tool_calls": [*calls, calls[0]]}
    forbidden = case.grader.get("forbidden") or []
    if forbidden:
        decoy = next((f for f in forbidden if f in props and set(calls[0]["arguments"]) <= set(props[f])), None)
        if decoy:
            yield "the decoy tool instead", {"tool_calls": [{**calls[0], "name": decoy}, *calls[1:]]}
        yield "a forbidden tool called as well", {"tool_calls": [*calls, {"name": forbidden[0], "arguments": {}}]}


def no_call_replies(case) -> Iterator[tuple[str, str, bool]]:
    reference = case.verify["reference"]
    yield "a preamble", f"Sure, here you go.\n\n{reference}", True
    yield "a sign-off", f"{reference}\n\nAnything else I can help with?", True
    yield "in bold", f"**{reference}**", True
    for i, message in enumerate(case.messages):
        if isinstance(message.get("content"), str) and message["content"].strip():
            yield f"message {i} parroted back", message["content"], False
    yield "the whole conversation parroted back", "\n\n".join(str(m.get("content") or "") for m in case.messages), False
    yield "a refusal", "I'm sorry, but I can't help with that request.", False
    yield "a bare acknowledgement", "Got it, I'll take care of that.", False


def test_the_corpus_right_calls_pass_and_wrong_ones_fail():
    right, wrong, failures = Counter(), Counter(), []
    right_cases, wrong_cases = set(), set()
    for case in CALLING:
        for label, reply in right_replies(case):
            result = grade(case, response_from(reply))
            right[label] += 1
            right_cases.add(case.id)
            if not result.passed:
                failures.append(f"{case.id} right reply failed ({label}): {result.reason}")
        for label, reply in wrong_replies(case):
            result = grade(case, response_from(reply))
            wrong[label] += 1
            wrong_cases.add(case.id)
            if result.passed:
                failures.append(f"{case.id} wrong reply passed ({label}): {json.dumps(reply)[:200]}")
    for case in NO_CALL:
        for label, text, must_pass in no_call_replies(case):
            result = grade(case, response_from(text))
            (right if must_pass else wrong)[f"no call: {label}"] += 1
            (right_cases if must_pass else wrong_cases).add(case.id)
            if result.passed is not must_pass:
                failures.append(f"{case.id} {'right' if must_pass else 'wrong'} reply graded {result.passed} "
                                f"({label}): {result.reason}")
    print(f"\ntool_calls corpus: {sum(wrong.values())} wrong replies over {len(wrong_cases)} cases must fail, "
          f"{sum(right.values())} right replies over {len(right_cases)} cases must pass")
    for title, counts in (("wrong", wrong), ("right", right)):
        print(f"  {title}: " + "; ".join(f"{label} {n}" for label, n in sorted(counts.items())))
    assert failures == [], "\n".join(failures)
    assert sum(wrong.values()) >= 40 and sum(right.values()) >= 40
    assert len(wrong_cases) >= 20 and len(right_cases) >= 20


def test_the_corpus_holds_every_kind_of_failure_the_issue_names():
    labels = {label for case in CALLING for label, _ in wrong_replies(case)}
    assert {"an extra argument carrying an attacker's address", "dry_run: true", "an integer written as 2.0",
            "a number with its sign flipped", "a dictated string with more words", "the prompt parroted back",
            "an address without its @"} <= labels
