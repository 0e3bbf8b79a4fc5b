"""Getting the gradable answer out of a model's reply.

Pure text functions, shared by every grader:

- `clean_answer`   reasoning, polite preambles and whole-reply markdown wrappers removed;
- `code_blocks`    fenced code blocks with their language (graders/code.py picks the one to run);
- `find_answer`    the explicit answer line (`Answer: 42`, `\\boxed{42}`, `#### 42`), last one wins;
- `marked_answers` every answer the reply marks, in order (a grader that refuses hedges reads them all);
- `find_json`      a JSON object or array inside fences or prose (balanced scan, strings respected);
- `numbers`        every number written in a text, as exact fractions;
- `plain` / `normalize`, `word_pattern`, `words` / `sentences` / `paragraphs` / `list_item` / `line_text`:
  text normalisation and prose structure, from grading/text.py (imported from here too).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction

from pytest_crucible.client.reasoning_split import split as split_reasoning
from pytest_crucible.grading.latex import latex_text
from pytest_crucible.grading.text import (
    ListItem,
    line_text,
    list_item,
    normalize,
    paragraphs,
    plain,
    sentences,
    word_pattern,
    words,
)

# ---------------------------------------------------------------- reasoning

def strip_reasoning(text: str) -> str:
    """The answer part of a reply text (reasoning blocks removed by the rules of reasoning.split, which the
    client applies too), without the whitespace around it."""
    return split_reasoning(text or "").answer.strip()


# ---------------------------------------------------------------- preambles

_POLITE = (r"(?:sure\s+thing|certainly|of\s+course|absolutely|great\s+question|good\s+question|"
           r"no\s+problem|happy\s+to\s+help|glad\s+to\s+help|here\s+you\s+go|"
           r"i(?:'|’)?d\s+be\s+(?:happy|glad)\s+to(?:\s+help)?(?:\s+with\s+that)?|"
           r"i\s+would\s+be\s+(?:happy|glad)\s+to(?:\s+help)?(?:\s+with\s+that)?)")
# Words that are polite only when punctuation follows ("Sure!", but not "Sure enough", "Great Britain").
_AMBIGUOUS = r"(?:sure|okay|ok|alright|all\s+right|great|gladly)"
_INTERJECTION = rf"(?:{_POLITE}|{_AMBIGUOUS})"
_LEAD_IN = (r"(?:here(?:'|’)?s|here\s+is|here\s+are|here\s+it\s+is|here\s+they\s+are|below\s+is|below\s+are|"
            r"the\s+following\s+is|"
            r"as\s+requested)")
# "Sure!" / "Certainly." / "Of course, happy to help!" on their own.
_INTERJECTION_SENTENCE = re.compile(
    rf"^[ \t]*{_INTERJECTION}(?:[ \t]*,?[ \t]*{_INTERJECTION})*[ \t]*[!.:]+[ \t]*(?:\n\s*|(?=\S)|$)", re.I)
# "Sure, here's your answer:" / "Here is the JSON you asked for:".
_LEAD_IN_SENTENCE = re.compile(
    rf"^[ \t]*(?:{_INTERJECTION}[ \t]*[,!.]?[ \t]*)?{_LEAD_IN}\b[^:\n]{{0,100}}:[ \t]*\n?\s*", re.I)
# An interjection followed by more text; "OK." or "Certainly." alone is an answer, not a preamble.
_PREAMBLE_OPENING = re.compile(
    rf"^[\s*_#>]*(?:(?:{_POLITE}(?!\w)|{_AMBIGUOUS}[ \t]*[,!.:])[\s*_.,!:\-–—]*\w|{_LEAD_IN}(?!\w))", re.I)


def has_preamble(text: str) -> bool:
    """Does the reply open with a polite preamble ("Sure, ...", "Here is ...")?"""
    return bool(_PREAMBLE_OPENING.match(strip_reasoning(text)))


def strip_preamble(text: str) -> str:
    """Remove whole preamble sentences from the start; never strips a reply down to nothing."""
    out = text.lstrip()
    while True:
        m = _INTERJECTION_SENTENCE.match(out) or _LEAD_IN_SENTENCE.match(out)
        if not m or not out[m.end():].strip():
            return out
        out = out[m.end():].lstrip()


# ---------------------------------------------------------------- markdown

@dataclass(frozen=True)
class CodeBlock:
    language: str   # lower-cased first word of the info string; "" when untagged
    code: str
    closed: bool    # False when the reply ended inside the fence


_FENCE_OPEN = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*([^\s`]*)[^`\n]*$")

_LANG_ALIASES = {
    "py": "python", "python3": "python", "py3": "python", "js": "javascript", "node": "javascript",
    "ts": "typescript", "sh": "bash", "shell": "bash", "zsh": "bash", "console": "bash",
    "c++": "cpp", "cxx": "cpp", "cc": "cpp", "rs": "rust", "golang": "go", "yml": "yaml",
    "md": "markdown", "text": "", "txt": "", "plaintext": "",
}


def _lang(name: str) -> str:
    name = name.lower().lstrip("{.").rstrip("}")
    return _LANG_ALIASES.get(name, name)


def code_blocks(text: str) -> list[CodeBlock]:
    """Every fenced block in order. An unclosed fence runs to the end of the reply."""
    blocks: list[CodeBlock] = []
    lines = (text or "").split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3)
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body, i, closed = [], i + 1, False
        while i < len(lines):
            if close.match(lines[i]):
                closed = True
                i += 1
                break
            line = lines[i]
            # Fences inside list items are indented; take the same indent off the body.
            body.append(line[indent:] if line[:indent].strip() == "" else line.lstrip())
            i += 1
        blocks.append(CodeBlock(_lang(info), "\n".join(body), closed))
    return blocks


_WRAPPERS = (("**", "**"), ("`", "`"), ("*", "*"))  # not "_": it would eat __dunder__ names


def unwrap(text: str) -> str:
    """Take off markdown that wraps the whole reply: one fenced block, bold, italics or backticks."""
    s = text.strip()
    blocks = code_blocks(s)
    if len(blocks) == 1 and _FENCE_OPEN.match(s.split("\n", 1)[0]):
        fence = _FENCE_OPEN.match(s.split("\n", 1)[0]).group(2)
        if not blocks[0].closed or s.rstrip().endswith(fence):
            return blocks[0].code.strip()
    for left, right in _WRAPPERS:
        inner = s[len(left):-len(right)] if len(s) > len(left) + len(right) else ""
        if s.startswith(left) and s.endswith(right) and inner.strip() and left not in inner \
                and inner == inner.strip():
            return inner
    return s


def clean_answer(text: str) -> str:
    """Reasoning, preambles and whole-reply wrappers removed. Idempotent."""
    out = (text or "").strip()
    while True:  # every step only shortens the text, so this reaches a fixed point
        new = unwrap(strip_preamble(strip_reasoning(out))).strip()
        if new == out:
            return out
        out = new


# ---------------------------------------------------------------- numbers

_NBSP = "\u00a0\u202f\u2009"
_NUM = rf"(?:\d{{1,3}}(?:,\d{{3}})+(?!\d)|\d{{1,3}}(?:[{_NBSP}]\d{{3}})+(?!\d)|\d+)(?:\.\d+)?"
_NUMBER = re.compile((
    r"(?<![\w.])(?P<sign>[-+])?(?:"
    r"\\[dt]?frac\{\s*(?P<fn>-?\d+(?:\.\d+)?)\s*\}\{\s*(?P<fd>-?\d+(?:\.\d+)?)\s*\}"   # \frac{3}{4}
    r"|(?P<mw>\d+) (?P<mn>\d+)/(?P<md>\d+)(?![\d.])"                                # 2 1/2
    r"|(?P<n>\d+) ?/ ?(?P<d>\d+)(?![\d.])"                                          # 3/4
    rf"|(?P<m>{_NUM}) ?(?:×|x|\*|\\times|\\cdot) ?10 ?\^ ?\{{?(?P<e>[-+]?\d{{1,3}})(?!\d)\}}?"  # 1.5 × 10^6
    rf"|(?P<v>{_NUM}(?:[eE][-+]?\d{{1,3}}(?!\d))?|\.\d+)"
    r")").replace(r"[\d.]", "[0-9.]").replace(r"\d", "[0-9]"))  # ASCII digits only; \w stays Unicode


@dataclass(frozen=True)
class Number:
    value: Fraction
    text: str
    start: int


def _to_fraction(s: str) -> Fraction:
    return Fraction(s.replace(",", "").translate({ord(c): None for c in _NBSP}))


def numbers(text: str) -> list[Number]:
    """Every number in the text, in order: integers, decimals, thousands separators (1,234,567 or
    thin spaces; not plain spaces, which separate list items), fractions (3/4, 2 1/2, \\frac{3}{4}),
    scientific notation. Numbers glued to a preceding letter ("x2", "CO2") are not numbers."""
    text = (text or "").replace("−", "-")
    out: list[Number] = []
    for m in _NUMBER.finditer(text):
        g = m.groupdict()
        try:
            if g["fn"] is not None:
                value = _to_fraction(g["fn"]) / _to_fraction(g["fd"])
            elif g["mw"] is not None:
                num, den = int(g["mn"]), int(g["md"])
                if not 0 < num < den:  # "10 11/3" is 10 and then 11/3, not a mixed number
                    out.append(Number(_signed(Fraction(int(g["mw"])), g), text[m.start():m.end("mw")],
                                      m.start()))
                    out.extend(numbers_from(text, m.start("mn"), m.end()))
                    continue
                value = int(g["mw"]) + Fraction(num, den)
            elif g["n"] is not None:
                value = Fraction(int(g["n"]), int(g["d"]))
            elif g["m"] is not None:
                value = _to_fraction(g["m"]) * Fraction(10) ** int(g["e"])
            else:
                value = _to_fraction(g["v"])
        except ZeroDivisionError:  # "1/0", "\frac{1}{0}": not a value, and not worth guessing
            continue
        except ValueError:  # beyond int()'s digit limit
            continue
        out.append(Number(_signed(value, g), m.group(0), m.start()))
    return out


def numbers_from(text: str, start: int, end: int) -> list[Number]:
    return [Number(n.value, n.text, n.start + start) for n in numbers(text[start:end])]


def _signed(value: Fraction, groups: dict) -> Fraction:
    return -value if groups["sign"] == "-" else value


def parse_number(text) -> Fraction | None:
    """A value written as a single number (int, float, "3/4", "1,234"); None otherwise."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return Fraction(text)
    if isinstance(text, float):
        return Fraction(repr(text)) if text == text and abs(text) != float("inf") else None
    if not isinstance(text, str):
        return None
    found = numbers(text.strip())
    if len(found) == 1 and normalize(text.replace(found[0].text, "")) == "":
        return found[0].value
    return None


