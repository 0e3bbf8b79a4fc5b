"""checks: instruction following, as a list of programmatic constraints.

    grader:
      type: checks
      constraints:
        - {kind: word_count, min: 50, max: 150}
        - {kind: ends_with, text: "Done."}

Every constraint is recorded in details["constraints"] as {kind, passed, loose, note}, with two
scores in details: `strict` (the share of constraints the reply meets as written) and `loose` (the
share it meets once markdown emphasis is taken off and/or its first or last line is dropped, so a
bolded line or a one-line preamble or sign-off is forgiven). The grade passes on the strict score
only: every constraint must hold strictly. The loose score shows how near a failed reply came.

Constraints look at the reply with reasoning, preambles and whole-reply markdown wrappers removed,
except `no_preamble`, `max_ratio`, `forbidden_words` and `letter_count`, which look at the reply as
sent (minus reasoning): what the user reads is what they measure. Word-level checks ignore markdown
emphasis (`**steel**` is the word steel); line-level patterns (`line_format`, `line_matches`,
`lines_equal`) see the line as written. Sentences know abbreviations and decimals, list items know
markdown markers (`**1.**`, `1)`, `- `, `* `), see extract.sentences / extract.list_item.

Kinds (min / max are inclusive and either may be left out):
  word_count, sentence_count, line_count (non-empty lines), char_count, paragraph_count
  (blocks between blank lines or `***` rules), bullet_count, numbered_list {min, max}
  numbered_list {sequential: true}                     the items are numbered 1, 2, 3, ... in order
  words_per_line / sentence_words {min, max}           every non-empty line / every sentence
  paragraph_sentences {min, max, paragraphs: [1, 2]}   sentences in each listed paragraph (default all)
  starts_with / ends_with {text, case_sensitive: false}
  case {value: lower | upper}
  required_words / forbidden_words {words: [...]}      whole words, case-insensitive
  any_words {words, min: 1}                            at least `min` of the words appear
  keyword_count {word, min, max}
  letter_count {letter, min, max}                      occurrences of one letter, any case
  line_format {pattern, all: true, min_lines, max_lines}
                                                       all: every non-empty line fully matches
                                                       (and at least min_lines lines exist);
                                                       all: false: min_lines (default 1) to
                                                       max_lines lines do
  line_matches {line, pattern}                         non-empty line `line` (1 = first, -1 = last)
                                                       fully matches
  lines_equal {lines: [...]}                           the non-empty lines are exactly these
  acrostic {text}                                      the first letters of the lines spell `text`
  paragraph_starts {paragraph, word}                   paragraph N (1 = first) opens with `word`
  placeholders {min, max, names: [...]}                square-bracket placeholders like [name]
  json_shape {required: {key: type}, exact, extra_keys}   as the json grader
  max_ratio {value}                                    len(reply) / len(prompt) at most value
  no_preamble                                          does not open "Sure! Here's ..."
  contains_number {value}                              the number appears (1,234 == 1234)
"""

from __future__ import annotations

import re

from pytest_crucible.grading import json_object
from pytest_crucible.grading.base import Grade
from pytest_crucible.grading.extract import (
    clean_answer,
    find_json,
    has_preamble,
    line_text,
    list_item,
    numbers,
    paragraphs,
    parse_number,
    plain,
    sentences,
    strip_reasoning,
    word_pattern,
    words,
)

__all__ = ["KINDS", "check", "evaluate", "grade", "lines", "sentences", "words"]


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


def _initial(line: str) -> str:
    """The first letter of a line as read (markers, emphasis and opening quotes skipped)."""
    return next((ch for ch in line_text(line) if ch.isalpha()), "")


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


def _present(text: str, wanted) -> list[str]:
    body = plain(text)
    return [str(w) for w in wanted if word_pattern(str(w)).search(body)]


def _required_words(text, raw, case, c):
    found = set(_present(text, c["words"]))
    missing = [str(w) for w in c["words"] if str(w) not in found]
    return not missing, ("all present" if not missing
                         else "missing " + ", ".join(f'"{w}"' for w in missing))


def _forbidden_words(text, raw, case, c):
    found = _present(raw, c["words"])
    return not found, ("none present" if not found else "found " + ", ".join(f'"{w}"' for w in found))


def _any_words(text, raw, case, c):
    found = _present(text, c["words"])
    need = c.get("min", 1)
    ok = len(found) >= need
    note = f"{len(found)} of {len(c['words'])}" + ("" if ok else f" < {need}")
    return ok, note + (f" ({', '.join(found[:4])})" if found else "")


