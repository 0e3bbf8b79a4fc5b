"""MA-trees: the number of spanning trees of a generated graph: a ring of n stations, a hub joined to some of
them, and one or two extra links across the ring. The idea is Kirchhoff's matrix-tree theorem (any cofactor
of the Laplacian), computed exactly by fraction-free elimination; the solver tries every set of n edges and
keeps those that join all n + 1 vertices without a cycle."""

from math import comb

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-trees"

SOLVER = """
from itertools import combinations
vertices = RING + 1
count = 0
for chosen in combinations(EDGES, vertices - 1):
    parent = list(range(vertices))
    def root(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    ok = True
    for a, b in chosen:
        ra, rb = root(a), root(b)
        if ra == rb:
            ok = False
            break
        parent[ra] = rb
    count += ok
print(count)
"""


def determinant(matrix):
    """Bareiss fraction-free elimination: exact for integer matrices."""
    m = [row[:] for row in matrix]
    size, sign, previous = len(m), 1, 1
    for k in range(size - 1):
        if m[k][k] == 0:
            swap = next((i for i in range(k + 1, size) if m[i][k]), None)
            if swap is None:
                return 0
            m[k], m[swap] = m[swap], m[k]
            sign = -sign
        for i in range(k + 1, size):
            for j in range(k + 1, size):
                m[i][j] = (m[i][j] * m[k][k] - m[i][k] * m[k][j]) // previous
        previous = m[k][k]
    return sign * m[-1][-1]


def spanning_trees(vertices, edges):
    laplacian = [[0] * vertices for _ in range(vertices)]
    for a, b in edges:
        laplacian[a][a] += 1
        laplacian[b][b] += 1
        laplacian[a][b] -= 1
        laplacian[b][a] -= 1
    return determinant([row[1:] for row in laplacian[1:]])


def _graph(rng):
    ring = rng.randrange(9, 13)
    spokes = sorted(rng.sample(range(1, ring + 1), rng.randrange(3, ring - 3)))
    chords = []
    while len(chords) < rng.choice([1, 2]):
        a, b = sorted(rng.sample(range(1, ring + 1), 2))
        if 2 <= b - a <= ring - 2 and (a, b) not in chords:
            chords.append((a, b))
    rim = [(i, i % ring + 1) for i in range(1, ring + 1)]
    return ring, spokes, chords, rim + [(0, s) for s in spokes] + chords


def _case(rng, index, difficulty):
    while True:
        ring, spokes, chords, edges = _graph(rng)
        if 2_000 <= comb(len(edges), ring) <= 400_000:
            break
    answer = spanning_trees(ring + 1, edges)
    rim = [(i, i % ring + 1) for i in range(1, ring + 1)]
    path = [e for e in edges if e != (ring, 1)]  # the ring read as a line: the link from the last to the first lost
    wheel = rim + [(0, s) for s in range(1, ring + 1)] + chords
    traps = [comb(len(edges), ring), spanning_trees(ring + 1, path), spanning_trees(ring + 1, wheel),
             spanning_trees(ring + 1, rim + [(0, s) for s in spokes])]
    links = " and ".join(f"{a}–{b}" for a, b in chords)
    between = ", and one between ".join(f"stations {a} and {b}" for a, b in chords)
    prompt = f"""
        A network has a hub H and {ring} stations numbered 1 to {ring}. The stations form a ring: station i is
        linked to station i + 1 for i = 1, ..., {ring - 1}, and station {ring} is linked to station 1. The hub is
        linked to stations {', '.join(map(str, spokes[:-1]))} and {spokes[-1]} (and to no others), and there
        {'is one more link' if len(chords) == 1 else 'are two more links'}: one between {between}.
        Every link is a separate cable. A spanning tree is a set of cables that connects all {ring + 1} nodes
        and contains no cycle. How many different spanning trees does the network have?
    """
    reference = f"""
        By Kirchhoff's matrix-tree theorem the number of spanning trees is any cofactor of the Laplacian
        (degrees on the diagonal, -1 for each cable). Deleting the hub's row and column leaves a
        {ring}×{ring} matrix: the ring's 2 on the diagonal, plus 1 for each station joined to the hub,
        plus 1 at each end of an extra link, and -1 for each pair of linked stations.

        Its determinant, computed exactly by elimination, is **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": 10, "search": comb(len(edges), ring), "traps": len(set(traps) - {answer})}
    notes = f"""{comb(len(edges), ring):,} sets of {ring} cables out of {len(edges)}; the count needs the
        matrix-tree theorem and an exact {ring}×{ring} determinant (or a careful deletion-contraction).
        Traps: every set of {ring} cables ({traps[0]}), the ring read as a line without the
        {ring}–1 link ({traps[1]}), the hub joined to every station ({traps[2]}), forgetting the extra
        link{'s' if len(chords) > 1 else ''} ({traps[3]})."""
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, RING=ring, EDGES=edges), reference=reference, notes=notes, max_tokens=32768,
        title=f"Spanning trees of a {ring}-ring with hub spokes {spokes} and links {links}")
    return case


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i, "hard") for i in range(1, 5)]
