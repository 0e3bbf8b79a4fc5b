"""Robots on ice: two robots on a generated 7x7 to 9x9 rink with rocks; a move sends one robot sliding in
one of four directions until a rock, the wall or the other robot stops it. The answer is the fewest moves
until robot A stops on the marked square (robot B may be moved to serve as a stopper).

The generator runs one breadth-first search over the positions of both robots from the start and picks
as the target a square whose first stop is deep, where moving robot A alone takes longer (so the helper
robot matters). `verify.solver` parses the map out of the prompt and runs an iterative-deepening
depth-first search with a table of positions already explored to a given depth.
"""

from __future__ import annotations

from pytest_crucible.suite.families import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "RE-ice"
SHAPES = [(7, 6, (6, 8)), (8, 9, (6, 9)), (9, 12, (7, 10)), (9, 14, (8, 11))]  # (side, rocks, depth range)
STEPS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


def _stops(rocks, side) -> dict:
    """Where a robot starting on each square stops in each direction, with no other robot in the way."""
    table = {}
    for r in range(side):
        for c in range(side):
            for step in STEPS.values():
                nr, nc = r, c
                ahead = (nr + step[0], nc + step[1])
                while 0 <= ahead[0] < side and 0 <= ahead[1] < side and ahead not in rocks:
                    nr, nc = ahead
                    ahead = (nr + step[0], nc + step[1])
                table[(r, c), step] = (nr, nc)
    return table


def _slide(cell, step, table, other):
    stop = table[cell, step]
    # the other robot stops the slide if it stands on the path from `cell` to `stop`
    if step[0] == 0 and other[0] == cell[0] and min(cell[1], stop[1]) <= other[1] <= max(cell[1], stop[1]):
        return (cell[0], other[1] - step[1])
    if step[1] == 0 and other[1] == cell[1] and min(cell[0], stop[0]) <= other[0] <= max(cell[0], stop[0]):
        return (other[0] - step[0], cell[1])
    return stop


def _depths(start, table, move_b: bool, limit: int = 99) -> dict:
    """Fewest moves (up to `limit`) until robot A first stops on each square."""
    seen = {start: 0}
    frontier = [start]
    first: dict = {start[0]: 0}
    for depth in range(1, limit + 1):
        following = []
        for a, b in frontier:
            for step in STEPS.values():
                moved = [(_slide(a, step, table, b), b)]
                if move_b:
                    moved.append((a, _slide(b, step, table, a)))
                for state in moved:
                    if state not in seen:
                        seen[state] = depth
                        first.setdefault(state[0], depth)
                        following.append(state)
        if not following:
            break
        frontier = following
    return first


def _instance(rng, side: int, rock_count: int, depth_range):
    low, high = depth_range
    cells = [(r, c) for r in range(side) for c in range(side)]
    while True:
        chosen = rng.sample(cells, rock_count + 2)
        rocks, a, b = frozenset(chosen[:rock_count]), chosen[-2], chosen[-1]
        table = _stops(rocks, side)
        alone = _depths((a, b), table, False)
        if max(alone.values()) <= low:
            continue
        both = _depths((a, b), table, True, high)
        targets = [t for t, d in both.items() if low <= d <= high and d < alone.get(t, 0) < 99 and t != b]
        if targets:
            target = max(targets, key=lambda t: (both[t], t))
            return rocks, a, b, target, both[target], alone.get(target)


SOLVER = r'''
import re
rows = re.findall(r"^([.#ABT]+)$", PROMPT, re.M)
side = len(rows)
rocks = {(r, c) for r in range(side) for c in range(side) if rows[r][c] == "#"}
find = lambda ch: next((r, c) for r in range(side) for c in range(side) if rows[r][c] == ch)
a, b, target = find("A"), find("B"), find("T")
def slide(cell, dr, dc, other):
    r, c = cell
    while 0 <= r + dr < side and 0 <= c + dc < side and (r + dr, c + dc) not in rocks and (r + dr, c + dc) != other:
        r, c = r + dr, c + dc
    return (r, c)
explored = {}
def reach(a, b, left):
    if a == target:
        return True
    if left == 0 or explored.get((a, b), -1) >= left:
        return False
    explored[(a, b)] = left
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if reach(slide(a, dr, dc, b), b, left - 1) or reach(a, slide(b, dr, dc, a), left - 1):
            return True
    return False
depth = 0
while not reach(a, b, depth):
    explored.clear()
    depth += 1
print(depth)
'''


def _render(side, rocks, a, b, target) -> str:
    marks = {a: "A", b: "B", target: "T"}
    return "\n".join("".join(marks.get((r, c), "#" if (r, c) in rocks else ".") for c in range(side))
                     for r in range(side))


def _case(index: int, rng, side: int, rock_count: int, depth_range) -> dict:
    rocks, a, b, target, best, alone = _instance(rng, side, rock_count, depth_range)
    grid = _render(side, rocks, a, b, target).replace("\n", "\n        ")
    prompt = f"""\
        Two robots, A and B, stand on a {side}x{side} ice rink; `#` is a rock, `.` is ice, `T` is a marked
        square of ice (row 1 is the top):

        {grid}

        A move picks one robot and one direction (up, down, left or right); the robot slides until the next
        square is a rock, the rink's wall or the other robot, and stops there. It cannot stop halfway, and it
        slides over T without stopping unless something stops it on T. Either robot may be moved.
        What is the fewest moves after which robot A stands still on T?
        """
    traps = [alone] if alone is not None else []
    hardness = {"steps": best, "search": (side * side) ** 2, "traps": len(traps)}
    difficulty = tier_of(hardness)
    alone_text = (f"moving A alone takes {alone} moves" if alone is not None else "A alone cannot stop on T")
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=best,
        solver="",
        reference=f"""\
            Robot A cannot stop on T by itself quickly ({alone_text}), so B has to be parked as a stopper.
            Searching the positions of both robots level by level, A first comes to rest on T after {best}
            moves (counting B's moves too).

            Answer: {best}""",
        traps=[*traps, best - 1, best + 2],
        notes=f"""Generated {side}x{side} rink with {len(rocks)} rocks; {alone_text}, and the optimum {best}
            needs B moved into place as a stopper at the right moment. The state space is both robots'
            positions (up to {(side * side) ** 2:,}); sliding is easy to misread (a robot passes over T), and
            every move's stopping square depends on where the other robot is.""",
        max_tokens=32768 if difficulty == "hard" else 16384,
        title=f"Robots on ice, {side}x{side} rink: fewest moves to the mark")
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
