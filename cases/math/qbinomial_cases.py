"""MA-qbinomial: k-element subsets of {1, ..., n} with a given sum, partitions that fit in a box, and
monotone lattice paths with a given area under them: all three are the coefficient of q^m in one Gaussian
binomial coefficient. The idea is the bijection: subtracting the staircase 1, 2, ..., k from a k-subset's
sorted elements leaves a partition into at most k parts of size at most n - k (sum lowered by k(k+1)/2),
and a path's columns of area are such a partition too. The generator builds [a+b choose a]_q by the
q-Pascal rule; the solver lists the subsets, partitions or paths."""

from math import comb

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-qbinomial"

SOLVER = """
from itertools import combinations
if KIND == "subsets":
    print(sum(1 for c in combinations(range(1, N + 1), K) if sum(c) == TARGET))
elif KIND == "box":
    def parts(left, most, room):  # partitions of `left` into at most `room` parts, each <= most
        if left == 0:
            return 1
        if room == 0:
            return 0
        return sum(parts(left - p, p, room - 1) for p in range(1, min(most, left) + 1))
    print(parts(TARGET, WIDE, TALL))
else:
    count = 0
    for chosen in combinations(range(RIGHT + UP), UP):  # the positions of the up steps
        # the j-th up step (0-based) at position p is followed by RIGHT - p + j right steps, each one unit higher
        if sum(RIGHT - p + j for j, p in enumerate(chosen)) == TARGET:
            count += 1
    print(count)
"""


def gaussian(a, b):
    """Coefficients of the Gaussian binomial [a + b choose a]_q, by the q-Pascal rule."""
    table = {(0, j): [1] for j in range(b + 1)}
    for i in range(1, a + 1):
        table[(i, 0)] = [1]
        for j in range(1, b + 1):
            # [i+j choose i] = [i+j-1 choose i-1] + q^i [i+j-1 choose i]
            left, right = table[(i - 1, j)], [0] * i + table[(i, j - 1)]
            size = max(len(left), len(right))
            table[(i, j)] = [(left[t] if t < len(left) else 0) + (right[t] if t < len(right) else 0)
                             for t in range(size)]
    return table[(a, b)]


def coefficient(poly, m):
    return poly[m] if 0 <= m < len(poly) else 0


def _case(rng, index):
    kind = {1: "subsets", 2: "box", 3: "paths"}[index]
    if kind == "subsets":
        n, k = rng.randrange(18, 23), rng.randrange(6, 9)
        a, b = k, n - k
        shift = k * (k + 1) // 2
        target = shift + rng.randrange(a * b * 2 // 5, a * b * 3 // 5)
        m = target - shift
        params = {"N": n, "K": k, "TARGET": target}
        prompt = f"""
            How many {k}-element subsets of {{1, 2, ..., {n}}} have elements adding up to exactly {target}?
        """
        total = comb(n, k)
    elif kind == "box":
        a, b = rng.randrange(6, 10), rng.randrange(8, 14)
        target = m = rng.randrange(a * b * 2 // 5, a * b // 2)
        params = {"TARGET": target, "WIDE": b, "TALL": a}
        prompt = f"""
            In how many ways can {target} be written as a sum of at most {a} positive integers, each at most {b}?
            The order of the terms does not matter (9 = 4 + 3 + 2 and 9 = 2 + 3 + 4 are the same way).
        """
        total = comb(a + b, a)
    else:
        a, b = rng.randrange(6, 9), rng.randrange(8, 12)
        target = m = rng.randrange(a * b * 2 // 5, a * b // 2)
        params = {"RIGHT": b, "UP": a, "TARGET": target}
        prompt = f"""
            A path goes from (0, 0) to ({b}, {a}) in {a + b} unit steps, each one step right or one step up. The
            region between the path and the x-axis (from x = 0 to x = {b}) has some area. How many such paths
            enclose an area of exactly {target} there?
        """
        total = comb(a + b, a)
    answer = coefficient(gaussian(a, b), m)
    traps = [round(total / (a * b + 1)),                                   # sums spread evenly
             coefficient(gaussian(a, b), target) if kind == "subsets" else coefficient(gaussian(a, b + 1), m),
             coefficient(gaussian(a, b), m + 1)]                           # one unit of area or sum off
    words = ["the outcomes spread evenly over the possible values",
             "the staircase shift forgotten" if kind == "subsets" else "the box one wider",
             "the neighbouring coefficient"]
    lead = {"subsets": f"Subtract 1, 2, ..., {a} from the sorted elements: a {a}-subset of 1..{a + b} with sum "
                       f"{target} becomes a partition of {m} into at most {a} parts, each at most {b}. ",
            "box": "",
            "paths": f"The heights of the {b} right steps form a partition of the area into at most {b} parts, "
                     f"each at most {a}. "}[kind]
    reference = f"""
        {lead}Partitions of m that fit in a {a} x {b} box are counted by the
        coefficient of q^m in the Gaussian binomial [{a + b} choose {a}]_q, which the q-Pascal rule
        [n choose k]_q = [n-1 choose k-1]_q + q^k [n-1 choose k]_q builds up; the coefficient of q^{m} is
        **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": a + b, "search": total, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""{total:,} candidates: the count needs the bijection to partitions in a {a} x {b} box and the
        coefficient of q^{m} in [{a + b} choose {a}]_q, a q-Pascal table of {a}x{b} polynomials (or a DP of
        the same size) carried out exactly. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, KIND=kind, **params), reference=reference, notes=notes,
        max_tokens=32768, title=f"Gaussian binomial [{a + b} choose {a}], coefficient {m} ({kind})")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
