"""Generated long-context haystacks: filler prose with needles planted at seeded positions.

Everything here is a pure function of its parameters (a seed, a target size and the needles), so
`crucible cases verify` can rebuild a case's prompt and prove that each needle, and the answer the
grader expects, is in the text exactly as the case says. The filler is notes from a small coastal
town, full of distractor numbers, people's names and dates; a filler sentence never contains a number
or a proper name that a needle uses, so the needles stay the only statements about their subjects.

`expect` says how verify re-derives the answer from the rebuilt document (by scanning the text, not by
trusting the generator): `values` (each value in exactly one needle and once in the document),
`count_of` (copies of a needle), `count` / `sum` (regex matches and their `n` group), `chain` (follow
one regex match per hop), `latest` (the last dated match on or before a cutoff) and `only` (exactly one
match, its `value` group); suite/haystack_modes.py adds the modes that combine many records.

Token counts are estimated at CHARS_PER_TOKEN characters per token, measured on this filler with a
real tokenizer (SmolLM2's, whose digits are single tokens as in most current tokenizers); the size
classes below leave a margin for tokenizers that need more. The core imports no pytest.
"""

from __future__ import annotations

import math
import random
import re
import string
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from pytest_crucible.common.yamlio import LineDict
from pytest_crucible.suite.haystack_modes import MODES, record_answer

# Characters per token on this filler (SmolLM2 tokenizer; tests/test_haystack.py checks it within 5%
# at every size class when llama-cpp-python and the model are installed).
CHARS_PER_TOKEN = 3.91
# Context classes (the window a model needs) and the answer budget a case of that class gets.
SIZE_CLASSES = {"4k": 4096, "8k": 8192, "16k": 16384, "32k": 32768, "64k": 65536, "128k": 131072}
_ANSWER_BUDGET = {"4k": 1024, "8k": 2048}
DEFAULT_ANSWER_BUDGET = 4096
# Other tokenizers may need this much more than the estimate; min_context keeps room for it.
TOKENIZER_MARGIN = 0.10
_OVERHEAD_TOKENS = 64  # chat template and role tokens around the prompt
_QUESTION_TOKENS = 500  # the instructions and question around the document, and its paragraph breaks

# --- filler vocabulary ------------------------------------------------------------------------------

_SUBJECTS = (
    "The harbour committee", "A visiting surveyor", "The night clerk", "The orchard cooperative",
    "Our regional librarian", "The ferry operator", "A retired schoolteacher", "The parish council",
    "The quarry foreman", "A travelling botanist", "The village baker", "The museum curator",
    "The district nurse", "A young cartographer", "The railway signalman", "The market warden",
    "The choir director", "A pair of apprentice masons", "The water board", "The weekly newspaper",
)
_VERBS = (
    "reviewed", "postponed", "sketched", "questioned", "approved", "rewrote", "catalogued",
    "inspected", "defended", "summarised", "repaired", "measured", "photographed", "praised",
    "criticised", "reorganised", "debated", "recorded", "translated", "rehearsed",
)
_OBJECTS = (
    "the proposal for a new footbridge", "the inventory of spare lanterns", "the timetable for the winter ferries",
    "the plans for the covered market", "a long letter from the mill owners", "the accounts of the reading room",
    "the route of the coastal footpath", "the drainage survey of the lower meadows",
    "the catalogue of pressed wildflowers", "the schedule of the autumn fair", "the old boundary maps",
    "the repairs to the chapel roof", "a petition about the bus shelter", "the minutes of the spring meeting",
    "the notes on soil erosion along the cliffs", "the list of volunteers for the beach clean",
    "the design of the new signposts", "a report on the condition of the sea wall",
    "the history of the tannery", "the rules for the allotment gardens",
)
_PLACES = (
    "in the back room of the town hall", "beside the old grain store", "at the end of the long quay",
    "in the reading room", "under the railway arches", "on the green behind the school",
    "at the crossroads inn", "in the draughty church hall", "next to the lifeboat station",
    "in the upstairs office of the co-op", "on the windy headland", "in the walled garden",
)
_TIMES = (
    "before the autumn rains arrived", "after a long and noisy debate", "during the first week of the thaw",
    "while the tide was still out", "on a grey and blustery afternoon", "late on a quiet evening",
    "early the following morning", "at the height of the summer season", "once the harvest was in",
    "just before the shops closed", "in the middle of a heavy downpour", "after the market had packed up",
)
_ADJECTIVES = (
    "careful", "hurried", "thorough", "cheerful", "cautious", "lengthy", "patient", "spirited",
    "brisk", "methodical", "tentative", "generous",
)
_REACTIONS = (
    "Most people agreed that it was overdue.", "Nobody expected the discussion to take so long.",
    "The result pleased almost everyone.", "A few residents wrote letters of complaint.",
    "The matter was left open for another day.", "Several neighbours offered to help.",
    "It was mentioned again at the next gathering.", "The outcome surprised the older members.",
    "Nobody could remember a similar case.", "The decision was pinned to the notice board.",
)
_GERUNDS = (
    "sorting the parish records", "mending the harbour nets", "clearing the ditches by the lane",
    "painting the lifeboat shed", "counting the books in the reading room", "tidying the market stalls",
    "surveying the coastal path", "restoring the chapel windows", "cataloguing the museum drawers",
)
# People in the filler. A filler sentence that would name a needle's person is redrawn.
_FIRST = ("Agnes", "Bertram", "Carys", "Dougal", "Eilidh", "Fergus", "Greta", "Hamish", "Isla", "Jory",
          "Kitty", "Lachlan", "Morwenna", "Niall", "Oonagh", "Piran", "Rhona", "Seth", "Ursula", "Wilf")
