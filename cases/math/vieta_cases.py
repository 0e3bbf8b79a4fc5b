"""MA-vieta: a monic polynomial with integer coefficients whose roots cannot be written down; the sum of
the k-th powers of its roots, the sum of 1/(a - r) over its roots, or the product of (r² + 1). The idea is
to stay with the coefficients: Newton's identities give the power sums one from the next (p_k = e1·p_(k-1)
- e2·p_(k-2) + ... ± k·e_k, with e_j read off the coefficients with alternating signs); Σ 1/(a - r) is
P'(a)/P(a), the logarithmic derivative; and Π (r² + 1) = Π (r - i)(r + i) = P(i)·P(-i) = |P(i)|². The
generator does that; the solver works with the companion matrix C: the trace of C^k, the trace of
(aI - C)^(-1) and the determinant of C² + I, in exact arithmetic."""

from fractions import Fraction

from pytest_crucible import family_rng, numeric_case, program, spell
from pytest_crucible.suite.tiers import tier_of

FAMILY = "MA-vieta"

SOLVER = """
from fractions import Fraction
coeffs = COEFFS  # x^d + c1 x^(d-1) + ... + cd
d = len(coeffs)
C = [[Fraction(0)] * d for _ in range(d)]
for i in range(1, d):
    C[i][i - 1] = Fraction(1)
for i in range(d):
    C[i][d - 1] = Fraction(-coeffs[d - 1 - i])

def mul(A, B):
    return [[sum(A[i][t] * B[t][j] for t in range(d)) for j in range(d)] for i in range(d)]

def solve_inverse(A):  # Gauss-Jordan on [A | I]
    M = [row[:] + [Fraction(int(i == j)) for j in range(d)] for i, row in enumerate(A)]
    for col in range(d):
        piv = next(r for r in range(col, d) if M[r][col] != 0)
        M[col], M[piv] = M[piv], M[col]
        M[col] = [v / M[col][col] for v in M[col]]
        for r in range(d):
            if r != col and M[r][col] != 0:
                M[r] = [a - M[r][col] * b for a, b in zip(M[r], M[col])]
    return [row[d:] for row in M]

def det(A):
    A = [row[:] for row in A]
    out = Fraction(1)
    for col in range(d):
        piv = next((r for r in range(col, d) if A[r][col] != 0), None)
        if piv is None:
            return Fraction(0)
        if piv != col:
            A[col], A[piv] = A[piv], A[col]
            out = -out
        out *= A[col][col]
        for r in range(col + 1, d):
            f = A[r][col] / A[col][col]
            A[r] = [a - f * b for a, b in zip(A[r], A[col])]
    return out

if ASK == "power":
    P = C
    for _ in range(K - 1):
        P = mul(P, C)
    value = sum(P[i][i] for i in range(d))
elif ASK == "reciprocal":
    inv = solve_inverse([[Fraction(K) * (i == j) - C[i][j] for j in range(d)] for i in range(d)])
    value = sum(inv[i][i] for i in range(d))
else:
    sq = mul(C, C)
    value = det([[sq[i][j] + (i == j) for j in range(d)] for i in range(d)])
print(f"{value.numerator}/{value.denominator}" if value.denominator != 1 else value.numerator)
"""


def power_sums(coeffs, k, signed=True):
    """Newton's identities; signed=False adds the m·e_m term with a plus sign whatever m is."""
    d = len(coeffs)
    e = [1] + [(-1) ** j * c for j, c in enumerate(coeffs, start=1)]
    p = [d]
    for m in range(1, k + 1):
        total = sum((-1) ** (j - 1) * e[j] * p[m - j] for j in range(1, min(m - 1, d) + 1))
        if m <= d:
            total += (-1) ** (m - 1) * m * e[m] if signed else m * e[m]
        p.append(total)
    return p


def evaluate(coeffs, x):
    out = 1
    for c in coeffs:
        out = out * x + c
    return out


def derivative_at(coeffs, x):
    d = len(coeffs)
    terms = [(d - j) * c for j, c in enumerate([1] + coeffs[:-1])]
    out = 0
    for c in terms:
        out = out * x + c
    return out


def at_i(coeffs):
    """P(i) as a Gaussian integer (re, im)."""
    re, im = 1, 0
    for c in coeffs:
        re, im = -im + c, re  # (re + i·im)·i + c
    return re, im


