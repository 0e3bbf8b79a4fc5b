"""Seating: 6-8 people in a row or around a round table with numbered seats; either the one seating
that fits the rules (graded seat by seat) or the number of seatings that fit.

For the unique seatings the generator draws a hidden seating, adds random true rules until exactly
one seating fits, then drops every rule the others already imply. For the counts it adds rules
until the count falls in a target range. It counts with a seat-by-seat backtracking search that
checks each rule as soon as both people are seated. `verify.solver` parses the rules out of the
prompt and tries every permutation of the people (at most 8! = 40,320).
"""

from __future__ import annotations

import json
import math
import random
from itertools import permutations

from pytest_crucible.suite.tiers import declare

FAMILY = "RE-seat"
NAMES = ["Alma", "Boris", "Celeste", "Dario", "Elif", "Fitz", "Gwen", "Hamid", "Iris", "Jasper", "Kira",
         "Luca", "Maren", "Nico", "Opal", "Pavel", "Rhea", "Stellan", "Tess", "Ulric"]
NUMBER = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}
# (layout, people, question, (lowest count, highest count, fewest rules), difficulty)
SHAPES = [("row", 6, "seats", None, "medium"), ("round", 7, "seats", None, "hard"),
          ("round", 8, "seats", None, "hard"), ("round", 8, "seats", None, "hard"),
          ("round", 7, "count", (10, 150, 4), "medium"), ("row", 8, "count", (20, 600, 6), "hard"),
          ("round", 8, "count", (20, 600, 6), "hard")]
WEIGHTS = {"next": 4, "apart": 3, "after": 3, "gap": 3, "opposite": 2, "seat": 1, "not_seat": 2, "parity": 1,
           "end": 1}


# ------------------------------------------------------------------------------------------ rules
# ("next"|"apart"|"after"|"opposite", x, y) | ("gap", x, y, k) | ("seat"|"not_seat", x, s)
# | ("parity", x, 0|1) | ("end", x); people are indices, seats 1..n

def _test(rule: tuple, n: int, layout: str):
    """The rule as a test of a seating (seat[p] = p's seat)."""
    kind, x = rule[0], rule[1]
    y = rule[2] if kind in ("next", "apart", "after", "opposite", "gap") else None
    round_table = layout == "round"
    if kind in ("next", "apart"):
        want = kind == "next"
        if round_table:
            return lambda s: ((s[y] - s[x]) % n in (1, n - 1)) == want
        return lambda s: (abs(s[x] - s[y]) == 1) == want
    if kind == "after":  # x immediately clockwise of (round) / immediately right of (row) y
        return (lambda s: (s[x] - s[y]) % n == 1) if round_table else (lambda s: s[x] == s[y] + 1)
    if kind == "opposite":
        return lambda s: (s[y] - s[x]) % n == n // 2
    if kind == "gap":  # round: k people passed going clockwise from x to y; row: k people between
        k = rule[3] + 1
        return (lambda s: (s[y] - s[x]) % n == k) if round_table else (lambda s: abs(s[x] - s[y]) == k)
    if kind == "seat":
        return lambda s: s[x] == rule[2]
    if kind == "not_seat":
        return lambda s: s[x] != rule[2]
    if kind == "parity":
        return lambda s: s[x] % 2 == rule[2]
    return lambda s: s[x] in (1, n)  # end


def _holds(rule: tuple, seat, n: int, layout: str) -> bool:
    return _test(rule, n, layout)(seat)


def count(n: int, layout: str, rules: list[tuple], stop: int | None = None) -> int:
    """Seatings obeying the rules: people placed seat by seat, each rule checked once both its people
    are seated (stops early at `stop`)."""
    due: dict[int, list] = {}
    for r in rules:
        people = [r[1], r[2]] if r[0] in ("next", "apart", "after", "opposite", "gap") else [r[1]]
        due.setdefault(max(people), []).append(_test(r, n, layout))
    # seat people in index order; seat[p] = their seat; a rule is due once its last person is seated
    seat = [0] * n
    free = set(range(1, n + 1))
    found = [0]

    def place(p: int) -> None:
        if p == n:
            found[0] += 1
            return
        for s in sorted(free):
            seat[p] = s
            if all(test(seat) for test in due.get(p, ())):
                free.discard(s)
                place(p + 1)
                free.add(s)
                if stop and found[0] >= stop:
                    return

    place(0)
    return found[0]


