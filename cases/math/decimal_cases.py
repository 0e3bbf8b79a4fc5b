"""MA-decimal: the decimal expansion of a fraction a/b: the length of its shortest repeating block, the
number of digits before the repetition starts plus that length, or the digit sum of a block of a/p. The
idea is the multiplicative order: with b = 2^s·5^t·m (gcd(m, 10) = 1) the repetition starts after max(s, t) digits and
its block has length ord_m(10), the lcm over the prime powers p^e of m of ord_(p^e)(10), each a divisor of
φ(p^e) found from the factors of p - 1; for a prime p and an even block, Midy's theorem makes the two
halves of the block add up to 99...9, so its digits sum to 9·L/2. The generator uses the orders; the
solver runs the long division, remembering where each remainder first appeared."""

from math import gcd, lcm, prod

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-decimal"

SOLVER = """
a, b = NUMERATOR % DENOMINATOR, DENOMINATOR
seen, digits, r = {}, [], a
while r not in seen:
    seen[r] = len(digits)
    digits.append(10 * r // b)
    r = 10 * r % b
start = seen[r]
block = len(digits) - start
if ASK == "block":
    print(block)
elif ASK == "both":
    print(start + block)
else:
    print(sum(digits[start:]))  # the digits of one repeating block
"""

PRIMES = [p for p in range(7, 2000) if all(p % q for q in range(2, int(p ** 0.5) + 1))]


def prime_factors(n):
    out, p = [], 2
    while p * p <= n:
        if n % p == 0:
            out.append(p)
            while n % p == 0:
                n //= p
        p += 1
    return out + ([n] if n > 1 else [])


def prime_powers(n):
    out = []
    for p in prime_factors(n):
        e = 0
        while n % p == 0:
            n, e = n // p, e + 1
        out.append((p, e))
    return out


def order(base, modulus):
    """Multiplicative order of base mod modulus, by shrinking φ(modulus) over its prime factors."""
    phi = modulus
    for p in prime_factors(modulus):
        phi = phi // p * (p - 1)
    k = phi
    for q in prime_factors(phi):
        while k % q == 0 and pow(base, k // q, modulus) == 1:
            k //= q
    return k


def split(b):
    s = t = 0
    while b % 2 == 0:
        b, s = b // 2, s + 1
    while b % 5 == 0:
        b, t = b // 5, t + 1
    return s, t, b


def totient(n):
    out = n
    for p in prime_factors(n):
        out = out // p * (p - 1)
    return out


ASKS = {1: "block", 2: "both", 3: "digits"}


def written(n):
    """n as a product of prime powers (families.factored steps through every number up to the largest prime)."""
    return " × ".join(f"{p}^{e}" if e > 1 else str(p) for p, e in prime_powers(n))


def is_prime(n):
    return n > 1 and all(n % q for q in range(2, int(n ** 0.5) + 1))


def _pick(rng, index, ask):
    while True:
        if ask == "digits":  # one prime, so that Midy's theorem applies
            m = rng.randrange(100_001, 400_000, 2)
            if not is_prime(m):
                continue
            s = t = 0
        else:
            primes = rng.sample(PRIMES, 2)
            m = primes[0] * primes[1] * (rng.choice([1, 3, 7, 9, 11]) if index != 1 else 1)
            s, t = (rng.randrange(0, 6), rng.randrange(0, 6)) if index != 1 else (0, 0)
        b = 2 ** s * 5 ** t * m
        a = rng.randrange(1, b) if index != 1 else 1
        if gcd(a, b) != 1:
            continue
        block = order(10, m)
        if 2_000 <= block <= 200_000 and block != totient(m) and (ask != "digits" or block % 2 == 0):
            return a, b, m, max(s, t), block


def _case(rng, index):
    ask = ASKS[index]
    a, b, m, start, block = _pick(rng, index, ask)
    answer = {"block": block, "both": start + block, "digits": 9 * block // 2}[ask]
    orders = [order(10, p ** e) for p, e in prime_powers(m)]
    if ask == "digits":
        traps = [9 * (m - 1) // 2, 9 * block, 4 * block]
        words = ["9(p - 1)/2, as if the block had p - 1 digits", "9 per digit", "the average digit taken as 4"]
    else:
        carmichael = lcm(*(totient(p ** e) for p, e in prime_powers(m)))
        traps = [totient(m), prod(orders), block if ask == "both" else carmichael]
        words = ["φ(m) in place of the order", "the orders multiplied instead of their lcm",
                 "the digits before the repetition left out" if ask == "both" else "Carmichael's λ(m), a multiple"]
        if ask == "both":
            traps.append(start + totient(m))
            words.append("φ(m) plus the pre-period")
    question = {
        "block": f"What is the length of the shortest block of digits that repeats forever in the decimal expansion "
                 f"of 1/{b}?",
        "both": f"The decimal expansion of {a}/{b} = 0.d1 d2 d3 ... becomes periodic: from some digit on, a block of "
                f"digits repeats forever. Let L be the length of the shortest such block and S the number of digits "
                f"after the decimal point before the first repetition of it starts (as small as possible). What is "
                f"S + L?",
        "digits": f"The decimal expansion of {a}/{b} repeats a block of digits forever, right from the first digit "
                  f"after the decimal point. What is the sum of the digits in one shortest repeating block?",
    }[ask]
    prompt = f"""
        {question}
    """
    midy = (f"The block length is even and {b} is prime, so by Midy's theorem digit k and digit k + {block // 2} of "
            f"the block add up to 9: the block's digits sum to 9·{block}/2. " if ask == "digits" else "")
    if ask == "digits":
        how = (f"{b} is prime, so the expansion repeats from the first digit, with a block as long as the order of "
               f"10 modulo {b}: a divisor of {b - 1} = {written(b - 1)}, found by checking 10^((p-1)/q) for its prime "
               f"factors q: ord = {block}.")
    else:
        how = (f"{b} = {written(b)}. The factors 2 and 5 only delay the repetition (by max(s, t) = {start} digits); "
               f"the block length is the order of 10 modulo m = {written(m)}, the lcm of the orders modulo its prime "
               f"powers ({', '.join(map(str, orders))}), each found by checking the divisors of p - 1: ord = {block}.")
    reference = f"""
        {how}
        {midy}So the answer is **{answer}**.

        Answer: {answer}
    """
    hardness = {"steps": 10, "search": block, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    then = ", then Midy's theorem (the two halves of an even block add to 99...9)" if ask == "digits" else ""
    notes = f"""{a}/{b}, a repeating block of {block:,} digits: the answer needs m = {written(m)} split
        off (no factor 2 or 5 for a prime), the order of 10 modulo each prime power (factoring p - 1 and fast
        powers), their lcm{then}; long division by hand is out of reach. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, NUMERATOR=a, DENOMINATOR=b, ASK=ask), reference=reference,
        notes=notes, max_tokens=32768, title=f"Decimal expansion of {a}/{b} ({ask})")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
