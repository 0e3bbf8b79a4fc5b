"""Keys and doors: a generated maze (a carved labyrinth with a few extra openings) holds three keys
a, b, c and three locked doors A, B, C; a walker picks a key up by stepping on it, and a door opens only
for a walker holding its key. The answer is the fewest steps from the start to the exit.

The generator runs one breadth-first search over (square, keys held) and keeps mazes where the shortcuts
miss: the shortest walk if every door stood open, and the greedy walker who heads for the exit when it
can and otherwise for the nearest key it can reach. `verify.solver` parses the maze out of the prompt
and works at the level of landmarks instead: Dijkstra's algorithm over (landmark, keys held), where each
hop's length comes from a fresh walk search with the doors of the held keys open.
"""

from __future__ import annotations

from collections import deque

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-keys"
SHAPES = [(5, 7, 3, 20), (6, 8, 4, 36), (7, 8, 4, 40)]  # (cell rows, cell columns, extra openings, fewest steps)
STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def _carve(rng, rows: int, cols: int, extra: int) -> set:
    free = {(1, 1)}
    stack = [(1, 1)]
    while stack:
        r, c = stack[-1]
        options = [(r + 2 * dr, c + 2 * dc, dr, dc) for dr, dc in STEPS
                   if 0 < r + 2 * dr < 2 * rows and 0 < c + 2 * dc < 2 * cols and (r + 2 * dr, c + 2 * dc) not in free]
        if not options:
            stack.pop()
            continue
        nr, nc, dr, dc = rng.choice(options)
        free |= {(r + dr, c + dc), (nr, nc)}
        stack.append((nr, nc))
    walls = [(r, c) for r in range(1, 2 * rows) for c in range(1, 2 * cols)
             if (r, c) not in free and (r % 2) != (c % 2)]
    free |= set(rng.sample(walls, extra))
    return free


def _walk(free: set, start, blocked: set) -> dict:
    seen = {start: 0}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        for dr, dc in STEPS:
            q = (p[0] + dr, p[1] + dc)
            if q in free and q not in blocked and q not in seen:
                seen[q] = seen[p] + 1
                queue.append(q)
    return seen


def fewest_steps(free: set, start, goal, keys: dict, doors: dict) -> int | None:
    state = (start, frozenset())
    seen = {state: 0}
    queue = deque([state])
    while queue:
        pos, held = state = queue.popleft()
        if pos == goal:
            return seen[state]
        for dr, dc in STEPS:
            q = (pos[0] + dr, pos[1] + dc)
            if q not in free or (q in doors and doors[q] not in held):
                continue
            nxt = (q, held | {keys[q]} if q in keys else held)
            if nxt not in seen:
                seen[nxt] = seen[state] + 1
                queue.append(nxt)
    return None


def greedy(free: set, start, goal, keys: dict, doors: dict) -> int | None:
    pos, held, total = start, set(), 0
    while True:
        reach = _walk(free, pos, {p for p, k in doors.items() if k not in held})
        if goal in reach:
            return total + reach[goal]
        options = [(reach[p], p) for p, k in keys.items() if p in reach and k not in held]
        if not options:
            return None
        far, pos = min(options)
        total += far
        held |= {k for p, k in keys.items() if p == pos}


def _instance(rng, rows: int, cols: int, extra: int, least: int):
    while True:
        free = _carve(rng, rows, cols, extra)
        corridors = sorted(p for p in free if sum((p[0] + dr, p[1] + dc) in free for dr, dc in STEPS) == 2)
        spots = rng.sample(sorted(free), 5)
        start, goal, *key_spots = spots
        door_spots = rng.sample([p for p in corridors if p not in spots and p not in key_spots], 3)
        keys = dict(zip(key_spots, "abc"))
        doors = dict(zip(door_spots, "abc"))
        best = fewest_steps(free, start, goal, keys, doors)
        if best is None:
            continue
        open_walk = _walk(free, start, set())[goal]
        shortcut = greedy(free, start, goal, keys, doors)
        if best >= max(least, open_walk + 8) and shortcut is not None and shortcut > best:
            return free, start, goal, keys, doors, best, open_walk, shortcut


SOLVER = r'''
import heapq, re
from collections import deque
rows = re.findall(r"^([#.@EabcABC]+)$", PROMPT, re.M)
grid = {(r, c): ch for r, line in enumerate(rows) for c, ch in enumerate(line)}
marks = {ch: p for p, ch in grid.items() if ch not in "#."}
def hop(start, held):
    seen = {start: 0}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            q = (p[0] + dr, p[1] + dc)
            ch = grid.get(q, "#")
            if ch == "#" or (ch in "ABC" and ch.lower() not in held) or q in seen:
                continue
            seen[q] = seen[p] + 1
            queue.append(q)
    return seen
heap, done = [(0, "@", "")], set()
while heap:
    cost, at, held = heapq.heappop(heap)
    if at == "E":
        print(cost)
        break
    if (at, held) in done:
        continue
    done.add((at, held))
    reach = hop(marks[at], held)
    for mark in "abcE":
        if mark in marks and marks[mark] in reach and mark not in held:
            new = held if mark == "E" else "".join(sorted(held + mark))
            heapq.heappush(heap, (cost + reach[marks[mark]], mark, new))
'''


def _render(free: set, rows: int, cols: int, marks: dict) -> str:
    return "\n".join("".join(marks.get((r, c), "." if (r, c) in free else "#") for c in range(2 * cols + 1))
                     for r in range(2 * rows + 1))


def _case(index: int, rng, rows: int, cols: int, extra: int, least: int) -> dict:
    free, start, goal, keys, doors, best, open_walk, shortcut = _instance(rng, rows, cols, extra, least)
    marks = {start: "@", goal: "E", **keys, **{p: k.upper() for p, k in doors.items()}}
    prompt = """\
        A maze, one character per square: # is a wall, . is an open square, @ is where you start, E is
        the exit, a, b and c are keys lying on open squares, and A, B and C are locked doors.

        __MAP__

        Each step moves you one square up, down, left or right onto a square that is not a wall. Stepping
        onto a key picks it up (keys are never used up). You may step onto a door only while holding the
        key with the same letter (key a opens door A, and so on); an opened door stays passable.
        What is the fewest steps from @ to E?
        """
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": best // 4, "search": len(free) * 8, "traps": 2},
        reference=f"""\
            With every door open the exit would be {open_walk} steps away, but the doors on the way force
            detours to keys, and which key to fetch first matters. Searching over (square, keys held)
            level by level, the exit is first reached after {best} steps.

            Answer: {best}""",
        traps=[open_walk, shortcut],
        notes=f"""Generated {2 * rows + 1}x{2 * cols + 1} maze with three keys and three doors. The walk with every
            door open ({open_walk}) ignores the locks, and fetching the nearest reachable key whenever the exit
            is shut takes {shortcut}; the fewest steps, {best}, needs a search over {len(free) * 8:,} (square,
            keys held) states or over the orders of fetching keys, with a long chain of distance counts on an
            ASCII map.""",
        max_tokens=32768, title=f"Keys and doors in a {2 * rows + 1}x{2 * cols + 1} maze: fewest steps")
    case["prompt"] = case["prompt"].replace("__MAP__", _render(free, rows, cols, marks))
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
