"""checks: instruction following, as a list of programmatic constraints.

    grader:
      type: checks
      constraints:
        - {kind: word_count, min: 50, max: 150}
        - {kind: ends_with, text: "Done."}

Every constraint is recorded in details["constraints"] as {kind, passed, note}; the grade passes when
all pass. Constraints look at the reply with reasoning, preambles and whole-reply markdown wrappers
removed, except `no_preamble`, `max_ratio` and `forbidden_words`, which look at the reply as sent
(minus reasoning): a preamble is part of what they measure.

Kinds (min / max are inclusive and either may be left out):
  word_count, sentence_count, line_count (non-empty lines), char_count, bullet_count,
  numbered_list {min, max}
  starts_with / ends_with {text, case_sensitive: false}
  case {value: lower | upper}
  required_words / forbidden_words {words: [...]}      whole words, case-insensitive
  keyword_count {word, min, max}
  line_format {pattern, all: true, min_lines}          all: every non-empty line fully matches
                                                       (and at least min_lines lines exist);
                                                       all: false: at least min_lines (default 1) do
  json_shape {required: {key: type}, exact, extra_keys}   as the json grader
  max_ratio {value}                                    len(reply) / len(prompt) at most value
  no_preamble                                          does not open "Sure! Here's ..."
  contains_number {value}                              the number appears (1,234 == 1234)
"""

from __future__ import annotations

import re

from ..extract import (
    clean_answer,
    find_json,
    has_preamble,
    numbers,
    parse_number,
    plain,
    strip_reasoning,
    word_pattern,
)
from . import json_object
from .base import Grade

_WORD = re.compile(r"[^\W_]+(?:[-'.,][^\W_]+)*")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?…])\s+|\n+")
_BULLET = re.compile(r"^\s*[-*+•]\s+\S")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+\S")


def words(text: str) -> list[str]:
    """Words as a reader counts them: "don't", "well-known", "3.14" and "1,000" are one word each."""
    return _WORD.findall(plain(text))


def sentences(text: str) -> list[str]:
    """Sentences end at . ! ? followed by space, and at every line break (bullets count)."""
    return [s for s in _SENTENCE_BREAK.split(plain(text)) if re.search(r"\w", s)]


def lines(text: str) -> list[str]:
    return [ln for ln in text.split("\n") if ln.strip()]


def _flat(text: str) -> str:
    return " ".join(plain(text).split())


