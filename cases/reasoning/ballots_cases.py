"""Ranked ballots: a generated instant-runoff count with 5-6 candidates and 12-16 groups of identical
ballots, some ranking only part of the field. Each round the candidate with the fewest votes is out and
their ballots pass to the next candidate still in the race (a ballot with none left is exhausted); the
count stops when someone holds more than half of the ballots still in play. The answer is the winner's
vote total in that final round.

The generator keeps piles per candidate and moves the eliminated candidate's piles on, round by round,
and keeps counts where the shortcuts miss: the first-round leader is not the winner (plurality), and
dropping everyone but the top two at once (the contingent vote) gives the winner a different total.
Ties for last place are redrawn. `verify.solver` parses the ballots out of the prompt and recounts every
round from scratch (each group's highest-ranked candidate still in the race).
"""

from __future__ import annotations

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-ballots"
SHAPES = [(5, 12), (6, 14), (6, 16)]  # (candidates, ballot groups)
NAMES = ["Achebe", "Borges", "Calvino", "Duras", "Ende", "Fuentes", "Gaskell"]


def runoff(groups: list[tuple[int, tuple]], n: int) -> tuple[int, int, int, int] | None:
    """(winner, final total, rounds, piles moved); None when last place is ever tied."""
    piles: dict[int, list] = {c: [] for c in range(n)}
    for count, ranking in groups:
        piles[ranking[0]].append((count, ranking))
    moved, rounds = 0, 1
    while True:
        totals = {c: sum(k for k, _ in pile) for c, pile in piles.items()}
        live = sum(totals.values())
        leader = max(totals, key=totals.get)
        if 2 * totals[leader] > live:
            return leader, totals[leader], rounds, moved
        low = min(totals.values())
        if list(totals.values()).count(low) > 1:
            return None
        out = min(totals, key=totals.get)
        for count, ranking in piles.pop(out):
            nxt = next((c for c in ranking if c in piles), None)
            if nxt is not None:
                piles[nxt].append((count, ranking))
                moved += 1
        rounds += 1


def contingent(groups: list[tuple[int, tuple]], n: int) -> dict[int, int]:
    first = {c: sum(k for k, r in groups if r[0] == c) for c in range(n)}
    top = sorted(first, key=first.get, reverse=True)[:2]
    totals = {c: 0 for c in top}
    for count, ranking in groups:
        pick = next((c for c in ranking if c in top), None)
        if pick is not None:
            totals[pick] += count
    return totals


def _instance(rng, n: int, count: int):
    while True:
        groups = []
        for _ in range(count):
            length = rng.choice([1, 2, 3, 3, n])
            groups.append((rng.randint(5, 60), tuple(rng.sample(range(n), min(length, n)))))
        result = runoff(groups, n)
        if result is None:
            continue
        winner, total, rounds, moved = result
        first = {c: sum(k for k, r in groups if r[0] == c) for c in range(n)}
        plurality = max(first, key=first.get)
        two = contingent(groups, n)
        if plurality != winner and rounds >= n - 2 and two.get(winner) not in (None, total):
            return groups, winner, total, rounds, moved, first[plurality], two[winner]


SOLVER = r'''
import re
groups = [(int(k), [x.strip() for x in r.split(">")]) for k, r in re.findall(r"^- (\d+) ballots?: (.+)$", PROMPT, re.M)]
listed = re.search(r"Candidates: (.+)\.", PROMPT).group(1).split(", ")
running = sorted({name for _, r in groups for name in r} | set(listed))
while True:
    totals = {c: 0 for c in running}
    for k, ranking in groups:
        pick = next((c for c in ranking if c in running), None)
        if pick is not None:
            totals[pick] += k
    live = sum(totals.values())
    best = max(totals, key=totals.get)
    if 2 * totals[best] > live:
        print(totals[best])
        break
    running.remove(min(totals, key=totals.get))
'''


def _case(index: int, rng, n: int, count: int) -> dict:
    groups, winner, total, rounds, moved, lead, two = _instance(rng, n, count)
    names = NAMES[:n]
    lines = "\n".join(f"- {k} ballot{'s' if k > 1 else ''}: " + " > ".join(names[c] for c in ranking)
                      for k, ranking in groups)
    voters = sum(k for k, _ in groups)
    prompt = f"""\
        A club elects its chair by instant runoff. Candidates: {", ".join(names)}.
        The {voters} ballots, grouped (each ranks some or all candidates, first choice first):
        __LIST__
        Counting: each ballot counts for its highest-ranked candidate still in the race. If some candidate
        then holds more than half of the ballots still counting, they win. Otherwise the candidate with
        the fewest ballots is eliminated and the count is repeated. A ballot that ranks no candidate still
        in the race is exhausted and no longer counts (so "half" shrinks). How many ballots does the winner
        hold in the round in which they win?
        """
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=total, solver="",
        hardness={"steps": 2 * rounds, "search": 1, "traps": 2},
        reference=f"""\
            {names[max(range(n), key=lambda c: sum(k for k, r in groups if r[0] == c))]} leads on first
            choices with {lead}, but after {rounds - 1} eliminations, with each eliminated pile passed to its next
            surviving choice (and some ballots exhausted), {names[winner]} holds a majority of the ballots
            still counting.

            Answer: {total}""",
        traps=[lead, two],
        notes=f"""Generated count: {n} candidates, {count} ballot groups, {voters} ballots, {rounds} rounds and {moved}
            pile transfers. The first-round leader ({lead} ballots) does not win, and cutting to the top two at
            once gives the winner {two}; the right total needs every elimination in order, with transfers that
            skip eliminated candidates and exhausted ballots that shrink the majority.""",
        max_tokens=16384, title=f"Instant runoff: {n} candidates, {voters} ballots")
    case["prompt"] = case["prompt"].replace("__LIST__", lines)
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
