"""MA-ladder: proper colourings, with q colours, of a circular ladder (a prism: two rings of n rooms joined
rung by rung) or a Möbius ladder (the rings cross over once). The idea is the transfer matrix of one rung:
its eigenvalues are q² - 3q + 3, 3 - q (q - 1 times) and 1 - q (q - 1 times, and a last one) so the
count is a trace, P = (q²-3q+3)^n + (q-1)((3-q)^n ± (1-q)^n) + c, with the crossing flipping a sign.
The generator uses that closed form; the solver fixes the first rung's colours (by symmetry) and runs a
rung-by-rung table over all colour pairs."""

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-ladder"

SOLVER = """
q, n = COLOURS, RUNGS
pairs = [(a, b) for a in range(q) for b in range(q) if a != b]
first = (0, 1)  # any first rung is a relabelling of this one
ways = {first: 1}
for _ in range(n - 1):
    step = {}
    for (a, b), w in ways.items():
        for c, d in pairs:
            if c != a and d != b:
                step[(c, d)] = step.get((c, d), 0) + w
    ways = step
closing = 0
for (a, b), w in ways.items():
    if (a != first[1] and b != first[0]) if CROSSED else (a != first[0] and b != first[1]):
        closing += w
print(closing * len(pairs))
"""


def prism(n, q):
    return (q * q - 3 * q + 3) ** n + (q - 1) * ((3 - q) ** n + (1 - q) ** n) + q * q - 3 * q + 1


def moebius(n, q):
    return (q * q - 3 * q + 3) ** n + (q - 1) * ((3 - q) ** n - (1 - q) ** n) - 1


def _case(rng, index):
    crossed = index == 2
    n = rng.randrange(8, 15)
    q = rng.randrange(4, 8)
    answer = (moebius if crossed else prism)(n, q)
    open_ladder = q * (q - 1) * (q * q - 3 * q + 3) ** (n - 1)
    traps = [open_ladder,                              # the ends of the ladder left unjoined
             (q * q - 3 * q + 3) ** n,                 # only the leading eigenvalue
             (prism if crossed else moebius)(n, q),    # the other way of closing the rings
             q * (q - 1) ** (2 * n - 1)]               # every room after the first just avoids one neighbour
    if crossed:
        closing = (f"and room A{n} is also next to room B1, and room B{n} next to room A1 (the corridor crosses "
                   f"over once, so going round once takes you from one ring to the other)")
    else:
        closing = f"and room A{n} is also next to room A1, and room B{n} next to room B1 (two closed rings)"
    prompt = f"""
        A building has {2 * n} rooms, A1, ..., A{n} and B1, ..., B{n}. Room Ak is next to room Bk for every k;
        room Ak is next to A(k+1) and room Bk is next to B(k+1) for k = 1, ..., {n - 1}; {closing}. No other
        rooms are next to each other. Each room is painted one of {q} colours so that rooms next to each
        other get different colours. In how many ways can the building be painted? (Colourings that
        differ in any room count as different.)
    """
    sign = "-" if crossed else "+"
    swap = ", with the crossing swapping the two colours of a rung (it flips the sign of the 1 - q part)" * crossed
    tail = "- 1" if crossed else f"+ {q * q - 3 * q + 1}"
    reference = f"""
        Go rung by rung (Ak, Bk). The transfer matrix between consecutive rungs acts on the {q * (q - 1)}
        ordered colour pairs; its eigenvalues are q² - 3q + 3 = {q * q - 3 * q + 3}, 3 - q = {3 - q} and
        1 - q = {1 - q} (each q - 1 times) and 1 (the rest). The count is the trace of T^n{swap}:
        P = (q²-3q+3)^n + (q-1)((3-q)^n {sign} (1-q)^n) {tail} with q = {q}, n = {n}.

        That is **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": 8, "search": min(q ** (2 * n), 10**18), "traps": len(set(traps) - {answer})}
    kind = "Möbius ladder" if crossed else "prism (circular ladder)"
    notes = f"""Proper {q}-colourings of the {kind} with {n} rungs: {q}^{2 * n} colourings, so the count needs the
        rung transfer matrix, its eigenvalues with multiplicities and the trace of its n-th
        power{' (with the swap for the crossing)' * crossed}, not a textbook formula most know. Traps: the open
        ladder ({traps[0]}), the
        leading eigenvalue only ({traps[1]}), the other closing ({traps[2]}), the tree-like count
        q(q-1)^(2n-1) ({traps[3]})."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, COLOURS=q, RUNGS=n, CROSSED=crossed), reference=reference, notes=notes,
        max_tokens=32768, title=f"{q}-colourings of a {kind} with {n} rungs")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
