"""json: a JSON object (or array) in the reply, with required keys, types and values.

    grader: {type: json, required: {total_errors: integer, services: array}, exact: {status: ok},
             extra_keys: true, root: object}

The JSON is found inside ```json fences, other fences, or prose around it (extract.find_json).
Keys may be paths: `a.b` (nested object), `items.0.name` (array index). Types: string, integer,
number, boolean, array, object, null, or several as "string|null" / [string, null]. `integer`
excludes booleans and accepts 3.0; `number` accepts integers. `exact` compares values: numbers
numerically, everything else by equality. `extra_keys: false` refuses keys that neither `required`
nor `exact` names, in every object along a named path.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction

from pytest_crucible.grading import commitment
from pytest_crucible.grading.base import BaseGrader, Grade, json_answer, one_solution
from pytest_crucible.grading.extract import clean_answer, find_all_json, find_json, json_error, normalize, numbers

_FIELDS = {"type", "required", "exact", "extra_keys", "root"}
TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")
_MISSING = object()


def type_of(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def is_type(value, name: str) -> bool:
    actual = type_of(value)
    if name == "number":
        return actual in ("integer", "number")
    if name == "integer" and actual == "number":  # 3.0 is an integer in JSON
        return math.isfinite(value) and value.is_integer()
    return actual == name


def _type_names(spec_type) -> list[str]:
    return list(spec_type) if isinstance(spec_type, list) else str(spec_type).split("|")


def check_required(required, field: str = "required") -> list[tuple[str | None, str]]:
    if not isinstance(required, dict):
        return [(field, f"{field} maps each key to a type, e.g. {{total_errors: integer}}")]
    problems: list[tuple[str | None, str]] = []
    for key, spec_type in required.items():
        bad = [t for t in _type_names(spec_type) if t not in TYPES]
        if bad or not _type_names(spec_type):
            problems.append((f"{field}.{key}", f"unknown type {spec_type!r}; use {', '.join(TYPES)} "
                                               "(or several as \"string|null\")"))
    return problems


def check(spec: dict) -> list[tuple[str | None, str]]:
    problems = [(k, f"unknown field; allowed: {', '.join(sorted(_FIELDS))}") for k in spec
                if k not in _FIELDS]
    problems += check_required(spec.get("required", {}))
    if not isinstance(spec.get("exact", {}), dict):
        problems.append(("exact", "exact maps keys to the values they must hold, e.g. {status: ok}"))
    if not isinstance(spec.get("extra_keys", True), bool):
        problems.append(("extra_keys", "extra_keys is true or false"))
    if spec.get("root", "object") not in ("object", "array"):
        problems.append(("root", "root is object or array"))
    return problems


def lookup(data, path: str):
    """The value at a dotted path; a key that itself contains dots is found too."""
    if isinstance(data, dict) and path in data:
        return data[path]
    head, dot, rest = path.partition(".")
    if isinstance(data, dict) and head in data:
        node = data[head]
    elif isinstance(data, list) and head.isdigit() and int(head) < len(data):
        node = data[int(head)]
    else:
        return _MISSING
    return lookup(node, rest) if dot else node


def same_value(got, want) -> bool:
    if type_of(want) in ("integer", "number") and type_of(got) in ("integer", "number"):
        return got == want
    if isinstance(want, dict) and isinstance(got, dict):
        return got.keys() == want.keys() and all(same_value(got[k], want[k]) for k in want)
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(same_value(g, w) for g, w in zip(got, want))
    return type_of(got) == type_of(want) and got == want


def _show(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _extra_keys(data, paths: list[str]) -> list[str]:
    """Keys in objects along the named paths that no path names."""
    extra = []
    objects: dict[str, set[str]] = {"": set()}
    for path in paths:
        parts = path.split(".")
        for i in range(len(parts)):
            objects.setdefault(".".join(parts[:i]), set()).add(parts[i])
    for prefix, named in objects.items():
        node = data if not prefix else lookup(data, prefix)
        if isinstance(node, dict):
            extra += [f"{prefix}.{k}" if prefix else k for k in node if k not in named]
    return extra


def shape_problems(data, required: dict, exact: dict | None = None, extra_keys: bool = True) -> list[str]:
    """Every way `data` misses the declared keys, types, values and (optionally) extra keys."""
    problems = []
    for key, spec_type in (required or {}).items():
        value = lookup(data, key)
        if value is _MISSING:
            problems.append(f'missing key "{key}"')
            continue
        names = _type_names(spec_type)
        if not any(is_type(value, n) for n in names):
            problems.append(f'key "{key}" is {type_of(value)}, expected {" or ".join(names)}')
    for key, want in (exact or {}).items():
        value = lookup(data, key)
        if value is _MISSING:
            if key not in (required or {}):
                problems.append(f'missing key "{key}"')
        elif not same_value(value, want):
            problems.append(f'key "{key}" is {_show(value)}, expected {_show(want)}')
    if not extra_keys:
        problems += [f'unexpected key "{k}"' for k in _extra_keys(data, [*(required or {}), *(exact or {})])]
    return problems


def _scalars(data) -> list:
    if isinstance(data, dict):
        return [x for v in data.values() for x in _scalars(v)]
    if isinstance(data, list):
        return [x for v in data for x in _scalars(v)]
    return [data]


def _contradiction(claim: str, data: dict) -> str | None:
    """What a correction gives a key of the object that the object does not hold ("Dulse should be 61")."""
    for key, value in data.items():
        if isinstance(value, (dict, list)):
            continue
        m = re.search(rf"(?<!\w){re.escape(str(key))}(?!\w)\W*(?:is|was|should\s+be|would\s+be|=|:|to)?\s*(.+)",
                      claim, re.I)
        if not m:
            continue
        said = m.group(1).strip(" .!\"'")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            got = numbers(said)[:1]
            if got and got[0].value != Fraction(repr(value) if isinstance(value, float) else value):
                return f"{key} {got[0].text}"
        elif said and normalize(said) != normalize(str(value)):
            return f"{key} {said[:40]}"
    return None


def _after(text: str, raw: str, data) -> str:
    """Why the text around the answer object takes it back or offers another ("" when it does not): labelled
    alternatives, a correction after it that names a number the object does not hold, an admitted error."""
    offered = commitment.alternatives(text)
    if offered:
        return f"ambiguous answer: alternatives offered ({', '.join(offered[:3])})"
    at = text.rfind(raw)
    end = at + len(raw) if at >= 0 else text.rfind(raw[-1]) + 1
    held = {n.value for x in _scalars(data) if not isinstance(x, bool) for n in numbers(str(x))}
    for claim in commitment.claims(text, end):
        other = _contradiction(claim.value, data) if isinstance(data, dict) else None
        other = other or next((n.text for n in numbers(claim.value) if n.value not in held), None)
        if other:
            return f"ambiguous answer: corrected after the JSON ({claim.cue} ... {other})"
    taken_back = commitment.admission(text, end)
    return f'ambiguous answer: taken back after it was given ("{taken_back}")' if taken_back else ""


def locate(content: str, root: str = "object", prompt: str = ""):
    """(value, why not found). Two different objects (one the prompt itself shows aside) are a hedge, and so is
    a correction after the object (the commitment rule)."""
    text = clean_answer(content)
    found = find_all_json(text, root)
    given = [f.value for f in find_all_json(prompt, root)] if prompt and found else []
    answers = [f for f in found if f.value not in given] or found[:1]
    if len(answers) > 1:
        shown = ", ".join(_show(f.value) for f in answers[:2])
        return None, f"ambiguous answer: {len(answers)} different JSON {root}s ({shown})"
    if answers:
        problem = _after(text, answers[0].raw, answers[0].value)
        return (None, problem) if problem else (answers[0].value, "")
    error = json_error(text, root)
    if error:
        return None, f"JSON is not valid: {error}"
    other = find_json(text, "array" if root == "object" else "object")
    if other is not None:
        return None, f"root is {type_of(other.value)}, expected {root}"
    return None, f"no JSON {root} in response"


def prompt_text(case) -> str:
    return "\n".join(m.get("content") for m in case.messages if isinstance(m.get("content"), str))


def grade(case, response) -> Grade:
    spec = case.grader
    if not clean_answer(response.content):
        return Grade(False, "empty response")
    root = spec.get("root", "object")
    data, why = locate(response.content, root, prompt_text(case))
    if why:
        return Grade(False, why)
    problems = shape_problems(data, spec.get("required", {}), spec.get("exact", {}),
                              spec.get("extra_keys", True))
    answer = json.dumps(data, ensure_ascii=False)[:500]
    details = {"json": data, "problems": problems}
    if problems:
        more = f" ({len(problems)} problems)" if len(problems) > 1 else ""
        return Grade(False, problems[0] + more, answer=answer, details=details)
    return Grade(True, "", answer=answer, details=details)


class JsonGrader(BaseGrader):
    compares_answers = True

    def check(self, spec: dict) -> list[tuple[str | None, str]]:
        return check(spec)

    def grade(self, case, response) -> Grade:
        return grade(case, response)

    def read_solver_output(self, spec: dict, lines: list[str]):
        return json_answer(spec, one_solution(lines))

    def compare_answer(self, spec: dict, derived) -> str | None:
        exact = spec.get("exact") or {}
        if not exact:
            return "the json grader has no exact values to compare with"
        problems = shape_problems(derived, spec.get("required") or {}, exact, spec.get("extra_keys", True))
        return f"against the grader: {problems[0]}" if problems else None


GRADER = JsonGrader()
