"""MA-parking: n cars arrive one by one at a one-way street of m numbered spots; each has a preferred spot,
drives to it and parks in the first free spot from there on, leaving the street if none is free. For how many
lists of preferences does every car park, does every car park with the last spot left empty, or what is the
chance that every car parks? The idea is Pollak's circle: add a spot m + 1 and close the street into a
circle, where every car always parks and m + 1 - n spots stay empty; turning all preferences round the
circle by one spot turns the empty spots too, so a fraction (m + 1 - n)/(m + 1) of the (m + 1)^n lists leave
spot m + 1 empty, and those are exactly the lists where everyone parks on the street: (m + 1 - n)(m + 1)^(n-1).
Leaving spot m empty as well means every preference is at most m - 1 and everyone parks there:
(m - n)·m^(n-1). The generator uses those counts; the solver parks the cars for every list."""

from fractions import Fraction
from math import perm

from pytest_crucible import family_rng, numeric_case, program, spell
from pytest_crucible.suite.tiers import tier_of

FAMILY = "MA-parking"

SOLVER = """
from fractions import Fraction
from itertools import product
n, m = CARS, SPOTS
good = last_empty = 0
for prefs in product(range(1, m + 1), repeat=n):
    taken = [False] * (m + 2)
    for p in prefs:
        while p <= m and taken[p]:
            p += 1
        if p > m:
            break
        taken[p] = True
    else:
        good += 1
        last_empty += not taken[m]
if ASK == "chance":
    f = Fraction(good, m ** n)
    print(f"{f.numerator}/{f.denominator}")
else:
    print(good if ASK == "all" else last_empty)
"""


def _case(rng, index):
    ask = {1: "all", 2: "last", 3: "chance"}[index]
    n, m = rng.choice([(4, m) for m in range(6, 13)] + [(5, m) for m in range(6, 10)] + [(6, 7)])
    everyone = (m + 1 - n) * (m + 1) ** (n - 1)
    if ask == "all":
        answer = everyone
        traps = [(n + 1) ** (n - 1), perm(m, n), (m - n + 1) * m ** (n - 1)]
        words = ["(n + 1)^(n - 1), the count for n spots", "different preferences only",
                 "m^(n - 1) in place of (m + 1)^(n - 1)"]
        question = "For how many of the lists of preferences does every car park?"
    elif ask == "last":
        answer = (m - n) * m ** (n - 1)
        traps = [everyone - answer, (m - n) * (m + 1) ** (n - 1), (m - n) * (m - 1) ** (n - 1)]
        words = ["the lists where the last spot is taken", "(m - n)(m + 1)^(n - 1)",
                 "(m - n)(m - 1)^(n - 1)"]
        question = (f"For how many of the lists of preferences does every car park while spot {m} (the last "
                    f"spot) stays empty?")
    else:
        answer = Fraction(everyone, m ** n)
        traps = [Fraction((n + 1) ** (n - 1), m ** n), Fraction(perm(m, n), m ** n), Fraction(m + 1 - n, m + 1)]
        words = ["(n + 1)^(n - 1) lists", "different preferences only", "the empty-spot fraction (m + 1 - n)/(m + 1)"]
        question = ("Every car picks its preferred spot uniformly at random, independently of the others. What "
                    "is the probability that every car parks?")
    prompt = f"""
        A one-way street has {m} parking spots numbered 1 to {m} in the driving direction. {n} cars arrive one
        after another. Each car has a preferred spot (any of 1 to {m}, preferences may repeat): it drives to
        that spot and parks in the first free spot from there on; if none is free up to spot {m}, it leaves. A
        list of preferences gives one preferred spot for each car, in arrival order, so there are {m}^{n} lists.
        {question}
    """
    tail = {"all": "", "chance": f"Divided by the {m ** n} equally likely lists: {spell(answer)}.",
            "last": f"With spot {m} empty as well, nobody prefers spot {m} and the cars all park in spots "
                    f"1..{m - 1}: the same count for {m - 1} spots, ({m - n})·{m}^{n - 1} = {spell(answer)}."}[ask]
    reference = f"""
        Add a spot {m + 1} and close the street into a circle. On the circle every car parks, leaving
        {m + 1 - n} spots empty, and turning every preference by one spot turns the empty spots with it, so
        among the {m + 1}^{n} circular lists a fraction {m + 1 - n}/{m + 1} leave spot {m + 1} empty. Those are
        exactly the lists where everyone parks on the street: ({m + 1 - n})·{m + 1}^{n - 1} = {everyone}.
        {tail}

        Answer: {spell(answer)}
    """
    steps = {"all": 4, "last": 6, "chance": 5}[ask]
    hardness = {"steps": steps, "search": m ** n, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({spell(t)})" for w, t in zip(words, traps, strict=True))
    notes = f"""{n} cars, {m} spots: {m ** n} preference lists, too many to park by hand, so the count needs
        the circle argument for more spots than cars (not the textbook n = m count){'' if ask != 'last' else
        ', then the reduction of an empty last spot to a shorter street'}. A 27-32B model tends to quote
        (n + 1)^(n - 1) or count distinct preferences. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, CARS=n, SPOTS=m, ASK=ask), reference=reference, notes=notes,
        max_tokens=32768 if tier_of(hardness) == "hard" else 16384, as_fraction=ask == "chance",
        title=f"{n} cars parking on a street of {m} spots")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
