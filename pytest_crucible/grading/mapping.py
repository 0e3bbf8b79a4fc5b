"""mapping: logic-puzzle answers, one value per key, or one value per key and attribute (a grid).

    grader: {type: mapping, answer: {Alice: cat, Bob: dog, Carol: fish}, case_sensitive: false}
    grader: {type: mapping, answer: {Alice: {house: 2, pet: cat}, Bob: {house: 1, pet: dog}}}

Answer rows. A row is a line that starts with a key and a separator (`Alice: cat`, `- **Alice** - cat`,
`2. Alice = cat`, `Alice → cat`, `Alice (house 2): cat`), or with a numbered place whose number is a
value and then the key (`House 2: Alice, cat`, `Seat 4 - Alice`; a second key on such a line is
offered the same place, so `Seat 4: Alice or Bob` conflicts), or a table row with exactly one cell
that is a key (`| Alice | 2 | cat |`); a table whose one row names several keys is read by columns.
A flat mapping also takes rows by value: `Knights: Bram and Dina` gives both the value. Every
value a row names belongs to its key, so a hedge (`Alice: cat or dog`, `Alice: cat/dog`, `Alice: cat
(maybe dog)`, a list of every value, two rows for one key) is conflicting and fails. A value is not
named when the words since the previous value deny or only suppose it and do not hedge (`cat (not
the dog)`, `knave (if she were a knight ...)`); a number after "clue", "rule", "step" ... is a
reference, not a value. Justifications on an answer row that name other values make it conflicting:
the prompt asks for bare rows.

Numbered alternatives ("Option 1: ... Option 2: ...") fail as ambiguous (the commitment rule,
commitment.py) before any row is read.

Where it reads: the final-answer section if there is one (from the last line starting "Final
answer", "Answer", "Solution"), else the whole reply. There the last run of rows (blank lines and
table rules between them allowed) is the answer block and decides every key it has a row for; a key
it leaves out is filled from the text before it (working-out), and whatever the text after it
assigns must agree with it. A flat mapping also reads prose (`Alice owns the cat, the fish belongs
to Carol`; clauses that deny or only suppose assign nothing); a grid reads rows only.

Values are recognised from the answer's values (a grid: each attribute's values, which must differ
between attributes); in a flat row naming no known value, the text itself is read (so `Bob: hamster`
is reported as wrong, not as missing). Keys and values must be distinct words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pytest_crucible.grading import commitment
from pytest_crucible.grading.base import BaseGrader, Grade, json_answer, one_solution
from pytest_crucible.grading.extract import clean_answer, normalize, plain, word_pattern

_FIELDS = {"type", "answer", "case_sensitive"}
_FLAT = ""  # the one attribute of a flat mapping
_SECTION = re.compile(r"^[#>*_ \t-]*(?:the[ \t]+)?(?:final[ \t]+)?(?:answer|solution|assignments?)\b.*$",
                      re.I | re.M)  # within one line: a class that crossed lines would rescan blank runs
# Prose clauses that deny or suppose an assignment assign nothing; clauses that only offer one (a
# hedge) assign nothing in the working-out, but after the answer block they offer an alternative.
_PROSE_DENIES = re.compile(r"\b(?:not|no|never|neither|nor|cannot|if|suppose|assume|assuming|whether|"
                           r"would)\b|n't\b", re.I)
_PROSE_HEDGES = re.compile(r"\b(?:could|might|maybe|perhaps|possibly|probably|either|or|alternatively)\b",
                           re.I)
# Between two values on an answer row: words that deny or suppose the next value drop it, unless
# words that hedge between the two come too ("cat, or if not, dog" still names both).
_DENIES = re.compile(r"\b(?:not|no|never|nor|neither|without|except|instead|rather|if|suppose|"
                     r"supposing|assume|assuming|were|would|otherwise|unless|than)\b|n't\b", re.I)
_HEDGES = re.compile(r"\b(?:or|maybe|perhaps|possibly|probably|either|alternatively|could|might|may)\b"
                     r"|[/?]", re.I)
_REFERENCE = re.compile(r"\b(?:clues?|rules?|steps?|statements?|hints?|conditions?|constraints?|lines?|"
                        r"no\.|#)\s*(?:\d+\s*(?:,|and|&|or)\s*)*$", re.I)
# "cat or hamster", "cat/dog", "cat (maybe dog)": a value offered with an alternative, known or not
_HEDGED = re.compile(r"^\s*(?:,\s*)?\(?\s*(?:(?:or|maybe|perhaps|possibly|probably)(?!\w)|/)\s*"
                     r"(?:(?:maybe|perhaps|possibly|probably|even|the|a|an)\s+)*[\w-]+", re.I)
_HEDGED_BEFORE = re.compile(r"[\w-]+\s*,?\s*(?:\bor\b|/)\s*(?:(?:maybe|perhaps|possibly|probably|even|the|a|an)\s+)*$",
                            re.I)
_NEAR = 60  # characters before a value that can hedge it or make it a reference
_SEPARATOR = re.compile(r"^\s*(?:\([^()\n]{0,60}\)\s*)?(?:[:=\-|]|->|=>|→)")
_PLACE = re.compile(r"^([A-Za-z]+\s+)?(\d+)\s*(?:[:=\-|]|->|=>|→)\s*")
_AFTER_PLACED_KEY = re.compile(r"^\s*(?:$|[(,:=\-|/]|->|=>|→|or\b)")
_MARKERS = re.compile(r"^[\s>*#\-•+]*(?:\d+[.)]\s+)?[\s*]*")
_TABLE_RULE = re.compile(r"^[\s|:\-+]*$")


def check(spec: dict) -> list[tuple[str | None, str]]:
    problems = [(k, f"unknown field; allowed: {', '.join(sorted(_FIELDS))}") for k in spec
                if k not in _FIELDS]
    answer = spec.get("answer")
    if not isinstance(answer, dict) or not answer:
        return problems + [("answer", "answer maps each key to its value, e.g. {Alice: cat, Bob: dog}, "
                                      "or to its attributes, e.g. {Alice: {house: 1, pet: cat}}")]
    grid = [isinstance(v, dict) for v in answer.values()]
    if any(grid) and not all(grid):
        return problems + [("answer", "give every key a single value, or every key the same attributes")]
    rows = {str(k): ({str(a): x for a, x in v.items()} if isinstance(v, dict) else {_FLAT: v})
            for k, v in answer.items()}
    attributes = list(next(iter(rows.values())))
    owner: dict[str, str] = {}
    for key, row in rows.items():
        if set(row) != set(attributes):
            problems.append((f"answer.{key}", f"every key needs the same attributes: {', '.join(attributes)}"))
            continue
        for attr, value in row.items():
            where = f"answer.{key}" + (f".{attr}" if attr else "")
            if isinstance(value, (dict, list)) or value is None or not str(value).strip():
                problems.append((where, "each value is a single word, phrase or number"))
                continue
            first = owner.setdefault(normalize(str(value)), attr)
            if first != attr:
                problems.append((where, f"{value!r} is a value of both {first} and {attr}; each "
                                        "attribute needs its own values so a reply can be read"))
    keys = {normalize(k) for k in rows}
    clash = sorted(keys & set(owner))
    if clash:
        problems.append(("answer", f"{clash[0]!r} is both a key and a value; keys and values must "
                                   "differ so the reply can be read"))
    if not isinstance(spec.get("case_sensitive", False), bool):
        problems.append(("case_sensitive", "case_sensitive is true or false"))
    return problems


# ------------------------------------------------------------------------------------------ shape

@dataclass(frozen=True)
class Shape:
    """What the reply is read for: the keys, and each attribute's values (one attribute, "", when flat)."""
    keys: tuple[str, ...]
    attributes: dict[str, tuple[str, ...]]
    expected: dict[str, dict[str, str]]
    case_sensitive: bool

    @property
    def grid(self) -> bool:
        return list(self.attributes) != [_FLAT]

    @classmethod
    def of(cls, answer: dict, case_sensitive: bool = False) -> Shape:
        expected = {str(k): ({str(a): str(x) for a, x in v.items()} if isinstance(v, dict)
                             else {_FLAT: str(v)}) for k, v in answer.items()}
        attributes: dict[str, tuple[str, ...]] = {}
        for row in expected.values():
            for attr, value in row.items():
                seen = attributes.get(attr, ())
                if all(normalize(value, case_sensitive) != normalize(s, case_sensitive) for s in seen):
                    attributes[attr] = (*seen, value)
        return cls(tuple(expected), attributes, expected, case_sensitive)

    def attribute_of(self, value: str) -> str:
        norm = normalize(value, self.case_sensitive)
        return next(a for a, vs in self.attributes.items()
                    if any(normalize(v, self.case_sensitive) == norm for v in vs))

    def canonical_key(self, name: str) -> str:
        norm = normalize(name, self.case_sensitive)
        return next(k for k in self.keys if normalize(k, self.case_sensitive) == norm)

    def all_values(self) -> list[str]:
        return [v for vs in self.attributes.values() for v in vs]


