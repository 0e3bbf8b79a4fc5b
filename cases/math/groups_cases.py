"""MA-groups: split n people into k unlabelled groups of at least two (or into groups of two and three
only), or seat them at k round tables with at least two at each table. The idea is inclusion-exclusion on
the people left alone: with S(n, k) the Stirling numbers of the second kind (c(n, k) of the first kind for
tables), the count without singletons is Σ_i (-1)^i C(n, i) S(n - i, k - i), and groups of two and three
are a sum over 2a + 3b = n of n!/(2^a a! 6^b b!). The generator uses those formulas (S and c from their
explicit sums); the solver adds the people one at a time, tracking how many groups have one member and
how many have more."""

from math import comb, factorial

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-groups"

SOLVER = """
from functools import lru_cache
@lru_cache(maxsize=None)
def ways(person, singles, bigs, in_bigs):
    # person: people placed so far; singles / bigs: groups with one member / with two or more;
    # in_bigs: people in the bigger groups (a round table of s people takes a newcomer in s places)
    if person == PEOPLE:
        return 1 if singles == 0 and singles + bigs == GROUPS else 0
    if singles + bigs > GROUPS or singles > PEOPLE - person:
        return 0
    total = ways(person + 1, singles + 1, bigs, in_bigs)            # a group of its own
    total += singles * ways(person + 1, singles - 1, bigs + 1, in_bigs + 2)  # joins someone alone
    if in_bigs:  # joins a bigger group, or takes one of the seats between two people at a bigger table
        total += (in_bigs if KIND == "tables" else bigs) * ways(person + 1, singles, bigs, in_bigs + 1)
    return total
if KIND == "small":
    @lru_cache(maxsize=None)
    def small(person, singles, pairs):
        if person == PEOPLE:
            return 1 if singles == 0 else 0
        return (small(person + 1, singles + 1, pairs) + singles * small(person + 1, singles - 1, pairs + 1)
                + (pairs * small(person + 1, singles, pairs - 1) if pairs else 0))
    print(small(0, 0, 0))
else:
    print(ways(0, 0, 0, 0))
"""


def stirling2(n, k):
    return sum((-1) ** j * comb(k, j) * (k - j) ** n for j in range(k + 1)) // factorial(k)


def stirling1(n, k):
    """Unsigned Stirling numbers of the first kind (permutations of n with k cycles), by the recurrence."""
    row = [1]
    for m in range(n):
        row = [(row[j - 1] if j else 0) + (m * row[j] if j < len(row) else 0) for j in range(len(row) + 1)]
    return row[k] if k < len(row) else 0


def no_singles(n, k, base):
    return sum((-1) ** i * comb(n, i) * base(n - i, k - i) for i in range(k + 1))


def pairs_and_triples(n):
    total = 0
    for b in range(n // 3 + 1):
        rest = n - 3 * b
        if rest % 2 == 0:
            a = rest // 2
            total += factorial(n) // (2 ** a * factorial(a) * 6 ** b * factorial(b))
    return total


def _case(rng, index):
    kind = {1: "groups", 2: "small", 3: "tables"}[index]
    n = rng.randrange(13, 19) if kind != "small" else rng.randrange(14, 27)
    k = rng.randrange(3, n // 2 - 1)
    if kind == "groups":
        answer = no_singles(n, k, stirling2)
        traps = [stirling2(n, k), answer * factorial(k), stirling2(n, k) - n * stirling2(n - 1, k - 1)]
        words = ["groups of one allowed, S(n, k)", "the groups labelled", "only the first correction"]
        prompt = f"""
            In how many ways can {n} people be split into exactly {k} groups, every group having at least two
            people? The groups are not named or ordered: only who is with whom matters.
        """
    elif kind == "small":
        answer = pairs_and_triples(n)
        terms = [(b, (n - 3 * b) // 2) for b in range(n // 3 + 1) if (n - 3 * b) % 2 == 0]
        traps = [sum(factorial(n) // (2 ** a * factorial(a) * 6 ** b) for b, a in terms),
                 sum(factorial(n) // (2 ** a * 6 ** b * factorial(b)) for b, a in terms),
                 max(factorial(n) // (2 ** a * factorial(a) * 6 ** b * factorial(b)) for b, a in terms)]
        words = ["the triples taken in order", "the pairs taken in order", "the largest term alone"]
        prompt = f"""
            In how many ways can {n} people be split into groups so that every group has exactly two or exactly
            three people (any number of groups of each size)? The groups are not named or ordered: only who is
            with whom matters.
        """
    else:
        answer = no_singles(n, k, stirling1)
        traps = [stirling1(n, k), no_singles(n, k, stirling2), answer * factorial(k)]
        words = ["tables of one allowed, c(n, k)", "tables treated as plain groups", "the tables labelled"]
        prompt = f"""
            {n} people sit down at exactly {k} round tables, every table having at least two people. Two seatings
            are the same when every person has the same left-hand neighbour (the tables themselves are
            identical and unnumbered, and a table's rotation does not matter). How many different seatings
            are there?
        """
    base = {"groups": "S(n - i, k - i) (Stirling numbers of the second kind)",
            "tables": "c(n - i, k - i) (unsigned Stirling numbers of the first kind: cycles)",
            "small": ""}[kind]
    method = (f"Inclusion-exclusion over the i people left alone: Σ_i (-1)^i C({n}, i) {base}, with n = {n}, "
              f"k = {k}." if kind != "small" else
              f"With a pairs and b triples, 2a + 3b = {n}; each split counts {n}!/(2^a a! 6^b b!), summed over b.")
    reference = f"""
        {method}

        The count is **{answer:,}**.

        Answer: {answer}
    """
    # pairs and triples: a few independent factorial quotients, added; the others need a Stirling table per term
    steps = 2 * k + 2 if kind != "small" else 3
    hardness = {"steps": steps, "search": min(answer, 10**18), "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""{n} people: the count needs inclusion-exclusion on people alone (or the pair/triple sum), with
        exact Stirling numbers or factorial quotients of up to {len(str(answer))} digits; the answer is far
        beyond listing. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, PEOPLE=n, GROUPS=k if kind != "small" else 0, KIND=kind), reference=reference,
        notes=notes, max_tokens=32768 if steps >= 8 else 16384, title=f"{n} people, {kind}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
