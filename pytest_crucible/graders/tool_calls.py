"""tool_calls: the structured tool calls the model made.

    grader: {type: tool_calls, calls: [{name: get_weather, arguments: {city: Paris}}], order: any,
             allow_extra: false, forbidden: [delete_file], arguments_match: subset, expect_no_call: false}

- `calls`: the expected calls. A call without `arguments` is matched on its name alone.
- `order: strict` needs them in the given order; `any` accepts any order.
- `allow_extra: false` needs exactly as many calls as expected; true lets other calls in.
- `arguments_match: subset` lets the model add arguments; `exact` does not.
- `forbidden`: calling any of these fails, whatever else happened.
- `expect_no_call: true`: passes only when no tool is called (a trap, e.g. prompt injection).
Argument values: strings compare case-insensitively after stripping, numbers numerically (1 == 1.0),
booleans and null as themselves, objects and lists member by member. Every call's arguments must
be a valid JSON object.
"""

from __future__ import annotations

import json

from .base import Grade

_FIELDS = {"type", "calls", "order", "allow_extra", "forbidden", "arguments_match", "expect_no_call"}


def check(spec: dict) -> list[tuple[str | None, str]]:
    problems = [(k, f"unknown field; allowed: {', '.join(sorted(_FIELDS))}") for k in spec
                if k not in _FIELDS]
    calls = spec.get("calls", [])
    no_call = spec.get("expect_no_call", False)
    if not isinstance(calls, list) or not all(isinstance(c, dict) and isinstance(c.get("name"), str)
                                              and c["name"].strip() for c in calls):
        problems.append(("calls", "calls is a list of {name, arguments}, e.g. "
                                  "[{name: get_weather, arguments: {city: Paris}}]"))
        calls = []
    for i, c in enumerate(calls):
        extra = set(c) - {"name", "arguments"}
        if extra:
            problems.append((f"calls[{i}].{sorted(extra)[0]}", "a call has only name and arguments"))
        if "arguments" in c and not isinstance(c["arguments"], dict):
            problems.append((f"calls[{i}].arguments", "arguments is a mapping of argument names to values"))
    if not isinstance(no_call, bool):
        problems.append(("expect_no_call", "expect_no_call is true or false"))
    elif no_call and calls:
        problems.append(("calls", "expect_no_call: true means no calls are expected; remove calls"))
    elif not no_call and not calls:
        problems.append(("calls", "list the expected calls, or set expect_no_call: true"))
    if spec.get("order", "any") not in ("any", "strict"):
        problems.append(("order", "order is any or strict"))
    if spec.get("arguments_match", "subset") not in ("subset", "exact"):
        problems.append(("arguments_match", "arguments_match is subset or exact"))
    if not isinstance(spec.get("allow_extra", False), bool):
        problems.append(("allow_extra", "allow_extra is true or false"))
    forbidden = spec.get("forbidden", [])
    if not isinstance(forbidden, list) or not all(isinstance(f, str) for f in forbidden):
        problems.append(("forbidden", "forbidden is a list of tool names"))
    elif any(c.get("name") in forbidden for c in calls):
        problems.append(("forbidden", "a tool cannot be both expected and forbidden"))
    return problems


def values_equal(got, want) -> bool:
    if isinstance(want, bool) or want is None:
        return got is want
    if isinstance(want, (int, float)):
        return isinstance(got, (int, float)) and not isinstance(got, bool) and got == want
    if isinstance(want, str):
        return isinstance(got, str) and got.strip().casefold() == want.strip().casefold()
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(values_equal, got, want))
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and \
            all(values_equal(got[k], want[k]) for k in want)
    return got == want


