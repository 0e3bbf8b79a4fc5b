"""Linked rings (the Chinese rings puzzle, baguenaudier): 9-11 rings on a bar, a generated start pattern and
a generated goal pattern (all off, or another pattern); ring 1 can always be put on or taken off, and ring
k > 1 only while ring k-1 is on and every ring below k-1 is off. The answer is the fewest moves from the
start to the goal.

The generator uses the idea behind the puzzle: the positions form a single chain in reflected Gray-code
order, so the distance between two patterns is the difference of their Gray-code ranks (rank bits from
ring n down: each is the ring's state XOR the rank bit above). It keeps instances where the shortcuts
miss: the number of rings whose state differs, and the ranks read with the bits in the wrong order
(ring 1 as the high bit). `verify.solver` parses both patterns out of the prompt and runs a breadth-first
search over all 2^n patterns with the move rule.
"""

from __future__ import annotations

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-rings"
SHAPES = [(9, False), (10, True), (11, True)]  # (rings, goal is a pattern rather than all off)


def rank(rings: list[int]) -> int:
    """Gray-code rank: rings[0] is ring 1; ring n gives the high bit."""
    value, bit = 0, 0
    for state in reversed(rings):
        bit ^= state
        value = 2 * value + bit
    return value


def wrong_order_rank(rings: list[int]) -> int:
    return rank(rings[::-1])


def _instance(rng, n: int, patterned: bool):
    while True:
        start = [rng.randrange(2) for _ in range(n)]
        goal = [rng.randrange(2) for _ in range(n)] if patterned else [0] * n
        best = abs(rank(start) - rank(goal))
        traps = [sum(a != b for a, b in zip(start, goal)), abs(wrong_order_rank(start) - wrong_order_rank(goal))]
        if best >= 2 ** (n - 3) and best not in traps:
            return start, goal, best, traps


SOLVER = r'''
import re
from collections import deque
def pattern(label):
    return tuple(int(x) for x in re.search(label + r": ([01 ]+)\n", PROMPT).group(1).split())
start, goal = pattern("Start"), pattern("Goal")
n = len(start)
seen = {start: 0}
queue = deque([start])
while queue:
    state = queue.popleft()
    if state == goal:
        print(seen[state])
        break
    options = [0]  # ring 1 (index 0) is always free
    for k in range(1, n):
        if state[k - 1] == 1 and not any(state[:k - 1]):
            options.append(k)
    for k in options:
        nxt = state[:k] + (1 - state[k],) + state[k + 1:]
        if nxt not in seen:
            seen[nxt] = seen[state] + 1
            queue.append(nxt)
'''


def _case(index: int, rng, n: int, patterned: bool) -> dict:
    start, goal, best, (differ, flipped) = _instance(rng, n, patterned)
    goal_text = ("Goal: " + " ".join(map(str, goal)) if patterned else "Goal: " + " ".join("0" * n))
    prompt = f"""\
        A puzzle has {n} rings on a bar, numbered 1 to {n}. Each ring is either on the bar (1) or off it (0).
        Patterns list rings 1 to {n} from left to right.
        Start: {" ".join(map(str, start))}
        {goal_text}
        A move puts one ring on or takes one ring off. Ring 1 can always be moved. Any other ring k can be
        moved only when ring k-1 is on and every ring numbered below k-1 is off. What is the fewest moves
        that turn the start pattern into the goal pattern?
        """
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": n, "search": 2 ** n, "traps": 2},
        reference=f"""\
            From any pattern at most two moves are possible (ring 1, and the one ring just above the
            lowest ring that is on), so the patterns form a single chain: the reflected Gray code. A
            pattern's place on the chain is read from ring {n} down, each bit being the ring's state XOR
            the bit above. The two patterns' places differ by {best}.

            Answer: {best}""",
        traps=[differ, flipped],
        notes=f"""Generated {n}-ring start{' and goal' if patterned else ''} ({2 ** n:,} patterns). Counting the
            rings that differ ({differ}) or reading the Gray-code ranks with ring 1 as the high bit
            ({flipped}) both miss; the answer {best} needs the insight that the move graph is one path and
            the Gray-code rank computed bit by bit over {n} rings, since simulating {best} moves by hand is
            hopeless.""",
        max_tokens=16384, title=f"Linked rings, {n} rings: fewest moves between two patterns")
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