def format_number(value: Fraction) -> str:
    """44, -2.5, 1/3: the shortest faithful spelling."""
    if value.denominator == 1:
        return str(value.numerator)
    den = value.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    if den != 1:
        return f"{value.numerator}/{value.denominator}"
    with localcontext() as ctx:  # a terminating decimal: exact, however long
        ctx.prec = len(str(abs(value.numerator))) + value.denominator.bit_length() + 2
        text = format(Decimal(value.numerator) / Decimal(value.denominator), "f")
    return text.rstrip("0").rstrip(".")


# ---------------------------------------------------------------- answer line

_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
_LABEL = re.compile(
    r"(?:^|(?<=[.!?])[ \t]+)[ \t>*_#\-]*(?:(?:the|my|your)\s+)?(?:final|short|correct)?[ \t]*"
    r"answer[ \t]*(?:[*_]+[ \t]*)?(?:[:=：]|[*_]*[ \t]*$)[ \t]*(?:[*_]+(?=[ \t]|$))?",
    re.I | re.M)
_ANSWER_IS = re.compile(r"\b(?:final\s+)?answer\s+(?:is|would\s+be|will\s+be)\b(?!\s*not\b)[ \t:]*", re.I)
_HASHES = re.compile(r"^####[ \t]+(\S.*)$", re.M)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
# "3\u20139" is a range, "3 to 9", not the subtraction that plain() would make of it
_EN_DASH_RANGE = re.compile(r"([0-9])\s*\u2013\s*([0-9])")
_MATH_DELIMS = re.compile(r"^\$+|\$+$|^\\[(\[]|\\[)\]]$")


