"""checks: instruction following, as a list of programmatic constraints.

    grader:
      type: checks
      constraints:
        - {kind: word_count, min: 50, max: 150}
        - {kind: ends_with, text: "Done."}

A reply that offers labelled alternatives ("Version 1: ... Version 2: ...") or takes itself back ("I made an
error") fails as ambiguous whatever its constraints say (the commitment rule, commitment.py).

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
  table {header: [...], rows: [[...], ...]}            exactly one markdown table, with this header and these
                                                       rows in order (cells compared without emphasis and
                                                       repeated spaces; the |---| row and outer pipes optional)
  acrostic {text}                                      the first letters of the lines spell `text`
  paragraph_starts {paragraph, word}                   paragraph N (1 = first) opens with `word`
  placeholders {min, max, names: [...]}                square-bracket placeholders like [name]
  json_shape {required: {key: type}, exact, extra_keys}   as the json grader
  max_ratio {value}                                    len(reply) / len(prompt) at most value
  no_preamble                                          does not open "Sure! Here's ..."
  contains_number {value}                              the number appears (1,234 == 1234)
  sentence_initials {text}                             the first letters of the sentences spell `text`
  sentence_ends {marks}                                sentence k ends with mark k of `marks` (".", "?" or "!"),
                                                       the pattern repeating: marks "?.!" = ? . ! ? . ! ...
  ordered_words {words: [...]}                         every word appears, first occurrences in this order

A case whose reply has one exact content (a `lines_equal` or `table` constraint, or a `json_shape` with
`exact`) may re-derive it with a verify.solver: the solver prints the expected lines (the table as markdown
lines, or the JSON object on one line), and `crucible cases verify` compares them with the constraint
(compare_answer below).
"""

from __future__ import annotations

import json
import re

from pytest_crucible.grading import commitment, json_object
from pytest_crucible.grading.base import AnswerError, BaseGrader, Grade, RegexProbe
from pytest_crucible.grading.constraints import KINDS, lines, table_blocks, table_problem
from pytest_crucible.grading.extract import (
    clean_answer,
    parse_number,
    plain,
    strip_reasoning,
)
from pytest_crucible.grading.text import sentences, words

__all__ = ["GRADER", "KINDS", "check", "evaluate", "grade", "lines", "sentences", "words"]


_NEEDS_BOUND = ("word_count", "sentence_count", "line_count", "char_count", "paragraph_count", "bullet_count",
                "numbered_list", "keyword_count", "letter_count", "words_per_line", "sentence_words",
                "paragraph_sentences")
_PATTERNED = ("line_format", "line_matches")


