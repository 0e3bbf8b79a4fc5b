"""What a final answer must hold: the `answer:` spec of the trace grader (and of the tool_calls grader's
no-call cases), checked against the text the model finally wrote, and against what a solver derives.

    answer:
      all: [17, nginx]        # values that must appear (an item may be a list of alternatives)
      any: [...]              # at least one must appear
      forbidden: [14]         # values that must not appear (decoys: a hedge names them)
      values: {nginx: 7}      # each label carries its value (see value_problems)
      decoys: ["10:15"]       # wrong values that must not follow any label
      json: {required: {...}, exact: {...}, extra_keys: false}   # a JSON object in the answer
      max_words: 120
      grounded: true          # every number appears in the prompt or a tool result...
      allow_numbers: [3]      # ...or here
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

from pytest_crucible.grading import contains, json_object
from pytest_crucible.grading.base import as_list
from pytest_crucible.grading.text import normalize, plain, word_pattern, words
from pytest_crucible.suite.agent_loop import normalise

_ANSWER_FIELDS = {"all", "any", "forbidden", "values", "decoys", "json", "max_words", "grounded", "allow_numbers"}
# numbers as the grounding check reads them: thousands separators joined, list markers and ordinals skipped
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_DIGITS = re.compile(r"\d+(?:\.\d+)?(?![\d]|st\b|nd\b|rd\b|th\b)")
_LIST_MARKER = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?\d+[.)][ \t]", re.M)


def answer_spec_problems(answer: dict) -> list[tuple[str | None, str]]:
    """Problems of an `answer:` spec (shared with the tool_calls grader's no-call cases)."""
    problems = [(f"answer.{k}", f"unknown field; allowed: {', '.join(sorted(_ANSWER_FIELDS))}")
                for k in answer if k not in _ANSWER_FIELDS]
    if "decoys" in answer and not answer.get("values"):
        problems.append(("answer.decoys", "decoys are checked next to the labels of values: give values too"))
    decoys = answer.get("decoys", [])
    if not isinstance(decoys, list) or not all(isinstance(d, (str, int, float)) and not isinstance(d, bool)
                                               and str(d).strip() for d in decoys):
        problems.append(("answer.decoys", "decoys is a list of wrong values (texts or numbers)"))
    phrases = {k: answer[k] for k in ("all", "any", "forbidden") if k in answer}
    if phrases:
        problems += [(f"answer.{f}" if f else "answer", m)
                     for f, m in contains.check({"type": "contains", **phrases})]
    elif not any(k in answer for k in ("values", "json", "max_words", "grounded")):
        problems.append(("answer", "give all, any, forbidden, values, json, max_words or grounded"))
    values = answer.get("values", {})
    if not isinstance(values, dict) or not all(
            isinstance(k, str) and k.strip() and isinstance(v, (int, float, str)) and not isinstance(v, bool)
            and str(v).strip() for k, v in values.items()):
        problems.append(("answer.values", "values maps labels to the numbers or texts they carry, "
                                          "e.g. {nginx: 7, \"Closed:\": HD-4512}"))
    if "json" in answer:
        spec = answer["json"]
        if not isinstance(spec, dict):
            problems.append(("answer.json", "json is {required: {...}, exact: {...}, extra_keys: ...}"))
        else:
            problems += [(f"answer.json.{f}" if f else "answer.json", m)
                         for f, m in json_object.check({"type": "json", **spec}) if f != "root"]
    max_words = answer.get("max_words")
    if max_words is not None and (not isinstance(max_words, int) or isinstance(max_words, bool) or max_words <= 0):
        problems.append(("answer.max_words", "max_words is a positive whole number"))
    if not isinstance(answer.get("grounded", False), bool):
        problems.append(("answer.grounded", "grounded is true or false"))
    allow = answer.get("allow_numbers", [])
    if not isinstance(allow, list) or not all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in allow):
        problems.append(("answer.allow_numbers", "allow_numbers is a list of numbers"))
    return problems


def numbers_in(text: str) -> set[Fraction]:
    text = _THOUSANDS.sub("", plain(text))
    return {Fraction(m) for m in _DIGITS.findall(text)}


