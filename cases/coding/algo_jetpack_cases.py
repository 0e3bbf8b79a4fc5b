"""CO-algo-jetpack: fewest moves across a height map with a few boosted moves (BFS over cell x charges).

Hidden small maps come from the seed; their answers come from a depth-limited search over all move
sequences (the reference is a breadth-first search over (cell, charges used)). The perf maps are
fixed, their answers pinned.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-jetpack"

# Hardness (README "How tiers are assigned", coding): BFS over (cell, charges used), the climb limit
# inclusive, moves not charges as the objective; a plain BFS over the state space passes. Traps: the wrong
# solutions.
HARDNESS = {"steps": 4, "search": 1, "traps": 3}

PROMPT = """
A hiker crosses a rectangular map given as a list of equal-length strings: a digit '0'-'9' is a cell of
that height and '#' is a wall. Each move goes to one of the four neighbouring cells (never a wall,
never off the map). A move is allowed when the two heights differ by at most `climb`; a move between
heights that differ by more than that is possible only by spending one jetpack charge, and the hiker
has `charges` of them in total.

Write a Python function
`fewest_moves(grid: list[str], climb: int, charges: int, start: tuple[int, int], goal: tuple[int, int]) -> int`
returning the least number of moves from `start` to `goal` (cells given as (row, column), never walls),
or -1 if the goal cannot be reached. Maps are up to 120 x 120 with up to 4 charges; the function must
finish within a second or two.

Example:
    fewest_moves(["01", "91"], 1, 0, (0, 0), (1, 1)) == 2
"""

SOLUTION = '''
def fewest_moves(grid, climb, charges, start, goal):
    rows, cols = len(grid), len(grid[0])
    if start == goal:
        return 0
    seen = [[[False] * cols for _ in range(rows)] for _ in range(charges + 1)]
    seen[0][start[0]][start[1]] = True
    frontier = [(start[0], start[1], 0)]
    moves = 0
    while frontier:
        moves += 1
        nxt = []
        for r, c, used in frontier:
            h = int(grid[r][c])
            for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if not (0 <= nr < rows and 0 <= nc < cols) or grid[nr][nc] == "#":
                    continue
                u = used if abs(int(grid[nr][nc]) - h) <= climb else used + 1
                if u > charges or seen[u][nr][nc]:
                    continue
                if (nr, nc) == goal:
                    return moves
                seen[u][nr][nc] = True
                nxt.append((nr, nc, u))
        frontier = nxt
    return -1
'''

WRONG = [
    # one visit per cell: a cell first reached with a charge spent blocks a later charge-free arrival
    mutate(SOLUTION, ("                if u > charges or seen[u][nr][nc]:\n                    continue\n",
                      "                if u > charges or any(seen[k][nr][nc] for k in range(charges + 1)):\n"
                      "                    continue\n")),
    # strictly less than climb
    mutate(SOLUTION, ("abs(int(grid[nr][nc]) - h) <= climb", "abs(int(grid[nr][nc]) - h) < climb")),
    # charges spent first, moves second: fewest charges, then fewest moves
    """
    import heapq

    def fewest_moves(grid, climb, charges, start, goal):
        rows, cols = len(grid), len(grid[0])
        best = {start: (0, 0)}
        heap = [(0, 0, start)]
        while heap:
            used, moves, (r, c) = heapq.heappop(heap)
            if (r, c) == goal:
                return moves
            if best.get((r, c)) != (used, moves):
                continue
            for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if not (0 <= nr < rows and 0 <= nc < cols) or grid[nr][nc] == "#":
                    continue
                u = used + (abs(int(grid[nr][nc]) - int(grid[r][c])) > climb)
                if u > charges:
                    continue
                if (u, moves + 1) < best.get((nr, nc), (charges + 1, 0)):
                    best[(nr, nc)] = (u, moves + 1)
                    heapq.heappush(heap, (u, moves + 1, (nr, nc)))
        return -1
    """,
]

TESTS = '''
def test_small():
    assert fewest_moves(["01", "91"], 1, 0, (0, 0), (1, 1)) == 2
    assert fewest_moves(["0"], 0, 0, (0, 0), (0, 0)) == 0
    assert fewest_moves(["0#0"], 9, 3, (0, 0), (0, 2)) == -1
    assert fewest_moves(["090"], 8, 0, (0, 0), (0, 2)) == -1
    assert fewest_moves(["090"], 9, 0, (0, 0), (0, 2)) == 2
    assert fewest_moves(["090"], 8, 1, (0, 0), (0, 2)) == -1
    assert fewest_moves(["090"], 8, 2, (0, 0), (0, 2)) == 2

def test_charges_are_worth_keeping():
    grid = ["0970",
            "135#"]
    assert fewest_moves(grid, 2, 1, (0, 0), (0, 3)) == 5
    assert fewest_moves(grid, 2, 0, (0, 0), (0, 3)) == -1

def test_few_moves_beat_few_charges():
    grid = ["0970",
            "135#"]
    assert fewest_moves(grid, 2, 2, (0, 0), (0, 3)) == 3

def test_seeded_maps():
    for grid, climb, charges, start, goal, want in SEEDED:
        assert fewest_moves(grid, climb, charges, start, goal) == want, (grid, climb, charges, start, goal)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
size = 90
grid = ["".join("#" if rng.random() < 0.1 else str(rng.randrange(10)) for _ in range(size)) for _ in range(size)]
grid[0] = "0" + grid[0][1:]
grid[-1] = grid[-1][:-1] + "0"
args = (grid, {climb}, 4, (0, 0), (size - 1, size - 1))
'''


def _search(grid, climb, charges, start, goal, limit=9):
    """Iterative deepening over move sequences: the least depth that reaches the goal."""
    rows, cols = len(grid), len(grid[0])

    def reach(cell, left, used, seen):
        if cell == goal:
            return True
        if left == 0:
            return False
        r, c = cell
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < rows and 0 <= nc < cols and grid[nr][nc] != "#" and (nr, nc) not in seen:
                u = used + (abs(int(grid[nr][nc]) - int(grid[r][c])) > climb)
                if u <= charges and reach((nr, nc), left - 1, u, seen | {(nr, nc)}):
                    return True
        return False

    for depth in range(limit + 1):
        if reach(start, depth, 0, {start}):
            return depth
    return -1


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    while len(seeded) < 20:
        rows, cols = rng.randrange(1, 4), rng.randrange(2, 5)
        grid = ["".join("#" if rng.random() < 0.2 else str(rng.randrange(10)) for _ in range(cols)) for _ in range(rows)]
        cells = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] != "#"]
        if len(cells) < 2:
            continue
        start, goal = rng.sample(cells, 2)
        climb, charges = rng.randrange(0, 6), rng.randrange(0, 3)
        want = _search(grid, climb, charges, start, goal, limit=len(cells))
        seeded.append((grid, climb, charges, start, goal, want))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Fewest moves over a height map with jetpack charges",
        prompt=PROMPT, entry_point="fewest_moves", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "map-90-a", "input": PERF_INPUT.format(seed=111, climb=4), "check": "assert result == 178"},
              {"name": "map-90-b", "input": PERF_INPUT.format(seed=112, climb=5), "check": "assert result == 178"}],
        notes="""Medium: breadth-first search over (cell, charges used), a standard state augmentation
        that a per-cell visited set breaks (the first arrival may have spent a charge that a later,
        equally short or slightly longer arrival keeps). Traps: the climb limit is inclusive, and the
        objective is moves, not charges, so minimising charges first is wrong. Twenty seeded maps
        are checked against an exhaustive depth-limited search.""",
    )]