def _quote(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return f'"{text[:limit]}…"' if len(text) > limit else f'"{text}"'


def _count(n: int, c: dict) -> tuple[bool, str]:
    if c.get("min") is not None and n < c["min"]:
        return False, f"{n} < {c['min']}"
    if c.get("max") is not None and n > c["max"]:
        return False, f"{n} > {c['max']}"
    return True, str(n)


# Each check: (text, raw, case, constraint) -> (passed, note). `text` is the cleaned answer,
# `raw` the reply as sent without reasoning.

def _starts_with(text, raw, case, c):
    cs = c.get("case_sensitive", False)
    got, want = _flat(text), " ".join(str(c["text"]).split())
    ok = got.startswith(want) if cs else got.casefold().startswith(want.casefold())
    return ok, f'"{want}"' if ok else f'"{want}" (reply starts {_quote(got[:len(want) + 20])})'


def _ends_with(text, raw, case, c):
    cs = c.get("case_sensitive", False)
    got, want = _flat(text), " ".join(str(c["text"]).split())
    ok = got.endswith(want) if cs else got.casefold().endswith(want.casefold())
    return ok, f'"{want}"' if ok else f'"{want}" (reply ends "…{got[-(len(want) + 20):]}")'


def _case(text, raw, case, c):
    wrong = str.isupper if c["value"] == "lower" else str.islower
    bad = [w for w in words(text) if any(wrong(ch) for ch in w)]
    if not bad:
        return True, c["value"]
    examples = ", ".join(_quote(w, 20) for w in bad[:3])
    return False, f"{len(bad)} word{'s' if len(bad) > 1 else ''} not {c['value']}case: {examples}"


def _required_words(text, raw, case, c):
    missing = [w for w in c["words"] if not word_pattern(str(w)).search(plain(text))]
    return not missing, ("all present" if not missing
                         else "missing " + ", ".join(f'"{w}"' for w in missing))


def _forbidden_words(text, raw, case, c):
    found = [w for w in c["words"] if word_pattern(str(w)).search(plain(raw))]
    return not found, ("none present" if not found else "found " + ", ".join(f'"{w}"' for w in found))


def _keyword_count(text, raw, case, c):
    ok, note = _count(len(word_pattern(str(c["word"])).findall(plain(text))), c)
    return ok, f'"{c["word"]}" {note}'


def _line_format(text, raw, case, c):
    pattern = re.compile(c["pattern"])
    body = lines(text)
    matching = [ln for ln in body if pattern.fullmatch(ln.strip())]
    need = c.get("min_lines")
    if c.get("all", True):
        bad = next((i for i, ln in enumerate(body) if not pattern.fullmatch(ln.strip())), None)
        if bad is not None:
            return False, f"line {bad + 1} {_quote(body[bad])} does not match"
        if need is not None and len(body) < need:
            return False, f"{len(body)} lines < {need}"
        return True, f"{len(body)} lines match"
    need = 1 if need is None else need
    ok = len(matching) >= need
    return ok, f"{len(matching)} matching lines" + ("" if ok else f" < {need}")


def _json_shape(text, raw, case, c):
    found = find_json(text, "object")
    if found is None:
        return False, "no JSON object"
    problems = json_object.shape_problems(found.value, c.get("required", {}), c.get("exact", {}),
                                          c.get("extra_keys", True))
    return not problems, problems[0] if problems else "shape ok"


def _max_ratio(text, raw, case, c):
    prompt = case.prompt_chars
    if not prompt:
        return False, "the case has no prompt text to compare with"
    ratio = len(raw) / prompt
    ok = ratio <= c["value"]
    return ok, f"{ratio:.2g} {'<=' if ok else '>'} {c['value']} ({len(raw)} chars for a {prompt}-char prompt)"


def _no_preamble(text, raw, case, c):
    if has_preamble(raw):
        return False, f"opens with {_quote(raw, 30)}"
    return True, "none"


def _contains_number(text, raw, case, c):
    want = parse_number(c["value"])
    ok = any(n.value == want for n in numbers(plain(text)))
    return ok, f"{c['value']}" if ok else f"no {c['value']} in the reply"


def _counter(measure):
    return lambda text, raw, case, c: _count(measure(text), c)


# kind -> (check, required params, optional params)
_COUNT = ((), ("min", "max"))
KINDS = {
    "word_count": (_counter(lambda t: len(words(t))), *_COUNT),
    "sentence_count": (_counter(lambda t: len(sentences(t))), *_COUNT),
    "line_count": (_counter(lambda t: len(lines(t))), *_COUNT),
    "char_count": (_counter(len), *_COUNT),
    "bullet_count": (_counter(lambda t: sum(bool(_BULLET.match(ln)) for ln in lines(t))), *_COUNT),
    "numbered_list": (_counter(lambda t: sum(bool(_NUMBERED.match(ln)) for ln in lines(t))), *_COUNT),
    "starts_with": (_starts_with, ("text",), ("case_sensitive",)),
    "ends_with": (_ends_with, ("text",), ("case_sensitive",)),
    "case": (_case, ("value",), ()),
    "required_words": (_required_words, ("words",), ()),
    "forbidden_words": (_forbidden_words, ("words",), ()),
    "keyword_count": (_keyword_count, ("word",), ("min", "max")),
    "line_format": (_line_format, ("pattern",), ("all", "min_lines")),
    "json_shape": (_json_shape, ("required",), ("exact", "extra_keys")),
    "max_ratio": (_max_ratio, ("value",), ()),
    "no_preamble": (_no_preamble, (), ()),
    "contains_number": (_contains_number, ("value",), ()),
}


def _param_problems(kind: str, c: dict) -> list[tuple[str, str]]:
    problems = []

    def bad(key, message):
        problems.append((key, message))

    for key in ("min", "max", "min_lines"):
        v = c.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            bad(key, f"{key} is a whole number >= 0, got {v!r}")
    if kind in ("word_count", "sentence_count", "line_count", "char_count", "bullet_count",
                "numbered_list", "keyword_count") and c.get("min") is None and c.get("max") is None:
        bad("min", f"{kind} needs min, max or both")
    if isinstance(c.get("min"), int) and isinstance(c.get("max"), int) and c["min"] > c["max"]:
        bad("max", f"max {c['max']} is below min {c['min']}")
    for key in ("case_sensitive", "all", "extra_keys"):
        if key in c and not isinstance(c[key], bool):
            bad(key, f"{key} is true or false")
    if kind in ("starts_with", "ends_with") and not str(c.get("text", "")).strip():
        bad("text", "write the text the reply must start / end with")
    if kind == "case" and c.get("value") not in ("lower", "upper"):
        bad("value", "value is lower or upper")
    if kind in ("required_words", "forbidden_words"):
        ws = c.get("words")
        if not isinstance(ws, list) or not ws or not all(isinstance(w, (str, int)) and str(w).strip()
                                                          for w in ws):
            bad("words", "words is a non-empty list of words or phrases")
    if kind == "keyword_count" and not str(c.get("word", "")).strip():
        bad("word", "write the word to count")
    if kind == "line_format":
        try:
            re.compile(c.get("pattern"))
        except (re.error, TypeError) as exc:
            bad("pattern", f"does not compile: {exc}")
    if kind == "json_shape":
        problems += json_object.check_required(c.get("required"))
        if not isinstance(c.get("exact", {}), dict):
            bad("exact", "exact maps keys to the values they must hold")
    if kind == "max_ratio":
        v = c.get("value")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
            bad("value", "value is the largest allowed reply/prompt length ratio, a number > 0")
    if kind == "contains_number" and parse_number(c.get("value")) is None:
        bad("value", f"{c.get('value')!r} is not a single number")
    return problems


def check(spec: dict) -> list[tuple[str | None, str]]:
    problems = [(k, "unknown field; allowed: constraints, type") for k in spec
                if k not in ("type", "constraints")]
    constraints = spec.get("constraints")
    if not isinstance(constraints, list) or not constraints:
        return problems + [("constraints", "constraints is a non-empty list, e.g. "
                                           "[{kind: word_count, max: 150}]")]
    for i, c in enumerate(constraints):
        at = f"constraints[{i}]"
        if not isinstance(c, dict) or c.get("kind") not in KINDS:
            got = c.get("kind") if isinstance(c, dict) else c
            problems.append((f"{at}.kind", f"unknown constraint kind {got!r}; use one of "
                                           f"{', '.join(sorted(KINDS))}"))
            continue
        _, required, optional = KINDS[c["kind"]]
        allowed = {"kind", *required, *optional}
        problems += [(f"{at}.{k}", f"unknown parameter for {c['kind']}; allowed: "
                                   f"{', '.join(sorted(allowed - {'kind'})) or 'none'}")
                     for k in c if k not in allowed]
        missing = [(f"{at}.{k}", f"{c['kind']} needs {k}") for k in required if k not in c]
        problems += missing or [(f"{at}.{k}", m) for k, m in _param_problems(c["kind"], c)]
    return problems


def evaluate(spec: dict, content: str, case) -> list[dict]:
    """Every constraint's {kind, passed, note}."""
    text, raw = clean_answer(content), strip_reasoning(content or "").strip()
    results = []
    for c in spec["constraints"]:
        passed, note = KINDS[c["kind"]][0](text, raw, case, c)
        results.append({"kind": c["kind"], "passed": bool(passed), "note": note})
    return results


def grade(case, response) -> Grade:
    answer = clean_answer(response.content)
    if not answer:
        return Grade(False, "empty response")
    results = evaluate(case.grader, response.content, case)
    failed = [r for r in results if not r["passed"]]
    details = {"constraints": results}
    if failed:
        listed = "; ".join(f"{r['kind']} {r['note']}" for r in failed)
        return Grade(False, f"{len(failed)} of {len(results)} constraints failed: {listed}",
                     answer=answer, details=details)
    return Grade(True, "", answer=answer, details=details)