def _random_rule(rng: random.Random, n: int, layout: str) -> tuple:
    kinds = [k for k in WEIGHTS if not (layout == "row" and k == "opposite") and not (layout == "round" and
                                                                                      k == "end")]
    if n % 2:
        kinds = [k for k in kinds if k != "opposite"]
    kind = rng.choices(kinds, [WEIGHTS[k] for k in kinds])[0]
    x, y = rng.sample(range(n), 2)
    if kind in ("next", "apart", "after", "opposite"):
        return (kind, x, y)
    if kind == "gap":
        return ("gap", x, y, rng.randint(1, n - 3))
    if kind in ("seat", "not_seat"):
        return (kind, x, rng.randint(1, n))
    if kind == "parity":
        return ("parity", x, rng.randint(0, 1))
    return ("end", x)


def _unique(rng: random.Random, n: int, layout: str) -> tuple[list[int], list[tuple]]:
    """A hidden seating and rules that fit only it, each one needed. Rules are drawn against the list
    of seatings still open; the pruning uses the backtracking count."""
    every = list(permutations(range(1, n + 1)))
    while True:
        seat = rng.sample(range(1, n + 1), n)
        rules: list[tuple] = []
        open_ = every
        while len(open_) > 1:
            rule = _random_rule(rng, n, layout)
            if not _holds(rule, seat, n, layout) or rule in rules or (
                    rule[0] == "seat" and any(r[0] == "seat" for r in rules)):
                continue
            test = _test(rule, n, layout)
            narrowed = [s for s in open_ if test(s)]
            if len(narrowed) < len(open_):
                rules.append(rule)
                open_ = narrowed
        for rule in rng.sample(rules, len(rules)):  # drop what the others already imply
            fewer = [r for r in rules if r != rule]
            if count(n, layout, fewer, stop=2) == 1:
                rules = fewer
        if len({r[0] for r in rules}) >= 3 and len(rules) >= n - 1:
            return seat, rules


def _counted(rng: random.Random, n: int, layout: str, low: int, high: int, fewest: int) -> tuple[list[tuple], int]:
    """Rules, each cutting the number of seatings, until it lies in [low, high]; the number returned
    is the backtracking count, checked against the list the rules were drawn with."""
    every = list(permutations(range(1, n + 1)))
    while True:
        rules: list[tuple] = []
        open_ = every
        for _ in range(80):
            rule = _random_rule(rng, n, layout)
            if rule[0] == "seat" or rule in rules:
                continue
            test = _test(rule, n, layout)
            narrowed = [s for s in open_ if test(s)]
            if low <= len(narrowed) < len(open_):
                rules.append(rule)
                open_ = narrowed
            if len(open_) <= high and len({r[0] for r in rules}) >= 3 and len(rules) >= fewest and len(open_) != 200:
                total = count(n, layout, rules)
                if total != len(open_):
                    raise AssertionError("the two seating counts disagree")
                return rules, total


# ------------------------------------------------------------------------------------------ text

def _sentence(r: tuple, names: list[str], layout: str) -> str:
    kind, x = r[0], names[r[1]]
    y = names[r[2]] if kind in ("next", "apart", "after", "opposite", "gap") else None
    if kind == "next":
        return f"{x} and {y} sit next to each other."
    if kind == "apart":
        return f"{x} and {y} do not sit next to each other."
    if kind == "after":
        return f"{x} sits immediately {'clockwise of' if layout == 'round' else 'to the right of'} {y}."
    if kind == "opposite":
        return f"{x} sits directly opposite {y}."
    if kind == "gap":
        k = r[3]
        people = f"{NUMBER[k]} {'person' if k == 1 else 'people'}"
        if layout == "round":
            return f"Going clockwise from {x}, exactly {people} sit{'s' if k == 1 else ''} before {y}."
        return f"Exactly {people} sit{'s' if k == 1 else ''} between {x} and {y}."
    if kind == "seat":
        return f"{x} sits in seat {r[2]}."
    if kind == "not_seat":
        return f"{x} does not sit in seat {r[2]}."
    if kind == "parity":
        return f"{x} sits in an {'even' if r[2] == 0 else 'odd'}-numbered seat."
    return f"{x} sits at one end of the row."