_LAST = ("Pendry", "Trelawny", "MacAulay", "Hosking", "Quiller", "Rowe", "Jago", "Kittow", "Nance",
         "Polglase", "Tregear", "Vosper", "Bolitho", "Carne", "Dunstan", "Eddy")
_THINGS = ("gulls", "cormorants", "fishing smacks", "oyster baskets", "rowing boats", "day trippers",
           "letters of complaint", "sacks of coal", "deck chairs", "kites", "umbrellas", "seal pups")
_SUPPLIES = ("tins of paint", "coils of rope", "bags of sand", "rolls of felt", "boxes of nails",
             "sheets of glass", "bundles of kindling")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_TEMPLATES = (
    "{S} {V} {O} {P}.",
    "{T}, {s} {V} {O}.",
    "{P}, {s} {V} {O} in a {A} manner.",
    "{S} {V} {O}, and {s2} {V2} {O2} {T}.",
    "{S} {V} {O} {P}. {R}",
    "{S} made a {A} attempt at {G}.",
    "{N} counted {n} {things} {P} on {date}.",
    "In {year}, {s} {V} {O}, at a cost of {money}.",
    "{N} recalls that {n} {things} were seen {P} {T}.",
    "The minutes of {date} record {n} votes in favour of {O}.",
    "{S} ordered {n} {supplies} on {date}, paying {money} in total.",
    "By {month} {year}, {big} residents had signed a petition started by {N} about {O}.",
    "{N} and {N2} walked {dec} kilometres {P} on {date}.",
    "A survey in {year} found {n} {things} {P}.",
    "{N} first {V} {O} in {year}, and again {hour} years later.",
    "The tide table for {date} gives high water at {hour}.{minute}.",
    "{S} spent {n} hours on {G} {T}.",
    "It took {N} {n} days to finish {G}, {A} work from start to end.",
    "On {date} {year}, {s} {V} {O} with {N}.",
    "{N} keeps a diary noting {n} {things} since {year}.",
)
# Words of the filler's own that may start with a capital; any other capitalised word is a name.
_STATIC = frozenset(w for part in (_SUBJECTS, _OBJECTS, _PLACES, _TIMES, _REACTIONS, _MONTHS, _TEMPLATES,
                                   ("After", "Some", "It", "In", "On", "By", "The", "A"))
                    for text in part for w in re.findall(r"[A-Za-z]+", text))
_TOKEN = re.compile(r"\d+|[A-Z][a-z]{2,}")
_MAX_REDRAWS = 200


def _lower_first(text: str) -> str:
    return text[0].lower() + text[1:]