# key -> attribute -> the distinct values the reply gives it, as first written
Found = dict[str, dict[str, list[str]]]


def _add(found: Found, key: str, attr: str, value: str, shape: Shape) -> None:
    seen = found.setdefault(key, {}).setdefault(attr, [])
    if all(normalize(v, shape.case_sensitive) != normalize(value, shape.case_sensitive) for v in seen):
        seen.append(normalize(value, case_sensitive=True))


def _merge(into: Found, other: Found, shape: Shape) -> Found:
    for key, attrs in other.items():
        into.setdefault(key, {})
        for attr, values in attrs.items():
            for value in values:
                _add(into, key, attr, value, shape)
    return into


# ------------------------------------------------------------------------------------------ words

def _occurrences(text: str, names, cs: bool) -> list[tuple[int, int, str]]:
    """(start, end, name) for each whole-word occurrence; a longer name wins over one inside it."""
    found = [(m.start(), m.end(), n) for n in names for m in word_pattern(n, cs).finditer(text)]
    found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
    kept, last_end = [], -1
    for f in found:
        if f[0] >= last_end:
            kept.append(f)
            last_end = f[1]
    return kept


# ------------------------------------------------------------------------------------------ rows

def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _key_cells(cells: list[str], shape: Shape) -> list[int]:
    names = {normalize(k, shape.case_sensitive) for k in shape.keys}
    return [i for i, c in enumerate(cells) if normalize(c, shape.case_sensitive) in names]


