"""Box pushing: a warehouse keeper on a generated 7x7 to 8x8 floor plan with walls pushes one crate onto
a marked square. The keeper walks one square at a time and pushes by walking into the crate (never pulls);
the answer is the fewest steps, pushes included.

The generator runs one breadth-first search over (keeper square, crate square) and keeps plans where
the shortcuts miss: the fewest pushes (the crate's path alone), and the crate's plain path length plus the
keeper's walk to it (ignoring the walks round the crate to push from another side). `verify.solver`
parses the plan out of the prompt and runs Dijkstra's algorithm over pushes instead: from each (crate,
side the keeper stands on) it measures the walk to every other side with the crate as an obstacle, so a
push costs that walk plus one.
"""

from __future__ import annotations

from collections import deque

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-sokoban"
SHAPES = [(7, 9, 14), (8, 12, 20), (8, 14, 24)]  # (side, inner walls, fewest steps wanted)
STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def _search(open_cells: set, keeper, crate, target):
    """Fewest steps and fewest pushes (each by its own breadth-first search) to put the crate on target."""
    def run(push_only: bool):
        start = (keeper, crate)
        seen = {start: 0}
        queue = deque([start])
        while queue:
            state = queue.popleft()
            (kr, kc), box = state
            if box == target:
                return seen[state]
            for dr, dc in STEPS:
                step = (kr + dr, kc + dc)
                if step not in open_cells:
                    continue
                if step == box:
                    ahead = (box[0] + dr, box[1] + dc)
                    if ahead not in open_cells:
                        continue
                    nxt, cost = (step, ahead), 1
                else:
                    nxt, cost = (step, box), 0 if push_only else 1
                if nxt not in seen:
                    seen[nxt] = seen[state] + cost
                    (queue.appendleft if cost == 0 else queue.append)(nxt)
                elif seen[nxt] > seen[state] + cost:
                    seen[nxt] = seen[state] + cost
                    queue.appendleft(nxt)
        return None
    steps = run(False)
    return steps, run(True) if steps is not None else None


def _walk(open_cells: set, start, goal, blocked=None) -> int | None:
    seen = {start: 0}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            return seen[cell]
        for dr, dc in STEPS:
            nxt = (cell[0] + dr, cell[1] + dc)
            if nxt in open_cells and nxt != blocked and nxt not in seen:
                seen[nxt] = seen[cell] + 1
                queue.append(nxt)
    return None


def _instance(rng, side: int, walls: int, low: int):
    while True:
        cells = [(r, c) for r in range(side) for c in range(side)]
        open_cells = set(cells) - set(rng.sample(cells, walls))
        keeper, crate, target = rng.sample(sorted(open_cells), 3)
        if not (0 < crate[0] < side - 1 and 0 < crate[1] < side - 1):
            continue
        steps, pushes = _search(open_cells, keeper, crate, target)
        if steps is None or steps < low:
            continue
        naive = _walk(open_cells, crate, target) + (_walk(open_cells, keeper, crate) or 0) - 1
        if steps > naive and steps > pushes:
            return open_cells, keeper, crate, target, steps, pushes, naive


SOLVER = r'''
import heapq, re
from collections import deque
rows = re.findall(r"^\s*([#.KCX]+)\s*$", PROMPT, re.M)
cells = {(r, c): ch for r, line in enumerate(rows) for c, ch in enumerate(line)}
free = {p for p, ch in cells.items() if ch != "#"}
keeper = next(p for p, ch in cells.items() if ch == "K")
crate = next(p for p, ch in cells.items() if ch == "C")
target = next(p for p, ch in cells.items() if ch == "X")
moves = ((-1, 0), (1, 0), (0, -1), (0, 1))
def walks(start, box):
    seen = {start: 0}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        for dr, dc in moves:
            q = (p[0] + dr, p[1] + dc)
            if q in free and q != box and q not in seen:
                seen[q] = seen[p] + 1
                queue.append(q)
    return seen
# a state is (crate, keeper beside it); the first push pays the keeper's walk from the start
best, heap = {}, []
reach = walks(keeper, crate)
for dr, dc in moves:
    side = (crate[0] - dr, crate[1] - dc)
    ahead = (crate[0] + dr, crate[1] + dc)
    if side in reach and ahead in free:
        heapq.heappush(heap, (reach[side] + 1, ahead, crate))
while heap:
    cost, box, spot = heapq.heappop(heap)
    if (box, spot) in best:
        continue
    best[(box, spot)] = cost
    if box == target:
        print(cost)
        break
    reach = walks(spot, box)
    for dr, dc in moves:
        side = (box[0] - dr, box[1] - dc)
        ahead = (box[0] + dr, box[1] + dc)
        if side in reach and ahead in free and (ahead, box) not in best:
            heapq.heappush(heap, (cost + reach[side] + 1, ahead, box))
'''


def _render(side: int, open_cells: set, keeper, crate, target) -> str:
    marks = {keeper: "K", crate: "C", target: "X"}
    lines = []
    for r in range(-1, side + 1):
        lines.append("".join(marks.get((r, c), "." if (r, c) in open_cells else "#") for c in range(-1, side + 1)))
    return "\n".join(lines)


def _case(index: int, rng, side: int, walls: int, low: int) -> dict:
    open_cells, keeper, crate, target, steps, pushes, naive = _instance(rng, side, walls, low)
    prompt = """\
        A warehouse floor plan, one character per square (# is a wall, . is open floor, K is the keeper,
        C is the only crate, X is the marked square, itself open floor):

        __MAP__

        The keeper moves one square up, down, left or right per step onto open floor. Walking into the
        crate pushes it one square further in the same direction, which is allowed only if the square
        beyond the crate is open floor; the crate can never be pulled, and the keeper cannot walk through
        it. A push counts as one step.
        What is the fewest steps after which the crate stands on the marked square X?
        """
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=steps, solver="",
        hardness={"steps": max(pushes, steps // 3), "search": len(open_cells) ** 2, "traps": 2},
        reference=f"""\
            The crate's own route to X needs {pushes} pushes at the least, but whenever it has to change
            direction the keeper must walk round it to the other side. Searching over (keeper, crate)
            positions level by level, the crate first reaches X after {steps} steps.

            **Answer: {steps}**""",
        traps=[pushes, naive, steps - 1],
        notes=f"""Generated {side}x{side} floor with {side * side - len(open_cells)} inner walls, not a published
            level. The crate needs only {pushes} pushes, and walking to it then pushing straight along its
            shortest route would take {naive} steps, but the walls force walks around the crate to push
            from other sides; the fewest steps, {steps}, needs a search over up to {len(open_cells) ** 2:,}
            (keeper, crate) positions, and a plan that works is not proof of the least count.""",
        max_tokens=32768, title=f"Box pushing on a {side}x{side} floor: fewest steps")
    case["prompt"] = case["prompt"].replace("__MAP__", _render(side, open_cells, keeper, crate, target))
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
