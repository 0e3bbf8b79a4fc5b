"""MA-knight: a knight starts at the corner cell of a W x H rectangle (or a cell inside it) on an unbounded
board (it may leave the rectangle); the sum of the fewest moves it needs to each cell of the rectangle. The
idea is the closed form of knight distance: with x >= y >= 0 it is the least number meeting
max(⌈x/2⌉, ⌈(x+y)/3⌉) with the parity of x + y, except (1, 0) -> 3 and (2, 2) -> 4; summed over the
rectangle by bands. The generator adds the closed form over the cells; the solver runs a breadth-first
search on a board with a margin round the rectangle."""

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-knight"

SOLVER = """
from collections import deque
margin = 6
dist = {START: 0}
queue = deque([START])
while queue:
    x, y = queue.popleft()
    for dx, dy in ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)):
        a, b = x + dx, y + dy
        if -margin <= a < WIDTH + margin and -margin <= b < HEIGHT + margin and (a, b) not in dist:
            dist[(a, b)] = dist[(x, y)] + 1
            queue.append((a, b))
cells = [dist[(x, y)] for x in range(WIDTH) for y in range(HEIGHT)]
print(sum(cells))
"""


def knight(x, y, exceptions=True):
    x, y = max(abs(x), abs(y)), min(abs(x), abs(y))
    if exceptions and (x, y) == (1, 0):
        return 3
    if exceptions and (x, y) == (2, 2):
        return 4
    d = x - y
    return d - 2 * ((d - y) // 3) if y > d else d - 2 * ((d - y) // 4)


def bound_only(x, y):
    """The distance bound max(⌈x/2⌉, ⌈y/2⌉, ⌈(x+y)/3⌉) without the parity correction."""
    return max(-(-x // 2), -(-y // 2), -(-(x + y) // 3))


def inside(width, height, start):
    """Knight distances when the knight may not leave the rectangle."""
    dist, frontier = {start: 0}, [start]
    while frontier:
        nxt = []
        for x, y in frontier:
            for dx, dy in ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)):
                cell = (x + dx, y + dy)
                if 0 <= cell[0] < width and 0 <= cell[1] < height and cell not in dist:
                    dist[cell] = dist[(x, y)] + 1
                    nxt.append(cell)
        frontier = nxt
    return [dist[(x, y)] for x in range(width) for y in range(height)]


def _case(rng, index):
    width, height = rng.randrange(25, 55), rng.randrange(25, 55)
    start = (0, 0) if index != 2 else (rng.randrange(3, width - 3), rng.randrange(3, height - 3))
    cells = [(x - start[0], y - start[1]) for x in range(width) for y in range(height)]

    def total(dist):
        return sum(dist(x, y) for x, y in cells)
    answer = total(knight)
    traps = [total(lambda x, y: knight(x, y, exceptions=False)),    # (1, 0) and (2, 2) forgotten
             total(bound_only),                                    # the bound without the parity fix
             sum(inside(width, height, start)),                    # the knight kept inside the rectangle
             total(lambda x, y: max(-(-abs(x) // 2), -(-abs(y) // 2)))]  # only the half-coordinate bound
    split = " (four quadrants round the knight)" if index == 2 else ""
    where = "the corner cell (0, 0)" if index != 2 else f"the cell {start}"
    prompt = f"""
        A knight stands on {where} of the rectangle of cells (x, y) with 0 ≤ x ≤ {width - 1} and
        0 ≤ y ≤ {height - 1}, on a chessboard that extends without end in every direction: the knight may
        leave the rectangle on its way. A move changes one coordinate by 1 and the other by 2. Give the sum,
        over all cells of the rectangle (its own cell included, at 0 moves), of the fewest moves the knight
        needs to reach that cell.
    """
    reference = f"""
        Measured from the knight's cell, for an offset (x, y) with x ≥ y ≥ 0 (use symmetry), the fewest
        knight moves are the least d with d ≥ max(⌈x/2⌉, ⌈(x+y)/3⌉) and d ≡ x + y (mod 2),
        except (1, 0) needs 3 and (2, 2) needs 4. The
        values form bands; adding them over the {width} x {height} rectangle{split} gives **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": 10, "search": width * height, "traps": len(set(traps) - {answer})}
    notes = f"""{width * height:,} cells: the answer needs the knight-distance closed form (the two bounds, the
        parity correction, the exceptional cells near the knight and the use of cells outside the rectangle)
        and then a sum over bands of cells. Traps: the exceptions (1,0) and (2,2) forgotten ({traps[0]}), no
        parity correction ({traps[1]}), the knight kept inside the rectangle ({traps[2]}), only the
        max(⌈x/2⌉, ⌈y/2⌉) bound ({traps[3]})."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, WIDTH=width, HEIGHT=height, START=start), reference=reference, notes=notes,
        max_tokens=32768, title=f"Knight distances over a {width} x {height} rectangle")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