def _keyword_count(text, raw, case, c):
    ok, note = _count(len(word_pattern(str(c["word"])).findall(plain(text))), c)
    return ok, f'"{c["word"]}" {note}'


def _letter_count(text, raw, case, c):
    letter = str(c["letter"]).casefold()
    ok, note = _count(sum(ch.casefold() == letter for ch in plain(raw)), c)
    return ok, f'"{c["letter"]}" {note}'


def _line_format(text, raw, case, c):
    pattern = re.compile(c["pattern"])
    body = lines(text)
    if c.get("all", True):
        bad = next((i for i, ln in enumerate(body) if not pattern.fullmatch(ln.strip())), None)
        if bad is not None:
            return False, f"line {bad + 1} {_quote(body[bad])} does not match"
        need = c.get("min_lines")
        if need is not None and len(body) < need:
            return False, f"{len(body)} lines < {need}"
        return True, f"{len(body)} lines match"
    matching = sum(bool(pattern.fullmatch(ln.strip())) for ln in body)
    ok, note = _count(matching, {"min": c.get("min_lines", 1), "max": c.get("max_lines")})
    return ok, f"{note} matching lines"


def _line_matches(text, raw, case, c):
    body, at = lines(text), c["line"]
    index = at - 1 if at > 0 else len(body) + at
    if not 0 <= index < len(body):
        return False, f"no line {at} ({len(body)} lines)"
    ok = re.fullmatch(c["pattern"], body[index].strip()) is not None
    return ok, f"line {at} {_quote(body[index])}" + ("" if ok else " does not match")


def _lines_equal(text, raw, case, c):
    got = [" ".join(ln.split()) for ln in lines(text)]
    want = [" ".join(str(ln).split()) for ln in c["lines"]]
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return False, f"line {i + 1} is {_quote(g)}, expected {_quote(w)}"
    if len(got) != len(want):
        return False, f"{len(got)} lines, expected {len(want)}"
    return True, f"{len(want)} lines"


def _per_line_words(text, raw, case, c):
    for i, ln in enumerate(lines(text)):
        ok, note = _count(len(words(line_text(ln))), c)
        if not ok:
            return False, f"line {i + 1} {_quote(ln, 30)} has {note}"
    return True, "every line"


def _sentence_words(text, raw, case, c):
    for i, s in enumerate(sentences(text)):
        ok, note = _count(len(words(s)), c)
        if not ok:
            return False, f"sentence {i + 1} {_quote(s, 30)} has {note} words"
    return True, "every sentence"


def _paragraph_sentences(text, raw, case, c):
    blocks = paragraphs(text)
    for n in c.get("paragraphs") or range(1, len(blocks) + 1):
        if n > len(blocks):
            return False, f"no paragraph {n} ({len(blocks)} paragraphs)"
        ok, note = _count(len(sentences(blocks[n - 1])), c)
        if not ok:
            return False, f"paragraph {n} has {note} sentences"
    return True, "every paragraph"


def _acrostic(text, raw, case, c):
    got = "".join(_initial(ln) for ln in lines(text))
    want = str(c["text"])
    ok = got.casefold() == want.casefold()
    return ok, f'initials "{got[:30]}"' + ("" if ok else f', expected "{want}"')


def _paragraph_starts(text, raw, case, c):
    blocks, n = paragraphs(text), c["paragraph"]
    if len(blocks) < n:
        return False, f"no paragraph {n} ({len(blocks)} paragraphs)"
    first = next(iter(words(line_text(blocks[n - 1].split("\n")[0]))), "")
    ok = first.casefold() == str(c["word"]).casefold()
    return ok, f'paragraph {n} opens "{first}"' + ("" if ok else f', expected "{c["word"]}"')


_PLACEHOLDER = re.compile(r"\[([^\[\]\n]{1,40})\](?!\()")


def _slot(name: str) -> str:
    return re.sub(r"[\s_-]+", "_", name.strip().casefold())


def _placeholders(text, raw, case, c):
    found = [_slot(m) for m in _PLACEHOLDER.findall(text)]
    missing = [n for n in c.get("names") or [] if _slot(str(n)) not in found]
    if missing:
        return False, "missing " + ", ".join(f"[{n}]" for n in missing)
    ok, note = _count(len(found), c)
    return ok, f"{note} placeholders"


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


def _numbered_list(text, raw, case, c):
    items = [it for it in map(list_item, lines(text)) if it and it.kind == "numbered"]
    ok, note = _count(len(items), c)
    if ok and c.get("sequential"):
        got = [it.number for it in items]
        if got != list(range(1, len(items) + 1)):
            return False, f"numbered {', '.join(map(str, got[:8]))}, expected 1 to {len(items)}"
    return ok, note


