"""Crate stacks with height limits: 5-6 lettered crates in 3 stacks, each stack with its own height
limit; a move lifts the top crate of one stack onto another stack that has room. The answer is the fewest
moves from a generated start to a generated goal arrangement.

The generator proves the optimum with an A* search (bound: crates not yet resting on exactly the goal's
crates below them, each of which must move at least once) and keeps instances where the shortcuts miss:
that bound, and the optimum if the height limits were lifted. `verify.solver` parses both arrangements
and the limits out of the prompt and runs a plain breadth-first search.
"""

from __future__ import annotations

import heapq
import math
from itertools import product

from pytest_crucible.suite.families import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "RE-stacks"
SHAPES = [(5, (3, 2, 2)), (6, (4, 3, 2)), (6, (3, 3, 3)), (6, (4, 2, 2))]  # (crates, height limits)
STACK_NAMES = "PQRS"


def _misplaced(state, goal) -> int:
    count = 0
    for stack, target in zip(state, goal):
        settled = 0
        while settled < len(stack) and settled < len(target) and stack[settled] == target[settled]:
            settled += 1
        count += len(stack) - settled
    return count


def _moves(state, limits):
    for i, source in enumerate(state):
        if source:
            for j, dest in enumerate(state):
                if i != j and len(dest) < limits[j]:
                    nxt = list(state)
                    nxt[i], nxt[j] = source[:-1], dest + source[-1]
                    yield tuple(nxt)


def fewest_moves(start, goal, limits) -> int:
    best = {start: 0}
    heap = [(_misplaced(start, goal), 0, start)]
    while heap:
        _, spent, state = heapq.heappop(heap)
        if state == goal:
            return spent
        if spent > best[state]:
            continue
        for nxt in _moves(state, limits):
            if spent + 1 < best.get(nxt, 10**9):
                best[nxt] = spent + 1
                heapq.heappush(heap, (spent + 1 + _misplaced(nxt, goal), spent + 1, nxt))
    return -1


def _arrangement(rng, crates: str, limits) -> tuple[str, ...]:
    stacks = [""] * len(limits)
    for crate in rng.sample(crates, len(crates)):
        room = [i for i in range(len(limits)) if len(stacks[i]) < limits[i]]
        stacks[rng.choice(room)] += crate
    return tuple(stacks)


def arrangements(n: int, limits) -> int:
    """How many ways n lettered crates can stand in stacks under these limits."""
    heights = list(product(*(range(h + 1) for h in limits)))
    return math.factorial(n) * sum(1 for split in heights if sum(split) == n)


def _instance(rng, n: int, limits):
    crates = "ABCDEFG"[:n]
    while True:
        start = goal = _arrangement(rng, crates, limits)
        for _ in range(60):  # a random walk: tight limits split the arrangements into unreachable groups
            goal = rng.choice(list(_moves(goal, limits)))
        lower = _misplaced(start, goal)
        if lower < n - 2:
            continue
        best = fewest_moves(start, goal, limits)
        free = fewest_moves(start, goal, (n,) * len(limits))
        if best > lower and best > free:
            return start, goal, best, lower, free


SOLVER = r'''
import re
from collections import deque
def read(part):
    return tuple("".join(re.findall(r"[A-G]", line.split(":")[1])) for line in part.strip().splitlines())
limits = [int(x) for x in re.findall(r"stack \w holds at most (\d+)", PROMPT)]
start = read(PROMPT.split("Now (bottom to top):")[1].split("Wanted")[0])
goal = read(PROMPT.split("Wanted (bottom to top):")[1].split("One move")[0])
seen = {start: 0}
queue = deque([start])
while queue:
    state = queue.popleft()
    if state == goal:
        print(seen[state])
        break
    for i in range(len(state)):
        for j in range(len(state)):
            if i != j and state[i] and len(state[j]) < limits[j]:
                nxt = list(state)
                nxt[i], nxt[j] = state[i][:-1], state[j] + state[i][-1]
                nxt = tuple(nxt)
                if nxt not in seen:
                    seen[nxt] = seen[state] + 1
                    queue.append(nxt)
'''


def _show(state) -> str:
    return "\n".join(f"- stack {STACK_NAMES[i]}: {', '.join(s) if s else '(empty)'}" for i, s in enumerate(state))


def _case(index: int, rng, n: int, limits) -> dict:
    start, goal, best, lower, free = _instance(rng, n, limits)
    indent = "\n        "
    limit_text = ", ".join(f"stack {STACK_NAMES[i]} holds at most {h} crates" for i, h in enumerate(limits))
    prompt = f"""\
        A warehouse robot rearranges {n} lettered crates kept in {len(limits)} stacks.
        Height limits: {limit_text}.
        Now (bottom to top):
        {_show(start).replace(chr(10), indent)}
        Wanted (bottom to top):
        {_show(goal).replace(chr(10), indent)}
        One move lifts the top crate of a stack and puts it on top of another stack that is below its limit.
        What is the fewest moves that turn the current arrangement into the wanted one?
        """
    hardness = {"steps": best, "search": arrangements(n, limits), "traps": 2}
    difficulty = tier_of(hardness)
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=best,
        solver="",
        reference=f"""\
            Every crate that is not already sitting on the right crates must move at least once: {lower} of them.
            The height limits force some crates to be parked and moved again; searching the arrangements level
            by level, the wanted one is first reached after {best} moves.

            Answer: {best}""",
        traps=[lower, free, best - 1],
        notes=f"""{n} crates in stacks limited to {", ".join(map(str, limits))}: each crate out of place must move
            once ({lower} moves), and without the limits {free} would do, but the limits force extra parking
            moves; the optimum {best} needs a search (up to {len(limits) * (len(limits) - 1)} moves per
            position over {best} levels, among {arrangements(n, limits):,} arrangements) and ordering the
            parking so no crate is buried twice.""",
        max_tokens=32768 if difficulty == "hard" else 16384,
        title=f"Crate stacks with height limits: {n} crates, fewest moves")
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
