"""MA-regions: a generated set of straight lines in four directions (horizontal, vertical and the two
diagonals, at small whole offsets, so many of them meet three or four at a point); into how many regions do
they cut the plane, or how many of the regions are bounded? The idea is to add the lines one at a time: a
new line is cut by the earlier ones at some number c of distinct points and so splits c + 1 regions, so the
total is 1 + Σ (c_i + 1), and with two or more directions exactly 2L regions are unbounded. The work is
finding where three or more lines meet, which the general-position formula 1 + L + C(L, 2) ignores. The
generator adds the lines one by one; the solver lists the crossing points and uses Euler's formula on the
graph of finite segments (bounded regions = segments - points + 1)."""

from fractions import Fraction
from math import comb

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-regions"

SOLVER = """
from fractions import Fraction
lines = LINES  # (a, b, c): a·x + b·y = c
points = {}
for i, (a1, b1, c1) in enumerate(lines):
    for a2, b2, c2 in lines[i + 1:]:
        det = a1 * b2 - a2 * b1
        if det:
            x = Fraction(c1 * b2 - c2 * b1, det)
            y = Fraction(a1 * c2 - a2 * c1, det)
            points.setdefault((x, y), set()).update({(a1, b1, c1), (a2, b2, c2)})
on_line = {line: sum(1 for s in points.values() if line in s) for line in lines}
segments = sum(max(k - 1, 0) for k in on_line.values())
bounded = segments - len(points) + 1
print(bounded + 2 * len(lines) if ASK == "all" else bounded)
"""

DIRECTIONS = [(0, 1, "y = {c}"), (1, 0, "x = {c}"), (-1, 1, "y = x + {c}"), (1, 1, "x + y = {c}")]


def meet(l1, l2):
    (a1, b1, c1), (a2, b2, c2) = l1, l2
    det = a1 * b2 - a2 * b1
    if not det:
        return None
    return (Fraction(c1 * b2 - c2 * b1, det), Fraction(a1 * c2 - a2 * c1, det))


def _case(rng, index):
    ask = "all" if index == 1 else "bounded"
    directions = DIRECTIONS if index != 3 else DIRECTIONS[:1] + DIRECTIONS[2:]
    while True:
        lines = []
        for a, b, _ in directions:
            offsets = sorted(rng.sample(range(0, 7), rng.randrange(2, 5)))
            if (a, b) == (-1, 1):
                offsets = [o - 3 for o in offsets]
            lines += [(a, b, c) for c in offsets]
        if 11 <= len(lines) <= 15:
            break
    rng.shuffle(lines)
    regions, cuts = 1, []
    for i, line in enumerate(lines):
        crossings = {meet(line, other) for other in lines[:i]} - {None}
        cuts.append(len(crossings))
        regions += len(crossings) + 1
    count = len(lines)
    parallel = sum(comb(sum(1 for x in lines if x[:2] == (a, b)), 2) for a, b, _ in directions)
    general = 1 + count + comb(count, 2)
    no_concurrency = 1 + count + comb(count, 2) - parallel
    if ask == "all":
        answer = regions
        traps = [general, no_concurrency, regions - 1]
        words = ["1 + L + C(L, 2), general position", "parallel pairs taken out but not the triple points",
                 "one region too few"]
    else:
        answer = regions - 2 * count
        traps = [no_concurrency - 2 * count, regions - count, general - 2 * count]
        words = ["the triple points ignored", "only L unbounded regions taken out", "general position"]
    equations = [DIRECTIONS[[d[:2] for d in DIRECTIONS].index((a, b))][2].format(c=c) for a, b, c in lines]
    equations = [e.replace("+ -", "- ").replace(" + 0", "") for e in equations]
    question = ("Into how many regions do these lines cut the plane?" if ask == "all" else
                "They cut the plane into regions; how many of the regions are bounded (have finite area)?")
    prompt = f"""
        Draw these {count} straight lines in the plane: {'; '.join(equations)}. {question}
    """
    tail = "" if ask == "all" else f"; with several directions exactly 2·{count} = {2 * count} regions are unbounded"
    reference = f"""
        Add the lines in the order listed: a line crossed by the earlier ones at c distinct points adds c + 1
        regions. The numbers of distinct crossing points are {cuts} (several lines meet at common points, so
        these are fewer than the number of earlier lines), so there are 1 + Σ (c + 1) = {regions} regions{tail}.

        Answer: {answer}
    """
    hardness = {"steps": count, "search": comb(count, 2), "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""{count} lines with {parallel} parallel pairs and many concurrent points: the count needs the
        distinct crossing points of each line with the earlier ones, {count} dependent additions, after finding
        every point where three or more lines meet among {comb(count, 2)} pairs. A 27-32B model tends to use the
        general-position formula or miss concurrencies. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, LINES=lines, ASK=ask), reference=reference, notes=notes,
        max_tokens=32768, title=f"Regions cut by {count} lines")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
