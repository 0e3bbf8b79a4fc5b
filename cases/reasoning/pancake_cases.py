"""Pancake flips: a generated stack of 6-9 pancakes of different sizes; one move puts the spatula under
some pancake and turns the whole pile above it over. The answer is the fewest flips that sort the stack.

The generator proves the optimum with an iterative-deepening A* search on the gap count (adjacent
pancakes whose sizes are not consecutive, the plate counting as the largest; one flip mends at most
one gap) and keeps stacks where the two shortcuts miss: the gap count itself, and the textbook
procedure (flip the largest unsorted pancake to the top, then down into place). `verify.solver`
parses the stack out of the prompt and runs a plain breadth-first search over orderings.
"""

from __future__ import annotations

import math

from pytest_crucible.suite.families import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "RE-pancake"
SHAPES = [6, 8, 8, 9, 9]  # pancakes per stack


def gaps(stack: tuple[int, ...]) -> int:
    below = stack[1:] + (len(stack) + 1,)
    return sum(abs(a - b) != 1 for a, b in zip(stack, below))


def _flip(stack: tuple[int, ...], k: int) -> tuple[int, ...]:
    return stack[:k][::-1] + stack[k:]


def fewest_flips(stack: tuple[int, ...]) -> int:
    """IDA* on the gap count, an admissible bound."""
    def search(node: tuple[int, ...], spent: int, bound: int, previous: int) -> int:
        estimate = spent + gaps(node)
        if estimate > bound:
            return estimate
        if gaps(node) == 0:
            return -1
        least = math.inf
        for k in range(2, len(node) + 1):
            if k != previous:  # flipping the same k twice undoes it
                found = search(_flip(node, k), spent + 1, bound, k)
                if found == -1:
                    return -1
                least = min(least, found)
        return int(least) if least != math.inf else 10**6

    bound = gaps(stack)
    while True:
        found = search(stack, 0, bound, 0)
        if found == -1:
            return bound
        bound = found


def textbook_flips(stack: tuple[int, ...]) -> int:
    """Largest unsorted pancake to the top (unless there already), then flip it into place."""
    flips, current = 0, list(stack)
    for size in range(len(stack), 1, -1):
        where = current.index(size)
        if where == size - 1:
            continue
        if where != 0:
            current[:where + 1] = current[:where + 1][::-1]
            flips += 1
        current[:size] = current[:size][::-1]
        flips += 1
    return flips


def _instance(rng, n: int):
    while True:
        stack = tuple(rng.sample(range(1, n + 1), n))
        if gaps(stack) < n - 1:
            continue
        best = fewest_flips(stack)
        if best > gaps(stack) and textbook_flips(stack) > best:
            return stack, best


SOLVER = r'''
import re
from collections import deque
stack = tuple(int(x) for x in re.search(r"from top to bottom: ([\d, ]+)\.", PROMPT).group(1).split(", "))
goal = tuple(sorted(stack))
seen = {stack: 0}
queue = deque([stack])
while queue:
    pile = queue.popleft()
    if pile == goal:
        print(seen[pile])
        break
    for k in range(2, len(pile) + 1):
        nxt = pile[:k][::-1] + pile[k:]
        if nxt not in seen:
            seen[nxt] = seen[pile] + 1
            queue.append(nxt)
'''


def _case(index: int, rng, n: int) -> dict:
    stack, best = _instance(rng, n)
    shown = ", ".join(map(str, stack))
    prompt = f"""\
        A cook has a stack of {n} pancakes of different sizes, numbered 1 (smallest) to {n} (largest) by size.
        The stack reads, from top to bottom: {shown}.
        One flip puts the spatula under any pancake and turns over everything above it in one go: the top k
        pancakes (k from 2 to {n}) come back in reverse order and the rest of the stack stays as it is.
        What is the fewest flips that leave the stack sorted, pancake 1 on top down to pancake {n} at the bottom?
        """
    lower, textbook = gaps(stack), textbook_flips(stack)
    hardness = {"steps": best, "search": math.factorial(n), "traps": 2}
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=tier_of(hardness), prompt=prompt, answer=best,
        solver="",
        reference=f"""\
            Count the places where neighbours are not consecutive sizes (the plate below counts as size {n + 1}):
            there are {lower}, and one flip can mend at most one, so at least {lower} flips are needed. That bound
            is not reached here: searching level by level from {lower} flips upwards, the first sequence that
            sorts the stack has {best} flips.

            **Answer: {best}**""",
        traps=[lower, textbook, best - 1],
        notes=f"""Generated stack {shown}: {math.factorial(n):,} orderings. The gap count ({lower}) is only a
            lower bound here and the largest-to-top procedure takes {textbook} flips; the optimum {best} needs a
            search that proves no shorter sequence exists (branching {n - 1} per flip).""",
        max_tokens=32768 if tier_of(hardness) == "hard" else 16384,
        title=f"Pancake stack of {n}: fewest flips to sort")
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, n) for i, n in enumerate(SHAPES, 1)]