def _untranspose(lines: list[str], shape: Shape) -> list[str]:
    """A table with one row of keys ("| | Alice | Bob |") becomes one row per key, read down its column."""
    out, i = [], 0
    while i < len(lines):
        if not lines[i].lstrip().startswith("|"):
            out.append(lines[i])
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].lstrip().startswith("|"):
            j += 1
        table = [_cells(ln) for ln in lines[i:j]]
        header = next((r for r in table if len(_key_cells(r, shape)) >= 2), None)
        if header is None:
            out.extend(lines[i:j])
        else:
            body = [r for r in table if r is not header and not _TABLE_RULE.fullmatch("|".join(r))]
            for col in _key_cells(header, shape):
                out.append("| " + " | ".join([header[col]] + [r[col] for r in body if col < len(r)]) + " |")
        i = j
    return out


def _row_segments(line: str, shape: Shape) -> list[tuple[str, str]] | None:
    """(key, the text that gives its values) for an answer row; None when the line is not one."""
    cs = shape.case_sensitive
    if line.lstrip().startswith("|"):
        cells = _cells(line)
        at = _key_cells(cells, shape)
        if len(at) != 1:
            return None
        return [(shape.canonical_key(cells[at[0]]), " | ".join(cells[:at[0]] + cells[at[0] + 1:]))]
    markers = _MARKERS.match(line)
    assert markers is not None  # every part of _MARKERS is optional: it matches, if only the empty string
    body = line[markers.end():]
    keys = _occurrences(body, shape.keys, cs)
    grouped = _grouped(body, keys, shape)
    if grouped is not None:
        return grouped
    place = ""
    if keys and keys[0][0] != 0:  # "House 3: Ada, cat, tea": a numbered place, then the key
        label = _PLACE.match(body)
        if (not label or keys[0][0] != label.end() or not _occurrences(label.group(2), shape.all_values(), cs)
                or not _AFTER_PLACED_KEY.match(body[keys[0][1]:])):
            return None
        place = body[:label.end()]
    elif not keys or not _SEPARATOR.match(body[keys[0][1]:]):
        return None
    segments = []
    for n, (_, end, name) in enumerate(keys):
        stop = keys[n + 1][0] if n + 1 < len(keys) else len(body)
        if n == 0 or _SEPARATOR.match(body[end:stop]):  # "Alice: cat, Bob: dog" on one line
            segments.append((shape.canonical_key(name), place + body[end:stop]))
        elif place:  # "House 3: Ada or Bruno" offers the house to both
            segments.append((shape.canonical_key(name), place))
    return segments


