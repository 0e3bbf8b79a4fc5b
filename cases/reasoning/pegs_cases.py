"""Peg solitaire on a line: a row of 13-17 holes with a generated pattern of 8-12 pegs; a move jumps a peg
over a neighbouring peg into the empty hole just beyond, and the jumped peg is removed. The answer is the
fewest pegs that can be left when play stops (or earlier, if the player chooses to stop).

The generator finds it with a memoised depth-first search over board states (each a bit pattern) and keeps
rows where the greedy player, who always makes the leftmost jump available until none is left, strands
more pegs than needed. `verify.solver` parses the row out of the prompt and runs a breadth-first search
over every reachable board instead, reporting the smallest number of pegs seen.
"""

from __future__ import annotations

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-pegs"
SHAPES = [(13, 8), (15, 10), (17, 12)]  # (holes, pegs)


def _jumps(board: int, holes: int):
    for i in range(holes):
        if not board >> i & 1:
            continue
        for step in (1, -1):
            over, land = i + step, i + 2 * step
            if 0 <= land < holes and board >> over & 1 and not board >> land & 1:
                yield board & ~(1 << i) & ~(1 << over) | (1 << land)


def fewest(board: int, holes: int) -> tuple[int, int]:
    """The fewest pegs reachable, and the number of boards reachable."""
    memo: dict[int, int] = {}

    def best(state: int) -> int:
        if state not in memo:
            memo[state] = min([bin(state).count("1"), *(best(nxt) for nxt in _jumps(state, holes))])
        return memo[state]

    return best(board), len(memo)


def leftmost(board: int, holes: int) -> int:
    while True:
        options = list(_jumps(board, holes))
        if not options:
            return bin(board).count("1")
        board = options[0]


def _instance(rng, holes: int, pegs: int):
    while True:
        board = sum(1 << i for i in rng.sample(range(holes), pegs))
        best, reachable = fewest(board, holes)
        greedy = leftmost(board, holes)
        if greedy > best and pegs - best >= 5:
            return board, best, reachable, greedy


SOLVER = r'''
import re
row = re.search(r"^Row: ([o.]+)$", PROMPT, re.M).group(1)
holes = len(row)
start = tuple(ch == "o" for ch in row)
seen, frontier, least = {start}, [start], sum(start)
while frontier:
    following = []
    for board in frontier:
        least = min(least, sum(board))
        for i in range(holes):
            for step in (1, -1):
                over, land = i + step, i + 2 * step
                if 0 <= land < holes and board[i] and board[over] and not board[land]:
                    nxt = list(board)
                    nxt[i], nxt[over], nxt[land] = False, False, True
                    nxt = tuple(nxt)
                    if nxt not in seen:
                        seen.add(nxt)
                        following.append(nxt)
    frontier = following
print(least)
'''


def _case(index: int, rng, holes: int, pegs: int) -> dict:
    board, best, reachable, greedy = _instance(rng, holes, pegs)
    row = "".join("o" if board >> i & 1 else "." for i in range(holes))
    prompt = f"""\
        A board is one straight row of {holes} holes. o marks a hole with a peg, . an empty hole:

        Row: {row}

        A move: a peg jumps over a peg right beside it (left or right) into the empty hole just beyond, and
        the peg jumped over is taken off the board. Pegs cannot jump over empty holes or over more than one
        peg, and cannot leave the row. You may make moves in any order and stop whenever you like.
        What is the fewest pegs that can be left on the board?
        """
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": pegs - best, "search": reachable, "traps": 1},
        reference=f"""\
            Every jump removes one peg, so the question is how many jumps can be chained. Jumping greedily
            from the left strands pegs and leaves {greedy}; searching the reachable boards ({reachable:,} of
            them) shows the best sequence of {pegs - best} jumps, leaving {best} pegs.

            Answer: {best}""",
        traps=[greedy],
        notes=f"""Generated row of {holes} holes with {pegs} pegs, not a classic start. Always making the leftmost
            available jump leaves {greedy} pegs; the optimum {best} needs a chain of {pegs - best} jumps in the
            right order, found by a search over {reachable:,} reachable boards in which early jumps decide
            which pegs get stranded.""",
        max_tokens=16384, title=f"Peg solitaire on a row of {holes}: fewest pegs left")
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
