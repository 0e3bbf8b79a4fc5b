"""mapping: logic-grid answers, one value per key.

    grader: {type: mapping, answer: {Alice: cat, Bob: dog, Carol: fish}, case_sensitive: false}

The reply may write the assignment as `Alice: cat`, `Alice - cat`, `Alice = cat`, `Alice → cat`,
`Alice owns the cat`, `the cat belongs to Alice`, or as `| Alice | cat |` table rows.

Where it reads: the final-answer section if there is one (from the last line starting "Final
answer", "Answer", "Solution"); within that, the last block of `Key: value` lines or table rows
decides, and the rest only fills keys the block leaves out, so working-out above the answer does
not count. A key given two different values is wrong; a clause that denies or only supposes
("Alice does not own the dog", "if Bob had the cat") assigns nothing.

Values are recognised from the set of answer values; in the explicit `Key: value` form any other
value is read too (so `Bob: hamster` is reported as wrong, not as missing). Keys and values should be
distinct words.
"""

from __future__ import annotations

import re

from ..extract import clean_answer, normalize, plain, word_pattern
from .base import Grade

_FIELDS = {"type", "answer", "case_sensitive"}
_SECTION = re.compile(r"^[#>*_\s-]*(?:the\s+)?(?:final\s+)?(?:answer|solution|assignments?)\b.*$",
                      re.I | re.M)
# Clauses that deny or only suppose an assignment assign nothing.
_NOT_A_FACT = re.compile(r"\b(?:not|no|never|neither|nor|cannot|if|suppose|assume|assuming|whether|would|"
                         r"could|might|maybe|perhaps|either)\b|n't\b", re.I)
_SEPARATOR = re.compile(r"^\s*(?:[:=\-–—|]|->|=>|→)\s*")


def check(spec: dict) -> list[tuple[str | None, str]]:
    problems = [(k, f"unknown field; allowed: {', '.join(sorted(_FIELDS))}") for k in spec
                if k not in _FIELDS]
    answer = spec.get("answer")
    if not isinstance(answer, dict) or not answer:
        return problems + [("answer", "answer maps each key to its value, e.g. {Alice: cat, Bob: dog}")]
    for key, value in answer.items():
        if isinstance(value, (dict, list)) or value is None or not str(value).strip():
            problems.append((f"answer.{key}", "each value is a single word or phrase"))
    keys = {normalize(str(k)) for k in answer}
    clash = sorted(keys & {normalize(str(v)) for v in answer.values()})
    if clash:
        problems.append(("answer", f"{clash[0]!r} is both a key and a value; keys and values must "
                                   "differ so the reply can be read"))
    if not isinstance(spec.get("case_sensitive", False), bool):
        problems.append(("case_sensitive", "case_sensitive is true or false"))
    return problems


def _occurrences(text: str, names: list[str], cs: bool) -> list[tuple[int, int, str]]:
    """(start, end, name) for each whole-word occurrence; a longer name wins over one inside it."""
    found = [(m.start(), m.end(), n) for n in names for m in word_pattern(n, cs).finditer(text)]
    found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
    kept, last_end = [], -1
    for f in found:
        if f[0] >= last_end:
            kept.append(f)
            last_end = f[1]
    return kept


def _clauses(text: str, split_commas: bool) -> list[str]:
    breaks = r"[;\n]|(?<=[.!?])\s+" + (r"|," if split_commas else "")
    return [c for c in re.split(breaks, text) if c.strip()]


def _explicit_value(clause: str, key_end: int) -> str | None:
    """The raw value in `Key: value` form, for values outside the answer set."""
    m = _SEPARATOR.match(clause[key_end:])
    if not m:
        return None
    value = clause[key_end + m.end():].strip(" \t|.*")
    return value[:40] if value else None


def _clause_pairs(clause: str, keys: list[str], values: list[str], cs: bool) -> list[tuple[str, str]]:
    tokens = [(s, e, n, "k") for s, e, n in _occurrences(clause, keys, cs)]
    taken = [(s, e) for s, e, _, _ in tokens]
    tokens += [(s, e, n, "v") for s, e, n in _occurrences(clause, values, cs)
               if not any(s < te and ts < e for ts, te in taken)]
    tokens.sort()
    kinds = "".join(t[3] for t in tokens)
    if "k" not in kinds:
        return []
    if kinds.count("k") == 1 and "v" not in kinds:
        key = tokens[0]
        raw = _explicit_value(clause, key[1])
        return [(key[2], raw)] if raw else []
    if _NOT_A_FACT.search(clause):
        return []
    if kinds.count("k") == 1:  # one key: the value is the only one the clause names
        named = {normalize(t[2], cs) for t in tokens if t[3] == "v"}
        value = next(t[2] for t in tokens if t[3] == "v")
        return [(tokens[kinds.index("k")][2], value)] if len(named) == 1 else []
    # several keys: pair neighbours when the clause reads as key/value pairs in either order,
    # "Alice has the cat and Bob the dog" (kvkv), "the fish is Carol's and Dan has the bird" (vkkv)
    if re.fullmatch(r"(?:kv|vk)+", kinds):
        step = [(tokens[i], tokens[i + 1]) for i in range(0, len(tokens), 2)]
        return [(a[2], b[2]) if a[3] == "k" else (b[2], a[2]) for a, b in step]
    return []


