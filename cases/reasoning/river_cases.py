"""River crossings: a ferryman and 4-6 animals cross a river in a small boat. Some pairs may not be
left on a bank without him, some may not share the boat, and besides the ferryman one animal may be
able to row. The answer is the length of the shortest plan (one-way crossings).

The generator measures distances with a breadth-first search run backwards from the finished state
and keeps instances whose shortest plan is long (at least 11 crossings for the hard tier) and longer
than the count with no conflicts at all. `verify.solver` parses the boat, the rowers and the
forbidden pairs out of the prompt and runs a forward breadth-first search from the start.
"""

from __future__ import annotations

import json
import random
from collections import deque
from itertools import combinations

from pytest_crucible.suite.tiers import declare

FAMILY = "RE-river"
ANIMALS = ["badger", "beaver", "dog", "ferret", "goose", "hare", "mink", "otter", "owl", "rabbit", "snake",
           "weasel"]
NUMBER = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
# (animals, boat size (everyone aboard), rowing animals, bank pairs (low, high), boat pairs, shortest at least,
#  difficulty)
SHAPES = [(4, 2, 0, (2, 3), 0, 7, "medium"), (5, 2, 1, (3, 6), 1, 11, "hard"), (5, 3, 1, (4, 7), 2, 11, "hard"),
          (6, 3, 1, (5, 8), 2, 11, "hard")]


def _moves(state: tuple[int, int], n: int, size: int, rowers: int, bank_pairs, boat_pairs):
    """States one crossing away. Entities 0..n-1 are animals, n the ferryman; state: (boat side 0/1,
    entities on side 0 as bits). A move takes 1..size entities, at least one a rower."""
    everyone, ferryman = (1 << (n + 1)) - 1, 1 << n
    side, west = state
    here = west if side == 0 else everyone & ~west
    aboard = [i for i in range(n + 1) if here >> i & 1]
    for count in range(1, size + 1):
        for group in combinations(aboard, count):
            moved = sum(1 << i for i in group)
            if not moved & rowers or any(moved >> a & 1 and moved >> b & 1 for a, b in boat_pairs):
                continue
            after = west & ~moved if side == 0 else west | moved
            if any(not bank & ferryman and bank >> a & 1 and bank >> b & 1
                   for bank in (after, everyone & ~after) for a, b in bank_pairs):
                continue
            yield (1 - side, after)


def shortest(n: int, size: int, rowers: int, bank_pairs, boat_pairs) -> int | None:
    """Crossings in the shortest plan, by breadth-first search backwards from the finished state
    (every crossing can be undone, so distances are the same both ways)."""
    start, goal = (0, (1 << (n + 1)) - 1), (1, 0)
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        state = queue.popleft()
        if state == start:
            return dist[state]
        for nxt in _moves(state, n, size, rowers, bank_pairs, boat_pairs):
            if nxt not in dist:
                dist[nxt] = dist[state] + 1
                queue.append(nxt)
    return None


