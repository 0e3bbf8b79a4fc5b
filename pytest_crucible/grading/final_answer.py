"""What a final answer must hold: the `answer:` spec of the trace grader (and of the tool_calls grader's
no-call cases), checked against the text the model finally wrote, and against what a solver derives.

The commitment rule (commitment.py) applies. A label's value is what follows the label up to the first remark
(a bracket, `;`, `, `, a dash, a sentence end): a decoy or another value there is a hedge; in a remark it fails only
when the remark hedges or offers it, not when it sets it aside ("not 14:00") or converts a unit ("95 (35 °C)");
a number in a remark is read as the numeric grader reads one (stated.py: numbers the tools returned explain). A
forbidden value fails where the answer asserts it: beside a label, in a hedge or a correction, or, when the spec
has no labelled values, anywhere but in a clause that sets it aside. Labelled alternatives, a correction that
names another value and an admitted error fail as ambiguous.

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

from pytest_crucible.grading import commitment, contains, json_object
from pytest_crucible.grading.base import as_list
from pytest_crucible.grading.extract import numbers
from pytest_crucible.grading.stated import distinct_values, stated
from pytest_crucible.grading.text import normalize, plain, word_pattern, words
from pytest_crucible.suite.agent_loop import normalise

_ANSWER_FIELDS = {"all", "any", "forbidden", "values", "decoys", "json", "max_words", "grounded", "allow_numbers"}
# numbers as the grounding check reads them: thousands separators joined, list markers and ordinals skipped
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_DIGITS = re.compile(r"\d+(?:\.\d+)?(?![\d]|st\b|nd\b|rd\b|th\b)")
_LIST_MARKER = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?\d+[.)][ \t]", re.M)
_REMARK = re.compile(r"\s*(?:[(\[;]|,\s|\s[-\u2013\u2014]\s|\.\s+(?=\S))")
_REMARK_PIECES = re.compile(r"[;()\[\]]|,\s|\.\s+")
# a bracketed number with a unit other than the label's: a conversion ("95 (35 °C)"), not a second value
_CONVERSION = re.compile(r"^\s*(?:about|approx\.?|approximately|roughly|around|≈|~)?\s*[-+]?[0-9][0-9,.]*\s*"
                         r"(?:°\s*[CFK]|[CFK]\b|km|mi|miles?|m|ft|feet|kg|lbs?|g|oz|l|L|gal|EUR|USD|GBP|€|\$|£|%|"
                         r"km/h|mph)"
                         r"\s*$", re.I)


def answer_spec_problems(answer: dict) -> list[tuple[str | None, str]]:
    """Problems of an `answer:` spec (shared with the tool_calls grader's no-call cases)."""
    problems: list[tuple[str | None, str]] = [
        (f"answer.{k}", f"unknown field; allowed: {', '.join(sorted(_ANSWER_FIELDS))}")
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


def _segments(values: dict, text: str):
    """(label, the text from the label to the next label or the end of its line) for every label occurrence."""
    for line in text.splitlines():
        hits = sorted((m.start(), m.end(), label) for label in values
                      for m in word_pattern(label).finditer(line))
        hits = [h for i, h in enumerate(hits) if i == 0 or h[0] >= hits[i - 1][1]]  # no overlapping labels
        for i, (_, end, label) in enumerate(hits):
            yield label, line[end:hits[i + 1][0] if i + 1 < len(hits) else len(line)]


def _offered(piece: str, needle: str) -> bool:
    """Does a remark offer `needle` (rather than set it aside or convert a unit)?"""
    rest = word_pattern(needle).sub(" ", piece)
    return commitment.hedges(rest) or not (commitment.rejects(rest) or _CONVERSION.match(piece.strip(" ()[]")))


def _named(segment: str, needles) -> list[str]:
    """The needles a label's segment gives: in the value itself, or in a remark that offers them."""
    cut = _REMARK.search(segment)
    asserted, remarks = (segment[:cut.start()], segment[cut.start():]) if cut else (segment, "")
    out = [n for n in needles if word_pattern(str(n)).search(asserted)]
    for piece in _REMARK_PIECES.split(remarks):
        out += [n for n in needles if n not in out and word_pattern(str(n)).search(piece) and _offered(piece, str(n))]
    return out


def value_problems(values: dict, text: str, decoys=(), inputs: frozenset = frozenset()) -> list[str]:
    """Each label's segments (from the label to the next label or the end of its line) carry the label's value
    and nothing that contradicts it (another value, a decoy), and one segment carries it. `inputs`: the numbers
    of the prompt and the tools' results, which a remark may name to explain."""
    problems, carried, contradicted = [], set(), set()
    for label, segment in _segments(values, text):
        want = values[label]
        named = _named(segment, decoys)
        if named:
            problems.append(f"answer gives {label} {named[0]!r} as well as the right value (a hedge)")
            contradicted.add(label)
            continue
        if isinstance(want, str):
            said = segment.strip(" \t:=-—*`'\"")
            if not said:
                continue
            others = [v for other, v in values.items() if other != label and isinstance(v, str)
                      and normalise(v) != normalise(want)]
            if word_pattern(want).search(said) is None or _named(said, others):
                problems.append(f"answer gives {label} {said[:40]!r}, expected {want!r}")
                contradicted.add(label)
            else:
                carried.add(label)
            continue
        reading = stated(segment, inputs)
        found = distinct_values(reading.values)
        number = Fraction(repr(want)) if isinstance(want, float) else Fraction(want)
        if reading.bound or set(found) - {number}:
            other = reading.bound or ", ".join(_show_number(n) for n in found if n != number)
            problems.append(f"answer gives {label} {other}, expected only {want}")
            contradicted.add(label)
        elif found:
            carried.add(label)
    missing = [label for label in values if label not in carried | contradicted]
    if missing:
        problems.append(f"answer lacks {missing[0]} {values[missing[0]]}")
    return problems


def _asserted(text: str, needle: str, values: dict) -> bool:
    """Does the answer assert a forbidden value (see the module docstring)?"""
    pattern = word_pattern(needle)
    if values and any(needle in _named(segment, [needle]) for _, segment in _segments(values, text)):
        return True
    for clause in re.split(r"\n|(?<=[.!?;])\s+", text):
        if not pattern.search(clause):
            continue
        rest = pattern.sub(" ", clause)
        if commitment.hedges(rest) or commitment.claims(clause):
            return True
        if not values and not commitment.rejects(rest):
            return True
    return False


def _uncommitted(spec: dict, text: str) -> list[str]:
    """The commitment rule over the whole answer: alternatives, a correction naming another value, an admission."""
    offered = commitment.alternatives(text)
    if offered:
        return [f"ambiguous answer: alternatives offered ({', '.join(offered[:3])})"]
    values = spec.get("values") or {}
    held = [str(v) for v in values.values()] + [str(x) for item in spec.get("all") or [] for x in as_list(item)]
    held_numbers = {n.value for x in held for n in numbers(x)}
    wrong = [str(x) for x in [*(spec.get("decoys") or []), *(spec.get("forbidden") or [])]]
    for claim in commitment.claims(text):
        other = [n.text for n in numbers(claim.value)[:1]
                 if n.value not in held_numbers and (claim.corrects or n.start == 0)]
        other += [w for w in wrong if word_pattern(w).search(claim.value)]
        if other:
            return [f"ambiguous answer: corrected to {other[0]!r} ({claim.cue})"]
    taken_back = commitment.admission(text)
    return [f'ambiguous answer: taken back ("{taken_back}")'] if taken_back else []


def _show_number(n: Fraction) -> str:
    return str(n.numerator) if n.denominator == 1 else str(float(n))


def _instead(item, text: str) -> str:
    """For a required `Label: value` the answer gives another value for, what it says instead."""
    for needle in item if isinstance(item, list) else [item]:
        label, colon, _ = str(needle).partition(":")
        line = re.search(rf"^[^\n]*?\b{re.escape(label.strip())}\s*:[^\n]*", text, re.M | re.I) if colon else None
        if line:
            return f" (it says {line.group(0).strip()[:80]!r})"
    return ""


def answer_problems(spec: dict, answer: str, sources: str) -> list[str]:
    text = plain(answer)
    problems = []
    values = spec.get("values") or {}

    def found(needle) -> bool:
        return word_pattern(str(needle)).search(text) is not None

    banned = [n for n in spec.get("forbidden") or [] if _asserted(text, str(n), values)]
    if banned:
        problems.append(f"answer names {', '.join(repr(str(b)) for b in banned)}, which is not the answer "
                        "(a decoy in the tools' data, or a hedge)")
    if "json" in spec:
        json_spec = spec["json"]
        data, why = json_object.locate(answer, "object", sources)
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
        problems.append(f"answer lacks {label!r}{more}{_instead(missing[0], text)}")
    if values:
        inputs = frozenset(n.value for n in numbers(sources))
        problems += value_problems(values, text, spec.get("decoys") or [], inputs)
    if not problems:  # a hedge already reported is not reported again as a correction
        problems += _uncommitted(spec, text)
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
