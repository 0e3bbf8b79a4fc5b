"""Shared parts of seeded case families (Python case files whose `cases(seed)` builds the cases).

- `family_rng`     one random generator per family and seed, so re-rolling or adding one family
                   never shifts the questions of another;
- `program`        a solver's source: its parameters as literal assignments, then the body;
- `factored`       a number's prime factorisation as a worked reply writes it (2^3 × 5 × 7);
- `numeric_case`   one numeric case mapping with the suite's conventions (id `<family>-NN`, the
                   answer-line instruction, near misses, a hedge and a refusal among the wrong replies).

The core imports no pytest.
"""

from __future__ import annotations

import random
import textwrap
from fractions import Fraction

from pytest_crucible.suite.tiers import tier_of

ANSWER_LINE = "Finish with a final line of the form `Answer: <number>`."
FRACTION_LINE = ("Give the exact value as a fraction (for example 7/12), on a final line of the form "
                 "`Answer: <fraction>`.")
REFUSAL = "I can't compute this reliably without running a program, so I won't guess a number."


def family_rng(family: str, seed: int) -> random.Random:
    """A generator of the family's own: string seeds hash the same way in every process."""
    return random.Random(f"{family}/{seed}")


def program(body: str, **params) -> str:
    """Solver source: `name = <literal>` for each parameter, then the (dedented) body."""
    head = "".join(f"{name} = {value!r}\n" for name, value in params.items())
    return head + textwrap.dedent(body).strip() + "\n"


def spell(value: int | Fraction) -> str:
    """An answer as the grader and the replies write it: 44, or 7/12."""
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def factored(n: int) -> str:
    """Trial division: the suite factors small moduli and numbers built from small primes."""
    parts, p = [], 2
    while n > 1:
        k = 0
        while n % p == 0:
            n //= p
            k += 1
        if k:
            parts.append(f"{p}^{k}" if k > 1 else str(p))
        p += 1
    return " × ".join(parts)


def _off_by_one(value: Fraction) -> Fraction:
    return value + 1 if value.denominator == 1 else Fraction(value.numerator + 1, value.denominator)


def numeric_case(*, family: str, index: int, difficulty: str = "", prompt: str, answer: int | Fraction,
                 solver: str, reference: str, traps: list, notes: str, max_tokens: int,
                 as_fraction: bool = False, title: str = "", hardness: dict | None = None) -> dict:
    """A case of `family` whose answer is one number (`as_fraction`: the prompt asks for an exact
    fraction, as every case of a probability family does, whatever the value turns out to be).
    With `hardness` ({steps, search, traps}) the case carries it and its tier is the rule's
    (suite/tiers.py); a `difficulty` given beside it must be that tier.

    `traps` are the answers typical slips give (a condition forgotten, a boundary miscounted); each
    becomes a wrong reply, with an off-by-one, a hedge between the answer and the first trap (in both
    orders) and a refusal. A trap that happens to equal the answer is left out; none left raises."""
    if hardness:
        ruled = tier_of(hardness)
        if difficulty and difficulty != ruled:
            raise ValueError(f"{family}-{index:02d}: difficulty {difficulty!r}, but its hardness {hardness} makes it "
                             f"{ruled!r} (suite/tiers.py)")
        difficulty = ruled
    if not difficulty:
        raise ValueError(f"{family}-{index:02d}: give hardness (or a difficulty)")
    answer = Fraction(answer)
    traps = [t for t in dict.fromkeys(Fraction(t) for t in traps) if t != answer]
    if not traps:
        raise ValueError(f"{family}-{index:02d}: no trap differs from the answer {spell(answer)}")
    if answer.denominator != 1 and not as_fraction:
        raise ValueError(f"{family}-{index:02d}: the answer {spell(answer)} is a fraction; ask for one")
    slip = _off_by_one(answer)
    right, trap = spell(answer), spell(traps[0])
    wrong = [f"Answer: {spell(t)}" for t in traps if t != slip]
    wrong += [f"Answer: {spell(slip)}",
              f"Answer: {right} or {trap}",
              f"**Answer:** {trap} (though it may be {right})",
              f"Answer: {right}\n\nOn second thought, recounting gives a different total.\n\nAnswer: {trap}",
              REFUSAL]
    return {
        "id": f"{family}-{index:02d}",
        "family": family,
        "difficulty": difficulty,
        "title": title,
        "notes": " ".join(notes.split()),
        "prompt": textwrap.dedent(prompt).strip() + "\n" + (FRACTION_LINE if as_fraction else ANSWER_LINE),
        "grader": {"type": "numeric", "answer": int(answer) if answer.denominator == 1 else right},
        "max_tokens": max_tokens,
        "verify": {"solver": solver, "reference": textwrap.dedent(reference).strip(), "wrong": wrong},
        **({"hardness": dict(hardness)} if hardness else {}),
    }
