"""MA-coupons: a machine hands out toys of k kinds with unequal probabilities; the expected number of toys
until every kind (or any r of the kinds) has turned up, as an exact fraction. The idea is inclusion-
exclusion on the maximum (or the r-th smallest) of the first-arrival times: E[max] = Σ over nonempty sets S
of (-1)^(|S|+1) / P(S), and for the r-th arrival Σ_j (-1)^(r-1-j) C(k-j-1, k-r) Σ_(|S|=j) 1/(1 - P(S)).
The generator adds those terms; the solver runs the Markov chain over the set of kinds seen so far."""

from fractions import Fraction
from itertools import combinations
from math import comb

from pytest_crucible import family_rng, numeric_case, program, spell

FAMILY = "MA-coupons"

SOLVER = """
from fractions import Fraction
from functools import lru_cache
p = [Fraction(w, sum(WEIGHTS)) for w in WEIGHTS]
k = len(p)
@lru_cache(maxsize=None)
def expected(seen):
    if bin(seen).count("1") >= NEED:
        return Fraction(0)
    stay = sum(p[i] for i in range(k) if seen >> i & 1)
    move = sum(p[i] * expected(seen | 1 << i) for i in range(k) if not seen >> i & 1)
    return (1 + move) / (1 - stay)
e = expected(0)
print(f"{e.numerator}/{e.denominator}")
"""

NAMES = "ABCDEF"


def rth_arrival(probs, need):
    """Expected time until `need` distinct kinds have arrived (max-min inclusion-exclusion)."""
    k = len(probs)
    total = Fraction(0)
    for j in range(need):
        inner = sum(1 / (1 - sum(s, Fraction(0))) for s in combinations(probs, j))
        total += (-1) ** (need - 1 - j) * comb(k - j - 1, k - need) * inner
    return total


def _case(rng, index):
    k = 6 if index != 2 else 5
    need = k if index != 3 else k - 2
    while True:
        weights = [rng.randrange(1, 8) for _ in range(k)]
        if len(set(weights)) >= 4:
            break
    total = sum(weights)
    probs = [Fraction(w, total) for w in weights]
    answer = rth_arrival(probs, need)
    harmonic = sum(Fraction(k, k - j) for j in range(need))   # as if the kinds were equally likely
    traps = [harmonic,
             sum(1 / q for q in probs) if need == k else rth_arrival(probs, k),  # Σ 1/p_i, or every kind
             max(1 / q for q in probs) if need == k else sum(sorted(1 / q for q in probs)[:need]),
             rth_arrival(probs, need - 1)]                   # one kind fewer
    kinds = ", ".join(f"kind {NAMES[i]} with probability {spell(q)}" for i, q in enumerate(probs))
    goal = ("every one of the {k} kinds has turned up at least once" if need == k else
            "{need} different kinds (any {need} of the {k}) have turned up").format(k=k, need=need)
    prompt = f"""
        A machine hands out one toy per coin. Each toy is, independently of the others, {kinds}. Coins are
        put in until {goal}. What is the expected number of coins?
    """
    formula = ("E = Σ over nonempty sets S of kinds of (-1)^(|S|+1) / P(S), where P(S) is the chance a toy is "
               "of a kind in S" if need == k else
               f"E = Σ_(j<{need}) (-1)^({need}-1-j) C({k}-j-1, {k - need}) Σ_(|S|=j) 1/(1 - P(S))")
    reference = f"""
        Let T_i be the coin on which kind i first turns up; the wait is the {'largest' if need == k else
        str(need) + '-th smallest'} of the T_i. The smallest of the T_i over a set S is geometric with mean
        1/P(S), and the max-min (inclusion-exclusion) identity turns the wait into those minima:
        {formula}.

        Adding the terms exactly gives **{spell(answer)}**.

        Answer: {spell(answer)}
    """
    hardness = {"steps": k + 2, "search": 2 ** k, "traps": len(set(traps) - {answer})}
    words = (["equal probabilities, k·H_k", "Σ 1/p_i", "the rarest kind's 1/p alone", "one kind fewer"] if need == k
             else ["equal probabilities", f"all {k} kinds", f"the {need} smallest 1/p_i added",
                   f"{need - 1} kinds"])
    trap_words = ", ".join(f"{w} ({spell(t)})" for w, t in zip(words, traps, strict=True))
    notes = f"""{k} kinds with weights {weights}: the exact expectation needs the max-min inclusion-exclusion
        over {2 ** k - 1} sets of kinds (or a chain over {2 ** k} states solved from the top), every term an
        exact fraction with a different denominator. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, WEIGHTS=weights, NEED=need), reference=reference, notes=notes,
        max_tokens=32768 if k + 2 >= 8 else 16384, as_fraction=True,
        title=f"Collecting {need} of {k} unequal kinds")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