def _prompt(names: list[str], rules: list[tuple], layout: str, question: str) -> str:
    n = len(names)
    if layout == "round":
        setting = (f"{NUMBER[n].capitalize()} people, {', '.join(names)}, sit at a round table with {n} seats "
                   f"numbered 1 to {n} clockwise (seat {n} is next to seat 1). \"Immediately clockwise of "
                   f"Y\" means in the seat numbered one higher than Y's (seat 1 comes after seat {n})"
                   + ("; \"directly opposite\" means half the table apart" if n % 2 == 0 else "") + ".")
    else:
        setting = (f"{NUMBER[n].capitalize()} people, {', '.join(names)}, sit in a row of {n} seats numbered "
                   f"1 to {n} from left to right. \"Immediately to the right of Y\" means in the seat "
                   "numbered one higher than Y's.")
    listed = "\n".join(f"{i}. {_sentence(r, names, layout)}" for i, r in enumerate(rules, 1))
    if question == "seats":
        ask = ("Exactly one seating satisfies every rule. Who sits in which seat? End your reply with one "
               "line per person, in the form `Name: seat N`.")
    else:
        ask = ("Each person takes exactly one seat. How many different seatings satisfy every rule? (Two "
               "seatings differ when someone sits in a different seat.) End with a final line of the form "
               "`Answer: <number>`.")
    return f"{setting} One person per seat.\n\nRules:\n{listed}\n\n{ask}"


SOLVER = r'''
import json, re
from itertools import permutations
PROMPT = __PROMPT__
names = re.search(r"people, (.+?), sit ", PROMPT).group(1).split(", ")
n = len(names)
round_table = "round table" in PROMPT
WORD = {w: i for i, w in enumerate("zero one two three four five six seven eight".split())}
at = {}

def spot(name):
    return names.index(name)

def adjacent(a, b):
    return (a - b) % n in (1, n - 1) if round_table else abs(a - b) == 1

tests = []
for line in re.findall(r"^\d+\. (.+)$", PROMPT, re.M):
    m = re.fullmatch(r"(\w+) and (\w+) (sit|do not sit) next to each other\.", line)
    if m:
        x, y, want = spot(m.group(1)), spot(m.group(2)), m.group(3) == "sit"
        tests.append(lambda s, x=x, y=y, want=want: adjacent(s[x], s[y]) == want)
        continue
    m = re.fullmatch(r"(\w+) sits immediately (?:clockwise of|to the right of) (\w+)\.", line)
    if m:
        x, y = spot(m.group(1)), spot(m.group(2))
        tests.append(lambda s, x=x, y=y: (s[x] - s[y]) % n == 1 and (round_table or s[x] > s[y]))
        continue
    m = re.fullmatch(r"(\w+) sits directly opposite (\w+)\.", line)
    if m:
        x, y = spot(m.group(1)), spot(m.group(2))
        tests.append(lambda s, x=x, y=y: (s[y] - s[x]) % n == n // 2)
        continue
    m = re.fullmatch(r"Going clockwise from (\w+), exactly (\w+) (?:person sits|people sit) before (\w+)\.", line)
    if m:
        x, k, y = spot(m.group(1)), WORD[m.group(2)], spot(m.group(3))
        tests.append(lambda s, x=x, y=y, k=k: (s[y] - s[x]) % n == k + 1)
        continue
    m = re.fullmatch(r"Exactly (\w+) (?:person sits|people sit) between (\w+) and (\w+)\.", line)
    if m:
        k, x, y = WORD[m.group(1)], spot(m.group(2)), spot(m.group(3))
        tests.append(lambda s, x=x, y=y, k=k: abs(s[x] - s[y]) == k + 1)
        continue
    m = re.fullmatch(r"(\w+) (sits|does not sit) in seat (\d+)\.", line)
    if m:
        x, want, seat = spot(m.group(1)), m.group(2) == "sits", int(m.group(3))
        tests.append(lambda s, x=x, want=want, seat=seat: (s[x] == seat) == want)
        continue
    m = re.fullmatch(r"(\w+) sits in an (even|odd)-numbered seat\.", line)
    if m:
        x, rest = spot(m.group(1)), 0 if m.group(2) == "even" else 1
        tests.append(lambda s, x=x, rest=rest: s[x] % 2 == rest)
        continue
    m = re.fullmatch(r"(\w+) sits at one end of the row\.", line)
    if m:
        x = spot(m.group(1))
        tests.append(lambda s, x=x: s[x] in (1, n))
        continue
    raise SystemExit("cannot read rule: " + line)

fits = [s for s in permutations(range(1, n + 1)) if all(test(s) for test in tests)]
if "How many different seatings" in PROMPT:
    print(len(fits))
else:
    for s in fits:
        print(json.dumps(dict(zip(names, s))))
'''


