"""Cage arithmetic: a 5x5 (or 4x4) grid filled with 1-5 so that no digit repeats in a row or column, cut into
cages each labelled with a target and an operation (the cells' sum or product, or for two cells their
difference or quotient), in the style of KenKen. The generated puzzle has exactly one solution; the answer
is the top row read as one number.

The generator draws a Latin square, cuts it into random cages, labels them from the square, and keeps
puzzles that a cell-by-cell backtracking search (rows and columns checked as digits go in, each cage once
it is full) solves in exactly one way. The traps are the first column read downwards (rows and columns
swapped) and the top row read right to left. `verify.solver` parses the cages out of the prompt and
enumerates Latin squares row by row (each row a permutation that clashes with no earlier row, each cage
checked once its last row is in), printing the top row of each square that fits every cage.
"""

from __future__ import annotations

import math

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-cages"
SHAPES = [4, 5, 5]  # grid side
ROWS = "ABCDE"


def _fits(op: str, target: int, values: list[int]) -> bool:
    if op == "=":
        return values[0] == target
    if op == "+":
        return sum(values) == target
    if op == "*":
        return math.prod(values) == target
    a, b = max(values), min(values)
    return a - b == target if op == "-" else a == b * target


def _possible(op: str, target: int, values: list[int], n: int, full: bool) -> bool:
    """Whether a cage's digits so far (0 = empty) can still meet its target."""
    if full:
        return _fits(op, target, values)
    placed = [v for v in values if v]
    if op == "+":
        empty = len(values) - len(placed)
        return sum(placed) + empty <= target <= sum(placed) + empty * n
    if op == "*":
        return target % math.prod(placed) == 0
    return True


def solutions(n: int, cages: list, limit: int) -> list:
    """Up to `limit` solutions, cell by cell."""
    cage_of = {cell: k for k, (cells, _, _) in enumerate(cages) for cell in cells}
    last = {k: max(cells) for k, (cells, _, _) in enumerate(cages)}
    grid = [[0] * n for _ in range(n)]
    found: list = []

    def place(i: int):
        if len(found) >= limit:
            return
        if i == n * n:
            found.append([row[:] for row in grid])
            return
        r, c = divmod(i, n)
        for v in range(1, n + 1):
            if v in grid[r][:c] or any(grid[k][c] == v for k in range(r)):
                continue
            grid[r][c] = v
            k = cage_of[(r, c)]
            cells, op, target = cages[k]
            if _possible(op, target, [grid[a][b] for a, b in cells], n, last[k] == (r, c)):
                place(i + 1)
            grid[r][c] = 0

    place(0)
    return found


def _cut(rng, n: int) -> list[list]:
    free = {(r, c) for r in range(n) for c in range(n)}
    cages = []
    while free:
        cell = min(free)
        cage = [cell]
        free.discard(cell)
        size = rng.choice([1, 2, 2, 2, 3, 3]) if n == 5 else rng.choice([1, 2, 2, 3])
        while len(cage) < size:
            options = sorted({(r + dr, c + dc) for r, c in cage for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))}
                             & free)
            if not options:
                break
            nxt = rng.choice(options)
            cage.append(nxt)
            free.discard(nxt)
        cages.append(sorted(cage))
    return cages