def _pick(rng: random.Random, seq: Sequence):
    return seq[int(rng.random() * len(seq))]  # rng.choice's exact rejection sampling is 3x slower


def _between(rng: random.Random, low: int, high: int) -> int:
    return low + int(rng.random() * (high - low + 1))


# slot -> how to fill it; a template draws only the slots it names (building 128k tokens is ~8000 draws)
_SLOTS = {
    "S": lambda r: _pick(r, _SUBJECTS), "s": lambda r: _lower_first(_pick(r, _SUBJECTS)),
    "s2": lambda r: _lower_first(_pick(r, _SUBJECTS)), "V": lambda r: _pick(r, _VERBS),
    "V2": lambda r: _pick(r, _VERBS), "O": lambda r: _pick(r, _OBJECTS), "O2": lambda r: _pick(r, _OBJECTS),
    "P": lambda r: _pick(r, _PLACES), "T": lambda r: _pick(r, _TIMES), "A": lambda r: _pick(r, _ADJECTIVES),
    "R": lambda r: _pick(r, _REACTIONS), "G": lambda r: _pick(r, _GERUNDS),
    "N": lambda r: f"{_pick(r, _FIRST)} {_pick(r, _LAST)}", "N2": lambda r: f"{_pick(r, _FIRST)} {_pick(r, _LAST)}",
    "n": lambda r: _between(r, 2, 96), "big": lambda r: _between(r, 110, 4800),
    "year": lambda r: _between(r, 1951, 2023), "date": lambda r: f"{_between(r, 1, 28)} {_pick(r, _MONTHS)}",
    "month": lambda r: _pick(r, _MONTHS), "money": lambda r: f"£{_between(r, 12, 9800)}",
    "dec": lambda r: f"{_between(r, 2, 19)}.{_between(r, 1, 9)}", "hour": lambda r: _between(r, 1, 12),
    "minute": lambda r: f"{_pick(r, (0, 15, 20, 30, 40, 45)):02d}", "things": lambda r: _pick(r, _THINGS),
    "supplies": lambda r: _pick(r, _SUPPLIES),
}
_PAIRS = (("s", "s2"), ("S", "s2"), ("V", "V2"), ("O", "O2"), ("N", "N2"))  # never the same twice
_FIELDS = {t: tuple(dict.fromkeys(f for _, f, _, _ in string.Formatter().parse(t) if f)) for t in _TEMPLATES}


def _sentence(rng: random.Random, template: str) -> str:
    slots = {name: _SLOTS[name](rng) for name in _FIELDS[template]}
    for first, second in _PAIRS:
        while first in slots and second in slots and slots[first].lower() == slots[second].lower():
            slots[second] = _SLOTS[second](rng)
    text = template.format(**slots)
    return text[0].upper() + text[1:]


def reserved_tokens(needle_texts: Sequence[str]) -> frozenset[str]:
    """Numbers (two digits or more) and names in the needles, which no filler sentence may contain."""
    found: set[str] = set()
    for text in needle_texts:
        found.update(t for t in _TOKEN.findall(text) if (t.isdigit() and len(t) >= 2) or
                     (not t.isdigit() and t not in _STATIC))
    return frozenset(found)


def _filler_sentence(rng: random.Random, template: str, reserved: frozenset[str]) -> str:
    # only the slots are redrawn, so avoiding the needles' numbers does not shift the mix of
    # templates (and the characters per token with it)
    for _ in range(_MAX_REDRAWS):
        sentence = _sentence(rng, template)
        if not reserved or reserved.isdisjoint(_TOKEN.findall(sentence)):
            return sentence
    raise ValueError(f"the filler cannot avoid the needles' numbers and names ({', '.join(sorted(reserved)[:8])})")


# --- needles and building -------------------------------------------------------------------------