def polynomial(coeffs):
    d = len(coeffs)
    parts = [f"x^{d}"]
    for j, c in enumerate(coeffs, start=1):
        if c:
            power = d - j
            mono = "" if power == 0 else ("x" if power == 1 else f"x^{power}")
            size = abs(c)
            body = f"{size}{mono}" if size != 1 or not mono else mono
            parts.append(("- " if c < 0 else "+ ") + body)
    return " ".join(parts)


def _case(rng, index):
    ask = {1: "power", 2: "reciprocal", 3: "product"}[index]
    d = 5 if ask == "power" else rng.choice([4, 5])
    while True:
        coeffs = [rng.randrange(-6, 7) for _ in range(d)]
        if coeffs[-1] and sum(1 for c in coeffs if c) >= d - 1 and all(evaluate(coeffs, x) for x in range(-7, 8)):
            break
    poly = polynomial(coeffs)
    lead = f"Let r1, ..., r{d} be the roots of P(x) = {poly} (with multiplicity, complex ones included)."
    if ask == "power":
        k = rng.randrange(8, 11)
        p = power_sums(coeffs, k)
        answer = p[k]
        traps = [power_sums(coeffs, k, signed=False)[k], p[k - 1], power_sums(coeffs, k + 1)[k + 1]]
        words = ["the m·e_m term always added with a plus sign", "p_(k-1)", "p_(k+1)"]
        question = f"{lead} What is r1^{k} + ... + r{d}^{k}?"
        work = f"Newton's identities p_m = e1·p_(m-1) - e2·p_(m-2) + ... ± m·e_m give p_1..p_{k}: {p[1:]}"
        k_param = k
    elif ask == "reciprocal":
        a = rng.choice([v for v in range(-5, 6) if v not in (0, 1, -1)])
        answer = Fraction(derivative_at(coeffs, a), evaluate(coeffs, a))
        mean = Fraction(-coeffs[0], d)
        traps = [Fraction(evaluate(coeffs, a), derivative_at(coeffs, a)), -answer,
                 d / (a - mean) if a != mean else answer + 2]
        words = ["P(a)/P'(a) upside down", "Σ 1/(r - a), the sign flipped", "every root replaced by their mean"]
        question = f"{lead} What is 1/({a} - r1) + ... + 1/({a} - r{d})?"
        work = (f"Σ 1/(a - r) = P'(a)/P(a) with a = {a}: P'({a}) = {derivative_at(coeffs, a)}, "
                f"P({a}) = {evaluate(coeffs, a)}")
        k_param = a
    else:
        re, im = at_i(coeffs)
        answer = re * re + im * im
        traps = [re * re - im * im, abs(evaluate(coeffs, 1)) * abs(evaluate(coeffs, -1)), re + im]
        words = ["P(i)² read as re² - im²", "P(1)·P(-1) (roots of r² - 1)", "re + im"]
        question = f"{lead} What is (r1² + 1)(r2² + 1)···(r{d}² + 1)?"
        sign = "-" if im < 0 else "+"
        work = f"Π (r² + 1) = Π (r - i)(r + i) = P(i)·P(-i) = |P(i)|², and P(i) = {re} {sign} {abs(im)}i"
        k_param = 0
    prompt = f"""
        {question}
    """
    reference = f"""
        Work with the coefficients, not the roots: {work}, so the value is {spell(answer)}.

        Answer: {spell(answer)}
    """
    steps = {"power": k_param if ask == "power" else 0, "reciprocal": 3, "product": 4}[ask]
    hardness = {"steps": steps, "search": 1, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({spell(t)})" for w, t in zip(words, traps, strict=True))
    if ask == "power":
        method = (f"Newton's identities have to be run {k_param} dependent steps, each one carrying a sign and "
                  f"the k·e_k term up to the degree")
    else:
        method = "the value is a symmetric function that one identity reduces to the coefficients"
    notes = f"""The degree-{d} polynomial {poly} has no rational root, so the roots cannot be used; {method}.
        A 27-32B model tends to slip a sign or an index. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, COEFFS=coeffs, K=k_param, ASK=ask), reference=reference, notes=notes,
        max_tokens=32768 if tier_of(hardness) == "hard" else 16384, as_fraction=ask == "reciprocal",
        title=f"Symmetric functions of the roots of a degree-{d} polynomial")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
