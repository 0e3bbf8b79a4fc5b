"""Measuring jugs: three jugs of generated sizes, with or without a tap; the answer is the smallest
number of moves (fill, empty, pour) that leaves some jug holding exactly the target amount.

The generator maps every reachable state with one breadth-first search and picks a target whose
shortest plan is long (a deep level of the search), avoiding textbook size triples. `verify.solver`
parses the sizes, the start and the allowed moves from the prompt and searches again from the start
for that one target.
"""

from __future__ import annotations

import json
import random
from collections import deque

from pytest_crucible.suite.tiers import declare

FAMILY = "RE-jugs"
TEXTBOOK = {(3, 5, 8), (3, 5), (3, 7, 10), (5, 8, 12), (3, 4), (4, 9), (3, 5, 9), (4, 7, 11), (6, 10, 16)}
# (tap, fewest moves, most moves, difficulty); without a tap the largest jug starts full
SHAPES = [(True, 4, 6, "medium"), (True, 8, 14, "hard"), (False, 8, 14, "hard"), (True, 9, 16, "hard"),
          (False, 10, 18, "hard")]


def _moves(state: tuple[int, ...], sizes: tuple[int, ...], tap: bool):
    for i in range(len(sizes)):
        if tap and state[i] < sizes[i]:
            yield state[:i] + (sizes[i],) + state[i + 1:]
        if tap and state[i] > 0:
            yield state[:i] + (0,) + state[i + 1:]
        for j in range(len(sizes)):
            if i != j and state[i] > 0 and state[j] < sizes[j]:
                amount = min(state[i], sizes[j] - state[j])
                nxt = list(state)
                nxt[i] -= amount
                nxt[j] += amount
                yield tuple(nxt)


def depths(sizes: tuple[int, ...], start: tuple[int, ...], tap: bool) -> dict[int, int]:
    """For every amount some jug can hold: the fewest moves until a jug holds it."""
    seen = {start: 0}
    queue = deque([start])
    first: dict[int, int] = {}
    while queue:
        state = queue.popleft()
        for amount in state:
            first.setdefault(amount, seen[state])
        for nxt in _moves(state, sizes, tap):
            if nxt not in seen:
                seen[nxt] = seen[state] + 1
                queue.append(nxt)
    return first


def _instance(rng: random.Random, tap: bool, low: int, high: int):
    while True:
        sizes = tuple(sorted(rng.sample(range(3, 20), 3)))
        if sizes in TEXTBOOK or sizes[:2] in TEXTBOOK:
            continue
        start = (0, 0, 0) if tap else (0, 0, sizes[2])
        first = depths(sizes, start, tap)
        targets = [t for t, d in first.items() if low <= d <= high and t not in sizes and t > 0 and t not in start]
        if targets:
            target = max(targets, key=lambda t: (first[t], t))
            return sizes, start, target, first[target]


def _prompt(sizes: tuple[int, ...], start: tuple[int, ...], target: int, tap: bool) -> str:
    names = ["A", "B", "C"]
    jugs = ", ".join(f"jug {n} holds {s} litres" for n, s in zip(names, sizes))
    if tap:
        setting = ("All three are empty, and there is a tap and a drain. A move is one of: fill a jug to the brim "
                   "from the tap; empty a jug down the drain; pour from one jug into another until the first is "
                   "empty or the second is full.")
    else:
        setting = (f"Jug C is full of water and the others are empty; there is no tap and no drain, so the "
                   f"{start[2]} litres can only move between the jugs. A move is pouring from one jug into another "
                   "until the first is empty or the second is full.")
    return (
        f"There are three unmarked jugs: {jugs}. {setting} Nothing can be measured by eye.\n\n"
        f"What is the smallest number of moves after which some jug holds exactly {target} litres? End with a "
        "final line of the form `Answer: <number>`."
    )


SOLVER = r'''
import re
from collections import deque
PROMPT = __PROMPT__
sizes = [int(x) for x in re.findall(r"jug \w holds (\d+) litres", PROMPT)]
target = int(re.search(r"holds exactly (\d+) litres", PROMPT).group(1))
tap = "there is a tap" in PROMPT
start = (0, 0, 0) if tap else (0, 0, sizes[2])
seen = {start: 0}
queue = deque([start])
while queue:
    jugs = queue.popleft()
    if target in jugs:
        print(seen[jugs])
        break
    options = []
    for i in range(3):
        if tap:
            options.append(jugs[:i] + (sizes[i],) + jugs[i + 1:])
            options.append(jugs[:i] + (0,) + jugs[i + 1:])
        for j in range(3):
            if i != j:
                amount = min(jugs[i], sizes[j] - jugs[j])
                after = list(jugs)
                after[i] -= amount
                after[j] += amount
                options.append(tuple(after))
    for nxt in options:
        if nxt not in seen:
            seen[nxt] = seen[jugs] + 1
            queue.append(nxt)
'''


def solver_source(prompt: str) -> str:
    return SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip()


def _case(index: int, rng: random.Random, tap: bool, low: int, high: int, difficulty: str) -> dict:
    sizes, start, target, best = _instance(rng, tap, low, high)
    prompt = _prompt(sizes, start, target, tap)
    wrong = list(dict.fromkeys([
        f"Answer: {best - 1}", f"Answer: {best + 1}", f"Answer: {best + 2}",
        f"It can be done in {best} moves, or {best + 2} if you start with the other jug.",
        "I'm sorry, but that amount cannot be measured with these jugs.",
        "Answer: " + ", ".join(str(k) for k in range(0, 201)),
        *([f"The jug ends up holding {target} litres.\n\nAnswer: {target}"] if target != best else []),
    ]))
    reference = (f"Pouring back and forth between the two smaller jugs builds the amounts step by step; checking "
                 f"every possible state level by level, {target} litres first appears after {best} moves.\n\n"
                 f"Answer: {best}")
    return {
        "id": f"{FAMILY}-{index:02d}",
        "family": FAMILY,
        "difficulty": difficulty,
        "title": f"Jugs of {', '.join(map(str, sizes))} litres{' with a tap' if tap else ''}: reach {target}",
        "prompt": prompt,
        "max_tokens": 32768 if difficulty == "hard" else 16384,
        "grader": {"type": "numeric", "answer": best},
        "notes": (f"Generated sizes ({', '.join(map(str, sizes))}), not a textbook triple; {target} litres is among "
                  f"the deepest amounts to reach ({best} moves). Finding some plan is easy, proving the shortest "
                  "needs a breadth-first search over up to "
                  f"{(sizes[0] + 1) * (sizes[1] + 1) * (sizes[2] + 1):,} jug states, since the answer is the count "
                  "of moves, not just a plan that works."),
        "verify": {"solver": solver_source(prompt), "reference": reference, "wrong": wrong},
    }


# Hardness facts (steps, search, traps) per shape: one step per move of the shortest plan (the shape's least
# depth); the candidates are the jug states.
HARDNESS = [(4, 1000, 2), (8, 2000, 2), (8, 2000, 2), (9, 2000, 2), (10, 2000, 2)]


def cases(seed: int) -> list[dict]:
    rng = random.Random(f"{FAMILY}:{seed}")
    out = [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
    for case, facts in zip(out, HARDNESS, strict=True):
        declare(case, *facts)
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
