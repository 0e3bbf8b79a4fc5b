"""MA-incircle: right triangles with integer sides and a given inradius r (or whose area is k times the
perimeter): how many there are, or the sum of their perimeters. The idea is the factorisation hidden in the
inradius: r = (a + b - c)/2 turns a² + b² = c² into (a - 2r)(b - 2r) = 2r², so the triangles match the
divisor pairs d·e = 2r² with d < e, there are τ(2r²)/2 of them, and the perimeters 6r + 2(d + e) add up to
3r·τ(2r²) + 2σ(2r²); area = k·perimeter means r = 2k. The generator counts divisors; the solver lists
every Pythagorean triple up to the largest possible perimeter by Euclid's formula and measures its
inradius."""

from pytest_crucible import factored, family_rng, numeric_case, program

FAMILY = "MA-incircle"

SOLVER = """
from math import gcd
r = RADIUS
limit = 6 * r + 2 * (1 + 2 * r * r)  # the largest perimeter: d = 1, e = 2r^2
count = perimeters = hypotenuses = 0
m = 2
while 2 * m * (m + 1) <= limit:  # the least perimeter of a primitive triple from m
    for n in range(1, m):
        if (m - n) % 2 == 1 and gcd(m, n) == 1:
            a, b, c = m * m - n * n, 2 * m * n, m * m + n * n
            if (2 * r) % (a + b - c) == 0:  # the multiple k·(a, b, c) has inradius k·(a + b - c)/2
                count += 1
                perimeters += 2 * r // (a + b - c) * (a + b + c)
                hypotenuses += 2 * r // (a + b - c) * c
    m += 1
print({"perimeters": perimeters, "hypotenuses": hypotenuses, "count": count}[ASK])
"""


def divisor_stats(n):
    divisors = [d for d in range(1, int(n ** 0.5) + 1) if n % d == 0]
    divisors = set(divisors + [n // d for d in divisors])
    return len(divisors), sum(divisors)


def _case(rng, index):
    while True:
        r = rng.randrange(20, 91) if index != 3 else 2 * rng.randrange(10, 46)
        tau, sigma = divisor_stats(2 * r * r)
        if tau >= 24:
            break
    ask = {1: "hypotenuses", 2: "perimeters", 3: "count"}[index]
    count = tau // 2
    answer = {"perimeters": 3 * r * tau + 2 * sigma, "hypotenuses": r * tau + sigma, "count": count}[ask]
    tau_r2, sigma_r2 = divisor_stats(r * r)
    if ask == "perimeters":
        traps = [6 * r * count + sigma, 3 * r * tau_r2 + 2 * sigma_r2, 6 * r * tau + 2 * sigma]
        words = ["the e + d part not doubled", "r² in place of 2r²", "each pair counted in both orders"]
    elif ask == "hypotenuses":
        traps = [sigma, r * tau_r2 + sigma_r2, 2 * r * tau + 2 * sigma]
        words = ["the 2r part forgotten (σ(2r²) alone)", "r² in place of 2r²", "each pair counted in both orders"]
    else:
        traps = [tau, (tau_r2 + 1) // 2, divisor_stats(2 * (r // 2) ** 2)[0] // 2 if index == 3 else tau // 2 + 1]
        words = ["each pair counted in both orders", "r² in place of 2r²",
                 "r = k in place of r = 2k" if index == 3 else "the isosceles case counted"]
    if index == 3:
        k = r // 2
        condition = f"whose area (in square units) equals {k} times the perimeter (in units)"
    else:
        condition = f"whose inscribed circle has radius {r}"
    question = {"perimeters": "What is the sum of the perimeters of all such triangles?",
                "hypotenuses": "What is the sum of the hypotenuses of all such triangles?",
                "count": "How many such triangles are there?"}[ask]
    prompt = f"""
        Consider right triangles with integer side lengths {condition}. Congruent triangles count once (legs
        a ≤ b). {question}
    """
    total = {"count": "",
             "perimeters": f", with perimeters 6r + 2(d + e) adding up to 3r·τ + 2σ(2r²) = {answer}",
             "hypotenuses": f", with hypotenuses c = 2r + d + e adding up to r·τ + σ(2r²) = {answer}"}[ask]
    reference = f"""
        {'Area = r·(perimeter)/2, so area = ' + str(r // 2) + '·perimeter means r = ' + str(r) + '. ' if index == 3
         else ''}For a right triangle the inradius is r = (a + b - c)/2, so c = a + b - 2r, and a² + b² = c²
        becomes (a - 2r)(b - 2r) = 2r² = {2 * r * r} = {factored(2 * r * r)}. Each divisor pair d·e = 2r² with
        d < e gives one triangle (a, b) = (2r + d, 2r + e); 2r² has {tau} divisors, so there are {count}
        triangles{total}.

        Answer: {answer}
    """
    hardness = {"steps": 4, "search": r * r, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""Inradius {r}: the count needs the substitution (a - 2r)(b - 2r) = 2r² and the divisors of
        2r² = {factored(2 * r * r)}{'' if ask == 'count' else ', then the divisor sum'}; trying legs would
        run up to 2r² + 2r = {2 * r * r + 2 * r}. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, RADIUS=r, ASK=ask), reference=reference, notes=notes,
        max_tokens=16384, title=f"Right triangles with inradius {r}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