def _grouped(body: str, keys: list, shape: Shape) -> list[tuple[str, str]] | None:
    """A flat mapping's row by value: "Knights: Bram and Dina" gives each key listed the value."""
    if shape.grid or not keys:
        return None
    for value in shape.all_values():
        head = re.match(re.escape(value) + r"(?:e?s)?(?!\w)\s*(?:[:=\-|]|->|=>|→)", body,
                        0 if shape.case_sensitive else re.I)
        if head and keys[0][0] >= head.end():
            return [(shape.canonical_key(name), f": {value}") for _, _, name in keys]
    return None


def _segment_values(segment: str, shape: Shape) -> dict[str, list[str]]:
    """attribute -> values the segment names, in order, dropping denied, supposed and referenced ones;
    a value offered with an alternative is read with it ("cat or dog"), which matches no answer."""
    out: dict[str, list[str]] = {}
    previous_end = 0
    for start, end, value in _occurrences(segment, shape.all_values(), shape.case_sensitive):
        if start < previous_end:  # inside the alternative of a hedge already read
            continue
        between_start, between = previous_end, segment[previous_end:start]
        previous_end = end
        if _DENIES.search(between) and not _HEDGES.search(between):
            continue
        if value[:1].isdigit() and _REFERENCE.search(segment[max(0, start - _NEAR):start]):
            continue
        attribute, first = shape.attribute_of(value), start
        offered_after = _HEDGED.match(segment[end:])
        if offered_after:
            previous_end = end + offered_after.end()
        near = max(0, len(between) - _NEAR)  # only the words just before the value; bounds the search
        offered_before = _HEDGED_BEFORE.search(between, near)
        if offered_before:
            first = between_start + offered_before.start()
        out.setdefault(attribute, []).append(segment[first:previous_end] if first < start or offered_after
                                             else value)
    return out


def _read_rows(rows: list[tuple[str, str]], shape: Shape) -> Found:
    found: Found = {}
    for key, segment in rows:
        found.setdefault(key, {})
        values = _segment_values(segment, shape)
        if not values and not shape.grid:  # a value outside the answer set is read as written
            separator = _SEPARATOR.match(segment)
            raw = segment[separator.end():] if separator else segment
            raw = raw.strip(" \t|.*")
            if raw:
                values = {_FLAT: [raw[:40]]}
        for attr, vals in values.items():
            for value in vals:
                _add(found, key, attr, value, shape)
    return found


# ------------------------------------------------------------------------------------------ prose

def _clauses(text: str, split_commas: bool) -> list[str]:
    breaks = r"[;\n]|(?<=[.!?])\s+" + (r"|," if split_commas else "")
    return [c for c in re.split(breaks, text) if c.strip()]


def _clause_pairs(clause: str, shape: Shape, hedges_count: bool) -> list[tuple[str, str]]:
    cs, values = shape.case_sensitive, shape.all_values()
    tokens = [(s, e, n, "k") for s, e, n in _occurrences(clause, shape.keys, cs)]
    taken = [(s, e) for s, e, _, _ in tokens]
    tokens += [(s, e, n, "v") for s, e, n in _occurrences(clause, values, cs)
               if not any(s < te and ts < e for ts, te in taken)]
    tokens.sort()
    kinds = "".join(t[3] for t in tokens)
    if "k" not in kinds or "v" not in kinds or _PROSE_DENIES.search(clause):
        return []
    if _PROSE_HEDGES.search(clause) and not hedges_count:
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


def _read_prose(lines: list[str], shape: Shape, hedges_count: bool) -> Found:
    found: Found = {}
    if shape.grid:
        return found
    split_commas = not any("," in n for n in (*shape.keys, *shape.all_values()))
    for line in lines:
        for clause in _clauses(line, split_commas):
            for key, value in _clause_pairs(clause, shape, hedges_count):
                _add(found, shape.canonical_key(key), _FLAT, value, shape)
    return found


# ------------------------------------------------------------------------------------------ reply

def _read_lines(lines: list[str], shape: Shape, hedges_count: bool = False) -> Found:
    """Rows and (for a flat mapping) prose, every assignment kept."""
    rows, prose = [], []
    for line in lines:
        segments = _row_segments(line, shape)
        if segments:
            rows.extend(segments)
        else:
            prose.append(line)
    return _merge(_read_rows(rows, shape), _read_prose(prose, shape, hedges_count), shape)


