"""Counting orders: how many sequences of 7-10 stops satisfy a list of ordering constraints.

Constraints: one stop somewhere before another, one immediately after another, two never adjacent,
a stop not first / not last, a stop among the first k. The generator counts with a dynamic program
over (set of stops done, last stop) and adds random constraints until the count lands in a target
range, with every kind represented. `verify.solver` parses the constraints from the prompt and counts
by depth-first enumeration of the sequences themselves.
"""

from __future__ import annotations

import json
import math
import random

from pytest_crucible.suite.tiers import declare

FAMILY = "RE-orders"
LETTERS = "ABCDEFGHIJ"
ORDINAL = {2: "two", 3: "three", 4: "four", 5: "five"}
# (stops, lowest count, highest count, fewest rules, difficulty)
SHAPES = [(7, 12, 150, 5, "medium"), (8, 40, 600, 7, "hard"), (9, 60, 1500, 8, "hard"),
          (9, 60, 1500, 8, "hard"), (10, 100, 3000, 9, "hard")]
THEMES = [("A courier has {n} parcels to deliver", "delivery", "deliveries"),
          ("A tour bus visits {n} landmarks", "visit", "visits"),
          ("A nurse has {n} patients to see on a ward round", "visit", "visits"),
          ("An inspector checks {n} bridges in one day", "inspection", "inspections")]


# ------------------------------------------------------------------------------------------ counting

def count(n: int, rules: list[tuple]) -> int:
    """Orders of stops 0..n-1 obeying the rules, by dynamic programming over (done, last)."""
    before = [0] * n
    after_of, before_of, apart = {}, {}, set()
    not_first, not_last, early = set(), set(), {}
    for r in rules:
        if r[0] == "before":
            before[r[2]] |= 1 << r[1]
        elif r[0] == "next":
            after_of[r[1]], before_of[r[2]] = r[2], r[1]
        elif r[0] == "apart":
            apart |= {(r[1], r[2]), (r[2], r[1])}
        elif r[0] == "not_first":
            not_first.add(r[1])
        elif r[0] == "not_last":
            not_last.add(r[1])
        else:
            early[r[1]] = r[2]
    ways = {(0, -1): 1}
    for size in range(n):
        nxt: dict[tuple[int, int], int] = {}
        for (done, last), w in ways.items():
            for x in range(n):
                if done >> x & 1 or before[x] & ~done or (size == 0 and x in not_first):
                    continue
                if last in after_of and after_of[last] != x or x in before_of and before_of[x] != last:
                    continue
                if (last, x) in apart or (size == n - 1 and x in not_last) or early.get(x, n) <= size:
                    continue
                key = (done | 1 << x, x)
                nxt[key] = nxt.get(key, 0) + w
        ways = nxt
    return sum(ways.values())


def _random_rule(rng: random.Random, n: int, rules: list[tuple]) -> tuple:
    kind = rng.choices(["before", "next", "apart", "not_first", "not_last", "early"], [6, 2, 3, 1, 1, 1])[0]
    x, y = rng.sample(range(n), 2)
    if kind == "next":
        linked = {r[i] for r in rules if r[0] == "next" for i in (1, 2)}
        return ("next", x, y) if not {x, y} & linked else ("before", x, y)
    if kind in ("before", "apart"):
        return (kind, x, y)
    if kind == "early":
        return ("early", x, rng.randint(2, min(5, n - 2)))
    return (kind, x)


def _rules(rng: random.Random, n: int, low: int, high: int, fewest: int) -> tuple[list[tuple], int]:
    """Rules, each cutting the count, until it lies in [low, high] with every main kind present."""
    while True:
        rules: list[tuple] = []
        total = count(n, rules)
        for _ in range(60):
            rule = _random_rule(rng, n, rules)
            if rule in rules:
                continue
            fewer = count(n, [*rules, rule])
            if fewer >= low and fewer < total:
                rules.append(rule)
                total = fewer
            kinds = {r[0] for r in rules}
            if (total <= high and {"before", "next", "apart"} <= kinds and len(kinds) >= 4
                    and len(rules) >= fewest and total != 200):
                return rules, total


# ------------------------------------------------------------------------------------------ text

def _sentence(r: tuple, one: str, many: str) -> str:
    x = LETTERS[r[1]]
    if r[0] == "before":
        return f"{x} comes somewhere before {LETTERS[r[2]]}."
    if r[0] == "next":
        return f"{LETTERS[r[2]]} comes immediately after {x}."
    if r[0] == "apart":
        return f"{x} and {LETTERS[r[2]]} are never consecutive (in either order)."
    if r[0] == "not_first":
        return f"{x} is not the first {one}."
    if r[0] == "not_last":
        return f"{x} is not the last {one}."
    return f"{x} is one of the first {ORDINAL[r[2]]} {many}."


