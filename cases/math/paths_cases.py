"""MA-route: monotone lattice routes that avoid blocked points and change direction a limited
number of times. The generator runs a dynamic programme over (point, heading, turns so far); the
solver lists every route."""

from math import comb

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import declare

FAMILY = "MA-route"

SOLVER = """
from itertools import combinations
count = 0
steps = WIDTH + HEIGHT
for east_steps in combinations(range(steps), WIDTH):
    east = set(east_steps)
    x = y = turns = 0
    ok = True
    for i in range(steps):
        if i and ((i in east) != (i - 1 in east)):
            turns += 1
        if i in east:
            x += 1
        else:
            y += 1
        if (x, y) in BLOCKED or turns > MAX_TURNS:
            ok = False
            break
    if ok:
        count += 1
print(count)
"""


def routes(width, height, blocked, max_turns, exact=False):
    blocked = set(blocked)
    # ways[(x, y, heading, turns)]: heading 0 = east, 1 = north; the first step sets it without a turn
    ways = {}
    if (1, 0) not in blocked:
        ways[(1, 0, 0, 0)] = 1
    if (0, 1) not in blocked:
        ways[(0, 1, 1, 0)] = ways.get((0, 1, 1, 0), 0) + 1
    for total in range(1, width + height):
        for (x, y, heading, turns), w in [(k, v) for k, v in ways.items() if k[0] + k[1] == total]:
            for new, (dx, dy) in enumerate(((1, 0), (0, 1))):
                nx, ny, nt = x + dx, y + dy, turns + (new != heading)
                if nx > width or ny > height or (nx, ny) in blocked or nt > max_turns:
                    continue
                key = (nx, ny, new, nt)
                ways[key] = ways.get(key, 0) + w
    return sum(w for (x, y, _, t), w in ways.items()
               if (x, y) == (width, height) and (t == max_turns or not exact))


def _case(rng, index, difficulty):
    while True:
        width, height = (rng.randint(5, 6), rng.randint(4, 5)) if difficulty == "medium" else \
            (rng.randint(7, 9), rng.randint(6, 8))
        if width + height > 16:
            continue
        blocked = set()
        while len(blocked) < (2 if difficulty == "medium" else rng.randint(3, 4)):
            point = (rng.randint(1, width - 1), rng.randint(1, height - 1))
            blocked.add(point)
        blocked = sorted(blocked)
        max_turns = rng.randint(3, 5) if difficulty == "medium" else rng.randint(4, 7)
        answer = routes(width, height, blocked, max_turns)
        free_turns = routes(width, height, [], max_turns)
        unlimited = routes(width, height, blocked, width + height)
        if answer >= 20 and answer not in (free_turns, unlimited):
            break
    traps = [free_turns, unlimited, routes(width, height, blocked, max_turns, exact=True),
             routes(width, height, blocked, max_turns - 1)]
    listed = ", ".join(f"({x}, {y})" for x, y in blocked)
    prompt = f"""
        A robot walks on the integer grid from (0, 0) to ({width}, {height}). Each step moves it one
        unit east (x increases by 1) or one unit north (y increases by 1). It may never stand on any of
        the points {listed}, and it may change direction (from east to north, or from north to east)
        at most {max_turns} times in total. How many different routes can it take?
    """
    reference = f"""
        Count routes by dynamic programming over (position, current heading, turns used so far),
        skipping the blocked points {listed} and any state with more than {max_turns} turns.

        - Without restrictions there would be C({width + height}, {width}) = {comb(width + height, width)} routes.
        - With the turn limit alone: {free_turns}; with the blocked points alone: {unlimited}.
        - With both: **{answer}**.

        Answer: {answer}
    """
    notes = f"""{comb(width + height, width)} monotone routes; neither restriction has a closed form
        together with the other: the turn limit counts routes by runs (compositions of {width} and
        {height}), and the {len(blocked)} blocked points cut through those runs, so the model must run a
        DP with heading and turn count as state (about {(width + 1) * (height + 1) * 2 * (max_turns + 1)}
        states) or an inclusion-exclusion that tracks turns. Traps: ignoring the blocked points
        ({free_turns}), ignoring the turn limit ({unlimited}), exactly {max_turns} turns ({traps[2]})."""
    return numeric_case(
        family=FAMILY, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, WIDTH=width, HEIGHT=height, BLOCKED=blocked, MAX_TURNS=max_turns),
        reference=reference, notes=notes, max_tokens=16384 if difficulty == "medium" else 32768,
        title=f"Routes to ({width}, {height}) avoiding {len(blocked)} points, at most {max_turns} turns")


# Hardness facts (steps, search, traps) per shape: a DP over (point, heading, turns) across the grid; brute
# force lists every monotone route.
HARDNESS = {"medium": (10, 210, 3), "hard": (14, 3000, 3)}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    out = [_case(rng, i, difficulty) for i, difficulty in
            enumerate(["medium", "hard", "hard", "hard", "hard", "hard"], 1)]
    for case in out:  # the plan's label names the shape (shorter or longer); the rule gives the tier
        declare(case, *HARDNESS[case["difficulty"]])
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
