"""Lights out on a generated wiring: 7-15 lamps, each with a button that switches over its own lamp and
every lamp wired to it; some lamps are lit. The answer is the fewest presses that turn every lamp off.

The generator solves the system over GF(2) by elimination (one equation per lamp), keeps wirings whose
press matrix is singular (so several press sets work and the first one found is often not the
smallest), enumerates the coset of solutions and requires exactly one of least size. `verify.solver`
parses the wires and the lit lamps out of the prompt and tries every set of buttons.
"""

from __future__ import annotations

from pytest_crucible.suite.families import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "RE-lights"
SHAPES = [(7, 9), (12, 16), (13, 18), (15, 21)]  # (lamps, wires)


def _solutions(masks: list[int], lit: int) -> list[int]:
    """Every press set (bit k: press button k) whose toggles equal `lit`, by elimination over GF(2)."""
    n = len(masks)
    # column k of the system is masks[k] (pressing k toggles those lamps); rows are lamps
    rows = [(sum(((masks[k] >> lamp) & 1) << k for k in range(n)), (lit >> lamp) & 1) for lamp in range(n)]
    pivots: list[tuple[int, int, int]] = []
    for row, rhs in rows:
        for col, prow, prhs in pivots:
            if (row >> col) & 1:
                row, rhs = row ^ prow, rhs ^ prhs
        if row:
            col = row.bit_length() - 1
            pivots = [(c, r ^ row, h ^ rhs) if (r >> col) & 1 else (c, r, h) for c, r, h in pivots]
            pivots.append((col, row, rhs))
        elif rhs:
            return []
    pivot_cols = {c for c, _, _ in pivots}
    free = [k for k in range(n) if k not in pivot_cols]
    found = []
    for choice in range(1 << len(free)):
        x = sum(1 << free[i] for i in range(len(free)) if (choice >> i) & 1)
        for col, row, rhs in pivots:
            if (rhs ^ bin(row & x & ~(1 << col)).count("1")) & 1:
                x |= 1 << col
        found.append(x)
    return found


def _instance(rng, n: int, wires: int):
    while True:
        pairs: set[tuple[int, int]] = set()
        while len(pairs) < wires:
            pairs.add(tuple(sorted(rng.sample(range(n), 2))))
        if len({v for p in pairs for v in p}) < n:
            continue
        masks = [(1 << k) | sum(1 << (b if a == k else a) for a, b in pairs if k in (a, b)) for k in range(n)]
        hidden = sum(1 << k for k in rng.sample(range(n), rng.randint(n // 3 + 1, n // 2 + 1)))
        lit = 0
        for k in range(n):
            if (hidden >> k) & 1:
                lit ^= masks[k]
        sizes = sorted(bin(x).count("1") for x in _solutions(masks, lit))
        if 2 <= len(sizes) <= 8 and sizes[1] > sizes[0] >= min(4, n // 2) and bin(lit).count("1") != sizes[0]:
            return sorted(pairs), lit, sizes


SOLVER = r'''
import re
wires = [(int(a), int(b)) for a, b in re.findall(r"(\d+)-(\d+)", PROMPT.split("Wires:")[1].split("\n")[0])]
n = int(re.search(r"has (\d+) lamps", PROMPT).group(1))
lit = {int(x) for x in re.search(r"Lit now: ([\d, ]+)\.", PROMPT).group(1).split(", ")}
effect = []
for k in range(1, n + 1):
    lamps = {k} | {b for a, b in wires if a == k} | {a for a, b in wires if b == k}
    effect.append(sum(1 << (lamp - 1) for lamp in lamps))
target = sum(1 << (lamp - 1) for lamp in lit)
best = None
for presses in range(1 << n):
    state, rest, k = 0, presses, 0
    while rest:
        if rest & 1:
            state ^= effect[k]
        rest >>= 1
        k += 1
    if state == target:
        size = bin(presses).count("1")
        best = size if best is None else min(best, size)
print(best)
'''


def _case(index: int, rng, n: int, wires: int) -> dict:
    pairs, lit, sizes = _instance(rng, n, wires)
    best, runner_up = sizes[0], sizes[1]
    lit_list = [k + 1 for k in range(n) if (lit >> k) & 1]
    prompt = f"""\
        A panel has {n} lamps, numbered 1 to {n}, and under each lamp a button. Some pairs of lamps are wired
        together. Pressing the button under lamp k switches over lamp k and every lamp wired to lamp k (a lit
        lamp goes off, an unlit one comes on); nothing else changes.
        Wires: {", ".join(f"{a + 1}-{b + 1}" for a, b in pairs)}
        Lit now: {", ".join(map(str, lit_list))}. Every other lamp is off.
        What is the fewest button presses that leave every lamp off?
        """
    hardness = {"steps": n, "search": 2 ** n, "traps": 2}
    difficulty = tier_of(hardness)
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=best,
        solver="",
        reference=f"""\
            Pressing a button twice undoes it and the order of presses does not matter, so a solution is a set
            of buttons: one equation over GF(2) per lamp. Eliminating gives {len(sizes)} sets that turn
            everything off ({len(sizes).bit_length() - 1} free variable(s) in the system); their sizes are
            {", ".join(map(str, sizes))}, so the smallest takes {best} presses.

            Answer: {best}""",
        traps=[runner_up, len(lit_list), best - 1],
        notes=f"""{n} lamps, {len(pairs)} wires, {2 ** n:,} press sets. The press system is singular here:
            {len(sizes)} press sets turn the panel off, with sizes {", ".join(map(str, sizes))}, so the first
            solution an elimination or a hand search finds is usually not the smallest ({runner_up} is the next
            one), and pressing the {len(lit_list)} lit lamps is the naive guess. Needs the parity insight, a
            {n}-variable elimination and a search over the free choices.""",
        max_tokens=32768 if difficulty == "hard" else 16384,
        title=f"Lights out on {n} wired lamps: fewest presses")
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
