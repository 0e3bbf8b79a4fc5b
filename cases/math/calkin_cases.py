"""MA-calkin: the Calkin-Wilf sequence (the breadth-first reading of the tree with root 1/1 and children
a/(a+b), (a+b)/b) lists every positive fraction once; where does a given fraction stand, or which fraction
stands at a given place? The idea is the bijection with binary: the place n, written in binary after its
leading 1, is the path from the root (0 = left child, 1 = right child), and walking up from a/b subtracts
the smaller term from the larger in runs given by the continued fraction of a/b. The generator reads the
runs off the continued fraction; the solver steps through the sequence with Newman's formula
x -> 1/(2⌊x⌋ - x + 1) until the place or the fraction is reached."""

from fractions import Fraction

from pytest_crucible import family_rng, numeric_case, program, spell

FAMILY = "MA-calkin"

SOLVER = """
p, q, n = 1, 1, 1
while (p, q) != TARGET if TARGET else n < PLACE:
    p, q = q, 2 * (p // q) * q - p + q  # Newman: the next term is 1 / (2*floor(x) - x + 1)
    n += 1
print(n if TARGET else f"{p}/{q}")
"""


def path_bits(a, b):
    """The root-to-fraction path of a/b in the Calkin-Wilf tree (1 = right child), from its continued
    fraction: each Euclid division step is one run of equal moves."""
    runs = []
    while (a, b) != (1, 1):
        if a > b:
            k = a // b if b > 1 else a - 1
            runs.append("1" * k)
            a -= k * b
        else:
            k = b // a if a > 1 else b - 1
            runs.append("0" * k)
            b -= k * a
    return "".join(reversed(runs))


def place(a, b):
    return int("1" + path_bits(a, b), 2)


def at_place(n):
    a, b = 1, 1
    for bit in bin(n)[3:]:
        a, b = (a + b, b) if bit == "1" else (a, a + b)
    return Fraction(a, b)


def _case(rng, index):
    while True:
        n = rng.randrange(1 << 16, 1 << 19)
        fraction = at_place(n)
        if fraction.numerator > 20 and fraction.denominator > 20:
            break
    a, b = fraction.numerator, fraction.denominator
    bits = bin(n)[3:]
    mirrored = int("1" + bits[::-1], 2)  # Stern-Brocot numbering: the path read the other way
    if index == 2:
        answer = fraction
        traps = [at_place(mirrored), Fraction(b, a), at_place(n + 1), at_place(n - 1)]
        question = f"Which fraction is the {n:,}th term of the sequence?"
    else:
        answer = n
        traps = [mirrored, place(b, a), n - 1, int(bits, 2)]
        question = f"At which place does {a}/{b} appear? (1/1 is at place 1, 1/2 at place 2.)"
    prompt = f"""
        The Calkin-Wilf tree has 1/1 at its root, and every fraction a/b in it has a left child a/(a+b) and
        a right child (a+b)/b. Reading the tree level by level, each level from left to right, gives the
        sequence 1/1, 1/2, 2/1, 1/3, 3/2, 2/3, 3/1, 1/4, 4/3, ..., which contains every positive fraction in
        lowest terms exactly once. {question}
    """
    reference = f"""
        Number the places so that place n in binary, after its leading 1, spells the path from the root:
        0 for a left child, 1 for a right child (places 2k and 2k + 1 are the children of place k). Walking up
        from {a}/{b}, each step subtracts the smaller term from the larger, so the path is read off the
        continued fraction of {a}/{b} in runs: the path is {bits}, so the place is binary 1{bits} = {n:,}.

        {'The fraction is **' + spell(fraction) + '**.' if index == 2 else 'Place **' + format(n, ',') + '**.'}

        Answer: {spell(answer)}
    """
    shown = [spell(t) for t in traps]
    trap_words = (f"the Stern-Brocot numbering (path bits reversed: {shown[0]}), the reciprocal ({shown[1]}), the "
                  f"next and previous terms ({shown[2]}, {shown[3]})" if index == 2 else
                  f"the Stern-Brocot numbering (path bits reversed: {shown[0]}), the reciprocal's place ({shown[1]}), "
                  f"counting from 0 ({shown[2]}), the leading 1 of the binary place dropped ({shown[3]})")
    hardness = {"steps": 9, "search": n, "traps": len(set(traps) - {answer})}
    notes = f"""Place {n:,} holds {a}/{b}: listing the sequence that far is hopeless, so the answer needs the
        binary-path bijection of the Calkin-Wilf tree and the run lengths of the continued fraction of {a}/{b}
        ({len(bits)} moves), then an exact binary conversion. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, TARGET=(a, b) if index != 2 else None, PLACE=n), reference=reference,
        notes=notes, max_tokens=32768, as_fraction=index == 2,
        title=f"Calkin-Wilf: {a}/{b} at place {n}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
