"""tool_calls: the structured tool calls of one reply, checked like an abstract syntax tree.

    grader: {type: tool_calls, calls: [{name: get_weather, arguments: {city: Paris, unit: celsius}}],
             order: any, allow_extra: false, forbidden: [delete_file], arguments_match: subset,
             strings: normal, expect_no_call: false, allow_empty: false, answer: {...}}

- `calls`: the expected calls. A call without `arguments` is matched on its name alone. A wanted value
  may be a matcher (graders/matchers.py): {one_of: [...]} (the equivalent forms the case accepts, e.g.
  {one_of: ["16:30", "16:30:00"]}: no other form is guessed), {set: [...]}, {contains: text} (free text,
  never a value the user dictated), or {optional: [...]} for an argument that may be left out.
- `order: strict` needs them in the given order; `any` accepts any order (the largest matching of calls
  made to calls expected, not BFCL's first fit).
- `allow_extra: false` needs exactly as many calls as expected; true lets other calls in.
- `arguments_match: subset` lets the model add arguments the tool declares; `exact` does not.
- `forbidden`: calling any of these fails, whatever else happened.
- `expect_no_call: true`: passes only when no tool is called; `answer` (the trace grader's answer checks:
  all, any, forbidden, values, decoys, json, max_words, grounded) then grades what the reply says, so a
  refusal or a reply about something else fails. `allow_empty: true` also passes an empty reply (BFCL's
  irrelevance rule: no call is all it asks). `expect_call: true` with no `calls`: any call the offered tools
  take passes, a reply without one fails (BFCL's relevance rule).
- `schema: listed_values_pass` (BFCL's imports; the default is `strict`): a value the expected calls list
  for an argument passes although the tool's schema refuses it (BFCL's answer key lists values its own
  function documents refuse: "ft" for the enum ["meter", "feet"], 2 for a string); every other value, the
  required arguments and the undeclared ones are checked against the schema as always.
- `string_types: {language: java|javascript, tools: {tool: {argument: type}}}`: these arguments are sent as
  source text and read by their declared type before they are compared (typed_strings.py, BFCL's rule);
  text an expected call lists for an argument of another type (a constant's name for an integer) is a
  variable, which passes only as listed.
- `strings: normal` (the default) compares strings after fold(): Unicode forms, typographic dashes and
  quotes, case and blanks ignored, every sign, operator and symbol kept ("x - 1" != "x + 1", an address
  without its @ is another string); `loose` is BFCL's rule (matchers.loose: blanks and , . / _ * ^ and
  joining hyphens ignored too, "2024/05/01" == "2024-05-01"; a minus sign still counts).

Every call's arguments must be a JSON object. When the case defines tools, every call must be to one of
them and its arguments must satisfy that tool's JSON schema as tool_schema.py reads it: no argument the
tool does not declare (unless its schema lets others in), integers are integers (10.0 is no integer),
required arguments, types, enums. A call the tool itself would refuse is wrong whatever the expected values
say. Other values: numbers compare numerically (1 == 1.0; the schema says whether 1.0 is allowed) but
never equal a string ("3" != 3), booleans and null are themselves.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_crucible.grading import matchers, tool_schema, typed_strings
from pytest_crucible.grading.base import BaseGrader, Grade, as_list, json_answer
from pytest_crucible.grading.extract import strip_reasoning
from pytest_crucible.grading.final_answer import (
    answer_problems,
    answer_spec_problems,
    listed_mismatch,
    values_mismatch,
)

_FIELDS = {"type", "calls", "order", "allow_extra", "forbidden", "arguments_match", "expect_no_call", "answer",
           "strings", "allow_empty", "expect_call", "string_types", "schema"}


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
        elif "arguments" in c:
            bad = _matcher_problem(c["arguments"])
            if bad:
                problems.append((f"calls[{i}].arguments", bad))
    if not isinstance(no_call, bool):
        problems.append(("expect_no_call", "expect_no_call is true or false"))
    if spec.get("schema", "strict") not in ("strict", "listed_values_pass"):
        problems.append(("schema", "schema is strict or listed_values_pass"))
    if spec.get("allow_empty", False) not in (True, False):
        problems.append(("allow_empty", "allow_empty is true or false"))
    elif spec.get("allow_empty") and no_call is not True:
        problems.append(("allow_empty", "allow_empty passes an empty reply where no call is expected: set "
                                        "expect_no_call: true"))
    elif no_call and calls:
        problems.append(("calls", "expect_no_call: true means no calls are expected; remove calls"))
    elif not no_call and not calls and spec.get("expect_call") is not True:
        problems.append(("calls", "list the expected calls, or set expect_no_call: true (or expect_call: true)"))
    if "string_types" in spec and (bad := typed_strings.spec_problem(spec["string_types"])):
        problems.append(("string_types", bad))
    if "answer" in spec:
        if no_call is not True:
            problems.append(("answer", "answer grades the text of a reply that must call no tool: set "
                                       "expect_no_call: true (calls are graded by calls)"))
        elif not isinstance(spec["answer"], dict) or not spec["answer"]:
            problems.append(("answer", "answer says what the reply must hold, e.g. {all: [...], forbidden: [...]}"))
        else:
            problems += answer_spec_problems(spec["answer"])
    if spec.get("order", "any") not in ("any", "strict"):
        problems.append(("order", "order is any or strict"))
    if spec.get("arguments_match", "subset") not in ("subset", "exact"):
        problems.append(("arguments_match", "arguments_match is subset or exact"))
    if spec.get("strings", "normal") not in ("normal", "loose"):
        problems.append(("strings", "strings is normal or loose"))
    if not isinstance(spec.get("allow_extra", False), bool):
        problems.append(("allow_extra", "allow_extra is true or false"))
    forbidden = spec.get("forbidden", [])
    if not isinstance(forbidden, list) or not all(isinstance(f, str) for f in forbidden):
        problems.append(("forbidden", "forbidden is a list of tool names"))
    elif any(c.get("name") in forbidden for c in calls):
        problems.append(("forbidden", "a tool cannot be both expected and forbidden"))
    return problems


def _matcher_problem(value) -> str | None:
    if matchers.is_matcher(value):
        found = matchers.problem(value)
        if found:
            return found
        value = next(iter(value.values()))
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return next((p for p in map(_matcher_problem, items) if p), None)


# ------------------------------------------------------------------------------------------ values

def comparer(spec: dict) -> matchers.Same:
    """How two plain values compare under this spec (see the module docstring)."""
    text = matchers.loose if spec.get("strings", "normal") == "loose" else matchers.fold

    def same(got, want) -> bool:
        if isinstance(want, bool) or want is None:
            return got is want
        if isinstance(want, (int, float)):
            return isinstance(got, (int, float)) and not isinstance(got, bool) and got == want
        if isinstance(want, str):
            return isinstance(got, str) and text(got) == text(want)
        return got == want

    return same


def argument_problem(path: str, got, want, exact: bool, same: matchers.Same) -> str | None:
    """Why `got` does not satisfy `want`, or None when it does."""
    if isinstance(want, dict) and not matchers.is_matcher(want) and isinstance(got, dict):
        for key, value in want.items():
            if key not in got:
                if matchers.may_be_absent(value):
                    continue
                return f"{path}.{key} missing"
            problem = argument_problem(f"{path}.{key}", got[key], value, exact, same)
            if problem:
                return problem
        extra = [k for k in got if k not in want]
        if exact and extra:
            return f"{path}.{extra[0]} not expected"
        return None
    if matchers.fits(got, want, same, exact=exact):
        return None
    return f"{path} = {matchers.show(got)}, expected {matchers.describe(want)}"


def call_problem(expected: dict, name: str, args, exact: bool, same: matchers.Same) -> str | None:
    if name != expected["name"]:
        return f"called {name}, expected {expected['name']}"
    if "arguments" not in expected:
        return None
    return argument_problem(name, args, expected["arguments"], exact, same)


# ------------------------------------------------------------------------------------------ grade

def _match_strict(expected, actual: list[tuple[str, dict]], exact: bool, same) -> list[int | None]:
    """Leftmost in-order matching (optimal for subsequences)."""
    out, start = [], 0
    for e in expected:
        j = next((j for j in range(start, len(actual))
                  if call_problem(e, *actual[j], exact, same) is None), None)
        out.append(j)
        if j is not None:
            start = j + 1
    return out


def _diagnose(e: dict, actual: list[tuple[str, dict]], used: set[int], exact: bool, same) -> str:
    same_name = [j for j, (n, _) in enumerate(actual) if n == e["name"]]
    if not same_name:
        return f"no call to {e['name']} (called {', '.join(n for n, _ in actual)})"
    j = next((j for j in same_name if j not in used), same_name[0])
    return call_problem(e, *actual[j], exact, same) or f"{e['name']} called fewer times than expected"


def _listed(spec: dict, tool: dict, args: dict) -> set[str]:
    """Under `schema: listed_values_pass`, the arguments whose values an expected call lists, by BFCL's type
    rule: of the type of a listed value, and, where that is not the type the tool declares (BFCL reads it as
    a variable), exactly as listed."""
    if spec.get("schema", "strict") != "listed_values_pass":
        return set()
    name = tool["function"]["name"]
    exact, same = spec.get("arguments_match", "subset") == "exact", comparer(spec)
    wanted = [c.get("arguments") or {} for c in spec.get("calls") or [] if c.get("name") == name]
    declared = tool_schema.parameters(tool).get("properties") or {}
    out = set()
    for arg, value in args.items():
        for want in (w[arg] for w in wanted if arg in w):
            if argument_problem(arg, value, want, exact, same) is None and _same_kind(value, want) and (
                    tool_schema.takes_type(declared.get(arg), value) or _exactly_listed(value, want)):
                out.add(arg)
    return out


def _listed_values(want: Any) -> list:
    if matchers.is_matcher(want):
        kind, listed = next(iter(want.items()))
        return [v for item in listed for v in _listed_values(item)] if kind in ("one_of", "optional") else []
    return [want]


def _same_kind(value: Any, want: Any) -> bool:
    """The value has the Python type of a listed value (BFCL's type check: 5.0 is not the 5 it lists)."""
    if matchers.is_matcher(want) and next(iter(want)) in ("set", "contains"):
        return type(value) is (list if "set" in want else str)
    return any(type(value) is type(v) for v in _listed_values(want))


def _exactly_listed(value: Any, want: Any) -> bool:
    return any(type(value) is type(v) and value == v for v in _listed_values(want))


def _variable_problem(spec: dict, name: str, args: dict) -> str | None:
    """Source text BFCL reads as the name of a variable (typed_strings.variables) passes only as an expected
    call lists it, case and blanks included."""
    wanted = [c.get("arguments") or {} for c in spec.get("calls") or [] if c.get("name") == name]
    first = {arg: values[0] for w in wanted for arg, want in w.items() if (values := _listed_values(want))}
    for arg in typed_strings.variables(spec["string_types"], name, args, first):
        listed = [w[arg] for w in wanted if arg in w]
        if not any(_exactly_listed(args[arg], want) for want in listed):
            names = [v for want in listed for v in _listed_values(want) if isinstance(v, str)]
            return (f"{name}.{arg} = {matchers.show(args[arg])}: read as a variable, which must be "
                    f"{' or '.join(map(matchers.show, names)) or 'a listed name'} as written")
    return None


def _no_call_grade(case, response, details: dict) -> Grade:
    text = strip_reasoning(response.content or "").strip()
    spec = case.grader.get("answer")
    if spec:
        sources = "\n".join(str(m.get("content") or "") for m in case.messages)
        problems = answer_problems(spec, text, sources)
        if problems:
            more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
            return Grade(False, problems[0] + more, answer=text[:500], details={**details, "problems": problems})
    return Grade(True, "", answer=text[:500], details=details)


def grade(case, response) -> Grade:
    spec = case.grader
    made = response.tool_calls or []
    summary = "; ".join(f"{c.name}({c.arguments})" for c in made) or None
    details = {"calls": [{"name": c.name, "arguments": c.arguments} for c in made]}
    if not made and not strip_reasoning(response.content or "").strip():
        if spec.get("expect_no_call", False) and spec.get("allow_empty", False):
            return Grade(True, "", answer="", details=details)
        return Grade(False, "empty response", details=details)
    if spec.get("expect_no_call", False):
        if made:
            return Grade(False, f"called {made[0].name} (expected no tool call)", answer=summary,
                         details=details)
        return _no_call_grade(case, response, details)

    def fail(reason: str) -> Grade:
        return Grade(False, reason, answer=summary, details=details)

    forbidden = set(spec.get("forbidden", []))
    hit = next((c.name for c in made if c.name.strip() in forbidden), None)
    if hit:
        return fail(f"called {hit} (forbidden)")
    offered = {t["function"]["name"]: t for t in case.tools if isinstance(t.get("function"), dict)}
    loose_strings = spec.get("strings", "normal") == "loose"
    actual: list[tuple[str, dict]] = []
    for c in made:
        name, args = c.name.strip(), c.parsed_arguments()
        if args is None:
            return fail(f"arguments of {name} are not valid JSON")
        if not isinstance(args, dict):
            return fail(f"arguments of {name} are not a JSON object")
        if offered:
            if name not in offered:
                return fail(f"called {name}, which is not among the offered tools")
            problem = tool_schema.problem(offered[name], args, loose_strings=loose_strings,
                                          excused=_listed(spec, offered[name], args))
            if problem:
                return fail(problem)
        if "string_types" in spec:
            args, problem = typed_strings.convert_arguments(spec["string_types"], name, args)
            if problem or (problem := _variable_problem(spec, name, args)):
                return fail(problem)
        actual.append((name, args))

    expected = spec.get("calls", [])
    if not expected and spec.get("expect_call", False):
        return Grade(True, "", answer=summary, details=details) if actual else fail("no tool called")
    allow_extra = spec.get("allow_extra", False)
    if len(actual) < len(expected) or (not allow_extra and len(actual) != len(expected)):
        text = " (answered in text instead)" if not actual else ""
        return fail(f"{len(actual)} calls, expected {len(expected)}{text}")
    exact = spec.get("arguments_match", "subset") == "exact"
    same = comparer(spec)
    if spec.get("order", "any") == "strict":
        if not allow_extra:  # pairwise: the i-th call must be the i-th expected
            for e, (n, a) in zip(expected, actual):
                problem = call_problem(e, n, a, exact, same)
                if problem:
                    return fail(problem)
            return Grade(True, "", answer=summary, details=details)
        matched = _match_strict(expected, actual, exact, same)
    else:
        matched = matchers.assign([[call_problem(e, n, a, exact, same) is None for n, a in actual]
                                   for e in expected])
    missing = [i for i, j in enumerate(matched) if j is None]
    if missing:
        used = {j for j in matched if j is not None}
        if spec.get("order", "any") == "strict" and all(
                any(call_problem(expected[i], n, a, exact, same) is None for n, a in actual) for i in missing):
            return fail("calls made out of order")
        reason = _diagnose(expected[missing[0]], actual, used, exact, same)
        more = f" ({len(missing)} of {len(expected)} expected calls unmatched)" if len(missing) > 1 else ""
        return fail(reason + more)
    return Grade(True, "", answer=summary, details=details)


# ------------------------------------------------------------------------------------------ the grader

def answer_mismatch(spec: dict, derived: Any) -> str | None:
    """None when what a solver derives agrees with the spec. It prints the calls the reply must make (a list,
    or {"calls": [...]}), each {name, arguments}; for a case that expects no call, what the answer must hold
    ({"answer": [...]} and/or {"values": {...}}, as for a trace solver)."""
    parts = derived if isinstance(derived, dict) else {"calls": derived}
    if spec.get("expect_no_call"):
        if parts.get("calls"):
            return "the solver derives calls, but the grader expects none"
        if "answer" not in parts and "values" not in parts:
            return "a solver of a no-call case prints what the answer holds: {\"answer\": [...]} or {\"values\": {...}}"
        answer = spec.get("answer") or {}
        return ((listed_mismatch(answer, parts["answer"]) if "answer" in parts else None)
                or values_mismatch(answer, {k: parts[k] for k in ("values",) if k in parts}))
    unknown = sorted(set(parts) - {"calls"})
    if unknown:
        return f"a tool_calls solver prints calls, not {unknown[0]!r}"
    got = [c for c in as_list(parts.get("calls")) if isinstance(c, dict) and isinstance(c.get("name"), str)]
    want = spec.get("calls") or []
    exact, same = spec.get("arguments_match", "subset") == "exact", comparer(spec)
    fit = [[matchers.same_pattern(c, w) or call_problem(w, c["name"], c.get("arguments") or {}, exact, same) is None
            for c in got] for w in want]
    strict = spec.get("order") == "strict"
    matched = [i if i < len(got) and fit[i][i] else None for i in range(len(want))] if strict else \
        matchers.assign(fit)
    lacking = [w for w, j in zip(want, matched) if j is None]
    if lacking:
        where = " in that position" if strict else ""
        return f"the grader expects {json.dumps(lacking[0])}, which the solver does not derive{where}"
    if len(got) != len(want):
        extra = next(c for j, c in enumerate(got) if j not in matched)
        return f"the solver derives the call {json.dumps(extra)}, which the grader does not expect"
    return None


class ToolCallsGrader(BaseGrader):
    needs_tools = True
    compares_answers = True

    def check(self, spec: dict) -> list[tuple[str | None, str]]:
        return check(spec)

    def grade(self, case, response) -> Grade:
        return grade(case, response)

    def tools_named(self, spec: dict) -> list[str]:
        return matchers.tools_named(spec)

    def case_problems(self, case) -> list[str]:
        return [problem for problem in map(tool_schema.schema_problem, case.tools) if problem]

    def read_solver_output(self, spec: dict, lines: list[str]):
        return json_answer(spec, super().read_solver_output(spec, lines))

    def compare_answer(self, spec: dict, derived) -> str | None:
        return answer_mismatch(spec, derived)


GRADER = ToolCallsGrader()
