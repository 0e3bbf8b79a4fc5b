"""Answers that join or compare records across a haystack, derived by scanning the document text.

The `expect` modes of the long-context families that relate several kinds of record: a sum along a chain
of look-ups (parcel -> depot -> van -> driver), a count of the keys that meet every condition, the k-th key
in an order of two keys, the lowest common manager in a tree of reporting lines, and a set difference of
scattered attendance lists. Like suite/haystack_records.py, each mode refuses a document it cannot read one
way (a key linked twice, a tie, a missing fact) rather than guess. The core imports no pytest.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any


def find(pattern: str, document: str) -> list[re.Match]:
    """Every match of `pattern`; a pattern that does not compile is a ValueError (a case bug)."""
    try:
        return list(re.finditer(pattern, document))
    except re.error as exc:
        raise ValueError(f"pattern {pattern!r} does not compile: {exc}") from None


def number(text: str) -> int:
    return int(text.replace(",", ""))


def function_of(pattern: str, document: str, key: str = "a", value: str = "b") -> dict[str, str]:
    """The mapping `key` -> `value` that the matches of `pattern` state; a key stated with two values is an error."""
    out: dict[str, str] = {}
    for m in find(pattern, document):
        if out.setdefault(m.group(key), m.group(value)) != m.group(value):
            raise ValueError(f"{m.group(key)} is linked to both {out[m.group(key)]} and {m.group(value)}")
    return out


def join_sum(spec: Mapping[str, Any], document: str) -> int:
    """Sum of `n` over the `value` matches whose `key`, followed through every `links` pattern (groups `a` ->
    `b`, each a function), arrives at `target`; a key that a link does not continue is an error."""
    links = [function_of(p, document) for p in spec["links"]]
    total = 0
    for m in find(spec["value"], document):
        here = m.group("key")
        for i, link in enumerate(links):
            if here not in link:
                raise ValueError(f"link {i + 1} does not continue from {here}")
            here = link[here]
        total += number(m.group("n")) if here == spec["target"] else 0
    return total


_TESTS: dict[str, Callable[[str, Any], bool]] = {
    "eq": lambda got, want: got == str(want),
    "gt": lambda got, want: number(got) > int(want),
    "lt": lambda got, want: number(got) < int(want),
}


def count_where(spec: Mapping[str, Any], document: str) -> int:
    """How many keys meet every condition of `where` ({field: [eq|gt|lt, value]}), each field of a key read
    from its `facts` pattern ({field: pattern with groups `key` and `value`}); every key must have every field."""
    facts = {field: function_of(p, document, "key", "value") for field, p in spec["facts"].items()}
    keys = set().union(*facts.values())
    for field, known in facts.items():
        if keys - set(known):
            raise ValueError(f"{', '.join(sorted(keys - set(known)))} have no {field}")
    return sum(all(_TESTS[op](facts[field][key], want) for field, (op, want) in spec["where"].items())
               for key in keys)


def rank_two(spec: Mapping[str, Any], document: str) -> str:
    """The k-th key (from 1) ordered by `first` (its `value`, highest first) then `second` (lowest first)."""
    first = {k: number(v) for k, v in function_of(spec["first"], document, "key", "value").items()}
    second = {k: number(v) for k, v in function_of(spec["second"], document, "key", "value").items()}
    if set(first) != set(second):
        raise ValueError(f"keys with only one of the two orders: {', '.join(sorted(set(first) ^ set(second)))}")
    order = sorted(first, key=lambda k: (-first[k], second[k]))
    ranks = [(first[k], second[k]) for k in order]
    if len(set(ranks)) != len(ranks):
        raise ValueError("two keys tie on both orders")
    k = int(spec["k"])
    if not 1 <= k <= len(order):
        raise ValueError(f"k={k}, but {len(order)} keys are ranked")
    return order[k - 1]


def common_manager(spec: Mapping[str, Any], document: str) -> str:
    """The nearest person above both `a` and `b` in the tree the `reports` matches (groups `who`, `boss`) draw."""
    boss = function_of(spec["reports"], document, "who", "boss")

    def above(person: str) -> list[str]:
        chain: list[str] = []
        while person in boss:
            person = boss[person]
            if person in chain:
                raise ValueError(f"the reporting lines loop through {person}")
            chain.append(person)
        return chain

    over_b = set(above(spec["b"]))
    shared = [p for p in above(spec["a"]) if p in over_b]
    if not shared:
        raise ValueError(f"{spec['a']} and {spec['b']} have no manager in common")
    return shared[0]


def _names(listed: str) -> list[str]:
    return [n.strip() for n in re.split(r",\s*(?:and\s+)?|\s+and\s+", listed) if n.strip()]


def set_difference(spec: Mapping[str, Any], document: str) -> dict[str, bool]:
    """For each of `people`, whether a `lists` match (groups `meeting`, `names`: "A, B and C") of the meeting
    `within` names them and none of `without` does."""
    present: dict[str, set[str]] = {}
    for m in find(spec["lists"], document):
        present.setdefault(m.group("meeting"), set()).update(_names(m.group("names")))
    for meeting in (spec["within"], spec["without"]):
        if meeting not in present:
            raise ValueError(f"no list names anyone at the {meeting}")
    return {p: p in present[spec["within"]] and p not in present[spec["without"]] for p in spec["people"]}


JOIN_MODES: dict[str, Callable[[Mapping[str, Any], str], Any]] = {
    "join_sum": join_sum, "count_where": count_where, "rank_two": rank_two, "common_manager": common_manager,
    "set_difference": set_difference,
}