def _instance(rng: random.Random, n: int, size: int, rowing: int, pairs: tuple[int, int], boat: int,
              least: int):
    every_pair = list(combinations(range(n), 2))
    while True:
        names = sorted(rng.sample(ANIMALS, n))
        bank_pairs = sorted(rng.sample(every_pair, rng.randint(*pairs)))
        boat_pairs = sorted(rng.sample([p for p in every_pair if p not in bank_pairs], boat))
        rowing_animals = sorted(rng.sample(range(n), rowing))
        rowers = (1 << n) | sum(1 << i for i in rowing_animals)
        best = shortest(n, size, rowers, bank_pairs, boat_pairs)
        # no conflicts: the boat goes over full and one rower brings it back each time
        plain = 2 * -(-(n + 1 - size) // (size - 1)) + 1
        if best is not None and best >= least and best > plain and best != 200:
            return names, bank_pairs, boat_pairs, rowing_animals, best, plain


def _prompt(names: list[str], size: int, bank_pairs, boat_pairs, rowing_animals) -> str:
    n = len(names)
    rowers = "Only the ferryman can row" if not rowing_animals else (
        "The boat needs a rower on every crossing: the ferryman or the "
        + " or the ".join(names[i] for i in rowing_animals) + " (no other animal can row)")
    bank = "\n".join(f"- the {names[a]} and the {names[b]}" for a, b in bank_pairs)
    text = (
        f"A ferryman stands on the west bank of a river with {NUMBER[n]} animals: "
        f"{', '.join('the ' + x for x in names)}. All of them, and he, must get to the east bank. The boat "
        f"holds at most {NUMBER[size]} passengers, counting the rower. {rowers}; the boat never crosses "
        "empty.\n\n"
        "These pairs must never be together on a bank unless the ferryman is on that bank too (the banks "
        f"are checked after every crossing):\n\n{bank}\n\n"
    )
    if boat_pairs:
        text += "These pairs must never be in the boat together:\n\n" + "\n".join(
            f"* the {names[a]} and the {names[b]}" for a, b in boat_pairs) + "\n\n"
    return text + (
        "A crossing is one trip of the boat from one bank to the other. What is the smallest number of "
        "crossings that gets the ferryman and all the animals to the east bank? End with a final line of the "
        "form `Answer: <number>`."
    )


SOLVER = r'''
import re
from collections import deque
from itertools import combinations
PROMPT = __PROMPT__
animals = [x[4:] for x in re.search(r"animals: (.+?)\. All of them", PROMPT).group(1).split(", ")]
everyone = frozenset(animals + ["ferryman"])
size = {"two": 2, "three": 3, "four": 4}[re.search(r"holds at most (\w+) passengers", PROMPT).group(1)]
rowing = re.search(r"the ferryman or the (.+?) \(no other", PROMPT)
rowers = {"ferryman"} | (set(rowing.group(1).split(" or the ")) if rowing else set())
bank_bad = [frozenset(p) for p in re.findall(r"^- the (\w+) and the (\w+)$", PROMPT, re.M)]
boat_bad = [frozenset(p) for p in re.findall(r"^\* the (\w+) and the (\w+)$", PROMPT, re.M)]

def calm(bank):
    return "ferryman" in bank or not any(pair <= bank for pair in bank_bad)

start = ("west", everyone)   # the boat's bank, and who is on the west bank
goal = ("east", frozenset())
seen = {start: 0}
queue = deque([start])
while queue:
    boat, west = queue.popleft()
    if (boat, west) == goal:
        print(seen[goal])
        break
    here = west if boat == "west" else everyone - west
    for count in range(1, size + 1):
        for group in combinations(sorted(here), count):
            group = frozenset(group)
            if not group & rowers or any(pair <= group for pair in boat_bad):
                continue
            after = west - group if boat == "west" else west | group
            if not (calm(after) and calm(everyone - after)):
                continue
            nxt = ("east" if boat == "west" else "west", after)
            if nxt not in seen:
                seen[nxt] = seen[(boat, west)] + 1
                queue.append(nxt)
'''


def solver_source(prompt: str) -> str:
    return SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip()


def _case(index: int, rng: random.Random, n: int, size: int, rowing: int, pairs: tuple[int, int], boat: int,
          least: int, difficulty: str) -> dict:
    names, bank_pairs, boat_pairs, rowing_animals, best, plain = _instance(rng, n, size, rowing, pairs, boat, least)
    prompt = _prompt(names, size, bank_pairs, boat_pairs, rowing_animals)
    wrong = list(dict.fromkeys([
        f"With a full boat over and one rower back each time it takes {plain} crossings.\n\nAnswer: {plain}",
        f"Answer: {best - 2}", f"Answer: {best + 2}", f"Answer: {best - 1}",
        f"It takes {best} or {best + 2} crossings.",
        "I'm sorry, but there is no way to get everyone across safely.",
        "Answer: " + ", ".join(str(k) for k in range(0, 201)),
        *([f"There are {n} animals to move.\n\nAnswer: {n}"] if n != best else []),
    ]))
    reference = (f"Without the conflicts {plain} crossings would do, but some pairs can never be left alone, so "
                 f"animals have to be brought back. Searching the possible states level by level, the first "
                 f"plan that reaches the east bank uses {best} crossings.\n\n**Answer: {best}**")
    rowing_note = (f"; besides the ferryman the {names[rowing_animals[0]]} rows, so he can stay on a bank to keep "
                   "the peace" if rowing_animals else "")
    return {
        "id": f"{FAMILY}-{index:02d}",
        "family": FAMILY,
        "difficulty": difficulty,
        "title": f"River crossing: {n} animals, boat for {size}, {len(bank_pairs) + len(boat_pairs)} forbidden pairs",
        "prompt": prompt,
        "max_tokens": 32768 if difficulty == "hard" else 16384,
        "grader": {"type": "numeric", "answer": best},
        "notes": (f"{2 ** (n + 2)} states (who is on which bank, and where the boat is), {len(bank_pairs)} bank "
                  f"and {len(boat_pairs)} boat conflicts, generated (not the textbook wolf, goat and cabbage)"
                  f"{rowing_note}. The shortest plan ({best} crossings) is longer than the conflict-free "
                  f"count ({plain}): animals must shuttle back, and proving that no shorter plan exists needs a "
                  "systematic search; a greedy plan overshoots, a count that forgets a forbidden pair "
                  "undershoots."),
        "verify": {"solver": solver_source(prompt), "reference": reference, "wrong": wrong},
    }


# Hardness facts (steps, search, traps) per shape: one step per crossing of the shortest plan (the shape's
# least length); the candidates are the bank states.
HARDNESS = [(7, 64, 3), (11, 128, 3), (11, 128, 3), (11, 256, 3)]


def cases(seed: int) -> list[dict]:
    rng = random.Random(f"{FAMILY}:{seed}")
    out = [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
    for case, facts in zip(out, HARDNESS, strict=True):
        declare(case, *facts)
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