_NEXT_LINE = re.compile(r"\n\s*?([^\n]*\S[^\n]*)")


def _line_at(text: str, start: int) -> str:
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def _balanced(text: str, start: int) -> str | None:
    """Content of the brace group opened just before `start`."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start:i]
    return None


def _tidy(answer: str, boxed: bool = False) -> str:
    answer = plain(_EN_DASH_RANGE.sub(r"\1 to \2", latex_text(answer))).strip()
    prev = None
    while prev != answer:
        prev = answer
        answer = _MATH_DELIMS.sub("", answer.strip(" \t*`")).strip()
        answer = answer.rstrip(".,;:").strip()
        if not (boxed and re.search(r"[0-9}]!$", answer)):  # in a box, 5! is a factorial
            answer = answer.rstrip("!").strip()
    return answer


@dataclass(frozen=True)
class MarkedAnswer:
    text: str    # the marked answer, tidied (markdown, LaTeX, math delimiters and end punctuation off)
    start: int   # where its marker starts in the reply
    kind: str    # "label" (Answer: X), "heading" (an answer label alone, X on the next line),
    #              "boxed" (\\boxed{X}), "hashes" (#### X as the last line), "phrase" (the answer is X)
    end: int = 0  # where the marked answer ends in the reply: what follows it is read by the commitment rule


def marked_answers(text: str) -> list[MarkedAnswer]:
    """Every answer the reply marks, in reply order; markers with nothing after them are left out.

    Markers: `Answer: X` / `**Final answer:** X` (or the label alone with X on the next line),
    `the answer is X` (up to the end of its sentence), `\\boxed{X}`, and `#### X` as the last line.
    """
    text = text or ""
    found: list[tuple[int, str, str, int]] = []
    for m in _BOXED.finditer(text):
        inner = _balanced(text, m.end())
        if inner is not None:
            found.append((m.start(), inner, "boxed", m.end() + len(inner) + 1))
    for m in _LABEL.finditer(text):
        value, kind, end = _line_at(text, m.end()), "label", m.end()
        if not _tidy(value):  # label on its own line: the answer is on the next non-empty line
            nxt = _NEXT_LINE.search(text, m.end())
            value, kind, end = (nxt.group(1) if nxt else ""), "heading", (nxt.start(1) if nxt else end)
        found.append((m.start(), value, kind, end + len(value)))
    for m in _ANSWER_IS.finditer(text):
        line = _line_at(text, m.end())
        stop = _SENTENCE_END.search(line)
        value = line[:stop.start()] if stop else line
        found.append((m.start(), value, "phrase", m.end() + len(value)))
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if lines:
        m = _HASHES.match(lines[-1].strip())
        if m:
            found.append((text.rfind(lines[-1]), m.group(1), "hashes", len(text)))
    marked = (MarkedAnswer(_tidy(value, kind == "boxed"), start, kind, end)
              for start, value, kind, end in sorted(found))
    return [a for a in marked if a.text]


def counted_answers(text: str) -> list[MarkedAnswer]:
    """The marked answers that count as the reply's answer: `the answer is X` only after the last stronger
    marker (earlier it is working: "if order mattered, the answer would be 90"), and an answer heading only
    as the last marker (it may head a whole solution)."""
    marked = marked_answers(text)
    strong = [i for i, m in enumerate(marked) if m.kind != "phrase"]
    last_strong = strong[-1] if strong else -1
    return [m for i, m in enumerate(marked)
            if (m.kind != "phrase" or i > last_strong) and (m.kind != "heading" or i == len(marked) - 1)]


def find_answer(text: str) -> str | None:
    """The answer the reply marks as final (the last marker wins), or None when it marks none."""
    marked = marked_answers(text)
    return marked[-1].text if marked else None


# ---------------------------------------------------------------- JSON

@dataclass(frozen=True)
class FoundJSON:
    value: object
    raw: str


_JSON_TOKEN = re.compile(r'[\\"{}\[\]]')
_SCAN_BUDGET = 2_000_000  # bracket/quote tokens visited per source; bounds pathological replies


def _json_candidates(text: str, openers: str):
    """(start, span) for the balanced bracket span starting at each opener in turn, strings respected."""
    budget = _SCAN_BUDGET
    for start in (i for i, c in enumerate(text) if c in openers):
        depth, in_string, skip_at = 0, False, -1
        for tok in _JSON_TOKEN.finditer(text, start):
            budget -= 1
            if budget < 0:
                return
            c, at = tok.group(), tok.start()
            if at == skip_at:  # the character after a backslash inside a string
                continue
            if in_string:
                if c == "\\":
                    skip_at = at + 1
                elif c == '"':
                    in_string = False
            elif c == '"':
                in_string = True
            elif c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth == 0:
                    yield start, text[start:at + 1]
                    break


def _json_sources(text: str) -> list[str]:
    blocks = code_blocks(text)
    tagged = [b.code for b in blocks if b.language in ("json", "jsonc", "json5")]
    others = [b.code for b in blocks if b.language not in ("json", "jsonc", "json5")]
    return [*tagged, *others, text]


def find_json(text: str, root: str | None = None) -> FoundJSON | None:
    """The first JSON object (root="object"), array (root="array") or either (None) in the reply:
    inside ```json fences first, then other fences, then anywhere in the prose."""
    openers = {"object": "{", "array": "["}.get(root or "", "{[")
    want = {"object": dict, "array": list}.get(root or "", (dict, list))
    for source in _json_sources(strip_reasoning(text)):
        for _, candidate in _json_candidates(source, openers):
            try:
                value = json.loads(candidate)
            except (json.JSONDecodeError, RecursionError):
                continue
            if isinstance(value, want):
                return FoundJSON(value, candidate)
    return None


def find_all_json(text: str, root: str | None = None) -> list[FoundJSON]:
    """Every distinct JSON object (root="object"), array or either that the reply writes at top level (not one
    nested in another), in the order find_json looks: ```json fences, other fences, the prose."""
    openers = {"object": "{", "array": "["}.get(root or "", "{[")
    want = {"object": dict, "array": list}.get(root or "", (dict, list))
    out: list[FoundJSON] = []
    for source in _json_sources(strip_reasoning(text)):
        covered = -1
        for start, candidate in _json_candidates(source, openers):
            if start < covered:
                continue
            try:
                value = json.loads(candidate)
            except (json.JSONDecodeError, RecursionError):
                continue
            covered = start + len(candidate)
            if isinstance(value, want) and all(value != f.value for f in out):
                out.append(FoundJSON(value, candidate))
    return out


def json_error(text: str, root: str | None = None) -> str | None:
    """Why the first bracketed span that looks like JSON does not parse (for failure reasons)."""
    openers = {"object": "{", "array": "["}.get(root or "", "{[")
    for source in _json_sources(strip_reasoning(text)):
        for _, candidate in _json_candidates(source, openers):
            if '"' not in candidate and ":" not in candidate:
                continue  # "[1]" in prose, "{x}" in maths: not an attempt at JSON
            try:
                json.loads(candidate)
            except json.JSONDecodeError as exc:
                return f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
            except RecursionError:
                return "nested too deeply"
            return None
    return None


__all__ = ["CodeBlock", "FoundJSON", "ListItem", "MarkedAnswer", "Number", "clean_answer", "code_blocks",
           "counted_answers", "find_all_json", "find_answer", "find_json", "format_number", "has_preamble",
           "json_error", "line_text", "list_item",
           "marked_answers", "normalize", "numbers", "numbers_from", "paragraphs", "parse_number", "plain",
           "sentences", "strip_preamble", "strip_reasoning", "unwrap", "word_pattern", "words"]
