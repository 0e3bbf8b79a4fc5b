"""MA-zeckendorf: every positive integer is one sum of Fibonacci numbers 1, 2, 3, 5, 8, ... with no two
consecutive ones used (Zeckendorf); how many n up to N use exactly k terms, or how many terms do the sums
for 1..N use in all? The idea is to read the sums as Fibonacci-base digit strings with no two adjacent 1s,
ordered like the numbers: below N's greedy string, fix a prefix of N, put 0 where N has its t-th 1, and fill
the p_t places below freely; such strings with j ones number C(p_t - j + 1, j). The generator adds those
binomials; the solver tabulates z(n) = 1 + z(n - the largest Fibonacci number ≤ n) for every n."""

from math import comb

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "MA-zeckendorf"

SOLVER = """
fib = [1, 2]
while fib[-1] <= N:
    fib.append(fib[-1] + fib[-2])
terms = [0] * (N + 1)
top = 0
for n in range(1, N + 1):
    while fib[top + 1] <= n:
        top += 1
    terms[n] = 1 + terms[n - fib[top]]
print(sum(terms) if K is None else sum(1 for t in terms[1:] if t == K))
"""


def fibs(limit):
    out = [1, 2]
    while out[-1] <= limit:
        out.append(out[-1] + out[-2])
    return out


def greedy(n, fib):
    places = []
    for i in range(len(fib) - 1, -1, -1):
        if fib[i] <= n:
            places.append(i)
            n -= fib[i]
    return places


def strings(length, ones, adjacent_ok=False):
    """Digit strings of `length` places with `ones` ones (no two adjacent unless adjacent_ok)."""
    if ones < 0 or ones > length or (not adjacent_ok and length - ones + 1 < ones):
        return 0
    return comb(length, ones) if adjacent_ok else comb(length - ones + 1, ones)


def count_below(places, ones, shift=0, adjacent_ok=False):
    """Numbers 0 <= m < N (N's 1s at `places`) with `ones` ones."""
    return sum(strings(p + shift, ones - t, adjacent_ok) for t, p in enumerate(places))


def total_terms(places, shift=0, prefix=True):
    out = 0
    for t, p in enumerate(places):
        length = p + shift
        out += sum((t * prefix + j) * strings(length, j) for j in range(length + 1))
    return out


def _case(rng, index):
    n = rng.randrange(200_000, 600_000)
    fib = fibs(n)
    places = greedy(n, fib)
    k = None if index == 3 else rng.choice([5, 6, 7]) + (index == 2)
    if k is None:
        answer = total_terms(places) + len(places)
        traps = [total_terms(places, prefix=False) + len(places), total_terms(places),
                 total_terms(places, shift=1) + len(places)]
        words = ["the 1s of N's prefix not counted in each block", "N itself left out",
                 "each block one place too long"]
        question = f"What is the total number of terms used in the representations of all of 1, 2, ..., {n}?"
    else:
        answer = count_below(places, k) + (len(places) == k)
        traps = [count_below(places, k, adjacent_ok=True) + (len(places) == k),
                 count_below(places, k, shift=1) + (len(places) == k),
                 count_below(places, k) + (len(places) != k)]
        words = ["plain binary strings (adjacent 1s allowed)", "each block one place too long",
                 "N itself miscounted"]
        question = f"How many of the numbers 1, 2, ..., {n} have a representation with exactly {k} terms?"
    prompt = f"""
        Every positive integer can be written in exactly one way as a sum of distinct numbers from 1, 2, 3, 5,
        8, 13, 21, ... (each number after the first two is the sum of the two before it) such that no two
        consecutive numbers of that list are both used. For example 100 = 89 + 8 + 3. {question}
    """
    shown = " + ".join(str(fib[p]) for p in places)
    reference = f"""
        Write each number as a digit string over the places 1, 2, 3, 5, 8, ... with no two adjacent 1s; these
        strings are ordered like the numbers. {n} = {shown}, with 1s at places {places} (counting from 0 at
        the place of 1). A number below {n} agrees with it above some 1 of {n}, has 0 there and anything
        valid in the p places below; strings of length p with j ones and no two adjacent number
        C(p - j + 1, j). Adding these over the 1s of {n}, and counting {n} itself, gives {answer}.

        Answer: {answer}
    """
    hardness = {"steps": len(places) + 3, "search": n, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""N = {n}: the count runs over {len(places)} greedy terms of N, each a binomial sum over
        strings with no two adjacent 1s; listing {n} representations is out. A 27-32B model tends to count
        binary strings, slip the block length by one or mishandle N itself. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, N=n, K=k), reference=reference, notes=notes,
        max_tokens=32768 if tier_of(hardness) == "hard" else 16384, title=f"Fibonacci sums up to {n}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
