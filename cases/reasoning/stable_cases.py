"""Stable pairing: 5-7 mentors and as many apprentices each rank everyone on the other side; a pairing is
stable when no mentor and apprentice both prefer each other to the partners they were given. The
generated rankings admit exactly one stable pairing; the answer is that pairing, graded as a mapping.

The generator runs the deferred-acceptance algorithm (Gale-Shapley) with each side proposing; the two
results are the best stable pairings for either side, so when they coincide the stable pairing is unique.
It keeps rankings where everyone's first choice does not already give the answer and the proposing takes
several rounds. `verify.solver` parses the rankings out of the prompt, checks every pairing for a blocking
pair, and prints each stable one as a JSON line (verify requires exactly one).
"""

from __future__ import annotations

import math
import textwrap

from pytest_crucible.suite.families import family_rng, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "RE-stable"
SHAPES = [5, 6, 7]
MENTORS = ["Abena", "Bertil", "Cosima", "Dries", "Eskil", "Florin", "Gudrun", "Hesper"]
APPRENTICES = ["Ivo", "Jolene", "Kasimir", "Liesel", "Mattias", "Noor", "Ottilie", "Piet"]
REFUSAL = "I'm sorry, but I can't determine a single stable pairing from these rankings."


def propose(suitors: list[list[int]], chosen: list[list[int]]) -> tuple[dict[int, int], int]:
    """Deferred acceptance with `suitors` proposing: suitor -> partner, and the number of proposals."""
    n = len(suitors)
    rank = [{s: r for r, s in enumerate(order)} for order in chosen]
    nxt, holds, free, proposals = [0] * n, {}, list(range(n)), 0
    while free:
        s = free.pop()
        c = suitors[s][nxt[s]]
        nxt[s] += 1
        proposals += 1
        if c not in holds:
            holds[c] = s
        elif rank[c][s] < rank[c][holds[c]]:
            free.append(holds[c])
            holds[c] = s
        else:
            free.append(s)
    return {s: c for c, s in holds.items()}, proposals


def _instance(rng, n: int):
    while True:
        mentors = [rng.sample(range(n), n) for _ in range(n)]
        apprentices = [rng.sample(range(n), n) for _ in range(n)]
        best_for_mentors, proposals = propose(mentors, apprentices)
        best_for_apprentices, _ = propose(apprentices, mentors)
        mirrored = {m: a for a, m in best_for_apprentices.items()}
        firsts = {m: mentors[m][0] for m in range(n)}
        if mirrored == best_for_mentors and firsts != best_for_mentors and proposals >= n + 3:
            return mentors, apprentices, best_for_mentors, proposals


SOLVER = r'''
import json, re
from itertools import permutations
mentors = dict(re.findall(r"^- Mentor (\w+): (.+)$", PROMPT, re.M))
apprentices = dict(re.findall(r"^- Apprentice (\w+): (.+)$", PROMPT, re.M))
mentors = {m: [x.strip() for x in order.split(">")] for m, order in mentors.items()}
apprentices = {a: [x.strip() for x in order.split(">")] for a, order in apprentices.items()}
names = list(mentors)
for chosen in permutations(apprentices):
    pair = dict(zip(names, chosen))
    partner = {a: m for m, a in pair.items()}
    blocked = any(mentors[m].index(a) < mentors[m].index(pair[m]) and
                  apprentices[a].index(m) < apprentices[a].index(partner[a])
                  for m in names for a in apprentices)
    if not blocked:
        print(json.dumps(pair))
'''


def _case(index: int, rng, n: int) -> dict:
    mentors, apprentices, pairing, proposals = _instance(rng, n)
    ms, aps = MENTORS[:n], APPRENTICES[:n]
    lines = ["- Mentor " + ms[m] + ": " + " > ".join(aps[a] for a in mentors[m]) for m in range(n)]
    lines += ["- Apprentice " + aps[a] + ": " + " > ".join(ms[m] for m in apprentices[a]) for a in range(n)]
    prompt = f"""\
        A workshop pairs {n} mentors with {n} apprentices, one apprentice per mentor. Each person ranks everyone
        on the other side, most preferred first ("X > Y" means X is preferred to Y):
        __LIST__
        A pairing is unstable if some mentor and some apprentice who are not paired with each other both
        prefer each other to the partners they were given. Exactly one pairing is stable. Which apprentice
        does each mentor get? End your reply with one line per mentor, in the form `Mentor: Apprentice`.
        """
    prompt = textwrap.dedent(prompt).replace("__LIST__", "\n".join(lines)).strip()
    answer = {ms[m]: aps[a] for m, a in pairing.items()}
    order = sorted(answer)
    firsts = {ms[m]: aps[mentors[m][0]] for m in range(n)}
    a, b = order[0], order[1]
    swapped = {**answer, a: answer[b], b: answer[a]}
    rows = "\n".join(f"{m}: {answer[m]}" for m in order)
    wrong = ["\n".join(f"{m}: {firsts[m]}" for m in order),
             "\n".join(f"{m}: {swapped[m]}" for m in order),
             rows.replace(f"{a}: {answer[a]}", f"{a}: {answer[a]} or {answer[b]}"),
             "\n".join(f"{m}: " + " or ".join(aps) for m in order),
             REFUSAL]
    hardness = {"steps": proposals, "search": math.factorial(n), "traps": 2}
    difficulty = tier_of(hardness)
    return {
        "id": f"{FAMILY}-{index:02d}",
        "family": FAMILY,
        "difficulty": difficulty,
        "hardness": hardness,
        "title": f"Stable pairing of {n} mentors and {n} apprentices",
        "prompt": prompt,
        "max_tokens": 32768 if difficulty == "hard" else 16384,
        "grader": {"type": "mapping", "answer": answer},
        "notes": (f"{n}x{n} generated rankings with exactly one stable pairing (both sides' deferred acceptance "
                  f"agree), {math.factorial(n):,} pairings in all. Giving mentors their first choices does not "
                  f"work, and a swapped pair is one blocking pair away from right; the proposals take "
                  f"{proposals} rounds, each depending on who holds whom, and checking stability by hand means "
                  f"testing {n * n} mentor-apprentice pairs per candidate."),
        "verify": {
            "solver": program(SOLVER, PROMPT=prompt),
            "reference": ("Running deferred acceptance with the mentors proposing, and again with the apprentices "
                          "proposing, gives the same pairing, so it is the only stable one:\n\n"
                          + "\n".join(f"- **{m}**: {answer[m]}" for m in order)),
            "wrong": wrong,
        },
    }


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, n) for i, n in enumerate(SHAPES, 1)]
