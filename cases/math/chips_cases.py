"""MA-chips: chip-firing on a line. N chips start on one square of an endless row; a square holding two or
more chips may fire, sending one chip to each neighbour, until no square can. How many firings happen in
all, at one given square, or on one side? The idea is a pair of invariants: the firing order does not
matter (the game is abelian), the end state is one chip on each square of a centred block (with a hole in
the middle for even N), and each firing raises Σ x² over all chips by exactly 2, so the total is half the
final Σ x². A square's own count u(d) solves Δu = final - start, so testing against |x - d| gives
u(d) = (Σ |x - d|·final(x) - N·|d|) / 2. The generator uses those formulas; the solver plays the game."""

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-chips"

SOLVER = """
from collections import defaultdict
chips, fired, todo = defaultdict(int), defaultdict(int), [0]
chips[0] = N
while todo:
    x = todo.pop()
    if chips[x] >= 2:
        k = chips[x] // 2  # k firings of one square at once: the order does not change the counts
        chips[x] -= 2 * k
        chips[x - 1] += k
        chips[x + 1] += k
        fired[x] += k
        todo += [x - 1, x + 1]
answer = {"total": sum(fired.values()), "site": fired[SITE],
          "right": sum(v for x, v in fired.items() if x > 0)}[ASK]
print(answer)
"""


def _case(rng, index):
    ask = {1: "total", 2: "site", 3: "right"}[index]
    n = 2 * rng.randrange(60, 121) + (0 if index == 2 else 1)
    m = n // 2  # the end state: one chip on each of -m..m (the middle square empty when n is even)
    total = m * (m + 1) * (2 * m + 1) // 6
    origin = m * (m + 1) // 2
    site = rng.randrange(m // 4, m // 2) if index == 2 else 0
    final = [x for x in range(-m, m + 1) if n % 2 or x]
    at_site = (sum(abs(x - site) for x in final) - n * site) // 2
    answer = {"total": total, "site": at_site, "right": (total - origin) // 2}[ask]
    if ask == "total":
        traps = [2 * total, (m + 1) * (m + 2) * (2 * m + 3) // 6, n * (n - 1) // 2]
        words = ["Σ x² not halved", "the block taken one square wider", "one firing per pair of chips"]
        question = "How many firings happen in all?"
    elif ask == "site":
        traps = [sum(abs(x - site) for x in final) // 2, (m - site) * (m - site + 1) // 2, origin]
        words = ["the N·|d| term left out", "only the chips beyond the square counted",
                 "the middle square's count"]
        question = f"How many times does the square {site} places to the right of the start fire?"
    else:
        traps = [total // 2, total - origin, (total + origin) // 2]
        words = ["half the total (the start square's own firings forgotten)", "both sides together",
                 "the start square counted on the right"]
        question = ("How many firings happen at squares to the right of the start (the start square itself "
                    "not counted)?")
    prompt = f"""
        An endless row of squares holds {n} chips, all on one square. A square holding at least two chips may
        fire: it sends one chip to its left neighbour and one to its right neighbour. Squares keep firing, in
        any order, until no square holds two or more chips (whatever the order, the counts asked for below come
        out the same). {question}
    """
    block = f"-{m}..{m}" + ("" if n % 2 else " except the start square 0")
    if ask == "total":
        work = f"so the firings number Σ x²/2 = {m}·{m + 1}·{2 * m + 1}/6 = {answer}"
    elif ask == "site":
        work = (f"and the odometer u satisfies u(x+1) - 2u(x) + u(x-1) = final(x) - start(x); summing against"
                f" |x - {site}| gives u({site}) = (Σ |x - {site}| over the final chips - {n}·{site})/2 = {answer}")
    else:
        work = (f"so the firings number Σ x²/2 = {total}; the start square fires Σ|x|/2 = {origin} times, and "
                f"by symmetry the right side has ({total} - {origin})/2 = {answer}")
    reference = f"""
        Chip-firing is abelian, so any order gives the same final state and the same firing counts. The
        final state conserves the {n} chips and is stable and symmetric: one chip on each square {block}.
        Each firing at x moves chips from x to x ± 1 and raises Σ x² by (x-1)² + (x+1)² - 2x² = 2, {work}.

        **Answer: {answer}**
    """
    hardness = {"steps": 6, "search": total, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""{n} chips: playing the game by hand takes {total} firings, so the count needs the invariants:
        the abelian property, the final block {block} (which has to be argued, not guessed), the Σ x² rise of
        2 per firing{', and the discrete Green function of the line for one square' if ask == 'site' else ''}.
        A 27-32B model tends to guess the block's width or forget a halving. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, N=n, SITE=site, ASK=ask), reference=reference, notes=notes,
        max_tokens=32768, title=f"Chip-firing from a pile of {n}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
