"""Mine deduction: a generated 7x7 to 9x9 minefield board part-way through a game; revealed squares show how
many of their (up to eight) neighbours hold mines, the rest are covered. The answer is how many covered
squares hold a mine in every arrangement that fits the numbers (the squares one can flag for sure).

The generator opens the board the way the game does (a click on an empty square floods its empty
neighbourhood, plus a few more safe clicks), then splits the covered squares next to a number into groups
that share no number and enumerates each group's arrangements by backtracking, square by square. It keeps
boards where the shortcuts miss: the one-number rules applied until nothing changes (a number equal to its
covered neighbours flags them all; a number already met clears the rest), and the mines of one arrangement
that fits (the true one). `verify.solver` parses the board out of the prompt, forms the same groups and
tries every mine pattern of each group with itertools.product, checking each against every number next to
the group.
"""

from __future__ import annotations

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-mines"
SHAPES = [(7, 10, 2), (8, 13, 3), (9, 17, 3)]  # (side, mines, extra safe clicks)


def _near(side: int, r: int, c: int):
    return [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < side and 0 <= c + dc < side]


def _open(near: dict, counts: dict, start, shown: set):
    stack = [start]
    while stack:
        cell = stack.pop()
        if cell in shown:
            continue
        shown.add(cell)
        if counts[cell] == 0:
            stack.extend(n for n in near[cell] if n not in shown)


def _groups(near: dict, shown: set) -> list[list]:
    """The covered squares next to a number, split into groups that share no number."""
    numbers = [cell for cell in shown if any(n not in shown for n in near[cell])]
    frontier = {n for cell in numbers for n in near[cell] if n not in shown}
    linked = {f: {g for cell in numbers if f in near[cell] for g in near[cell] if g in frontier}
              for f in frontier}
    groups, left = [], set(frontier)
    while left:
        group, todo = set(), [min(left)]
        while todo:
            f = todo.pop()
            if f in group:
                continue
            group.add(f)
            todo.extend(linked[f] - group)
        left -= group
        groups.append(sorted(group))
    return groups


def _group_arrangements(near: dict, shown: set, counts: dict, group: list) -> tuple[set, int]:
    """Backtracking over one group: the squares that are mines in every fitting arrangement, and how many fit."""
    members = set(group)
    numbers = [cell for cell in sorted(shown) if any(n in members for n in near[cell])]
    touching = {f: [k for k, cell in enumerate(numbers) if f in near[cell]] for f in group}
    need = [counts[cell] for cell in numbers]
    room = [sum(1 for n in near[cell] if n in members) for cell in numbers]
    ever_safe, total = set(), [0]
    chosen: list[bool] = []

    def place(i: int):
        if i == len(group):
            total[0] += 1
            ever_safe.update(f for f, m in zip(group, chosen) if not m)
            return
        ks = touching[group[i]]
        for mine in (True, False):
            if mine and any(need[k] == 0 for k in ks):
                continue
            if not mine and any(need[k] > room[k] - 1 for k in ks):
                continue
            for k in ks:
                need[k] -= mine
                room[k] -= 1
            chosen.append(mine)
            place(i + 1)
            chosen.pop()
            for k in ks:
                need[k] += mine
                room[k] += 1

    place(0)
    return set(group) - ever_safe, total[0]


def certain(near: dict, shown: set, counts: dict) -> tuple[set, int]:
    """Covered squares that hold a mine in every fitting arrangement, and how many arrangements fit."""
    flags, total = set(), 1
    for group in _groups(near, shown):
        sure, fits = _group_arrangements(near, shown, counts, group)
        flags |= sure
        total *= fits
    return flags, total


def simple_flags(near: dict, shown: set, counts: dict) -> int:
    """The one-number rules, applied until nothing changes."""
    flagged, cleared = set(), set()
    changed = True
    while changed:
        changed = False
        for cell in shown:
            covered = [n for n in near[cell] if n not in shown and n not in cleared]
            left = [n for n in covered if n not in flagged]
            mines_left = counts[cell] - (len(covered) - len(left))
            if left and mines_left == len(left):
                flagged.update(left)
                changed = True
            elif left and mines_left == 0:
                cleared.update(left)
                changed = True
    return len(flagged)