def _label_cage(rng, cells: list, square) -> tuple[str, int]:
    values = [square[r][c] for r, c in cells]
    if len(values) == 1:
        return "=", values[0]
    if len(values) == 2:
        a, b = max(values), min(values)
        options = [("+", a + b), ("*", a * b), ("-", a - b)] + ([("/", a // b)] if a % b == 0 else [])
        return rng.choice(options)
    return rng.choice([("+", sum(values)), ("*", math.prod(values))])


def _instance(rng, n: int):
    while True:
        base = [[(r + c) % n + 1 for c in range(n)] for r in range(n)]
        rng.shuffle(base)
        cols = rng.sample(range(n), n)
        symbols = rng.sample(range(1, n + 1), n)
        square = [[symbols[row[c] - 1] for c in cols] for row in base]
        cells = _cut(rng, n)
        if sum(len(c) == 1 for c in cells) > n // 2 + 1:
            continue
        cages = [(c, *_label_cage(rng, c, square)) for c in cells]
        column = [row[0] for row in square]
        if column != square[0] and len(solutions(n, cages, 2)) == 1:
            return square, cages, column


SOLVER = r'''
import math, re
from itertools import permutations
n = int(re.search(r"(\d)x\d grid", PROMPT).group(1))
cages = []
for cells, target, op in re.findall(r"^- ([A-E1-5, ]+): (\d+)(.*)$", PROMPT, re.M):
    spots = [("ABCDE".index(x[0]), int(x[1]) - 1) for x in cells.split(", ")]
    kind = {"": "=", "sum": "+", "product": "*", "difference": "-", "quotient": "/"}[op.strip()]
    cages.append((spots, kind, int(target)))
def fits(kind, target, values):
    if kind == "=": return values[0] == target
    if kind == "+": return sum(values) == target
    if kind == "*": return math.prod(values) == target
    a, b = max(values), min(values)
    return a - b == target if kind == "-" else a == b * target
rows_ok = list(permutations(range(1, n + 1)))
done_at = {}  # the row after which each cage is complete
for spots, k, t in cages:
    done_at.setdefault(max(r for r, _ in spots), []).append((spots, k, t))
def extend(grid):
    if len(grid) == n:
        print("".join(map(str, grid[0])))
        return
    for row in rows_ok:
        if any(row[c] == g[c] for g in grid for c in range(n)):
            continue
        trial = grid + [row]
        if all(fits(k, t, [trial[r][c] for r, c in spots]) for spots, k, t in done_at.get(len(grid), [])):
            extend(trial)
extend([])
'''


def _case(index: int, rng, n: int) -> dict:
    square, cages, column = _instance(rng, n)
    names = {"=": "", "+": " sum", "*": " product", "-": " difference", "/": " quotient"}
    lines = "\n".join(f"- {', '.join(ROWS[r] + str(c + 1) for r, c in cells)}: {target}{names[op]}"
                      for cells, op, target in cages)
    answer = int("".join(map(str, square[0])))
    prompt = f"""\
        Fill a {n}x{n} grid with the digits 1 to {n} so that each digit appears exactly once in every row and
        every column. Rows are A (top) to {ROWS[n - 1]}, columns 1 (left) to {n}; cell B3 is row B, column 3.
        The grid is cut into cages; each cage lists its cells and a target:
        __LIST__
        "sum" and "product" mean the cage's digits add or multiply to the target; "difference" and "quotient"
        (two-cell cages) mean the larger digit minus, or divided by, the smaller one gives the target; a bare
        number is the digit in that single cell. Digits may repeat within a cage if they are in different
        rows and columns. The puzzle has exactly one solution. What is row A, read left to right as one
        {n}-digit number?
        """
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=answer, solver="",
        hardness={"steps": sum(len(c) > 1 for c, _, _ in cages), "search": 161280 if n == 5 else 576, "traps": 2},
        reference=f"""\
            Start from the single cells and the cages with only one possible set of digits, then use each
            row and column holding every digit once to narrow the rest, until every cell is forced. The
            completed grid's top row (row A, columns 1 to {n}) is
            {" ".join(map(str, square[0]))}.

            **Answer: {answer}**""",
        traps=[int("".join(map(str, column))), int("".join(map(str, square[0][::-1])))],
        notes=f"""Generated {n}x{n} cage puzzle with {len(cages)} cages and exactly one solution (checked by search);
            the first column reads {"".join(map(str, column))} (rows and columns swapped). A single misread cage
            or a guessed cell breaks the chain: the deduction chains through {len(cages)} cages and the row and
            column constraints; blind search covers {161280 if n == 5 else 576:,} Latin squares.""",
        max_tokens=32768, title=f"{n}x{n} cage arithmetic puzzle: the top row")
    case["prompt"] = case["prompt"].replace("__LIST__", lines)
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, n) for i, n in enumerate(SHAPES, 1)]
