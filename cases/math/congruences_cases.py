"""MA-congruences: how many n up to N satisfy exactly K (or at least K) of four congruences whose moduli
share factors. The idea is inclusion-exclusion over the 16 subsets of conditions, where each subset is
merged by the Chinese remainder theorem for moduli that are not coprime: a pair is either contradictory
(the residues differ modulo the gcd) or one congruence modulo the lcm. The generator merges every subset
and weights the counts by the exactly-K coefficients (-1)^(|S|-K) C(|S|, K); the solver tests every n."""

from itertools import combinations
from math import comb, gcd, lcm, prod

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-congruences"

SOLVER = """
hits = 0
for n in range(1, LIMIT + 1):
    met = sum(1 for r, m in RULES if n % m == r)
    if (met == NEED) if EXACT else (met >= NEED):
        hits += 1
print(hits)
"""

MODULI = (6, 8, 9, 10, 12, 14, 15, 18, 20, 21, 24, 28, 30, 35, 36, 40, 42, 45)


def merge(rules):
    """The one congruence (r, m) that a list of (r, m) comes to, or None when they contradict."""
    r, m = 0, 1
    for r2, m2 in rules:
        g = gcd(m, m2)
        if (r2 - r) % g:
            return None
        # step r by multiples of m until it meets r2 modulo m2 (m2/g steps at most)
        step = next(t for t in range(m2 // g) if (r + t * m - r2) % m2 == 0)
        r, m = (r + step * m) % lcm(m, m2), lcm(m, m2)
    return r, m


def upto(limit, rule):
    """n in 1..limit with n ≡ r (mod m)."""
    r, m = rule
    return (limit - r) // m + (1 if r else 0) if r <= limit else 0


def meet_counts(limit, rules):
    """For each subset size s, the sum over subsets of that size of the n that meet all of them."""
    sums = [0] * (len(rules) + 1)
    for size in range(len(rules) + 1):
        for subset in combinations(rules, size):
            merged = merge(subset)
            sums[size] += upto(limit, merged) if merged else 0
    return sums


def count(limit, rules, need, exact):
    sums = meet_counts(limit, rules)
    exactly = [sum((-1) ** (s - k) * comb(s, k) * sums[s] for s in range(k, len(rules) + 1))
               for k in range(len(rules) + 1)]
    return exactly[need] if exact else sum(exactly[need:])


def _rules(rng):
    while True:
        moduli = rng.sample(MODULI, 4)
        rules = [(rng.randrange(m), m) for m in moduli]
        clashes = sum(merge(pair) is None for pair in combinations(rules, 2))
        shared = sum(gcd(a[1], b[1]) > 1 for a, b in combinations(rules, 2))
        if 1 <= clashes <= 3 and shared >= 4:
            return rules


def _coprime_guess(limit, rules, need, exact):
    """As if the moduli were coprime: independent events of chance 1/m each."""
    chances = [1 / m for _, m in rules]
    total = 0.0
    for size in range(need, len(rules) + 1 if not exact else need + 1):
        for chosen in combinations(range(len(rules)), size):
            total += prod(chances[i] if i in chosen else 1 - chances[i] for i in range(len(rules)))
    return round(limit * total)


def _case(rng, index):
    exact = index != 2
    need = 2 if index != 3 else 1
    while True:
        rules = _rules(rng)
        limit = rng.randrange(150_000, 400_000)
        answer = count(limit, rules, need, exact)
        sums = meet_counts(limit, rules)
        traps = [sums[need],                                  # adding the need-sized subsets, no correction
                 count(limit, rules, need, not exact),        # exactly / at least swapped
                 _coprime_guess(limit, rules, need, exact)]   # moduli treated as coprime
        if len(set(traps) - {answer}) == 3:
            break
    conditions = "\n        ".join(f"- n ≡ {r} (mod {m})" for r, m in rules)
    how = "exactly" if exact else "at least"
    prompt = f"""
        Consider these four conditions on a whole number n:
        {conditions}
        How many integers n with 1 ≤ n ≤ {limit} satisfy {how} {need} of the four conditions?
    """
    reference = f"""
        For every set S of conditions, merge them with the Chinese remainder theorem for non-coprime moduli:
        two conditions contradict when their residues differ modulo the gcd of the moduli, otherwise they
        become one condition modulo the lcm. Let A_s be the sum, over sets S of size s, of the number of n
        ≤ {limit} meeting all of S: A = {sums}. The number meeting exactly k conditions is
        Σ_(s≥k) (-1)^(s-k) C(s, k) A_s{', added over k ≥ ' + str(need) if not exact else ''}.

        That gives **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": 12, "search": limit, "traps": len(set(traps) - {answer})}
    clashing = sum(merge(pair) is None for pair in combinations(rules, 2))
    notes = f"""Four congruences with moduli {[m for _, m in rules]} (shared factors, {clashing} contradictory
        pairs) and n up to {limit}: needs the CRT merge for non-coprime moduli on 11 subsets, the
        contradictions spotted, then the exactly-k weights (-1)^(s-k) C(s,k) of inclusion-exclusion.
        Traps: adding the counts of the {need}-sets with no correction ({traps[0]}), {'at least' if exact
        else 'exactly'} instead of {how} ({traps[1]}), treating the moduli as coprime ({traps[2]})."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, RULES=rules, LIMIT=limit, NEED=need, EXACT=exact), reference=reference,
        notes=notes, max_tokens=32768, title=f"{how} {need} of four congruences up to {limit}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
