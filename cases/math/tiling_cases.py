"""MA-tiling: in how many ways can a 3 x n (or 4 x n) board be tiled with dominoes and 2 x 2 squares,
dominoes and L-trominoes, or dominoes alone? The idea is the transfer matrix: cut the board between
columns and record which cells of the next column are already covered by tiles that stick out; the
count is one entry of the n-th power of the matrix of column-to-column moves (equivalently a short
system of recurrences). The generator builds that matrix and raises it to the n-th power by repeated
squaring; the solver fills the board cell by cell, always the first empty cell, with memoisation on
the set of covered cells ahead."""

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-tiling"

SOLVER = """
from functools import lru_cache
rows, cols = ROWS, COLS
shapes = [tuple(sorted(s, key=lambda c: (c[1], c[0]))) for s in SHAPES]
order = [(r, c) for c in range(cols) for r in range(rows)]
position = {cell: i for i, cell in enumerate(order)}
@lru_cache(maxsize=None)
def fill(start, covered):
    i = start
    while i < len(order) and order[i] in covered:
        i += 1
    if i == len(order):
        return 1
    r0, c0 = order[i]
    total = 0
    for shape in shapes:
        fr, fc = shape[0]  # the shape's first cell in column-major order goes on the empty cell
        cells = [(r0 + r - fr, c0 + c - fc) for r, c in shape]
        if all(0 <= r < rows and 0 <= c < cols and (r, c) not in covered for r, c in cells):
            ahead = frozenset(x for x in covered | set(cells) if position[x] > i)
            total += fill(i + 1, ahead)
    return total
print(fill(0, frozenset()))
"""

DOMINOES = [((0, 0), (0, 1)), ((0, 0), (1, 0))]
SQUARE = [((0, 0), (0, 1), (1, 0), (1, 1))]
TROMINOES = [((0, 0), (1, 0), (1, 1)), ((0, 0), (0, 1), (1, 0)), ((0, 0), (0, 1), (1, 1)), ((0, 1), (1, 0), (1, 1))]


def transfer(rows, shapes):
    """T[a][b]: ways to finish a column whose covered cells are mask a, leaving mask b covered in the next."""
    size = 1 << rows
    table = [[0] * size for _ in range(size)]

    def place(mask, nxt, start):
        row = start
        while row < rows and mask >> row & 1:
            row += 1
        if row == rows:
            return {nxt: 1}
        out = {}
        for shape in shapes:
            first = min(shape, key=lambda c: (c[1], c[0]))
            cells = [(row + r - first[0], c - first[1]) for r, c in shape]
            if not all(0 <= r < rows and 0 <= c <= 1 for r, c in cells):
                continue
            here = sum(1 << r for r, c in cells if c == 0)
            there = sum(1 << r for r, c in cells if c == 1)
            if here & mask or there & nxt:
                continue
            for key, ways in place(mask | here, nxt | there, row).items():
                out[key] = out.get(key, 0) + ways
        return out
    for a in range(size):
        for b, ways in place(a, 0, 0).items():
            table[a][b] += ways
    return table


def mat_mul(x, y):
    n = len(x)
    return [[sum(x[i][k] * y[k][j] for k in range(n) if x[i][k]) for j in range(n)] for i in range(n)]


def tilings(rows, cols, shapes):
    table, result = transfer(rows, shapes), None
    power = cols
    while power:
        if power & 1:
            result = table if result is None else mat_mul(result, table)
        table = mat_mul(table, table)
        power >>= 1
    return result[0][0]


VARIANTS = {
    1: (3, "dominoes (1 x 2, either way round) and 2 x 2 squares", DOMINOES + SQUARE, DOMINOES),
    2: (3, "dominoes (1 x 2, either way round) and L-shaped trominoes (three cells of a 2 x 2 square, in any "
           "of the four orientations)", DOMINOES + TROMINOES, DOMINOES),
    3: (4, "dominoes (1 x 2, either way round)", DOMINOES, None),
}


def _case(rng, index):
    rows, tiles, shapes, fewer = VARIANTS[index]
    # every tile of the first variant has even area, so a 3 x n board needs n even
    cols = {1: 2 * rng.randrange(7, 11), 2: rng.randrange(9, 13), 3: rng.randrange(14, 21)}[index]
    answer = tilings(rows, cols, shapes)
    traps, words = [tilings(rows - 1, cols, shapes)], [f"a {rows - 1} x {cols} board"]
    if fewer:
        traps, words = [tilings(rows, cols, fewer), *traps], ["the extra tiles left out", *words]
    if index != 1:  # with even-area tiles only, one column more or fewer leaves nothing to count
        traps += [tilings(rows, cols - 1, shapes), tilings(rows, cols + 1, shapes)]
        words += [f"{cols - 1} columns", f"{cols + 1} columns"]
    prompt = f"""
        A board of {rows} rows and {cols} columns of unit squares is to be covered exactly, without overlaps and
        without sticking out, by {tiles}. Tiles of the same shape are identical. In how many ways can this be
        done?
    """
    reference = f"""
        Cut the board between columns and record which of the {rows} cells of the next column are already
        covered by tiles sticking out ({2 ** rows} possible profiles). Filling one column moves the profile
        according to a {2 ** rows} x {2 ** rows} transfer matrix T (counted by placing tiles at the first free
        cell of the column), and the number of tilings is the (empty, empty) entry of T^{cols}.

        That gives **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": cols, "search": min(answer, 10**18), "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""A {rows} x {cols} board: {answer:,} tilings, so the count needs the profile transfer matrix (or
        the coupled recurrences it gives) set up correctly for every way a tile can stick out, then {cols}
        dependent steps of exact big-number arithmetic. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, ROWS=rows, COLS=cols, SHAPES=shapes), reference=reference, notes=notes,
        max_tokens=32768, title=f"Tilings of a {rows} x {cols} board")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