@dataclass(frozen=True)
class Needle:
    """A sentence planted `count` times; `depth` (0..1) pins a single copy to a relative position."""

    text: str
    count: int = 1
    depth: float | None = None

    @classmethod
    def of(cls, value: Any) -> Needle:
        if isinstance(value, Needle):
            return value
        if isinstance(value, str):
            return cls(value)
        if not isinstance(value, Mapping) or not isinstance(value.get("text"), str):
            raise ValueError("a needle is a string or a mapping {text, count?, depth?}")
        unknown = set(value) - {"text", "count", "depth"}
        if unknown:
            raise ValueError(f"unknown needle field(s): {', '.join(sorted(unknown))}")
        count = value.get("count", 1)
        depth = value.get("depth")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError(f"needle count must be a positive integer, got {count!r}")
        if depth is not None and (not isinstance(depth, (int, float)) or not 0 <= depth <= 1 or count != 1):
            raise ValueError("needle depth must be a number from 0 to 1, and only for a needle with count 1")
        return cls(value["text"], count, float(depth) if depth is not None else None)

    def to_dict(self) -> dict:
        out: dict = {"text": self.text}
        if self.count != 1:
            out["count"] = self.count
        if self.depth is not None:
            out["depth"] = self.depth
        return out


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def build_haystack(seed: int, target_tokens: int, needles: Sequence[Any]) -> str:
    """Filler paragraphs of about `target_tokens` tokens with every needle planted.

    Raises ValueError if a needle would not occur exactly `count` times in the result (for example a
    needle that is a substring of another)."""
    if not isinstance(seed, int) or not isinstance(target_tokens, int) or target_tokens < 50:
        raise ValueError("seed must be an integer and target_tokens an integer of at least 50")
    planted = [Needle.of(n) for n in needles]
    reserved = reserved_tokens([n.text for n in planted])
    rng = random.Random(seed)
    target_chars = target_tokens * CHARS_PER_TOKEN
    size = sum((len(n.text) + 1) * n.count for n in planted)
    filler: list[str] = []
    deck: list[str] = []  # every template once per round, so even a short haystack has the usual mix
    while size < target_chars:
        if not deck:
            deck = list(_TEMPLATES)
            rng.shuffle(deck)
        sentence = _filler_sentence(rng, deck.pop(), reserved)
        filler.append(sentence)
        size += len(sentence) + 1
    # Insertion points: index i means "before filler sentence i" (len(filler) = at the end).
    slots: list[tuple[int, int, str]] = []
    for order, needle in enumerate(planted):
        if needle.depth is not None:
            positions = [round(needle.depth * len(filler))]
        else:
            # keep clear of the first and last few sentences so no copy is trivially at an edge
            low, high = min(3, len(filler)), max(min(3, len(filler)), len(filler) - 3)
            positions = sorted(rng.sample(range(low, high + 1), needle.count))
        slots.extend((pos, order, needle.text) for pos in positions)
    slots.sort()
    sentences: list[str] = []
    k = 0
    for i in range(len(filler) + 1):
        while k < len(slots) and slots[k][0] == i:
            sentences.append(slots[k][2])
            k += 1
        if i < len(filler):
            sentences.append(filler[i])
    paragraphs: list[str] = []
    i = 0
    while i < len(sentences):
        n = rng.randint(4, 8)
        paragraphs.append(" ".join(sentences[i:i + n]))
        i += n
    text = "\n\n".join(paragraphs)
    for needle in planted:
        found = text.count(needle.text)
        if found != needle.count:
            raise ValueError(f"needle {needle.text!r} occurs {found} times, expected {needle.count}")
    return text


# --- prompts and case mappings --------------------------------------------------------------------

_PROMPT = (
    "The document below is a collection of notes from a small coastal town. Read all of it, then "
    "answer the question that follows it.\n\n<document>\n{haystack}\n</document>\n\n{question}"
)
_DOCUMENT = re.compile(r"<document>\n(.*)\n</document>", re.S)


def haystack_prompt(params: Mapping[str, Any]) -> str:
    """The full user prompt for haystack parameters {seed, target_tokens, needles, question, ...}."""
    text = build_haystack(params["seed"], params["target_tokens"], params["needles"])
    return _PROMPT.format(haystack=text, question=params["question"])


def document_of(prompt: str) -> str:
    """The document part of a haystack prompt (the question is not searched for answers)."""
    m = _DOCUMENT.search(prompt)
    return m.group(1) if m else prompt


