"""MA-hands: a clock with unusual gearing; its hour hand turns once in A minutes, its minute hand once in B
minutes and a third hand once in C minutes, all starting together at the top. Over D minutes, how often do
the hour and minute hands point the same way, point in opposite directions, or do all three hands point the
same way? The idea is relative motion: the minute hand gains 1/B - 1/A turns a minute on the hour hand, so
the meetings are at t = k/f and the oppositions at t = (k - 1/2)/f; all three meet when t is a whole
multiple of both relative periods P1 = AB/(A - B) and P2 = AC/(A - C), a rational lcm
lcm(p1, p2)/gcd(q1, q2) of the reduced fractions, not their product. The generator counts from those
periods; the solver walks through every meeting of the first two hands in exact arithmetic and checks the
third."""

from fractions import Fraction
from math import floor, gcd

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "MA-hands"

SOLVER = """
from fractions import Fraction
a, b, c, d = A, B, C, D
f1 = Fraction(1, b) - Fraction(1, a)  # turns a minute the minute hand gains on the hour hand
f2 = Fraction(1, c) - Fraction(1, a)
count, k = 0, 1
while True:
    t = Fraction(k, 1) / f1 if ASK != "opposite" else (k - Fraction(1, 2)) / f1
    if t > d:
        break
    if ASK != "all" or (t * f2).denominator == 1:
        count += 1
    k += 1
print(count)
"""


def rational_lcm(x, y):
    return Fraction(x.numerator * y.numerator // gcd(x.numerator, y.numerator), gcd(x.denominator, y.denominator))


def _case(rng, index):
    ask = {1: "meet", 2: "opposite", 3: "all"}[index]
    while True:
        a = rng.randrange(500, 1500)
        b = rng.randrange(40, 90)
        c = rng.randrange(3, 12)
        d = rng.randrange(20, 60) * 1000 if ask != "all" else rng.randrange(90, 200) * 1000
        p1 = Fraction(a * b, a - b)
        p2 = Fraction(a * c, a - c)
        both = rational_lcm(p1, p2)
        if p1.denominator > 1 and p2.denominator > 1 and 3 <= d / both <= 400 and (ask != "all" or d / p1 >= 1000):
            break
    f1 = 1 / p1
    if ask == "meet":
        answer = floor(d * f1)
        traps = [answer + 1, floor(d * (Fraction(1, b) + Fraction(1, a))), floor(Fraction(d, b))]
        words = ["the start counted", "the speeds added instead of subtracted", "the minute hand's turns alone"]
        question = "how many times do the hour hand and the minute hand point in exactly the same direction?"
    elif ask == "opposite":
        answer = floor(d * f1 + Fraction(1, 2))
        traps = [floor(d * f1), 2 * floor(d * f1), floor(d * (Fraction(1, b) + Fraction(1, a)) + Fraction(1, 2))]
        words = ["the meeting count", "twice the meetings (both straight-line positions)",
                 "the speeds added instead of subtracted"]
        question = "how many times do the hour hand and the minute hand point in exactly opposite directions?"
    else:
        answer = floor(d / both)
        whole = p1.numerator * p2.numerator // gcd(p1.numerator, p2.numerator)
        traps = [floor(d / (p1 * p2)), floor(d / whole), answer + 1]
        words = ["the two periods multiplied instead of a rational lcm", "the lcm of the numerators only",
                 "the start counted"]
        question = "how many times do all three hands point in exactly the same direction?"
    prompt = f"""
        A clock has three hands turning steadily clockwise. The hour hand makes one full turn every {a} minutes,
        the minute hand every {b} minutes and the third hand every {c} minutes. At the start all three point
        straight up. During the next {d} minutes (the start itself not counted, the last moment counted),
        {question}
    """
    if ask == "all":
        work = (f"the minute hand meets the hour hand every P1 = {a}·{b}/({a} - {b}) = {p1} minutes and the third "
                f"hand meets it every P2 = {a}·{c}/({a} - {c}) = {p2} minutes; all three meet at the common "
                f"multiples, every lcm = {both} minutes, so {d}/{both} gives {answer}")
    else:
        offset = "k" if ask == "meet" else "k - 1/2"
        work = (f"the minute hand gains 1/{b} - 1/{a} = {f1} turns a minute on the hour hand, so the times are "
                f"t = ({offset})/{f1}; those up to {d} number {answer}")
    reference = f"""
        Use relative motion: {work}.

        Answer: {answer}
    """
    steps = {"meet": 3, "opposite": 3, "all": 6}[ask]
    hardness = {"steps": steps, "search": max(1, floor(d * f1)), "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""Periods {a}, {b}, {c} minutes over {d} minutes: {floor(d * f1)} meetings of the first two
        hands{', and the triple meetings need the lcm of two fractional periods, not their product' if ask == 'all'
        else ''}. A 27-32B model tends to add speeds or count the start. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, A=a, B=b, C=c, D=d, ASK=ask), reference=reference, notes=notes,
        max_tokens=32768 if tier_of(hardness) == "hard" else 16384, title=f"A clock geared {a}/{b}/{c}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
