"""Sliding tiles: the 3x3 eight-tile puzzle from a generated start (tiles 1-8 and one gap); a move slides a
tile next to the gap into it. The answer is the fewest moves to reach the goal layout.

The generator scrambles the goal by a random walk, then proves the optimum with an A* search whose bound
is the Manhattan distance plus two moves for each tile that must step out of its goal row or column to let
another pass (linear conflicts: the tiles in home order minus the longest run already in order). It keeps
starts where the Manhattan distance falls short of the optimum (the length of the scramble that produced
the start is a second trap when it differs). `verify.solver` parses the board out of the prompt and runs a
plain breadth-first search over layouts.
"""

from __future__ import annotations

import heapq

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-slide"
SHAPES = [(12, 17), (15, 21), (18, 24)]  # (fewest moves at least, at most)
GOAL = (1, 2, 3, 4, 5, 6, 7, 8, 0)
NEAR = {i: [j for j in (i - 3, i + 3, i - 1 if i % 3 else -1, i + 1 if i % 3 < 2 else -1) if 0 <= j < 9]
        for i in range(9)}


def manhattan(board: tuple) -> int:
    return sum(abs(i // 3 - (t - 1) // 3) + abs(i % 3 - (t - 1) % 3) for i, t in enumerate(board) if t)


def _longest_rising(tiles: list[int]) -> int:
    best = [1] * len(tiles)
    for i in range(len(tiles)):
        for j in range(i):
            if tiles[j] < tiles[i]:
                best[i] = max(best[i], best[j] + 1)
    return max(best, default=0)


def _conflicts(board: tuple) -> int:
    extra = 0
    for line in range(3):
        row = [board[3 * line + c] for c in range(3)]
        home = [t for t in row if t and (t - 1) // 3 == line]
        col = [board[3 * r + line] for r in range(3)]
        down = [t for t in col if t and (t - 1) % 3 == line]
        for tiles in (home, down):
            extra += 2 * (len(tiles) - _longest_rising(tiles))  # the tiles that must step out of the line
    return extra


def _bound(board: tuple) -> int:
    return manhattan(board) + _conflicts(board)


def fewest(board: tuple) -> int:
    best = {board: 0}
    heap = [(_bound(board), 0, board)]
    while heap:
        _, spent, state = heapq.heappop(heap)
        if state == GOAL:
            return spent
        if spent > best[state]:
            continue
        gap = state.index(0)
        for j in NEAR[gap]:
            nxt = list(state)
            nxt[gap], nxt[j] = nxt[j], 0
            key = tuple(nxt)
            if spent + 1 < best.get(key, 99):
                best[key] = spent + 1
                heapq.heappush(heap, (spent + 1 + _bound(key), spent + 1, key))
    raise ValueError("a scrambled board is always solvable")


def _instance(rng, low: int, high: int):
    while True:
        board, previous, walk = GOAL, None, rng.randint(low, high + 4)
        for _ in range(walk):
            gap = board.index(0)
            options = [j for j in NEAR[gap] if j != previous]
            j = rng.choice(options)
            nxt = list(board)
            nxt[gap], nxt[j] = nxt[j], 0
            board, previous = tuple(nxt), gap
        distance = manhattan(board)
        if _bound(board) > high - 2:
            continue
        best = fewest(board)
        if low <= best <= high and best > distance:
            return board, best, distance, walk


SOLVER = r'''
import re
from collections import deque
rows = re.findall(r"^\s*([1-8_]) ([1-8_]) ([1-8_])\s*$", PROMPT, re.M)
start = tuple(0 if x == "_" else int(x) for row in rows[:3] for x in row)
goal = tuple(0 if x == "_" else int(x) for row in rows[3:6] for x in row)
seen = {start: 0}
queue = deque([start])
while queue:
    state = queue.popleft()
    if state == goal:
        print(seen[state])
        break
    gap = state.index(0)
    r, c = divmod(gap, 3)
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if 0 <= r + dr < 3 and 0 <= c + dc < 3:
            j = 3 * (r + dr) + c + dc
            nxt = list(state)
            nxt[gap], nxt[j] = nxt[j], 0
            nxt = tuple(nxt)
            if nxt not in seen:
                seen[nxt] = seen[state] + 1
                queue.append(nxt)
'''


def _grid(board: tuple) -> str:
    return "\n".join(" ".join("_" if t == 0 else str(t) for t in board[3 * r: 3 * r + 3]) for r in range(3))


def _case(index: int, rng, low: int, high: int) -> dict:
    board, best, distance, walk = _instance(rng, low, high)
    prompt = """\
        An eight-tile sliding puzzle: a 3x3 frame holds tiles 1 to 8 and one gap (_). A move slides one tile
        that is directly above, below, left or right of the gap into the gap.

        Start:

        __START__

        Goal:

        __GOAL__

        What is the fewest moves that turn the start into the goal?
        """
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": best, "search": 181440, "traps": 2 if walk != best else 1},
        reference=f"""\
            The tiles' Manhattan distances from home add up to {distance}, a lower bound; tiles that sit in
            their home row or column in the wrong order must step aside, which costs more. A search guided
            by that bound proves the shortest solution takes {best} moves.

            Answer: {best}""",
        traps=[distance, walk],
        notes=f"""Generated start (a random scramble of {walk} moves), not a published position; 181,440 reachable
            layouts. The Manhattan distance ({distance}) is only a bound, and the scramble took {walk} moves;
            proving {best} needs a search of depth {best} over thousands of layouts, which cannot be done by
            inspection.""",
        max_tokens=16384, title=f"Eight-tile sliding puzzle: fewest moves (at least {low})")
    case["prompt"] = case["prompt"].replace("__START__", _grid(board)).replace("__GOAL__", _grid(GOAL))
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