def _read_scope(text: str, shape: Shape) -> Found:
    lines = _untranspose(text.split("\n"), shape)
    is_row = [bool(_row_segments(ln, shape)) for ln in lines]
    if not any(is_row):
        return _read_lines(lines, shape)
    end = max(i for i, r in enumerate(is_row) if r) + 1
    start = end - 1
    while start > 0 and (is_row[start - 1] or _TABLE_RULE.fullmatch(lines[start - 1])
                         or (lines[start - 1].lstrip().startswith("|") and not is_row[start - 1])):
        start -= 1
    block = _read_lines(lines[start:end], shape)
    before = _read_lines(lines[:start], shape)
    found = {**{k: v for k, v in before.items() if k not in block}, **block}
    return _merge(found, _read_lines(lines[end:], shape, hedges_count=True), shape)


def read(content: str, shape: Shape) -> Found:
    """key -> attribute -> values the reply assigns (see the module docstring for where it reads)."""
    text = plain(clean_answer(content))
    sections = list(_SECTION.finditer(text))
    for scope in ([text[sections[-1].start():]] if sections else []) + [text]:
        found = _read_scope(scope, shape)
        if any(found.values()):
            return found
    return {}


def answer_mismatch(spec: dict, derived) -> str | None:
    """None when `derived` (a solver's JSON) is the grader's answer; else what the grader expects."""
    cs = bool(spec.get("case_sensitive", False))
    want = spec.get("answer") or {}
    if not isinstance(derived, dict):
        return "a mapping grader needs a JSON object"

    def canon(answer: dict) -> dict:
        return {normalize(str(k), cs): ({normalize(str(a), cs): normalize(str(x), cs) for a, x in v.items()}
                                        if isinstance(v, dict) else normalize(str(v), cs))
                for k, v in answer.items()}

    if canon(derived) != canon(want):
        return f"the grader expects {json.dumps(want, ensure_ascii=False)}"
    return None


def grade(case, response) -> Grade:
    spec = case.grader
    if not clean_answer(response.content):
        return Grade(False, "empty response")
    offered = commitment.alternatives(plain(clean_answer(response.content)), numbered_only=True)
    if offered:  # "Option 1: ... Option 2: ...": two answers offered side by side
        return Grade(False, f"ambiguous answer: alternatives offered ({', '.join(offered[:3])})")
    shape = Shape.of(spec["answer"], bool(spec.get("case_sensitive", False)))
    found = read(response.content, shape)
    problems, checked = [], 0
    for key in shape.keys:
        for attr, want in shape.expected[key].items():
            checked += 1
            label = f"{key} {attr}" if shape.grid else key
            got = found.get(key, {}).get(attr, [])
            if not got:
                problems.append(f"no assignment found for {label}")
            elif len(got) > 1:
                problems.append(f"{label}: {' and '.join(got)} (conflicting), expected {want}")
            elif normalize(got[0], shape.case_sensitive) != normalize(want, shape.case_sensitive):
                problems.append(f"{label}: {got[0]}, expected {want}")
    details = {"found": found, "problems": problems}
    shown = "; ".join(f"{k}: " + ", ".join("/".join(vs) for vs in attrs.values())
                      for k, attrs in found.items() if attrs)
    if problems:
        more = f" ({len(problems)} of {checked} wrong)" if len(problems) > 1 else ""
        return Grade(False, problems[0] + more, answer=shown, details=details)
    return Grade(True, "", answer=shown, details=details)


class MappingGrader(BaseGrader):
    compares_answers = True

    def check(self, spec: dict) -> list[tuple[str | None, str]]:
        return check(spec)

    def grade(self, case, response) -> Grade:
        return grade(case, response)

    def verification_problems(self, case, verify: dict) -> list[str]:
        problems = super().verification_problems(case, verify)
        if "solver" not in verify:
            problems.append("logic puzzle without verify.solver: add a program that enumerates every assignment "
                            "and prints each solution as JSON (it must find exactly one)")
        return problems

    def read_solver_output(self, spec: dict, lines: list[str]):
        return json_answer(spec, one_solution(lines))

    def compare_answer(self, spec: dict, derived) -> str | None:
        return answer_mismatch(spec, derived)


GRADER = MappingGrader()
