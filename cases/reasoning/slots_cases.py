"""Exam slots: 12-13 exams, and a generated list of pairs that share a student (so they may not be in the
same slot); the answer is the fewest time slots that fit every exam, the chromatic number of the clash
graph.

The generator plants a timetable (clashes only across its slots), finds the largest set of mutually
clashing exams (a lower bound), then tries colourings with that many slots and more, by backtracking on
the exam with the fewest slots left; it keeps graphs where both shortcuts miss: the lower bound (the
biggest clashing group is smaller than the answer) and first-fit in the listed order (it uses more slots
than needed). `verify.solver` parses the clashes out of the prompt and computes the same number by a
dynamic program over sets of exams (each slot an independent set).
"""

from __future__ import annotations

from pytest_crucible.suite.families import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "RE-slots"
SHAPES = [(12, 0.4, 5), (12, 0.5, 5), (13, 0.5, 5), (13, 0.7, 5)]  # (exams, clash share, hidden slots)
SUBJECTS = ["Algebra", "Biology", "Chemistry", "Drama", "Economics", "French", "Geology", "History", "Italian",
            "Japanese", "Latin", "Music", "Optics", "Physics", "Statistics", "Zoology"]


def largest_clique(near: list[int]) -> int:
    best = 0

    def grow(size: int, options: int) -> None:
        nonlocal best
        if not options:
            best = max(best, size)
            return
        if size + bin(options).count("1") <= best:
            return
        v = options.bit_length() - 1
        grow(size + 1, options & near[v])
        grow(size, options & ~(1 << v))

    grow(0, (1 << len(near)) - 1)
    return best


def colourable(near: list[int], k: int) -> bool:
    """Backtracking on the exam with the fewest slots left; a new slot is only ever the next unused one."""
    n = len(near)
    neighbours = [[w for w in range(n) if near[v] >> w & 1] for v in range(n)]
    colour, forbid, full = [-1] * n, [0] * n, (1 << k) - 1

    def place(done: int, top: int) -> bool:
        if done == n:
            return True
        v = max((u for u in range(n) if colour[u] < 0),
                key=lambda u: (bin(forbid[u]).count("1"), len(neighbours[u])))
        for c in range(min(k, top + 2)):
            if forbid[v] >> c & 1:
                continue
            colour[v] = c
            changed = [w for w in neighbours[v] if colour[w] < 0 and not forbid[w] >> c & 1]
            for w in changed:
                forbid[w] |= 1 << c
            if all(forbid[w] != full for w in changed) and place(done + 1, max(top, c)):
                return True
            for w in changed:
                forbid[w] &= ~(1 << c)
        colour[v] = -1
        return False

    return place(0, -1)


def first_fit(near: list[int]) -> int:
    colour: list[int] = []
    for v in range(len(near)):
        taken = {colour[w] for w in range(v) if near[v] >> w & 1}
        colour.append(next(c for c in range(len(near)) if c not in taken))
    return max(colour) + 1


def _instance(rng, n: int, share: float, planted: int):
    while True:
        # a hidden timetable with `planted` slots: clashes only between exams of different hidden slots
        hidden = [rng.randrange(planted) for _ in range(n)]
        pairs = [(a, b) for a in range(n) for b in range(a + 1, n)
                 if hidden[a] != hidden[b] and rng.random() < share]
        near = [sum(1 << (b if a == v else a) for a, b in pairs if v in (a, b)) for v in range(n)]
        clique, greedy = largest_clique(near), first_fit(near)
        if greedy <= clique + 1:
            continue
        slots = next(k for k in range(clique, n + 1) if colourable(near, k))
        if clique < slots < greedy:
            return pairs, slots, clique, greedy


SOLVER = r'''
import re
names = re.search(r"The exams: ([\w, ]+)\.", PROMPT).group(1).split(", ")
index = {name: i for i, name in enumerate(names)}
n = len(names)
near = [0] * n
for a, b in re.findall(r"(\w+) and (\w+)(?:;|\.)", PROMPT.split("Shared students:")[1].split("\n")[0]):
    near[index[a]] |= 1 << index[b]
    near[index[b]] |= 1 << index[a]
free = [True] * (1 << n)  # free[S]: no two exams in S clash
for s in range(1, 1 << n):
    low = (s & -s).bit_length() - 1
    rest = s & (s - 1)
    free[s] = free[rest] and not (near[low] & rest)
slots = [0] + [n + 1] * ((1 << n) - 1)
for s in range(1, 1 << n):
    low = s & -s
    sub = s
    while sub:  # a slot holding the lowest exam of s
        if sub & low and free[sub]:
            slots[s] = min(slots[s], slots[s ^ sub] + 1)
        sub = (sub - 1) & s
print(slots[(1 << n) - 1])
'''


def _case(index: int, rng, n: int, share: float, planted: int) -> dict:
    pairs, slots, clique, greedy = _instance(rng, n, share, planted)
    names = rng.sample(SUBJECTS, n)
    clash_text = "; ".join(f"{names[a]} and {names[b]}" for a, b in pairs)
    prompt = f"""\
        A school must timetable {n} exams. The exams: {", ".join(names)}.
        Two exams that share a student may not be held in the same slot; any number of exams without a shared
        student may share a slot.
        Shared students: {clash_text}.
        What is the fewest time slots that can hold all {n} exams?
        """
    hardness = {"steps": n, "search": slots ** n, "traps": 2}
    difficulty = tier_of(hardness)
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=slots,
        solver="",
        reference=f"""\
            The largest group of exams that all clash pairwise has {clique}, so at least {clique} slots are
            needed, but that is not enough here: trying {clique} slots, every assignment hits a clash. Filling
            the exams in the listed order uses {greedy} slots, which is more than needed; a careful search
            finds a timetable with {slots} slots.

            Answer: {slots}""",
        traps=[clique, greedy, slots + 1],
        notes=f"""{n} exams, {len(pairs)} clashing pairs: the fewest slots (the chromatic number) is {slots}, above
            the largest clashing group ({clique}, the natural lower bound) and below first-fit in the listed
            order ({greedy}). Proving that {slots - 1} slots cannot work needs an exhaustive case analysis over
            {slots - 1}^{n} = {(slots - 1) ** n:,} assignments (pruned by clashes); finding {slots} needs a
            search, not first fit.""",
        max_tokens=32768 if difficulty == "hard" else 16384,
        title=f"Exam slots: {n} exams, fewest slots")
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
