"""MA-records: a shuffled deck holds several cards of each of a few values; the expected number of cards
that beat every earlier card (strict records), that are at least as high as every earlier card (weak
records), or the expected prize when each strict record pays its value. The idea is linearity with the
right indicator: value v makes a strict record exactly when the first card among those of value v or higher
shows v, probability c_v / (c_v + H_v) with H_v the cards above v; a single card of value v is a weak
record when it comes before all H_v higher cards, probability 1 / (H_v + 1). The harmonic number of
distinct cards is the trap. The generator adds those fractions; the solver runs a memoised recursion over
the cards left and the running maximum."""

from fractions import Fraction
from math import factorial

from pytest_crucible import family_rng, numeric_case, program, spell

FAMILY = "MA-records"

SOLVER = """
from fractions import Fraction
from functools import lru_cache
values, counts = VALUES, COUNTS

@lru_cache(maxsize=None)
def expect(left, top):  # expected score still to come, with `left` cards per value and `top` the best so far
    total = sum(left)
    if total == 0:
        return Fraction(0)
    out = Fraction(0)
    for i, c in enumerate(left):
        if c:
            v = values[i]
            rest = left[:i] + (c - 1,) + left[i + 1:]
            gain = {"strict": v > top, "weak": v >= top, "prize": v if v > top else 0}[ASK]
            out += Fraction(c, total) * (gain + expect(rest, max(top, v)))
    return out

answer = expect(tuple(counts), 0)
print(f"{answer.numerator}/{answer.denominator}" if answer.denominator != 1 else answer.numerator)
"""


def _case(rng, index):
    ask = {1: "strict", 2: "weak", 3: "prize"}[index]
    k = rng.randrange(4, 6)
    values = sorted(rng.sample(range(1, 13), k))
    counts = [rng.randrange(1, 5) for _ in values]
    while len(set(counts)) < 2:
        counts = [rng.randrange(1, 5) for _ in values]
    above = [sum(counts[j] for j in range(i + 1, k)) for i in range(k)]
    n = sum(counts)
    arrangements = factorial(n)
    for c in counts:
        arrangements //= factorial(c)
    strict = [Fraction(c, c + h) for c, h in zip(counts, above, strict=True)]
    weak = [Fraction(c, h + 1) for c, h in zip(counts, above, strict=True)]
    harmonic = sum(Fraction(1, i) for i in range(1, n + 1))
    if ask == "strict":
        answer = sum(strict)
        traps = [harmonic, sum(weak), sum(Fraction(1, h + 1) for h in above)]
        words = ["the harmonic number H_n, as if all cards differed", "the weak-record sum",
                 "1/(H_v + 1) once per value"]
        question = ("A card is a *record* if it is higher than every card before it (the first card is a record)."
                    " What is the expected number of records?")
    elif ask == "weak":
        answer = sum(weak)
        traps = [harmonic, sum(strict), sum(Fraction(c, c + h) * c for c, h in zip(counts, above, strict=True))]
        words = ["the harmonic number H_n", "the strict-record sum", "c_v²/(c_v + H_v) (a tie rule mixed in)"]
        question = ("A card is a *leader* if no card before it is higher (ties with the best so far count, and "
                    "the first card is a leader). What is the expected number of leaders?")
    else:
        answer = sum(v * p for v, p in zip(values, strict, strict=True))
        traps = [sum(v * p for v, p in zip(values, weak, strict=True)),
                 sum(Fraction(v, h + 1) for v, h in zip(values, above, strict=True)),
                 Fraction(sum(v * c for v, c in zip(values, counts, strict=True)), n) * harmonic]
        words = ["the weak-record probabilities", "v/(H_v + 1) per value", "the average card times H_n"]
        question = ("Each time a card is higher than every card before it (the "
                    "first card included) you win its value in points. What is your expected total?")
    listed = ", ".join(f"{c} card{'s' if c > 1 else ''} showing {v}" for v, c in zip(values, counts, strict=True))
    prompt = f"""
        A deck of {n} cards holds {listed}. It is shuffled so that every order is equally likely, and the cards
        are turned up one at a time. {question}
    """
    terms = " + ".join(
        f"{spell(p)}" if ask != "prize" else f"{v}·{spell(p)}"
        for v, p in zip(values, strict if ask != "weak" else weak, strict=True))
    why = ("value v gives exactly one record, when the first card among those of value v or higher shows v: "
           "probability c_v/(c_v + H_v), H_v being the number of higher cards" if ask != "weak" else
           "a card of value v is a leader when it comes before all H_v higher cards: probability 1/(H_v + 1), "
           "so value v adds c_v/(H_v + 1)")
    reference = f"""
        By linearity of expectation, add up one indicator per value: {why}. The values {values} have
        H_v = {above}, so the expectation is {terms} = {spell(answer)}.

        Answer: {spell(answer)}
    """
    hardness = {"steps": 4, "search": min(arrangements, 10**18), "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({spell(t)})" for w, t in zip(words, traps, strict=True))
    notes = f"""A deck of {n} cards with ties: the record indicator has to be chosen per value (strict) or per
        card (weak), then {k} fractions added exactly. Medium: one idea and a short exact sum. Traps:
        {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, VALUES=values, COUNTS=counts, ASK=ask), reference=reference, notes=notes,
        max_tokens=16384, as_fraction=True, title=f"Records in a deck of {n} cards with ties")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