def _show(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 50 else text[:47] + "..."


def argument_problem(path: str, got, want, exact: bool) -> str | None:
    """Why `got` arguments do not satisfy `want`, or None when they do."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key, value in want.items():
            if key not in got:
                return f"{path}.{key} missing"
            problem = argument_problem(f"{path}.{key}", got[key], value, exact)
            if problem:
                return problem
        extra = [k for k in got if k not in want]
        if exact and extra:
            return f"{path}.{extra[0]} not expected"
        return None
    if values_equal(got, want):
        return None
    return f"{path} = {_show(got)}, expected {_show(want)}"


def call_problem(expected: dict, name: str, args, exact: bool) -> str | None:
    if name != expected["name"]:
        return f"called {name}, expected {expected['name']}"
    if "arguments" not in expected:
        return None
    return argument_problem(name, args, expected["arguments"], exact)


def _match_any(expected: list[dict], actual: list[tuple[str, dict]], exact: bool) -> list[int | None]:
    """Maximum matching expected -> actual (augmenting paths; call lists are short)."""
    fits = [[call_problem(e, n, a, exact) is None for n, a in actual] for e in expected]
    owner: dict[int, int] = {}

    def place(i: int, seen: set[int]) -> bool:
        for j, ok in enumerate(fits[i]):
            if ok and j not in seen:
                seen.add(j)
                if j not in owner or place(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in range(len(expected)):
        place(i, set())
    given = {i: j for j, i in owner.items()}
    return [given.get(i) for i in range(len(expected))]


def _match_strict(expected, actual, exact: bool) -> list[int | None]:
    """Leftmost in-order matching (optimal for subsequences)."""
    out, start = [], 0
    for e in expected:
        j = next((j for j in range(start, len(actual)) if call_problem(e, *actual[j], exact) is None), None)
        out.append(j)
        if j is not None:
            start = j + 1
    return out


def _diagnose(e: dict, actual, used: set[int], exact: bool) -> str:
    same = [j for j, (n, _) in enumerate(actual) if n == e["name"]]
    if not same:
        return f"no call to {e['name']} (called {', '.join(n for n, _ in actual)})"
    j = next((j for j in same if j not in used), same[0])
    return call_problem(e, *actual[j], exact) or f"{e['name']} called fewer times than expected"


def grade(case, response) -> Grade:
    spec = case.grader
    made = response.tool_calls or []
    summary = "; ".join(f"{c.name}({c.arguments})" for c in made) or None
    details = {"calls": [{"name": c.name, "arguments": c.arguments} for c in made]}
    if not made and not (response.content or "").strip():
        return Grade(False, "empty response", details=details)
    if spec.get("expect_no_call", False):
        if made:
            return Grade(False, f"called {made[0].name} (expected no tool call)", answer=summary,
                         details=details)
        return Grade(True, "", answer=(response.content or "").strip()[:200], details=details)

    def fail(reason: str) -> Grade:
        return Grade(False, reason, answer=summary, details=details)

    forbidden = set(spec.get("forbidden", []))
    hit = next((c.name for c in made if c.name.strip() in forbidden), None)
    if hit:
        return fail(f"called {hit} (forbidden)")
    actual = []
    for c in made:
        args = c.parsed_arguments()
        if args is None:
            return fail(f"arguments of {c.name} are not valid JSON")
        if not isinstance(args, dict):
            return fail(f"arguments of {c.name} are not a JSON object")
        actual.append((c.name.strip(), args))

    expected = spec["calls"]
    allow_extra = spec.get("allow_extra", False)
    if len(actual) < len(expected) or (not allow_extra and len(actual) != len(expected)):
        text = " (answered in text instead)" if not actual else ""
        return fail(f"{len(actual)} calls, expected {len(expected)}{text}")
    exact = spec.get("arguments_match", "subset") == "exact"
    if spec.get("order", "any") == "strict":
        if not allow_extra:  # pairwise: the i-th call must be the i-th expected
            for e, (n, a) in zip(expected, actual):
                problem = call_problem(e, n, a, exact)
                if problem:
                    return fail(problem)
            return Grade(True, "", answer=summary, details=details)
        matched = _match_strict(expected, actual, exact)
    else:
        matched = _match_any(expected, actual, exact)
    missing = [i for i, j in enumerate(matched) if j is None]
    if missing:
        used = {j for j in matched if j is not None}
        if spec.get("order", "any") == "strict" and all(
                any(call_problem(expected[i], n, a, exact) is None for n, a in actual) for i in missing):
            return fail("calls made out of order")
        reason = _diagnose(expected[missing[0]], actual, used, exact)
        more = f" ({len(missing)} of {len(expected)} expected calls unmatched)" if len(missing) > 1 else ""
        return fail(reason + more)
    return Grade(True, "", answer=summary, details=details)