def _prompt(n: int, rules: list[tuple], theme: tuple[str, str, str]) -> str:
    opening, one, many = theme
    listed = "\n".join(f"- {_sentence(r, one, many)}" for r in rules)
    return (
        f"{opening.format(n=n)}, labelled {LETTERS[0]} to {LETTERS[n - 1]}, one at a time, each exactly once. "
        f"The order of the {many} must satisfy all of these rules:\n\n{listed}\n\n"
        f"How many different orders of the {n} {many} satisfy every rule? End with a final line of the "
        "form `Answer: <number>`."
    )


SOLVER = r'''
import re
PROMPT = __PROMPT__
stops = re.search(r"labelled (\w) to (\w)", PROMPT).groups()
names = [chr(c) for c in range(ord(stops[0]), ord(stops[1]) + 1)]
WORD = {"two": 2, "three": 3, "four": 4, "five": 5}
checks = []   # (place the stop x after the order so far?) tests

for line in re.findall(r"^- (.+)$", PROMPT, re.M):
    m = re.fullmatch(r"(\w) comes somewhere before (\w)\.", line)
    if m:
        x, y = m.groups()
        checks.append(lambda order, z, x=x, y=y: z != y or x in order)
        continue
    m = re.fullmatch(r"(\w) comes immediately after (\w)\.", line)
    if m:
        y, x = m.groups()
        checks.append(lambda order, z, x=x, y=y: (z == y) == bool(order and order[-1] == x))
        continue
    m = re.fullmatch(r"(\w) and (\w) are never consecutive \(in either order\)\.", line)
    if m:
        pair = set(m.groups())
        checks.append(lambda order, z, pair=pair: not (order and {order[-1], z} == pair))
        continue
    m = re.fullmatch(r"(\w) is not the (first|last) \w+\.", line)
    if m:
        x, end = m.groups()
        at = 0 if end == "first" else len(names) - 1
        checks.append(lambda order, z, x=x, at=at: not (z == x and len(order) == at))
        continue
    m = re.fullmatch(r"(\w) is one of the first (\w+) \w+\.", line)
    if m:
        x, k = m.group(1), WORD[m.group(2)]
        checks.append(lambda order, z, x=x, k=k: z != x or len(order) < k)
        continue
    raise SystemExit("cannot read rule: " + line)

def orders(order):
    if len(order) == len(names):
        return 1
    return sum(orders(order + [z]) for z in names
               if z not in order and all(test(order, z) for test in checks))

print(orders([]))
'''


def solver_source(prompt: str) -> str:
    return SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip()


def _case(index: int, rng: random.Random, n: int, low: int, high: int, fewest: int, difficulty: str) -> dict:
    rules, total = _rules(rng, n, low, high, fewest)
    prompt = _prompt(n, rules, rng.choice(THEMES))
    loose = count(n, [r for r in rules if r[0] != "apart"])  # forgetting the adjacency bans
    wrong = list(dict.fromkeys([
        *([f"Ignoring the rules that keep two stops apart leaves {loose} orders.\n\nAnswer: {loose}"]
          if loose != total else []),
        f"Answer: {total - 1}", f"Answer: {2 * total}",
        f"It is either {total} or {total + 4}, I am not sure which.",
        "I'm sorry, but I can't count these orders reliably.",
        "Answer: " + ", ".join(str(k) for k in range(1, 201)),
        f"Without any rules there are {n}! = {math.factorial(n):,} orders.\n\nAnswer: {math.factorial(n)}",
    ]))
    reference = (f"Glue each 'immediately after' pair into one block, count the arrangements that keep the "
                 f"'before' rules, then remove those that break the adjacency and position rules. The "
                 f"count comes to {total:,}.\n\nAnswer: {total:,}")
    return {
        "id": f"{FAMILY}-{index:02d}",
        "family": FAMILY,
        "difficulty": difficulty,
        "title": f"Count orders: {n} stops, {len(rules)} rules",
        "prompt": prompt,
        "max_tokens": 32768 if difficulty == "hard" else 16384,
        "grader": {"type": "numeric", "answer": total},
        "notes": (f"{n}! = {math.factorial(n):,} orders, {len(rules)} rules of {len({r[0] for r in rules})} kinds "
                  f"leave {total:,}. Interacting precedence, adjacency and position rules defeat a closed "
                  "formula: the count needs careful case analysis or inclusion-exclusion over many cases"
                  + (f"; dropping the never-consecutive rules gives {loose:,}, a typical slip." if loose != total
                     else ".")),
        "verify": {"solver": solver_source(prompt), "reference": reference, "wrong": wrong},
    }


# Hardness facts (steps, search, traps) per shape: one case split per rule (the shape's least rule count); the
# candidates are the orders.
HARDNESS = [(5, 5040, 2), (7, 40320, 2), (8, 362880, 2), (8, 362880, 2), (9, 3628800, 2)]


def cases(seed: int) -> list[dict]:
    rng = random.Random(f"{FAMILY}:{seed}")
    out = [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
    for case, facts in zip(out, HARDNESS, strict=True):
        declare(case, *facts)
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