def min_context_for(prompt: str, max_tokens: int) -> int:
    """Context a model needs for this prompt plus its answer budget, rounded up to 1024 tokens, with
    TOKENIZER_MARGIN for tokenizers that need more tokens than the estimate."""
    need = math.ceil(estimate_tokens(prompt) * (1 + TOKENIZER_MARGIN)) + max_tokens + _OVERHEAD_TOKENS
    return math.ceil(need / 1024) * 1024


def size_plan(size: str) -> tuple[int, int]:
    """(target_tokens, max_tokens) for a size class: the largest haystack whose case still fits a
    window of that size with its answer budget and room for the question."""
    if size not in SIZE_CLASSES:
        raise ValueError(f"unknown size {size!r}; use one of {', '.join(SIZE_CLASSES)}")
    window, budget = SIZE_CLASSES[size], _ANSWER_BUDGET.get(size, DEFAULT_ANSWER_BUDGET)
    room = (window - budget - _OVERHEAD_TOKENS) / (1 + TOKENIZER_MARGIN)
    return int(room) - _QUESTION_TOKENS, budget


def check_haystack(params: Mapping[str, Any], prompt: str) -> list[str]:
    """Problems with a stored haystack case: the prompt differs from a rebuild, or a needle is wrong."""
    problems: list[str] = []
    try:
        rebuilt = haystack_prompt(params)
    except (KeyError, TypeError, ValueError) as exc:
        return [f"haystack cannot be rebuilt from verify.haystack: {exc}"]
    if rebuilt != prompt:
        at = next((i for i, (a, b) in enumerate(zip(rebuilt, prompt)) if a != b), min(len(rebuilt), len(prompt)))
        problems.append(f"prompt differs from the rebuilt haystack at character {at} "
                        f"(stored {prompt[at:at + 40]!r}, rebuilt {rebuilt[at:at + 40]!r})")
    for raw in params["needles"]:
        needle = Needle.of(raw)
        found = prompt.count(needle.text)
        if found != needle.count:
            problems.append(f"needle {needle.text!r} occurs {found} times in the prompt, expected {needle.count}")
    return problems


# --- answers derived from the text ---------------------------------------------------------------

_DATE = re.compile(r"(\d{1,2}) ([A-Z][a-z]+) (\d{4})")


def _parse_date(text: str) -> date:
    m = _DATE.fullmatch(text.strip())
    if not m or m.group(2) not in _MONTHS:
        raise ValueError(f"{text!r} is not a date like '14 March 2023'")
    return date(int(m.group(3)), _MONTHS.index(m.group(2)) + 1, int(m.group(1)))


def _value_token(value: Any) -> re.Pattern:
    return re.compile(rf"(?<![\w-]){re.escape(str(value))}(?![\w-])")


def _matches(pattern: str, document: str) -> list[re.Match]:
    try:
        return list(re.finditer(pattern, document))
    except re.error as exc:
        raise ValueError(f"pattern {pattern!r} does not compile: {exc}") from None


def _plain_number(text: str) -> int:
    return int(text.replace(",", ""))