def _table_pairs(line: str, keys: list[str], values: list[str], cs: bool) -> list[tuple[str, str]]:
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if all(re.fullmatch(r":?-{2,}:?", c) or not c for c in cells):
        return []
    names = {normalize(k, cs): k for k in keys}
    at = [i for i, c in enumerate(cells) if normalize(c, cs) in names]
    if len(at) != 1:
        return []
    key = names[normalize(cells[at[0]], cs)]
    others = cells[:at[0]] + cells[at[0] + 1:]
    for cell in others:
        hit = _occurrences(cell, values, cs)
        if hit:
            return [(key, hit[0][2])]
    return [(key, others[0][:40])] if len(others) == 1 and others[0] else []


def assignments(text: str, keys: list[str], values: list[str], cs: bool = False) -> dict[str, list[str]]:
    """key -> every distinct value the text gives it, as first written."""
    split_commas = not any("," in n for n in (*keys, *values))
    found: dict[str, list[str]] = {}
    for line in text.split("\n"):
        if line.lstrip().startswith("|"):
            pairs = _table_pairs(line, keys, values, cs)
        else:
            pairs = [p for c in _clauses(line, split_commas) for p in _clause_pairs(c, keys, values, cs)]
        for key, value in pairs:
            canon = next(k for k in keys if normalize(k, cs) == normalize(key, cs))
            seen = found.setdefault(canon, [])
            if all(normalize(v, cs) != normalize(value, cs) for v in seen):
                seen.append(normalize(value, case_sensitive=True))
    return found


def _answer_block(text: str, keys: list[str], values: list[str], cs: bool) -> str | None:
    """The last run of `Key: value` lines or table rows (blank lines allowed), if there is one."""
    starts = re.compile(r"^[\s>*#\-•+]*(?:\d+[.)]\s*)?(?:" + "|".join(
        word_pattern(k, cs).pattern for k in keys) + r")\s*(?:[:=\-–—|]|->|=>|→)", 0 if cs else re.I)
    lines = text.split("\n")
    explicit = {i for i, ln in enumerate(lines)
                if starts.match(ln) or (ln.lstrip().startswith("|") and _table_pairs(ln, keys, values, cs))}
    if not explicit:
        return None
    end = start = max(explicit)
    while start > 0 and (start - 1 in explicit or not lines[start - 1].strip()
                         or re.fullmatch(r"[\s|:\-]+", lines[start - 1])):
        start -= 1
    return "\n".join(lines[start:end + 1])


def read(content: str, answer: dict, cs: bool = False) -> dict[str, list[str]]:
    """key -> values the reply assigns, read from the final-answer section if there is one, and
    there from the last block of `Key: value` lines if there is one, else from all of it."""
    text = plain(clean_answer(content))
    keys, values = [str(k) for k in answer], sorted({str(v) for v in answer.values()})
    sections = list(_SECTION.finditer(text))
    for scope in ([text[sections[-1].start():]] if sections else []) + [text]:
        found = assignments(scope, keys, values, cs)
        block = _answer_block(scope, keys, values, cs)
        if block:  # the block decides; the rest of the scope only fills keys the block leaves out
            found = {**found, **assignments(block, keys, values, cs)}
        if found:
            return found
    return {}


def grade(case, response) -> Grade:
    spec = case.grader
    if not clean_answer(response.content):
        return Grade(False, "empty response")
    cs = bool(spec.get("case_sensitive", False))
    answer = {str(k): str(v) for k, v in spec["answer"].items()}
    found = read(response.content, answer, cs)
    problems = []
    for key, want in answer.items():
        got = found.get(key, [])
        if not got:
            problems.append(f"no assignment found for {key}")
        elif len(got) > 1:
            problems.append(f"{key}: {' and '.join(got)} (conflicting), expected {want}")
        elif normalize(got[0], cs) != normalize(want, cs):
            problems.append(f"{key}: {got[0]}, expected {want}")
    details = {"found": found, "problems": problems}
    shown = "; ".join(f"{k}: {'/'.join(v)}" for k, v in found.items())
    if problems:
        more = f" ({len(problems)} of {len(answer)} wrong)" if len(problems) > 1 else ""
        return Grade(False, problems[0] + more, answer=shown, details=details)
    return Grade(True, "", answer=shown, details=details)