def _is_count(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _cells(row) -> bool:
    return isinstance(row, list) and bool(row) and all(isinstance(x, (str, int)) and not isinstance(x, bool)
                                                       for x in row)


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
    if kind in ("required_words", "forbidden_words", "any_words", "ordered_words"):
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
            re.compile(c.get("pattern"))  # type: ignore[type-var]  # a missing pattern: the TypeError below
        except (re.error, TypeError) as exc:
            bad("pattern", f"does not compile: {exc}")
    if kind == "line_matches" and (isinstance(c.get("line"), bool) or not isinstance(c.get("line"), int)
                                   or c["line"] == 0):
        bad("line", "line is a line number: 1 for the first, -1 for the last")
    if kind == "table" and not (_cells(c.get("header")) and isinstance(c.get("rows"), list) and c["rows"]
                                and all(_cells(r) and len(r) == len(c["header"]) for r in c["rows"])):
        bad("rows", "header is a list of column names and rows a non-empty list of rows with one cell per column")
    if kind == "lines_equal" and (not isinstance(c.get("lines"), list) or not c["lines"]
                                  or not all(isinstance(x, (str, int)) and str(x).strip() for x in c["lines"])):
        bad("lines", "lines is a non-empty list of the exact lines expected")
    if kind in ("acrostic", "sentence_initials") and not (isinstance(c.get("text"), str) and c["text"].isalpha()):
        bad("text", "text is the word the line initials spell, letters only")
    if kind == "sentence_ends" and not (isinstance(c.get("marks"), str) and c["marks"]
                                        and set(c["marks"]) <= set(".?!")):
        bad("marks", "marks is the pattern of sentence endings, made of . ? and ! (e.g. \"?.!\")")
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


def _uncommitted(answer: str) -> str:
    offered = commitment.alternatives(plain(answer))
    if offered:
        return f"ambiguous answer: alternatives offered ({', '.join(offered[:3])})"
    taken_back = commitment.admission(answer)
    return f'ambiguous answer: taken back ("{taken_back}")' if taken_back else ""


def grade(case, response) -> Grade:
    answer = clean_answer(response.content)
    if not answer:
        return Grade(False, "empty response", details={"strict": 0.0, "loose": 0.0})
    results = evaluate(case.grader, response.content, case)
    failed = [r for r in results if not r["passed"]]
    details = {"constraints": results, "strict": _score(results, "passed"), "loose": _score(results, "loose")}
    uncommitted = _uncommitted(answer)
    if uncommitted:  # the commitment rule: one reply, not several to choose from
        return Grade(False, uncommitted, answer=answer, details={**details, "strict": 0.0})
    if failed:
        n, loose = len(results), sum(r["loose"] for r in results)
        listed = "; ".join(f"{r['kind']} {r['note']}" for r in failed)
        return Grade(False, f"{len(failed)} of {n} constraints failed (loose {loose}/{n}): {listed}",
                     answer=answer, details=details)
    return Grade(True, "", answer=answer, details=details)


def exact_content(spec: dict) -> dict | None:
    """The constraint that fixes a reply's content exactly (lines_equal or table, else json_shape with exact)."""
    constraints = [c for c in spec.get("constraints") or [] if isinstance(c, dict)]
    return (next((c for c in constraints if c.get("kind") in ("lines_equal", "table")), None)
            or next((c for c in constraints if c.get("kind") == "json_shape" and c.get("exact")), None))


def compare_content(spec: dict, derived: list[str]) -> str | None:
    """None when a solver's printed lines are the exact content the spec's constraint asks for."""
    target = exact_content(spec)
    if target is None:
        return "the checks grader has no exact content (lines_equal, table, or json_shape with exact) to compare with"
    if target["kind"] == "table":
        why = table_problem(table_blocks("\n".join(str(ln) for ln in derived)), target["header"], target["rows"])
        return None if why is None else f"table: {why}"
    if target["kind"] == "lines_equal":
        got = [" ".join(str(ln).split()) for ln in derived]
        want = [" ".join(str(ln).split()) for ln in target["lines"]]
        bad = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)
        if bad is not None:
            return f"lines_equal expects line {bad + 1} {want[bad]!r}, not {got[bad]!r}"
        return None if len(got) == len(want) else f"lines_equal expects {len(want)} lines, not {len(got)}"
    if len(derived) != 1:
        return f"json_shape expects one JSON object on one line, not {len(derived)} lines"
    try:
        data = json.loads(derived[0])
    except json.JSONDecodeError:
        return f"json_shape expects a JSON object, not {derived[0][:60]!r}"
    problems = json_object.shape_problems(data, target.get("required") or {}, target["exact"],
                                          target.get("extra_keys", True))
    return f"json_shape: {problems[0]}" if problems else None


class ChecksGrader(BaseGrader):
    compares_answers = True

    def check(self, spec: dict) -> list[tuple[str | None, str]]:
        return check(spec)

    def grade(self, case, response) -> Grade:
        return grade(case, response)

    def read_solver_output(self, spec: dict, lines: list[str]) -> list[str]:
        if exact_content(spec) is None:
            raise AnswerError("has nothing to compare with: the checks grader needs a lines_equal or table "
                              "constraint or a json_shape with exact")
        return lines

    def compare_answer(self, spec: dict, derived) -> str | None:
        return compare_content(spec, derived if isinstance(derived, list) else [str(derived)])

    def patterns(self, spec: dict) -> list[RegexProbe]:
        return [RegexProbe(f"grader.constraints[{i}].pattern", c["pattern"], 0, "fullmatch")
                for i, c in enumerate(spec.get("constraints") or [])
                if isinstance(c, dict) and isinstance(c.get("pattern"), str)]


GRADER = ChecksGrader()
