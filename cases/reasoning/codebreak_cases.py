"""Code breaking: a hidden 4-5 digit code and a log of guesses with their scores (digits right and in the
right place; digits right but misplaced), in the style of Mastermind or, with distinct digits, Bulls and
Cows. Exactly one code fits the log; the answer is that code.

The generator draws the code and adds random guesses, each kept only if it narrows the codes still
possible, until one is left (so the last guess is needed: the codes it rules out are the near misses).
`verify.solver` parses the rules and the log out of the prompt, scores every possible code against each
guess with its own counting, and requires exactly one survivor.
"""

from __future__ import annotations

from itertools import permutations, product

from pytest_crucible.suite.families import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "RE-codebreak"
# (length, digits from 1 to, repeats allowed)
SHAPES = [(4, 5, True), (4, 6, True), (4, 9, False), (5, 4, True)]


def score(code: tuple, guess: tuple) -> tuple[int, int]:
    exact = sum(map(int.__eq__, code, guess))
    common = sum(min(code.count(d), guess.count(d)) for d in set(guess))
    return exact, common - exact


def _consistent(codes: list[tuple], guess: tuple, mark: tuple[int, int]) -> list[tuple]:
    """The codes that give `guess` the score `mark` (the exact count first: it rejects most, cheaply)."""
    exact, misplaced = mark
    wanted = [(d, guess.count(d)) for d in set(guess)]
    return [c for c in codes if sum(map(int.__eq__, c, guess)) == exact
            and sum(min(c.count(d), k) for d, k in wanted) - exact == misplaced]


def _codes(length: int, top: int, repeats: bool) -> list[tuple]:
    digits = range(1, top + 1)
    return list(product(digits, repeat=length)) if repeats else list(permutations(digits, length))


def _instance(rng, length: int, top: int, repeats: bool):
    every = _codes(length, top, repeats)
    while True:
        code = rng.choice(every)
        alive, log = every, []
        before_last = every
        while len(alive) > 1 and len(log) < 10:
            guess = rng.choice(every)
            if guess == code:
                continue
            mark = score(code, guess)
            kept = _consistent(alive, guess, mark)
            if len(kept) < len(alive):
                before_last, alive = alive, kept
                log.append((guess, mark))
        if len(alive) == 1 and len(log) >= 4:
            near = [c for c in before_last if c != code]
            return code, log, near, len(every)


SOLVER = r'''
import re
from itertools import product
length = int(re.search(r"a code of (\d+) digits", PROMPT).group(1))
top = int(re.search(r"each from 1 to (\d+)", PROMPT).group(1))
distinct = "all different" in PROMPT
log = [(tuple(int(d) for d in g), int(a), int(b))
       for g, a, b in re.findall(r"guess (\d+): (\d+) in the right place, (\d+) in a wrong place", PROMPT)]
found = []
for code in product(range(1, top + 1), repeat=length):
    if distinct and len(set(code)) < length:
        continue
    ok = True
    for guess, right, wrong in log:
        placed = sum(1 for i in range(length) if code[i] == guess[i])
        shared = sum(min(code.count(d), guess.count(d)) for d in set(guess))
        if (placed, shared - placed) != (right, wrong):
            ok = False
            break
    if ok:
        found.append(code)
assert len(found) == 1, found
print("".join(map(str, found[0])))
'''


def _case(index: int, rng, length: int, top: int, repeats: bool) -> dict:
    code, log, near, total = _instance(rng, length, top, repeats)
    answer = int("".join(map(str, code)))
    rule = ("a digit may appear more than once" if repeats else "the digits are all different")
    lines = "\n".join(f"- guess {''.join(map(str, g))}: {a} in the right place, {b} in a wrong place"
                      for g, (a, b) in log)
    prompt = f"""\
        A lock has a code of {length} digits, each from 1 to {top}; {rule}. Each guess was scored with two
        numbers: how many of its digits are right and in the right place, and how many more are right but in a
        wrong place (a digit of the guess counts at most as often as it appears in the code).
        {lines.replace(chr(10), chr(10) + "        ")}
        Exactly one code fits every score. What is the code?
        """
    near_numbers = [int("".join(map(str, c))) for c in near[:3]]
    last = int("".join(map(str, log[-1][0])))
    hardness = {"steps": len(log) + length, "search": total, "traps": 1}  # the codes that fit all but the last score
    difficulty = tier_of(hardness)
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer,
        solver="",
        reference=f"""\
            Combining the scores guess by guess (which digits occur, how often, and which positions they cannot
            take) leaves a single code that matches all {len(log)} scores: {"".join(map(str, code))}.

            **Answer:** {answer}""",
        traps=[*near_numbers, last],
        notes=f"""{total:,} possible codes, {len(log)} scored guesses, each of which narrowed the candidates when
            it was made; {len(near)} code(s) fit every score but the last, so a solver that stops early or
            misreads the misplaced count (e.g. counting a repeated digit twice) lands on a near miss such as
            {near_numbers[0] if near_numbers else "none"}. Needs digit-count and position reasoning across all
            guesses jointly.""",
        max_tokens=32768 if difficulty == "hard" else 16384,
        title=f"Code breaking: {length} digits from 1 to {top}, {'repeats' if repeats else 'distinct'}")
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