def _instance(rng, side: int, count: int, clicks: int):
    cells = [(r, c) for r in range(side) for c in range(side)]
    near = {cell: _near(side, *cell) for cell in cells}
    while True:
        mines = set(rng.sample(cells, count))
        counts = {cell: sum(n in mines for n in near[cell]) for cell in cells}
        zeros = [cell for cell in cells if cell not in mines and counts[cell] == 0]
        if not zeros:
            continue
        shown: set = set()
        _open(near, counts, rng.choice(zeros), shown)
        for _ in range(clicks):
            _open(near, counts, rng.choice([c for c in cells if c not in mines and c not in shown]), shown)
        if len(shown) < side * side // 3:
            continue
        if max(len(g) for g in _groups(near, shown)) > 14:
            continue
        flags, total = certain(near, shown, counts)
        simple = simple_flags(near, shown, counts)
        frontier_mines = sum(1 for m in mines if any(n in shown for n in near[m]))
        if len(flags) >= 3 and len(flags) > simple and frontier_mines != len(flags) and total >= 4:
            return mines, shown, counts, len(flags), simple, frontier_mines, total


SOLVER = r'''
import re
from itertools import product
rows = [line.split() for line in re.findall(r"^\s*\d+ \| (.+)$", PROMPT, re.M)]
side = len(rows)
shown = {(r, c): int(ch) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "#"}
def near(r, c):
    return [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < side and 0 <= c + dc < side]
numbers = [cell for cell in shown if any(n not in shown for n in near(*cell))]
frontier = {n for cell in numbers for n in near(*cell) if n not in shown}
# groups of covered squares that share no number are independent
groups, left = [], set(frontier)
while left:
    group, todo = set(), [left.pop()]
    while todo:
        f = todo.pop()
        group.add(f)
        for cell in numbers:
            if f in near(*cell):
                for g in near(*cell):
                    if g in left:
                        left.discard(g)
                        todo.append(g)
    groups.append(sorted(group))
flags = 0
for group in groups:
    checks = [cell for cell in numbers if any(g in near(*cell) for g in group)]
    fits = []
    for pattern in product((0, 1), repeat=len(group)):
        mine = dict(zip(group, pattern))
        if all(sum(mine.get(n, 0) for n in near(*cell)) == shown[cell] for cell in checks):
            fits.append(pattern)
    flags += sum(all(p[i] for p in fits) for i in range(len(group)))
print(flags)
'''


def _render(side: int, shown: set, counts: dict) -> str:
    head = "     " + " ".join(str(c + 1) for c in range(side))
    rows = [f"{r + 1:>2} | " + " ".join(str(counts[(r, c)]) if (r, c) in shown else "#" for c in range(side))
            for r in range(side)]
    return "\n".join([head, *rows])


def _case(index: int, rng, side: int, count: int, clicks: int) -> dict:
    mines, shown, counts, best, simple, frontier_mines, total = _instance(rng, side, count, clicks)
    prompt = """\
        A minesweeper board part-way through a game. A digit is an uncovered square showing how many of its
        up to eight neighbours (sideways, up, down and diagonal) hold a mine; uncovered squares never hold a
        mine. # is a covered square, which may or may not hold a mine. Nothing else is known (the total
        number of mines is not given).

        __BOARD__

        How many covered squares are certain to hold a mine, i.e. hold one in every arrangement of mines
        that agrees with all the digits shown?
        """
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": best + 3, "search": total, "traps": 2},
        reference=f"""\
            The one-number rules alone flag {simple} squares. Comparing overlapping numbers (where one
            number's covered squares lie inside another's, the difference is forced) forces more, and trying
            the remaining arrangements of each group of covered squares shows exactly {best} squares hold a
            mine in all of them.

            Answer: {best}""",
        traps=[simple, frontier_mines],
        notes=f"""Generated {side}x{side} board with {count} mines, opened by game-like clicks; {total}
            arrangements of the covered squares next to numbers fit the digits. The one-number rules stop at
            {simple} flags, and counting the mines of one fitting arrangement gives {frontier_mines}; the
            answer {best} needs overlap (subset) reasoning between neighbouring numbers or a case analysis,
            read off a digit grid.""",
        max_tokens=32768, title=f"Minesweeper {side}x{side}: squares certain to hold a mine")
    case["prompt"] = case["prompt"].replace("__BOARD__", _render(side, shown, counts))
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
