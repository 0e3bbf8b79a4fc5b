"""Generated long-context haystacks: filler prose with needles planted at seeded positions.

Everything here is a pure function of its parameters (a seed, a target size and the needles), so
`crucible cases verify` can rebuild a case's prompt and prove that each needle, and each count the
grader relies on, is in the text exactly as the case says. The filler is made of sentences generated
from templates below; it never contains a digit, so any number in a haystack came from a needle.

Sizes are approximate tokens at four characters per token. The core imports no pytest.
"""

from __future__ import annotations

import math
import random
import re
import sys
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .yamlio import LineDict

CHARS_PER_TOKEN = 4

# --- filler vocabulary (no digits, no needle words) ---------------------------------------------

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
_TEMPLATES = (
    "{S} {V} {O} {P}.",
    "{S} {V} {O} {T}.",
    "{T}, {s} {V} {O}.",
    "{P}, {s} {V} {O} in a {A} manner.",
    "After a {A} inspection, {s} {V} {O}.",
    "{S} {V} {O}, and {s2} {V2} {O2} {T}.",
    "It was {s} who {V} {O} {P}.",
    "{S} {V} {O} {P}. {R}",
    "Some weeks later {s} {V} {O} {T}.",
    "{S} made a {A} attempt at {O2_ing}.",
)
_GERUNDS = (
    "sorting the parish records", "mending the harbour nets", "clearing the ditches by the lane",
    "painting the lifeboat shed", "counting the books in the reading room", "tidying the market stalls",
    "surveying the coastal path", "restoring the chapel windows", "cataloguing the museum drawers",
)


def _lower_first(text: str) -> str:
    return text[0].lower() + text[1:]


def _sentence(rng: random.Random) -> str:
    template = rng.choice(_TEMPLATES)
    s, s2 = rng.sample(_SUBJECTS, 2)
    o, o2 = rng.sample(_OBJECTS, 2)
    v, v2 = rng.sample(_VERBS, 2)
    text = template.format(
        S=s, s=_lower_first(s), s2=_lower_first(s2), V=v, V2=v2, O=o, O2=o2,
        P=rng.choice(_PLACES), T=rng.choice(_TIMES), A=rng.choice(_ADJECTIVES),
        R=rng.choice(_REACTIONS), O2_ing=rng.choice(_GERUNDS),
    )
    return text[0].upper() + text[1:]


# --- needles and building -------------------------------------------------------------------------

@dataclass(frozen=True)
class Needle:
    """A sentence planted `count` times; `depth` (0..1) pins a single copy to a relative position."""

    text: str
    count: int = 1
    depth: float | None = None

    @classmethod
    def of(cls, value: Any) -> "Needle":
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
    rng = random.Random(seed)
    target_chars = target_tokens * CHARS_PER_TOKEN
    needle_chars = sum((len(n.text) + 1) * n.count for n in planted)
    filler: list[str] = []
    size = needle_chars
    while size < target_chars:
        sentence = _sentence(rng)
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


def haystack_prompt(params: Mapping[str, Any]) -> str:
    """The full user prompt for haystack parameters {seed, target_tokens, needles, question, ...}."""
    text = build_haystack(params["seed"], params["target_tokens"], params["needles"])
    return _PROMPT.format(haystack=text, question=params["question"])


def min_context_for(prompt: str, max_tokens: int) -> int:
    """Context a model needs for this prompt plus its answer budget, rounded up to 1024 tokens.

    Real tokenizers produce up to ~20% more tokens than the 4-chars estimate on this kind of prose."""
    need = math.ceil(estimate_tokens(prompt) * 1.2) + max_tokens + 64
    return math.ceil(need / 1024) * 1024


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


def expected_answer(params: Mapping[str, Any], prompt: str) -> Any:
    """The answer the haystack supports, derived from the prompt itself.

    `expect: {count_of: I}` -> how many times needle I occurs in the prompt;
    `expect: {values: V}` -> V (a scalar, list or mapping), after checking that every value occurs in
    exactly one needle and exactly once in the document."""
    expect = params.get("expect") or {}
    if "count_of" in expect:
        needle = Needle.of(params["needles"][expect["count_of"]])
        return prompt.count(needle.text)
    if "values" in expect:
        values = expect["values"]
        flat = list(values.values()) if isinstance(values, Mapping) else (
            list(values) if isinstance(values, (list, tuple)) else [values])
        texts = [Needle.of(n).text for n in params["needles"]]
        for value in flat:
            token = re.compile(rf"(?<![\w-]){re.escape(str(value))}(?![\w-])")
            holders = [t for t in texts if token.search(t)]
            if len(holders) != 1:
                raise ValueError(f"value {value!r} is in {len(holders)} needles, expected exactly 1")
            occurrences = len(token.findall(prompt))
            if occurrences != 1:
                raise ValueError(f"value {value!r} occurs {occurrences} times in the prompt, expected 1")
        return values
    raise ValueError("verify.haystack.expect must be {count_of: NEEDLE_INDEX} or {values: ...}")


def haystack_case(*, id: str, difficulty: str, seed: int, target_tokens: int, needles: Sequence[Any],
                  question: str, expect: Mapping[str, Any], grader: Mapping[str, Any],
                  reference: Any, wrong: Sequence[Any] = (), max_tokens: int = 2048,
                  title: str = "", tags: Sequence[str] = ()) -> dict:
    """A case mapping for a Python case file, with the generator parameters kept in verify.haystack.

    The mapping remembers the line of the call, so problems with the case point at it."""
    params = {
        "seed": seed, "target_tokens": target_tokens,
        "needles": [Needle.of(n).to_dict() for n in needles],
        "question": question, "expect": dict(expect),
    }
    prompt = haystack_prompt(params)
    case = LineDict({
        "id": id, "category": "longctx", "difficulty": difficulty, "prompt": prompt,
        "grader": dict(grader), "max_tokens": max_tokens,
        "min_context": min_context_for(prompt, max_tokens),
        "verify": {"haystack": params, "reference": reference, "wrong": list(wrong)},
    })
    case.line = sys._getframe(1).f_lineno
    case.key_lines = {}
    if title:
        case["title"] = title
    if tags:
        case["tags"] = list(tags)
    return case
