"""MA-hanoi: Tower of Hanoi from a scattered (legal) position: the fewest moves to gather every disk on one
peg, or to reach another given scattered position. The idea is to follow the largest disk that has to
move: the smaller disks must first stand on the third peg, which splits the count into two gathering
problems of known cost (2^(k-1) - 1 for a tower). Between two scattered positions the largest disk may
also go the long way, twice, with the small tower sent back to its start, and that is sometimes shorter.
The generator compares both routes recursively; the solver runs a breadth-first search over all 3^n
positions."""

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-hanoi"
PEGS = "ABC"

SOLVER = """
from collections import deque
n = len(START)
start, goal = tuple(START), tuple(GOAL)
dist = {start: 0}
queue = deque([start])
while queue:
    state = queue.popleft()
    if state == goal:
        print(dist[state])
        break
    tops = {}
    for disk in range(n):  # disk 0 is the smallest, so the first seen on a peg is its top
        tops.setdefault(state[disk], disk)
    for peg, disk in tops.items():
        for target in range(3):
            if target != peg and (target not in tops or tops[target] > disk):
                nxt = state[:disk] + (target,) + state[disk + 1:]
                if nxt not in dist:
                    dist[nxt] = dist[state] + 1
                    queue.append(nxt)
"""


def gather(pos, m, peg):
    """Fewest moves to bring disks 0..m-1 (smallest first) of position `pos` onto `peg`."""
    if m == 0:
        return 0
    if pos[m - 1] == peg:
        return gather(pos, m - 1, peg)
    third = 3 - pos[m - 1] - peg
    return gather(pos, m - 1, third) + 1 + (2 ** (m - 1) - 1)


def routes(src, dst, m):
    """Fewest moves from position src to position dst for disks 0..m-1, by each route of the largest disk
    that must move: (straight across, twice by the third peg); (0, 0) when nothing must move."""
    while m and src[m - 1] == dst[m - 1]:
        m -= 1
    if m == 0:
        return 0, 0
    a, b = src[m - 1], dst[m - 1]
    third = 3 - a - b
    direct = gather(src, m - 1, third) + 1 + gather(dst, m - 1, third)
    twice = gather(src, m - 1, b) + 1 + (2 ** (m - 1) - 1) + 1 + gather(dst, m - 1, a)
    return direct, twice


def describe(pos):
    pegs = []
    for peg in range(3):
        disks = [str(d + 1) for d in range(len(pos)) if pos[d] == peg]
        pegs.append(f"peg {PEGS[peg]}: {', '.join(reversed(disks)) if disks else 'empty'}")
    return "; ".join(pegs)


def _case(rng, index):
    n = rng.randrange(8, 10)
    while True:
        src = [rng.randrange(3) for _ in range(n)]
        dst = [2] * n if index == 1 else [rng.randrange(3) for _ in range(n)]
        direct, twice = routes(src, dst, n)
        answer = min(direct, twice)
        if index == 1 and src[-1] != 2:
            break
        if index == 2 and direct > twice:  # the long way wins: the trap bites
            break
        if index == 3 and src[-1] != dst[-1] and direct < twice:
            break
    static = sum(2 ** j for j in range(n) if src[j] != dst[j])  # 2^(j-1) per misplaced disk, pegs never rethought
    misplaced = sum(1 for a, b in zip(src, dst, strict=True) if a != b)
    if index == 1:
        traps, words = [static, 2 ** n - 1, misplaced], ["2^(j-1) for each disk j off peg C", "2^n - 1 as from a tower",
                                                          "one move per misplaced disk"]
    elif index == 2:
        traps, words = [direct, static, misplaced], ["moving the largest disk straight across",
                                                     "2^(j-1) for each misplaced disk j", "one move per misplaced disk"]
    else:
        traps = [twice, static, gather(src, n, dst[-1]) + gather(dst, n, dst[-1]), misplaced]
        words = ["moving the largest disk twice", "2^(j-1) for each misplaced disk j", "passing through a full tower",
                 "one move per misplaced disk"]
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    goal = "all disks stacked on peg C" if index == 1 else f"this position: {describe(dst)}"
    prompt = f"""
        A Tower of Hanoi puzzle has {n} disks, numbered 1 (smallest) to {n} (largest), on pegs A, B and C. A move
        takes the top disk of one peg and puts it on another peg, never on a smaller disk. The disks now stand
        like this (each peg listed from bottom to top): {describe(src)}. What is the fewest number of moves
        that reaches {goal}?
    """
    long_way = ("Between two scattered positions the largest disk may also move twice (via the third peg), with the "
                "small tower moved back in between; the shorter of the two routes counts." if index != 1 else "")
    compare = (", and between two scattered positions the comparison with the route that moves the largest disk "
               "twice" if index != 1 else "")
    reference = f"""
        Follow the largest disk that is not yet where it must be (disk k). Before it can move, disks
        1..k-1 must all stand on the peg that is neither its start nor its target; gathering a scattered set
        of m disks on a peg costs, recursively, nothing for a disk already there and 2^(j-1) moves for disk j
        otherwise (send the smaller ones to the third peg, move j, then the tower of j-1 costs 2^(j-1) - 1).
        {long_way}

        The fewest number of moves is **{answer}**.

        Answer: {answer}
    """
    hardness = {"steps": 2 * n, "search": 3 ** n, "traps": len(set(traps) - {answer})}
    notes = f"""{n} disks, {3 ** n:,} positions: the count needs the largest-disk recursion, gathering costs
        with powers of two for every disk off its peg{compare}. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, START=src, GOAL=dst), reference=reference, notes=notes, max_tokens=32768,
        title=f"Hanoi with {n} disks from a scattered position")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
