"""Weighing log: 16-44 coins, two of them fake (one 2 g too heavy, one 1 g too light); a log of balance
weighings with equal numbers of coins on each pan and their outcomes. Exactly one pair of fakes fits the
log; the question names one of the two.

The generator draws the hidden pair and adds random weighings that split the pairs still possible
(by the signed count: 2 for the heavy coin on a pan, -1 for the light one), until one pair is left,
then drops every weighing the others make redundant, so each one is needed. `verify.solver` parses
the log out of the prompt and tries every ordered pair with actual weights (10 g coins).
"""

from __future__ import annotations

from pytest_crucible.suite.families import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "RE-weigh"
SHAPES = [(16, "light"), (34, "heavy"), (40, "light"), (44, "heavy")]  # (coins, fake asked for)


def _tilt(pans: tuple[frozenset, frozenset], heavy: int, light: int) -> int:
    """+1 when the left pan is heavier, -1 when the right is, 0 when they balance."""
    left, right = pans
    score = 2 * ((heavy in left) - (heavy in right)) - ((light in left) - (light in right))
    return (score > 0) - (score < 0)


def _fits(log, pairs):
    return [(h, lt) for h, lt in pairs if all(_tilt(pans, h, lt) == out for pans, out in log)]


def _instance(rng, n: int):
    coins = range(1, n + 1)
    every = [(h, lt) for h in coins for lt in coins if h != lt]
    while True:
        heavy, light = rng.sample(coins, 2)
        log: list = []
        alive = every
        while len(alive) > 1 and len(log) < 12:
            size = rng.randint(2, n // 3)
            chosen = rng.sample(coins, 2 * size)
            pans = (frozenset(chosen[:size]), frozenset(chosen[size:]))
            entry = (pans, _tilt(pans, heavy, light))
            kept = _fits([entry], alive)
            if len(kept) < len(alive):
                log.append(entry)
                alive = kept
        if len(alive) != 1:
            continue
        # bit i of a pair's mask: the pair contradicts weighing i; drop weighings until each one is needed
        masks = [sum(1 << i for i, (pans, out) in enumerate(log) if _tilt(pans, h, lt) != out) for h, lt in every]
        kept = (1 << len(log)) - 1
        for i in range(len(log)):
            if all(m & kept & ~(1 << i) for m in masks if m):
                kept &= ~(1 << i)
        log = [entry for i, entry in enumerate(log) if (kept >> i) & 1]
        if len(log) >= 5:
            near = [p for p, m in zip(every, masks) if m and bin(m & kept).count("1") == 1]
            return log, heavy, light, near


SOLVER = r'''
import re
n = int(re.search(r"There are (\d+) coins", PROMPT).group(1))
log = []
for left, right, outcome in re.findall(r"left pan ([\d, ]+) against right pan ([\d, ]+): (.+?)\.\n", PROMPT):
    sign = {"the left pan goes down": 1, "the right pan goes down": -1, "the pans balance": 0}[outcome]
    log.append(([int(c) for c in left.split(", ")], [int(c) for c in right.split(", ")], sign))
found = []
for heavy in range(1, n + 1):
    for light in range(1, n + 1):
        if heavy == light:
            continue
        weight = {c: 10 for c in range(1, n + 1)}
        weight[heavy], weight[light] = 12, 9
        ok = True
        for left, right, sign in log:
            diff = sum(weight[c] for c in left) - sum(weight[c] for c in right)
            if (diff > 0) - (diff < 0) != sign:
                ok = False
        if ok:
            found.append((heavy, light))
assert len(found) == 1, found
print(found[0][0] if "heavy fake" in PROMPT.split("Which")[-1] else found[0][1])
'''

OUTCOME = {1: "the left pan goes down", -1: "the right pan goes down", 0: "the pans balance"}


def _case(index: int, rng, n: int, asked: str) -> dict:
    log, heavy, light, near = _instance(rng, n)
    answer, other = (heavy, light) if asked == "heavy" else (light, heavy)
    lines = "\n        ".join(
        f"{i}. left pan {', '.join(map(str, sorted(left)))} against right pan {', '.join(map(str, sorted(right)))}: "
        f"{OUTCOME[out]}." for i, ((left, right), out) in enumerate(log, 1))
    prompt = f"""\
        There are {n} coins, numbered 1 to {n}. All weigh 10 g except two fakes: one weighs 12 g (the heavy fake)
        and one weighs 9 g (the light fake). A balance with two pans was used {len(log)} times, always with the
        same number of coins on each pan; the log:
        {lines}
        Exactly one choice of the two fakes fits every weighing. Which coin is the {asked} fake?
        """
    near_answers = [p[0] if asked == "heavy" else p[1] for p in near]
    traps = [other, *near_answers[:3], answer + 1]
    hardness = {"steps": len(log), "search": n * (n - 1), "traps": 2}
    difficulty = tier_of(hardness)
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer,
        solver="",
        reference=f"""\
            A pan's excess is +2 g for the heavy fake and -1 g for the light one, so the heavy fake outweighs the
            light one on the same side, and a pan holding both is 1 g heavier. Going through the weighings and
            keeping only the pairs that fit each outcome leaves one pair: coin {heavy} is the heavy fake and coin
            {light} the light fake.

            Answer: {answer}""",
        traps=traps,
        notes=f"""{n} coins, {n * (n - 1):,} ordered pairs of fakes, {len(log)} weighings, each needed (dropping
            any one lets another pair fit). The unequal weights are the trap: a pan holding both fakes still goes
            down (2 - 1 = 1 g), so a tilt does not say which fake is where, and reading the log as about one odd
            coin, or as two equal fakes, lands on a wrong coin; the other fake's number and the pair that survives
            all but one weighing are the near misses. The pairs must be tracked through every weighing.""",
        max_tokens=32768 if difficulty == "hard" else 16384,
        title=f"Weighing log, {n} coins and two fakes: the {asked} one")
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
