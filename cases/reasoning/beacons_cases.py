"""Beacons in step: 3-4 beacons, each first lit at a generated second, staying lit a few seconds, and
lighting again on a fixed cycle (periods that share factors). The answer is the first second at which all
of them are lit together.

The generator solves it with the Chinese remainder theorem, generalised to moduli that share factors: for
every choice of which lit second of each beacon coincides, it merges the congruences (or finds them
incompatible), lifts the result past every beacon's first lighting, and takes the earliest. It keeps
instances where the shortcuts miss: the least common multiple of the periods, and the answer when only the
first lit second of each cycle counts (the beacons as instant flashes), and (a trap when it differs) the
answer if the cycles also ran before each beacon's first lighting. `verify.solver` parses the beacons out
of the prompt and steps through the seconds one by one.
"""

from __future__ import annotations

import math
from itertools import product

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-beacons"
SHAPES = [3, 3, 4]  # beacons
NAMES = ["North Point", "Gull Rock", "Harbour Mole", "Skerry Light"]


def _merge(r1: int, m1: int, r2: int, m2: int) -> tuple[int, int] | None:
    g = math.gcd(m1, m2)
    if (r2 - r1) % g:
        return None
    lcm = m1 // g * m2
    k = ((r2 - r1) // g * pow(m1 // g, -1, m2 // g)) % (m2 // g) if m2 // g > 1 else 0
    return (r1 + m1 * k) % lcm, lcm


def first_together(beacons: list[tuple[int, int, int]], widths: bool = True, before: bool = False) -> int | None:
    """beacons: (first lit second, seconds lit, period); `before`: as if the cycles ran before the first
    lighting too (a trap)."""
    best = None
    for shifts in product(*(range(d if widths else 1) for _, d, _ in beacons)):
        merged: tuple[int, int] | None = (0, 1)
        for (start, _, period), k in zip(beacons, shifts):
            merged = _merge(merged[0], merged[1], (start + k) % period, period) if merged else None
        if merged is None:
            continue
        t, lcm = merged
        floor = 0 if before else max(start + k for (start, _, _), k in zip(beacons, shifts))
        if t < floor:
            t += -(-(floor - t) // lcm) * lcm
        best = t if best is None else min(best, t)
    return best


def _instance(rng, n: int):
    while True:
        base = rng.choice([4, 6, 8, 9, 10, 12])
        periods = sorted({base * rng.randint(2, 7) // rng.choice([1, 2]) for _ in range(n)})
        if len(periods) < n or any(p < 8 for p in periods):
            continue
        beacons = [(rng.randrange(p), rng.randint(2, max(2, p // 5)), p) for p in periods]
        best = first_together(beacons)
        flashes = first_together(beacons, widths=False)
        early = first_together(beacons, before=True)
        lcm = math.lcm(*periods)
        if best is None or best < 60 or best in (lcm, flashes):
            continue
        return beacons, best, flashes, lcm, early


SOLVER = r'''
import re
beacons = [tuple(int(x) for x in m) for m in re.findall(
    r"first lit at second (\d+), stays lit for (\d+) seconds, and lights again every (\d+) seconds", PROMPT)]
def lit(t, start, width, period):
    return t >= start and (t - start) % period < width
t = 0
while not all(lit(t, *b) for b in beacons):
    t += 1
print(t)
'''


def _case(index: int, rng, n: int) -> dict:
    beacons, best, flashes, lcm, early = _instance(rng, n)
    lines = "\n".join(f"- {NAMES[i]}: first lit at second {a}, stays lit for {d} seconds, and lights again every "
                      f"{p} seconds" for i, (a, d, p) in enumerate(beacons))
    prompt = f"""\
        {n} harbour beacons were switched on at second 0 of a test. Each one is dark until its first lighting,
        then lit for a few whole seconds, then dark again until its next lighting, on a fixed cycle. For
        example, a beacon first lit at second 3, lit for 2 seconds and lighting again every 10 seconds is lit
        during seconds 3, 4, 13, 14, 23, 24, and so on.
        __LIST__
        What is the first second during which all {n} beacons are lit at the same time?
        """
    search = math.prod(d for _, d, _ in beacons)
    traps = [t for t in dict.fromkeys([early, lcm, flashes]) if t is not None and t != best]
    early_text = str(early) if early != best else "the same second here"
    flash_text = str(flashes) if flashes is not None else "no common second at all"
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": 2 * n, "search": search, "traps": len(traps)},
        reference=f"""\
            Each beacon is lit at the seconds congruent to its first lighting (or up to its lit width
            later) modulo its period. For every choice of lit second per beacon, combining the congruences
            (their periods share factors, so some choices are incompatible) gives a candidate; the earliest
            candidate after all first lightings is second {best}.

            Answer: {best}""",
        traps=traps,
        notes=f"""Generated periods {", ".join(str(p) for _, _, p in beacons)} sharing factors, lit widths
            {", ".join(str(d) for _, d, _ in beacons)}. Letting the cycles run before each first lighting gives
            {early_text}, the least common multiple ({lcm}) ignores the offsets, and treating each lighting
            as an instant flash gives {flash_text}; the answer needs a generalised Chinese remainder argument
            over {search} combinations of lit seconds (many incompatible because the periods share factors),
            or a long scan of the seconds.""",
        max_tokens=16384, title=f"{n} beacons: the first second all are lit")
    case["prompt"] = case["prompt"].replace("__LIST__", lines)
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, n) for i, n in enumerate(SHAPES, 1)]