def solver_source(prompt: str) -> str:
    return SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip()


# ------------------------------------------------------------------------------------------ cases

def _case(index: int, rng: random.Random, layout: str, n: int, question: str, band, difficulty: str) -> dict:
    names = rng.sample(NAMES, n)
    where = "round table" if layout == "round" else "row"
    if question == "seats":
        seat, rules = _unique(rng, n, layout)
        answer = dict(zip(names, seat))
        prompt = _prompt(names, rules, layout, question)
        grader = {"type": "mapping", "answer": answer}
        order = sorted(names, key=answer.get)
        a, b = order[0], order[1]
        near = {**answer, a: answer[b], b: answer[a]}
        rows = "\n".join(f"{name}: seat {answer[name]}" for name in order)
        shifted = "\n".join(f"{name}: seat {answer[name] % n + 1}" for name in order)
        wrong = ["\n".join(f"{name}: seat {near[name]}" for name in order),
                 rows.replace(f"{a}: seat {answer[a]}", f"{a}: seat {answer[a]} or {answer[b]}"),
                 shifted,
                 "I'm sorry, but these rules do not pin down a single seating.",
                 "\n".join(f"{name}: seat " + " or ".join(str(s) for s in range(1, n + 1)) for name in names),
                 "Answer: 7"]
        reference = ("Placing the fixed and paired people first and checking the rest one by one leaves a "
                     "single seating:\n\n| Seat | Name |\n|---|---|\n"
                     + "\n".join(f"| {answer[name]} | **{name}** |" for name in order))
        notes = (f"{n}! = {math.factorial(n):,} seatings at a {where}, {len(rules)} rules of "
                 f"{len({r[0] for r in rules})} kinds, each one needed for uniqueness (dropping any leaves "
                 "several seatings). Clockwise gaps, adjacency bans and parity rules interact, so the seats "
                 "have to be fixed by case analysis; graded seat by seat.")
    else:
        rules, total = _counted(rng, n, layout, *band)
        prompt = _prompt(names, rules, layout, question)
        grader = {"type": "numeric", "answer": total}
        loose = count(n, layout, [r for r in rules if r[0] != "apart"])
        wrong = list(dict.fromkeys([
            *([f"Leaving out the 'not next to each other' rules gives {loose}.\n\nAnswer: {loose}"]
              if loose != total else []),
            f"Answer: {total - 1}", f"Answer: {total + 1}",
            f"There are {total} or {2 * total} seatings, depending on how you count.",
            "I'm sorry, but I can't count these seatings.",
            "Answer: " + ", ".join(str(k) for k in range(0, 201)),
            f"{n} people can sit in {n}! = {math.factorial(n):,} ways.\n\nAnswer: {math.factorial(n)}"]))
        reference = (f"Fix the most constrained person's seat, count the ways to seat the others around them, and "
                     f"sum over the allowed seats: {total:,} seatings in all.\n\n**Answer:** {total:,}")
        notes = (f"{n}! = {math.factorial(n):,} seatings at a {where}; {len(rules)} rules of "
                 f"{len({r[0] for r in rules})} kinds leave {total:,}. Wrap-around adjacency and clockwise gaps "
                 "make a closed formula unreliable; the count needs a careful case split with "
                 "inclusion-exclusion over the adjacency rules.")
    return {
        "id": f"{FAMILY}-{index:02d}",
        "family": FAMILY,
        "difficulty": difficulty,
        "title": (f"Seating at a {where}: {n} people, {len(rules)} rules, "
                  + ("who sits where" if question == "seats" else "count the seatings")),
        "prompt": prompt,
        "max_tokens": 32768 if difficulty == "hard" else 16384,
        "grader": grader,
        "notes": notes,
        "verify": {"solver": solver_source(prompt), "reference": reference, "wrong": wrong},
    }


# Hardness facts (steps, search, traps) per shape: one deduction per rule; the candidates are the seatings.
HARDNESS = [(7, 720, 2), (7, 5040, 2), (9, 40320, 2), (9, 40320, 2), (4, 5040, 2), (6, 40320, 2), (6, 40320, 2)]


def cases(seed: int) -> list[dict]:
    rng = random.Random(f"{FAMILY}:{seed}")
    out = [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
    for case, facts in zip(out, HARDNESS, strict=True):
        declare(case, *facts)
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