def expected_answer(params: Mapping[str, Any], prompt: str) -> Any:
    """The answer the haystack supports, derived from the prompt itself.

    `expect: {count_of: I}`  how many times needle I occurs in the prompt;
    `expect: {values: V}`    V (a scalar, list or mapping), after checking that every value occurs in
                             exactly one needle and exactly once in the document;
    `expect: {count: P}`     how many matches regex P has in the document;
    `expect: {sum: P}`       the sum of the `n` group over P's matches;
    `expect: {only: P}`      the `value` group of P's single match (none or several is an error);
    `expect: {chain: {start, hops}}`  from `start`, each hop (a regex with `<X>` standing for the
                             current value) must match exactly once; its `next` group is the new value;
    `expect: {latest: {pattern, before}}`  among P's matches (groups `date` like "14 March 2023" and
                             `value`), the value of the latest one dated on or before `before`;
    and the modes of haystack_modes.MODES."""
    expect = params.get("expect") or {}
    document = document_of(prompt)
    if "count_of" in expect:
        needle = Needle.of(params["needles"][expect["count_of"]])
        return prompt.count(needle.text)
    if "values" in expect:
        values = expect["values"]
        flat = list(values.values()) if isinstance(values, Mapping) else (
            list(values) if isinstance(values, (list, tuple)) else [values])
        texts = [Needle.of(n).text for n in params["needles"]]
        for value in flat:
            token = _value_token(value)
            holders = [t for t in texts if token.search(t)]
            if len(holders) != 1:
                raise ValueError(f"value {value!r} is in {len(holders)} needles, expected exactly 1")
            occurrences = len(token.findall(document))
            if occurrences != 1:
                raise ValueError(f"value {value!r} occurs {occurrences} times in the document, expected 1")
        return values
    if "count" in expect:
        return len(_matches(expect["count"], document))
    if "sum" in expect:
        return sum(_plain_number(m.group("n")) for m in _matches(expect["sum"], document))
    if "only" in expect:
        found = _matches(expect["only"], document)
        if len(found) != 1:
            raise ValueError(f"the pattern of expect.only matches {len(found)} times, expected exactly 1")
        return found[0].group("value")
    if "chain" in expect:
        value = expect["chain"]["start"]
        for i, hop in enumerate(expect["chain"]["hops"]):
            found = _matches(hop.replace("<X>", re.escape(str(value))), document)
            if len(found) != 1:
                raise ValueError(f"hop {i + 1} from {value!r} matches {len(found)} times, expected exactly 1")
            value = found[0].group("next")
        return value
    if "latest" in expect:
        cutoff = _parse_date(expect["latest"]["before"])
        dated = [(_parse_date(m.group("date")), m.group("value")) for m in _matches(expect["latest"]["pattern"],
                                                                                   document)]
        eligible = sorted(d for d in dated if d[0] <= cutoff)
        if not eligible:
            raise ValueError(f"no match of expect.latest is dated on or before {expect['latest']['before']}")
        if len(eligible) > 1 and eligible[-1][0] == eligible[-2][0]:
            raise ValueError(f"two matches of expect.latest share the date {eligible[-1][0]}")
        return eligible[-1][1]
    derived = record_answer(expect, document)  # the modes over many records (haystack_modes.py)
    if derived is not None:
        return derived
    raise ValueError("verify.haystack.expect must be one of count_of, values, count, sum, only, chain, latest, "
                     + ", ".join(MODES))


def haystack_case(*, id: str, difficulty: str, seed: int, target_tokens: int, needles: Sequence[Any],
                  question: str, expect: Mapping[str, Any], grader: Mapping[str, Any],
                  reference: Any, wrong: Sequence[Any] = (), max_tokens: int = 2048,
                  title: str = "", tags: Sequence[str] = (), family: str = "", notes: str = "",
                  max_context: int | None = None, hardness: Mapping[str, int] | None = None) -> dict:
    """A case mapping for a Python case file, with the generator parameters kept in verify.haystack.

    The mapping remembers the line of the call, so problems with the case point at it. With
    `max_context`, a case whose min_context would exceed it is refused (a size class that does not fit
    its window is a generator bug). `hardness` is the case's {steps, search, traps} (suite/tiers.py)."""
    params = {
        "seed": seed, "target_tokens": target_tokens,
        "needles": [Needle.of(n).to_dict() for n in needles],
        "question": question, "expect": dict(expect),
    }
    prompt = haystack_prompt(params)
    min_context = min_context_for(prompt, max_tokens)
    if max_context is not None and min_context > max_context:
        raise ValueError(f"{id}: needs {min_context} tokens of context, more than its class's {max_context}")
    case = LineDict({
        "id": id, "category": "longctx", "difficulty": difficulty, "prompt": prompt,
        "grader": dict(grader), "max_tokens": max_tokens, "min_context": min_context,
        "verify": {"haystack": params, "reference": reference, "wrong": list(wrong)},
    })
    case.line = sys._getframe(1).f_lineno
    case.key_lines = {}
    for key, value in (("title", title), ("tags", list(tags)), ("family", family), ("notes", notes),
                       ("hardness", dict(hardness or {}))):
        if value:
            case[key] = value
    return case