def value_problems(values: dict, text: str, decoys=()) -> list[str]:
    """Each label's segments (from the label to the next label or the end of its line) carry the
    label's value and nothing that contradicts it (another number, a decoy), and one segment carries it."""
    problems, carried, contradicted = [], set(), set()
    for line in text.splitlines():
        hits = sorted((m.start(), m.end(), label) for label in values
                      for m in word_pattern(label).finditer(line))
        hits = [h for i, h in enumerate(hits) if i == 0 or h[0] >= hits[i - 1][1]]  # no overlapping labels
        for i, (_, end, label) in enumerate(hits):
            segment = line[end:hits[i + 1][0] if i + 1 < len(hits) else len(line)]
            want = values[label]
            named = [d for d in decoys if word_pattern(str(d)).search(segment)]
            if named:
                problems.append(f"answer gives {label} {named[0]!r} as well as the right value (a hedge)")
                contradicted.add(label)
                continue
            if isinstance(want, str):
                said = segment.strip(" \t:=-—*`'\"")
                if not said:
                    continue
                others = [v for other, v in values.items() if other != label and isinstance(v, str)
                          and normalise(v) != normalise(want) and word_pattern(v).search(said)]
                if word_pattern(want).search(said) is None or others:
                    problems.append(f"answer gives {label} {said[:40]!r}, expected {want!r}")
                    contradicted.add(label)
                else:
                    carried.add(label)
                continue
            found = numbers_in(segment)
            number = Fraction(repr(want)) if isinstance(want, float) else Fraction(want)
            if found - {number}:
                other = ", ".join(_show_number(n) for n in sorted(found - {number}))
                problems.append(f"answer gives {label} {other}, expected only {want}")
                contradicted.add(label)
            elif found:
                carried.add(label)
    missing = [label for label in values if label not in carried | contradicted]
    if missing:
        problems.append(f"answer lacks {missing[0]} {values[missing[0]]}")
    return problems


def _show_number(n: Fraction) -> str:
    return str(n.numerator) if n.denominator == 1 else str(float(n))


def answer_problems(spec: dict, answer: str, sources: str) -> list[str]:
    text = plain(answer)
    problems = []

    def found(needle) -> bool:
        return word_pattern(str(needle)).search(text) is not None

    banned = [n for n in spec.get("forbidden") or [] if found(n)]
    if banned:
        problems.append(f"answer names {', '.join(repr(str(b)) for b in banned)}, which is not the answer "
                        "(a decoy in the tools' data, or a hedge)")
    if "json" in spec:
        json_spec = spec["json"]
        data, why = json_object.locate(answer, "object")
        if why:
            problems.append(f"answer: {why}")
        else:
            shape = json_object.shape_problems(data, json_spec.get("required") or {}, json_spec.get("exact") or {},
                                               json_spec.get("extra_keys", True))
            problems += [f"answer JSON: {p}" for p in shape[:1]]
    missing = [item for item in spec.get("all") or []
               if not any(found(n) for n in (item if isinstance(item, list) else [item]))]
    if missing:
        label = " / ".join(map(str, missing[0])) if isinstance(missing[0], list) else str(missing[0])
        more = f" ({len(missing)} of {len(spec['all'])} required values missing)" if len(missing) > 1 else ""
        problems.append(f"answer lacks {label!r}{more}")
    if spec.get("values"):
        problems += value_problems(spec["values"], text, spec.get("decoys") or [])
    if spec.get("any") and not any(found(n) for n in spec["any"]):
        problems.append(f"answer names none of {', '.join(map(str, spec['any']))}")
    if spec.get("grounded"):
        known = numbers_in(sources) | {Fraction(repr(n)) if isinstance(n, float) else Fraction(n)
                                       for n in spec.get("allow_numbers") or []}
        invented = sorted(numbers_in(_LIST_MARKER.sub(" ", text)) - known)
        if invented:
            shown = ", ".join(_show_number(n) for n in invented[:3])
            problems.append(f"answer has numbers no tool returned: {shown}")
    max_words = spec.get("max_words")
    if max_words is not None:
        count = len(words(text))
        if count > max_words:
            problems.append(f"answer is {count} words, at most {max_words} asked")
    return problems


# ------------------------------------------------------------------------------------------ solvers

def listed_mismatch(answer: dict, listed: Any) -> str | None:
    """None when the values a solver lists are exactly what answer.all requires; else what differs."""
    required = answer.get("all") or []
    options = [{normalize(str(x)) for x in (item if isinstance(item, list) else [item])} for item in required]
    got = [normalize(str(x)) for x in as_list(listed)]
    extra = [x for x in got if not any(x in o for o in options)]
    if extra:
        return f"the grader's answer.all does not require {extra[0]!r}"
    lacking = [item for item, o in zip(required, options) if not o & set(got)]
    if lacking:
        return f"the grader's answer.all requires {lacking[0]!r}, which the solver does not derive"
    return None


def values_mismatch(answer: dict, parts: dict) -> str | None:
    """None when a solver's `values` and `json` (where it prints them) are answer.values and answer.json.exact."""
    if "values" in parts and normalise(parts["values"]) != normalise(answer.get("values") or {}):
        return f"the grader's answer.values are {json.dumps(answer.get('values'))}"
    exact = (answer.get("json") or {}).get("exact")
    if "json" in parts and not json_object.same_value(parts["json"], exact):
        return f"the grader's answer.json.exact is {json.dumps(exact)}"
    return None
