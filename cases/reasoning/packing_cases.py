"""Packing with strings attached: 7-16 items with weights and values, a weight limit, pairs that may not
both be packed, and items that are only allowed together with another one. The answer is the greatest
total value that can be packed.

The generator finds the optimum with a depth-first branch and bound (items by value per kilo, bound by
the fractional relaxation) and keeps instances where the shortcuts miss: greedy by value per kilo that
respects the rules, and the plain knapsack optimum that ignores them (a dynamic program over weights).
`verify.solver` parses the items and rules out of the prompt and tries every subset.
"""

from __future__ import annotations

from pytest_crucible.suite.families import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "RE-pack"
SHAPES = [(7, 1, 1), (13, 3, 2), (15, 4, 2), (16, 4, 3)]  # (items, forbidden pairs, requirements)
ITEMS = ["tent", "stove", "rope", "lantern", "kettle", "tarp", "saw", "radio", "camera", "hammock", "axe",
         "compass", "first-aid kit", "water filter", "telescope", "fishing rod", "guitar", "chess set",
         "sleeping mat", "solar panel"]


def _allowed(chosen: int, clashes, needs) -> bool:
    return (all(not (chosen >> a & 1 and chosen >> b & 1) for a, b in clashes)
            and all(not chosen >> a & 1 or chosen >> b & 1 for a, b in needs))


def best_value(weights, values, limit, clashes, needs) -> int:
    order = sorted(range(len(weights)), key=lambda i: -values[i] / weights[i])
    best = 0

    def bound(k: int, room: int, value: int) -> float:
        for i in order[k:]:
            if weights[i] <= room:
                room -= weights[i]
                value += values[i]
            else:
                return value + values[i] * room / weights[i]
        return value

    def visit(k: int, chosen: int, room: int, value: int) -> None:
        nonlocal best
        if k == len(order):
            if _allowed(chosen, clashes, needs):
                best = max(best, value)
            return
        if bound(k, room, value) <= best:
            return
        i = order[k]
        if weights[i] <= room and not any((a == i and chosen >> b & 1) or (b == i and chosen >> a & 1)
                                          for a, b in clashes):
            visit(k + 1, chosen | 1 << i, room - weights[i], value + values[i])
        visit(k + 1, chosen, room, value)

    visit(0, 0, limit, 0)
    return best


def greedy(weights, values, limit, clashes, needs) -> int:
    chosen, room = 0, limit
    for i in sorted(range(len(weights)), key=lambda i: -values[i] / weights[i]):
        trial = chosen | 1 << i
        for a, b in needs:  # an item comes with what it needs
            if a == i and not chosen >> b & 1:
                trial |= 1 << b
        extra = sum(weights[k] for k in range(len(weights)) if trial >> k & 1 and not chosen >> k & 1)
        if extra <= room and _allowed(trial, clashes, needs):
            chosen, room = trial, room - extra
    return sum(values[k] for k in range(len(weights)) if chosen >> k & 1)


def plain_knapsack(weights, values, limit) -> int:
    table = [0] * (limit + 1)
    for w, v in zip(weights, values):
        for room in range(limit, w - 1, -1):
            table[room] = max(table[room], table[room - w] + v)
    return table[limit]


def _instance(rng, n: int, clash_count: int, need_count: int):
    while True:
        weights = [rng.randint(2, 15) for _ in range(n)]
        values = [rng.randint(5, 60) for _ in range(n)]
        limit = sum(weights) * rng.randint(35, 50) // 100
        pairs = rng.sample([(a, b) for a in range(n) for b in range(n) if a < b], clash_count + need_count)
        clashes = pairs[:clash_count]
        needs = [(a, b) if rng.random() < 0.5 else (b, a) for a, b in pairs[clash_count:]]
        best = best_value(weights, values, limit, clashes, needs)
        traps = [greedy(weights, values, limit, clashes, needs), plain_knapsack(weights, values, limit)]
        if traps[0] < best < traps[1]:
            return weights, values, limit, clashes, needs, best, traps


SOLVER = r'''
import re
items = re.findall(r"^- ([\w -]+?): (\d+) kg, worth (\d+)$", PROMPT, re.M)
names = [name for name, _, _ in items]
weights = [int(w) for _, w, _ in items]
values = [int(v) for _, _, v in items]
limit = int(re.search(r"at most (\d+) kg", PROMPT).group(1))
pair = lambda a, b: (names.index(a), names.index(b))
clashes = [pair(a, b) for a, b in re.findall(r"^- never both the ([\w -]+?) and the ([\w -]+?)$", PROMPT, re.M)]
needs = [pair(a, b) for a, b in re.findall(r"^- the ([\w -]+?) only together with the ([\w -]+?)$", PROMPT, re.M)]
best = 0
for chosen in range(1 << len(items)):
    packed = [i for i in range(len(items)) if chosen >> i & 1]
    if sum(weights[i] for i in packed) > limit:
        continue
    if any(a in packed and b in packed for a, b in clashes):
        continue
    if any(a in packed and b not in packed for a, b in needs):
        continue
    best = max(best, sum(values[i] for i in packed))
print(best)
'''


def _case(index: int, rng, n: int, clash_count: int, need_count: int) -> dict:
    weights, values, limit, clashes, needs, best, traps = _instance(rng, n, clash_count, need_count)
    greedy_value, plain = traps
    names = rng.sample(ITEMS, n)
    item_lines = "\n".join(f"- {names[i]}: {weights[i]} kg, worth {values[i]}" for i in range(n))
    rule_lines = "\n".join([*(f"- never both the {names[a]} and the {names[b]}" for a, b in clashes),
                            *(f"- the {names[a]} only together with the {names[b]}" for a, b in needs)])
    prompt = f"""\
        An expedition can carry at most {limit} kg of extra gear. The candidates (each at most once), with their
        weight and their worth to the expedition:
        {item_lines.replace(chr(10), chr(10) + "        ")}
        Rules:
        {rule_lines.replace(chr(10), chr(10) + "        ")}
        What is the greatest total worth of gear the expedition can take, within the weight limit and the rules?
        """
    hardness = {"steps": n, "search": 2 ** n, "traps": 2}
    difficulty = tier_of(hardness)
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=best,
        solver="",
        reference=f"""\
            Taking the best worth per kilo first gives {greedy_value}, and ignoring the rules would allow
            {plain}, but neither is right. Branching on each item (packed or not), pruning with the rules and a
            bound on what the remaining room can still add, the best allowed selection is worth {best}.

            **Answer:** {best}""",
        traps=[greedy_value, plain, best - 1],
        notes=f"""{n} items, {2 ** n:,} subsets, {clash_count} exclusions and {need_count} requirements: greedy by
            worth per kilo (obeying the rules) stops at {greedy_value}, and the knapsack optimum without the
            rules is {plain}; the answer {best} needs an exact search or a dynamic program that carries the
            rules, with {n} dependent include/skip decisions.""",
        max_tokens=32768 if difficulty == "hard" else 16384,
        title=f"Packing {n} items with exclusions and requirements: best worth")
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