def _bullets(text: str) -> int:
    return sum(1 for it in map(list_item, lines(text)) if it and it.kind == "bullet")


def _counter(measure):
    return lambda text, raw, case, c: _count(measure(text), c)


# kind -> (check, required params, optional params)
_COUNT = ((), ("min", "max"))
KINDS = {
    "word_count": (_counter(lambda t: len(words(t))), *_COUNT),
    "sentence_count": (_counter(lambda t: len(sentences(t))), *_COUNT),
    "line_count": (_counter(lambda t: len(lines(t))), *_COUNT),
    "char_count": (_counter(len), *_COUNT),
    "paragraph_count": (_counter(lambda t: len(paragraphs(t))), *_COUNT),
    "bullet_count": (_counter(_bullets), *_COUNT),
    "numbered_list": (_numbered_list, (), ("min", "max", "sequential")),
    "words_per_line": (_per_line_words, *_COUNT),
    "sentence_words": (_sentence_words, *_COUNT),
    "paragraph_sentences": (_paragraph_sentences, (), ("min", "max", "paragraphs")),
    "starts_with": (_starts_with, ("text",), ("case_sensitive",)),
    "ends_with": (_ends_with, ("text",), ("case_sensitive",)),
    "case": (_case, ("value",), ()),
    "required_words": (_required_words, ("words",), ()),
    "forbidden_words": (_forbidden_words, ("words",), ()),
    "any_words": (_any_words, ("words",), ("min",)),
    "keyword_count": (_keyword_count, ("word",), ("min", "max")),
    "letter_count": (_letter_count, ("letter",), ("min", "max")),
    "line_format": (_line_format, ("pattern",), ("all", "min_lines", "max_lines")),
    "line_matches": (_line_matches, ("line", "pattern"), ()),
    "lines_equal": (_lines_equal, ("lines",), ()),
    "acrostic": (_acrostic, ("text",), ()),
    "paragraph_starts": (_paragraph_starts, ("paragraph", "word"), ()),
    "placeholders": (_placeholders, (), ("min", "max", "names")),
    "json_shape": (_json_shape, ("required",), ("exact", "extra_keys")),
    "max_ratio": (_max_ratio, ("value",), ()),
    "no_preamble": (_no_preamble, (), ()),
    "contains_number": (_contains_number, ("value",), ()),
}
_NEEDS_BOUND = ("word_count", "sentence_count", "line_count", "char_count", "paragraph_count", "bullet_count",
                "numbered_list", "keyword_count", "letter_count", "words_per_line", "sentence_words",
                "paragraph_sentences")
_PATTERNED = ("line_format", "line_matches")


def _is_count(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _param_problems(kind: str, c: dict) -> list[tuple[str, str]]:
    problems = []

    def bad(key, message):
        problems.append((key, message))

    for key in ("min", "max", "min_lines", "max_lines"):
        v = c.get(key)
        if v is not None and not _is_count(v):
            bad(key, f"{key} is a whole number >= 0, got {v!r}")
    if kind in _NEEDS_BOUND and c.get("min") is None and c.get("max") is None:
        bad("min", f"{kind} needs min, max or both")
    for lo, hi in (("min", "max"), ("min_lines", "max_lines")):
        if _is_count(c.get(lo)) and _is_count(c.get(hi)) and c[lo] > c[hi]:
            bad(hi, f"{hi} {c[hi]} is below {lo} {c[lo]}")
    for key in ("case_sensitive", "all", "extra_keys", "sequential"):
        if key in c and not isinstance(c[key], bool):
            bad(key, f"{key} is true or false")
    if kind in ("starts_with", "ends_with") and not str(c.get("text", "")).strip():
        bad("text", "write the text the reply must start / end with")
    if kind == "case" and c.get("value") not in ("lower", "upper"):
        bad("value", "value is lower or upper")
    if kind in ("required_words", "forbidden_words", "any_words"):
        ws = c.get("words")
        if not isinstance(ws, list) or not ws or not all(isinstance(w, (str, int)) and str(w).strip()
                                                          for w in ws):
            bad("words", "words is a non-empty list of words or phrases")
        elif kind == "any_words" and _is_count(c.get("min")) and c["min"] > len(ws):
            bad("min", f"min {c['min']} is more than the {len(ws)} words listed")
    if kind == "keyword_count" and not str(c.get("word", "")).strip():
        bad("word", "write the word to count")
    if kind == "letter_count" and not (isinstance(c.get("letter"), str) and len(c["letter"]) == 1
                                       and c["letter"].isalpha()):
        bad("letter", "letter is a single letter, e.g. letter: e")
    if kind in _PATTERNED:
        try:
            re.compile(c.get("pattern"))
        except (re.error, TypeError) as exc:
            bad("pattern", f"does not compile: {exc}")
    if kind == "line_matches" and (isinstance(c.get("line"), bool) or not isinstance(c.get("line"), int)
                                   or c["line"] == 0):
        bad("line", "line is a line number: 1 for the first, -1 for the last")
    if kind == "lines_equal" and (not isinstance(c.get("lines"), list) or not c["lines"]
                                  or not all(isinstance(x, (str, int)) and str(x).strip() for x in c["lines"])):
        bad("lines", "lines is a non-empty list of the exact lines expected")
    if kind == "acrostic" and not (isinstance(c.get("text"), str) and c["text"].isalpha()):
        bad("text", "text is the word the line initials spell, letters only")
    if kind == "paragraph_starts":
        if isinstance(c.get("paragraph"), bool) or not isinstance(c.get("paragraph"), int) or c["paragraph"] < 1:
            bad("paragraph", "paragraph is a paragraph number, 1 for the first")
        if not (isinstance(c.get("word"), str) and len(words(c["word"])) == 1):
            bad("word", "word is the single word the paragraph opens with")
    if kind == "paragraph_sentences" and c.get("paragraphs") is not None and (
            not isinstance(c["paragraphs"], list) or not c["paragraphs"]
            or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in c["paragraphs"])):
        bad("paragraphs", "paragraphs is a list of paragraph numbers, 1 for the first")
    if kind == "placeholders" and c.get("names") is not None and (
            not isinstance(c["names"], list) or not all(isinstance(n, str) and n.strip() for n in c["names"])):
        bad("names", "names is a list of placeholder names, e.g. [recipient, date]")
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


