"""The constraints of the checks grader, by kind: each (text, raw, case, constraint) -> (passed, note).

`text` is the cleaned answer, `raw` the reply as sent without reasoning (see checks.py for which kinds
read which). KINDS maps a kind to (check, required params, optional params).
"""

from __future__ import annotations

import re

from pytest_crucible.grading import json_object
from pytest_crucible.grading.extract import has_preamble, numbers, parse_number
from pytest_crucible.grading.text import line_text, list_item, paragraphs, plain, sentences, word_pattern, words


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


_TABLE_RULE = re.compile(r":?-{3,}:?")


def table_blocks(text: str) -> list[list[list[str]]]:
    """The markdown tables of a text, each as rows of cells (the separator row left out): a table is a run of
    lines holding `|`; cells lose their outer pipes, emphasis and repeated spaces."""
    blocks: list[list[list[str]]] = []
    run: list[list[str]] = []
    for line in [*text.split("\n"), ""]:
        body = line.strip()
        if "|" not in body:
            if run:
                blocks.append(run)
            run = []
            continue
        body = body[1:] if body.startswith("|") else body
        body = body[:-1] if body.endswith("|") else body
        cells = [" ".join(plain(cell).split()) for cell in body.split("|")]
        if not all(_TABLE_RULE.fullmatch(cell.replace(" ", "")) for cell in cells):
            run.append(cells)
    return blocks


def table_problem(blocks: list[list[list[str]]], header: list, rows: list) -> str | None:
    """Why `blocks` is not exactly one table with this header and these rows, in order; None when it is."""
    if len(blocks) != 1:
        return f"{len(blocks)} tables, expected 1"
    want = [[" ".join(str(x).split()) for x in row] for row in [header, *rows]]
    got = blocks[0]
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            where = "the header" if i == 0 else f"row {i}"
            return f"{where} is {_quote(' | '.join(g))}, expected {_quote(' | '.join(w))}"
    return None if len(got) == len(want) else f"{len(got) - 1} rows, expected {len(want) - 1}"


def _table(text, raw, case, c):
    why = table_problem(table_blocks(text), c["header"], c["rows"])
    return why is None, why or f"{len(c['rows'])} rows"


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


def _ending(sentence: str) -> str:
    """The mark a sentence ends with (closing quotes, brackets and emphasis skipped; "?!" reads as its last mark)."""
    body = plain(sentence).rstrip(" \t\"'\u201d\u2019)]*_")
    return body[-1:] if body[-1:] in ".?!" else ""


def _sentence_ends(text, raw, case, c):
    marks, found = str(c["marks"]), [_ending(s) for s in sentences(text)]
    for i, got in enumerate(found):
        want = marks[i % len(marks)]
        if got != want:
            return False, f"sentence {i + 1} ends {got!r}, expected {want!r}"
    return True, f"{len(found)} sentences in the pattern {marks}"


def _acrostic(text, raw, case, c):
    got = "".join(_initial(ln) for ln in lines(text))
    want = str(c["text"])
    ok = got.casefold() == want.casefold()
    return ok, f'initials "{got[:30]}"' + ("" if ok else f', expected "{want}"')


def _sentence_initials(text, raw, case, c):
    got = "".join(_initial(s) for s in sentences(text))
    want = str(c["text"])
    ok = got.casefold() == want.casefold()
    return ok, f'sentence initials "{got[:30]}"' + ("" if ok else f', expected "{want}"')


def _ordered_words(text, raw, case, c):
    body, last = plain(text), None
    at: list[int] = []
    for w in c["words"]:
        m = word_pattern(str(w)).search(body)
        if m is None:
            return False, f'missing "{w}"'
        if at and m.start() < at[-1]:
            return False, f'"{w}" first appears before "{last}"'
        at.append(m.start())
        last = w
    return True, "in order"


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
    data, why = json_object.locate(text, "object", json_object.prompt_text(case) if case is not None else "")
    if why:
        return False, "no JSON object" if why.startswith("no JSON") else why
    problems = json_object.shape_problems(data, c.get("required", {}), c.get("exact", {}),
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
    "char_count": (_counter(lambda t: len(plain(t))), *_COUNT),  # emphasis dresses the text: not counted
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
    "table": (_table, ("header", "rows"), ()),
    "acrostic": (_acrostic, ("text",), ()),
    "sentence_initials": (_sentence_initials, ("text",), ()),
    "sentence_ends": (_sentence_ends, ("marks",), ()),
    "ordered_words": (_ordered_words, ("words",), ()),
    "paragraph_starts": (_paragraph_starts, ("paragraph", "word"), ()),
    "placeholders": (_placeholders, (), ("min", "max", "names")),
    "json_shape": (_json_shape, ("required",), ("exact", "extra_keys")),
    "max_ratio": (_max_ratio, ("value",), ()),
    "no_preamble": (_no_preamble, (), ()),
    "contains_number": (_contains_number, ("value",), ()),
}
