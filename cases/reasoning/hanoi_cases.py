"""Towers from the middle of a game: 7-9 discs of different sizes already spread over three pegs in a
generated legal position (no disc on a smaller one); a move takes the top disc of one peg onto another
peg whose top disc is larger (or which is empty). The answer is the fewest moves that gather every disc
on the right-hand peg.

The generator uses the recursive argument: the largest disc not yet home must move once, straight onto
the target, with every smaller disc out of the way on the third peg; the smaller discs then make a full
tower move (2^k - 1 moves) unless nothing remains; discs already home at the bottom stay. It keeps
positions where the shortcuts miss: the count for a whole tower (2^n - 1), the count that treats discs
already on the target as settled wherever they sit, and 2^(k-1) for each disc k not on the target (the
recursion without switching the goal peg). `verify.solver` parses the pegs out of the
prompt and runs a breadth-first search over all 3^n positions.
"""

from __future__ import annotations

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-hanoi"
SHAPES = [7, 8, 9]  # discs
PEGS = "LMR"


def _gather(where: list[int], target: int) -> int:
    """Fewest moves to gather discs 1..n (where[k-1] is disc k's peg, pegs 0-2) on `target`."""
    total, goal = 0, target
    for disc in range(len(where), 0, -1):
        peg = where[disc - 1]
        if peg != goal:
            total += 2 ** (disc - 1)  # disc moves once; the smaller ones build a tower on the third peg
            goal = 3 - peg - goal
    return total


def settled_count(where: list[int], target: int) -> int:
    """A trap: the full-tower count for just the discs not already on the target."""
    return 2 ** sum(1 for peg in where if peg != target) - 1


def fixed_goal(where: list[int], target: int) -> int:
    """A trap: the recursive count with the goal peg never switching (2^(k-1) per disc not on the target)."""
    return sum(2 ** (disc - 1) for disc, peg in enumerate(where, 1) if peg != target)


def _instance(rng, n: int):
    while True:
        where = [rng.randrange(3) for _ in range(n)]
        if where[-1] == 2:
            continue
        best = _gather(where, 2)
        traps = [2 ** n - 1, settled_count(where, 2), fixed_goal(where, 2)]
        if best not in traps and best >= 2 ** (n - 2):
            return where, best, traps


SOLVER = r'''
import re
from collections import deque
pegs = {name: [int(x) for x in re.findall(r"\d+", discs)] for name, discs in
        re.findall(r"^- peg (\w): (.*)$", PROMPT, re.M)}
n = sum(len(d) for d in pegs.values())
names = sorted(pegs)  # L, M, R
start = [None] * n
for i, name in enumerate(names):
    for disc in pegs[name]:
        start[disc - 1] = i
start = tuple(start)
goal = (names.index("R"),) * n
seen = {start: 0}
queue = deque([start])
while queue:
    state = queue.popleft()
    if state == goal:
        print(seen[state])
        break
    tops = {}
    for disc in range(n, 0, -1):
        tops[state[disc - 1]] = disc  # the last written is the smallest disc on that peg
    for src, disc in tops.items():
        for dst in range(3):
            if dst != src and (dst not in tops or tops[dst] > disc):
                nxt = state[: disc - 1] + (dst,) + state[disc:]
                if nxt not in seen:
                    seen[nxt] = seen[state] + 1
                    queue.append(nxt)
'''


def _case(index: int, rng, n: int) -> dict:
    where, best, (tower, settled, fixed) = _instance(rng, n)
    stacks = [[d for d in range(n, 0, -1) if where[d - 1] == peg] for peg in range(3)]
    lines = "\n".join(f"- peg {p}: {', '.join(map(str, s)) if s else '(empty)'}" for p, s in zip(PEGS, stacks))
    prompt = f"""\
        Three pegs stand in a row: L (left), M (middle) and R (right). {n} discs of sizes 1 (smallest) to {n}
        (largest) are spread over them; each peg lists its discs from bottom to top:
        __LIST__
        A move takes the top disc of one peg and puts it on another peg, either empty or with a larger disc on
        top; a disc may never rest on a smaller one. What is the fewest moves that bring all {n} discs onto
        peg R?
        """
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": n, "search": 3 ** n, "traps": 3},
        reference=f"""\
            Work from the largest disc down. A disc already on the target, with only home discs under it,
            stays; the largest disc that is not home must move once, onto the target, after every smaller
            disc has gathered on the third peg; then those smaller discs make one full tower move onto it.
            Gathering a smaller set on some peg follows the same rule recursively, peg by peg. Adding the
            moves gives {best}.

            Answer: {best}""",
        traps=[tower, settled, fixed],
        notes=f"""Generated legal position of {n} discs, {3 ** n:,} positions in all. The whole-tower count
            ({tower}) ignores the discs already placed, and moving only the discs not yet on R as if they formed
            a tower gives {settled}, and charging 2^(k-1) for every disc k not on R without switching the goal peg
            gives {fixed}; the optimum {best} needs the recursive argument (which peg each smaller
            set must gather on changes as the recursion descends) carried through {n} levels.""",
        max_tokens=16384, title=f"Towers of Hanoi from a mid-game position of {n} discs")
    case["prompt"] = case["prompt"].replace("__LIST__", lines)
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, n) for i, n in enumerate(SHAPES, 1)]