# ---------------------------------------------------------------- strict and loose

def _drop_line(text: str, first: bool, whole: int) -> str:
    """`text` without its first (or last) line when that line is an aside (at most half of the
    `whole` reply's characters): a preamble or a sign-off, never the body itself. "" otherwise."""
    body = text.strip().split("\n")
    line = body[0] if first else body[-1]
    if len(body) < 2 or len(line.strip()) * 2 > whole:
        return ""
    return "\n".join(body[1:] if first else body[:-1]).strip()


def loose_views(raw: str) -> list[tuple[str, str]]:
    """(text, raw) variants the loose score forgives: the reply with emphasis taken off, with its
    first line, its last line or both dropped, and each of those with emphasis off too. Empty
    variants are left out."""
    views, whole = [], len(raw.strip())
    for drop_first, drop_last in ((False, False), (True, False), (False, True), (True, True)):
        r = raw
        if drop_first:
            r = _drop_line(r, True, whole)
        if drop_last and r:
            r = _drop_line(r, False, whole)
        for variant in ((r, plain(r)) if (drop_first or drop_last) else (plain(r),)):
            text = clean_answer(variant)
            if text:
                views.append((text, variant))
    return views


def evaluate(spec: dict, content: str, case) -> list[dict]:
    """Every constraint's {kind, passed, loose, note}: `passed` is the strict result, `loose` whether
    the reply meets it once emphasis or a leading / trailing line is forgiven."""
    text, raw = clean_answer(content), strip_reasoning(content or "").strip()
    views = None
    results = []
    for c in spec["constraints"]:
        run = KINDS[c["kind"]][0]
        passed, note = run(text, raw, case, c)
        loose = bool(passed)
        if not loose:
            views = loose_views(raw) if views is None else views
            loose = any(run(t, r, case, c)[0] for t, r in views)
        results.append({"kind": c["kind"], "passed": bool(passed), "loose": loose, "note": note})
    return results


def _score(results: list[dict], key: str) -> float:
    return round(sum(r[key] for r in results) / len(results), 4) if results else 0.0


def grade(case, response) -> Grade:
    answer = clean_answer(response.content)
    if not answer:
        return Grade(False, "empty response", details={"strict": 0.0, "loose": 0.0})
    results = evaluate(case.grader, response.content, case)
    failed = [r for r in results if not r["passed"]]
    details = {"constraints": results, "strict": _score(results, "passed"), "loose": _score(results, "loose")}
    if failed:
        n, loose = len(results), sum(r["loose"] for r in results)
        listed = "; ".join(f"{r['kind']} {r['note']}" for r in failed)
        return Grade(False, f"{len(failed)} of {n} constraints failed (loose {loose}/{n}): {listed}",
                     answer=answer, details=details)
    return Grade(True, "", answer=answer, details=details)
