"""Logic grids: 6-8 people in a row of houses, 4-5 attributes each (house, pet, drink, job, hobby).

The generator draws a hidden solution, then adds random true clues (fourteen kinds: same person,
not the same person, fixed house, left of, immediately left of, next door, not next door, a gap of
k houses, end house, odd/even house, between, either/or ...) until its constraint propagator with
search finds exactly one solution, and then drops every clue whose removal keeps the solution
unique. So every clue is needed, and no clue kind alone fixes the grid (any one kind is a strict
subset of a minimal clue set). At most one clue puts someone in a given house.

`verify.solver` proves uniqueness by a different route: it parses the clue sentences out of the
prompt text (so a rendering slip in the generator shows), then enumerates house assignments value
by value with plain backtracking, checking each clue once its values are placed, and prints every
solution as one JSON line.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.tiers import declare

FAMILY = "RE-grid"
NAMES = ["Ada", "Bruno", "Chiara", "Dmitri", "Esme", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kaito",
         "Lena", "Marek", "Nadia", "Omar", "Priya", "Rosa", "Soren", "Talia", "Vera", "Yusuf", "Zofia"]
POOLS = {
    "pet": ["cat", "dog", "ferret", "gecko", "hamster", "iguana", "parrot", "rabbit", "tortoise"],
    "drink": ["cider", "cocoa", "coffee", "juice", "kefir", "lemonade", "milk", "tea", "water"],
    "job": ["baker", "chemist", "dentist", "farmer", "jeweller", "librarian", "nurse", "pilot", "tailor"],
    "hobby": ["chess", "climbing", "fencing", "gardening", "juggling", "knitting", "origami", "pottery",
              "rowing"],
}
DESCRIBE = {"name": "{}", "pet": "the {} owner", "drink": "the {} drinker", "job": "the {}",
            "hobby": "the person who enjoys {}"}
NUMBER_WORDS = {2: "two", 3: "three", 4: "four"}
# (people, attributes besides the name, difficulty) for each case of a seed
SIZES = [(6, 3, "medium"), (6, 3, "medium"), (7, 3, "hard"), (7, 3, "hard"), (7, 4, "hard"), (7, 4, "hard"),
         (8, 3, "hard"), (8, 3, "hard"), (8, 4, "hard"), (6, 4, "hard")]

# clue kinds: (kind, value, value[, value | house | gap]) over value ids (attribute * n + index)
SAME, DIFF, AT, NOT_AT, LEFT, IMM, NEXT, NOT_NEXT, GAP, END, EVEN, ODD, BETWEEN, EITHER = range(14)
SEARCH_BUDGET = 500  # search nodes per uniqueness check while generating; past it the grid is redrawn
WEIGHTS = {SAME: 5, DIFF: 2, AT: 1, NOT_AT: 1, LEFT: 4, IMM: 3, NEXT: 4, NOT_NEXT: 2, GAP: 2, END: 1,
           EVEN: 1, ODD: 1, BETWEEN: 2, EITHER: 3}


# ------------------------------------------------------------------------------------------ propagator

def _one(x: int) -> bool:
    return x != 0 and x & (x - 1) == 0


def _propagate(dom: list[int], clues: list[tuple], n: int, groups: list[list[int]]) -> bool:
    """Narrow each value's set of possible houses (bit h-1 for house h) to a fixpoint; False when
    some value has none left. Sound, not complete: the search below settles the rest."""
    full, ends = (1 << n) - 1, 1 | (1 << (n - 1))
    evens = sum(1 << (h - 1) for h in range(2, n + 1, 2))
    while True:
        before = list(dom)
        for c in clues:
            k, a = c[0], c[1]
            if k == SAME:
                dom[a] = dom[c[2]] = dom[a] & dom[c[2]]
            elif k == DIFF:
                if not dom[a] & (dom[a] - 1):
                    dom[c[2]] &= ~dom[a]
                if not dom[c[2]] & (dom[c[2]] - 1):
                    dom[a] &= ~dom[c[2]]
            elif k == AT:
                dom[a] &= 1 << (c[2] - 1)
            elif k == NOT_AT:
                dom[a] &= ~(1 << (c[2] - 1))
            elif k == LEFT:
                b = c[2]
                if dom[b]:
                    dom[a] &= (1 << (dom[b].bit_length() - 1)) - 1
                if dom[a]:
                    dom[b] &= ~(((dom[a] & -dom[a]) << 1) - 1)
            elif k == IMM:
                b = c[2]
                dom[a] &= dom[b] >> 1
                dom[b] &= (dom[a] << 1) & full
            elif k in (NEXT, GAP):
                b, s = c[2], (c[3] + 1 if k == GAP else 1)
                dom[a] &= ((dom[b] << s) | (dom[b] >> s)) & full
                dom[b] &= ((dom[a] << s) | (dom[a] >> s)) & full
            elif k == NOT_NEXT:
                b = c[2]
                if not dom[a] & (dom[a] - 1):
                    dom[b] &= ~((dom[a] << 1) | (dom[a] >> 1))
                if not dom[b] & (dom[b] - 1):
                    dom[a] &= ~((dom[b] << 1) | (dom[b] >> 1))
            elif k == END:
                dom[a] &= ends
            elif k == EVEN:
                dom[a] &= evens
            elif k == ODD:
                dom[a] &= full & ~evens
            elif k == BETWEEN:
                b, d = c[2], c[3]
                dom[b] &= ~ends
                if not dom[a] & (dom[a] - 1) and not dom[d] & (dom[d] - 1):
                    lo, hi = sorted((dom[a], dom[d]))
                    dom[b] &= (hi - 1) & ~((lo << 1) - 1)
            elif k == EITHER:
                b, d = c[2], c[3]
                dom[a] &= dom[b] | dom[d]
                if not dom[a] & dom[b]:
                    dom[a] = dom[d] = dom[a] & dom[d]
                elif not dom[a] & dom[d]:
                    dom[a] = dom[b] = dom[a] & dom[b]
        for group in groups:  # one house per value and one value per house, within each attribute
            once = twice = fixed = 0
            for v in group:
                d = dom[v]
                if not d & (d - 1):  # one house left (0 is caught below)
                    if d & fixed:
                        return False
                    fixed |= d
                twice |= once & d
                once |= d
            if once != full:
                return False
            for v in group:
                d = dom[v]
                if d & (d - 1):
                    d &= ~fixed
                    dom[v] = (d & ~twice) or d
        if 0 in dom:
            return False
        if dom == before:
            return True


def _holds(c: tuple, house: list[int], n: int) -> bool:
    k, a = c[0], house[c[1]]
    b = house[c[2]] if k not in (AT, NOT_AT, END, EVEN, ODD) else None
    return {
        SAME: lambda: a == b, DIFF: lambda: a != b, AT: lambda: a == c[2], NOT_AT: lambda: a != c[2],
        LEFT: lambda: a < b, IMM: lambda: a + 1 == b, NEXT: lambda: abs(a - b) == 1,
        NOT_NEXT: lambda: abs(a - b) != 1, GAP: lambda: abs(a - b) == c[3] + 1, END: lambda: a in (1, n),
        EVEN: lambda: a % 2 == 0, ODD: lambda: a % 2 == 1,
        BETWEEN: lambda: min(a, house[c[3]]) < b < max(a, house[c[3]]),
        EITHER: lambda: a in (b, house[c[3]]),
    }[k]()


class _TooHard(Exception):
    """The search for a second solution ran past its budget: the generator draws a new grid."""


def _count(dom: list[int], clues: list[tuple], n: int, groups: list[list[int]], limit: int = 2,
           budget: list[int] | None = None) -> int:
    """Solutions, counted up to `limit`; raises _TooHard after `budget[0]` search nodes."""
    budget = [SEARCH_BUDGET] if budget is None else budget
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooHard
    dom = list(dom)
    if not _propagate(dom, clues, n, groups):
        return 0
    open_values = [(d.bit_count(), v) for v, d in enumerate(dom) if not _one(d)]
    if not open_values:
        house = [d.bit_length() for d in dom]
        return int(all(_holds(c, house, n) for c in clues))
    _, v = min(open_values)
    total, rest = 0, dom[v]
    while rest and total < limit:
        bit = rest & -rest
        rest ^= bit
        dom[v] = bit
        total += _count(dom, clues, n, groups, limit - total, budget)
    return total


# ------------------------------------------------------------------------------------------ generator

def _random_clue(rng: random.Random, house: list[int], n: int, attrs: int) -> tuple | None:
    kind = rng.choices(list(WEIGHTS), list(WEIGHTS.values()))[0]
    for _ in range(200):
        a, b, d = (rng.randrange(n * attrs) for _ in range(3))
        ha, hb, hd = house[a], house[b], house[d]
        other = a // n != b // n
        if kind == SAME and other and ha == hb or kind == DIFF and other and ha != hb:
            return (kind, a, b)
        if kind == AT:
            return (AT, a, ha)
        if kind == NOT_AT and hd != ha:
            return (NOT_AT, a, hd)
        if (kind == LEFT and ha < hb or kind == IMM and ha + 1 == hb or kind == NEXT and abs(ha - hb) == 1
                or kind == NOT_NEXT and abs(ha - hb) > 1):
            return (kind, a, b)
        if kind == GAP and abs(ha - hb) in (3, 4, 5):
            return (GAP, a, b, abs(ha - hb) - 1)
        if kind == END and ha in (1, n) or kind == EVEN and ha % 2 == 0 or kind == ODD and ha % 2 == 1:
            return (kind, a)
        if kind == BETWEEN and min(ha, hd) < hb < max(ha, hd):
            return (BETWEEN, a, b, d)
        if kind == EITHER and other and b // n == d // n and b != d and ha in (hb, hd):
            return (EITHER, a, b, d) if rng.random() < 0.5 else (EITHER, a, d, b)
    return None


def _puzzle(rng: random.Random, n: int, attrs: int) -> tuple[list[int], list[tuple]]:
    """A hidden solution and a minimal clue set that fixes it; grids whose checks run long are redrawn."""
    while True:
        try:
            return _try_puzzle(rng, n, attrs)
        except _TooHard:
            continue


def _try_puzzle(rng: random.Random, n: int, attrs: int) -> tuple[list[int], list[tuple]]:
    house = [h for _ in range(attrs) for h in rng.sample(range(1, n + 1), n)]
    groups = [list(range(a * n, a * n + n)) for a in range(attrs)]
    start = [(1 << n) - 1] * (n * attrs)
    clues: list[tuple] = []
    dom = list(start)
    while True:
        clue = _random_clue(rng, house, n, attrs)
        if clue is None or clue in clues or (clue[0] == AT and any(c[0] == AT for c in clues)):
            continue
        narrowed = list(dom)
        _propagate(narrowed, [*clues, clue], n, groups)
        if narrowed == dom:  # tells nothing new yet
            continue
        clues.append(clue)
        dom = narrowed
        if sum(d.bit_count() - 1 for d in dom) < 3 * n and _count(start, clues, n, groups) == 1:
            break
    for clue in rng.sample(clues, len(clues)):  # drop what the rest already implies
        fewer = [c for c in clues if c != clue]
        if _count(start, fewer, n, groups) == 1:
            clues = fewer
    return house, clues


# ------------------------------------------------------------------------------------------ text

def _describe(v: int, values: list[list[str]], attributes: list[str], n: int) -> str:
    return DESCRIBE[attributes[v // n]].format(values[v // n][v % n])


def _sentence(c: tuple, say) -> str:
    k = c[0]
    text = {
        SAME: lambda: f"{say(c[1])} is {say(c[2])}.",
        DIFF: lambda: f"{say(c[1])} is not {say(c[2])}.",
        AT: lambda: f"{say(c[1])} lives in house {c[2]}.",
        NOT_AT: lambda: f"{say(c[1])} does not live in house {c[2]}.",
        LEFT: lambda: f"{say(c[1])} lives somewhere to the left of {say(c[2])}.",
        IMM: lambda: f"{say(c[1])} lives immediately to the left of {say(c[2])}.",
        NEXT: lambda: f"{say(c[1])} lives next door to {say(c[2])}.",
        NOT_NEXT: lambda: f"{say(c[1])} does not live next door to {say(c[2])}.",
        GAP: lambda: f"There are exactly {NUMBER_WORDS[c[3]]} houses between {say(c[1])} and {say(c[2])}.",
        END: lambda: f"{say(c[1])} lives in one of the two end houses.",
        EVEN: lambda: f"{say(c[1])} lives in an even-numbered house.",
        ODD: lambda: f"{say(c[1])} lives in an odd-numbered house.",
        BETWEEN: lambda: f"{say(c[2])} lives somewhere between {say(c[1])} and {say(c[3])}.",
        EITHER: lambda: f"{say(c[1])} is either {say(c[2])} or {say(c[3])}.",
    }[k]()
    return text[0].upper() + text[1:]


def _prompt(n: int, attributes: list[str], values: list[list[str]], clues: list[tuple]) -> str:
    def say(v):
        return _describe(v, values, attributes, n)

    listed = "\n".join(f"- {a}: {', '.join(sorted(vs))}" for a, vs in zip(attributes, values))
    numbered = "\n".join(f"{i}. {_sentence(c, say)}" for i, c in enumerate(clues, 1))
    form = ", ".join(["house N", *attributes[1:]])
    return (
        f"{n} people live in a row of {n} houses, numbered 1 to {n} from left to right, one person per "
        f"house. Each person has exactly one value of each attribute below, and no two people share a "
        f"value:\n\n{listed}\n\n"
        "\"To the left of\" means in a lower-numbered house; \"immediately to the left of\" means in the "
        "house numbered one lower; \"next door\" means in an adjacent house; \"between\" means strictly "
        "between, in either order; \"exactly k houses between\" means k houses lie strictly between "
        "the two. A description such as \"the tea drinker\" or \"the baker\" names one person.\n\n"
        f"Clues:\n{numbered}\n\n"
        "Work out who lives in which house and every attribute of every person. End your reply with one "
        f"line per person, in the form `Name: {form}`."
    )


# ------------------------------------------------------------------------------------------ solver

SOLVER = r'''
import json, re
PROMPT = __PROMPT__
attrs = {}
for m in re.finditer(r"^- (\w+): (.+)$", PROMPT, re.M):
    attrs[m.group(1)] = [w.strip() for w in m.group(2).split(",")]
n = len(attrs["name"])
owner = {v.lower(): (a, v) for a, vs in attrs.items() for v in vs}
WORDS = {"two": 2, "three": 3, "four": 4}

def who(text):
    hits = [owner[w.lower()] for w in re.findall(r"[A-Za-z]+", text) if w.lower() in owner]
    if len(hits) != 1:
        raise SystemExit("cannot read a person in: " + text)
    return hits[0]

FORMS = [
    (r"(.+) does not live in house (\d+)", lambda x, h: ([x], lambda p: p[x] != int(h))),
    (r"(.+) lives in house (\d+)", lambda x, h: ([x], lambda p: p[x] == int(h))),
    (r"(.+) lives somewhere to the left of (.+)", lambda x, y: ([x, y], lambda p: p[x] < p[y])),
    (r"(.+) lives immediately to the left of (.+)", lambda x, y: ([x, y], lambda p: p[x] + 1 == p[y])),
    (r"(.+) does not live next door to (.+)", lambda x, y: ([x, y], lambda p: abs(p[x] - p[y]) != 1)),
    (r"(.+) lives next door to (.+)", lambda x, y: ([x, y], lambda p: abs(p[x] - p[y]) == 1)),
    (r"There are exactly (\w+) houses between (.+) and (.+)",
     lambda k, x, y: ([x, y], lambda p: abs(p[x] - p[y]) == WORDS[k] + 1)),
    (r"(.+) lives in one of the two end houses", lambda x: ([x], lambda p: p[x] in (1, n))),
    (r"(.+) lives in an even-numbered house", lambda x: ([x], lambda p: p[x] % 2 == 0)),
    (r"(.+) lives in an odd-numbered house", lambda x: ([x], lambda p: p[x] % 2 == 1)),
    (r"(.+) lives somewhere between (.+) and (.+)",
     lambda y, x, z: ([x, y, z], lambda p: min(p[x], p[z]) < p[y] < max(p[x], p[z]))),
    (r"(.+) is either (.+) or (.+)", lambda x, y, z: ([x, y, z], lambda p: p[x] in (p[y], p[z]))),
    (r"(.+) is not (.+)", lambda x, y: ([x, y], lambda p: p[x] != p[y])),
    (r"(.+) is (.+)", lambda x, y: ([x, y], lambda p: p[x] == p[y])),
]
clues = []
for m in re.finditer(r"^\d+\. (.+)\.$", PROMPT, re.M):
    for form, make in FORMS:
        parts = re.fullmatch(form, m.group(1))
        if parts:
            args = [g if g in WORDS or g.isdigit() else who(g) for g in parts.groups()]
            clues.append(make(*args))
            break
    else:
        raise SystemExit("cannot read clue: " + m.group(1))

variables = [(a, v) for a in attrs for v in attrs[a]]
order, placed = [], set()
while len(order) < len(variables):
    def weight(x):
        linked = sum(1 for vs, _ in clues if x in vs and placed & set(vs))
        return (linked, sum(1 for vs, _ in clues if x in vs))
    best = max((x for x in variables if x not in placed), key=weight)
    order.append(best)
    placed.add(best)
step = {x: i for i, x in enumerate(order)}
due = [[] for _ in order]
for vs, test in clues:
    due[max(step[x] for x in vs)].append(test)
house, used = {}, {a: set() for a in attrs}

def search(i):
    if i == len(order):
        at = {a: {house[(a, v)]: v for v in attrs[a]} for a in attrs}
        print(json.dumps({at["name"][h]: dict({"house": h}, **{a: at[a][h] for a in attrs if a != "name"})
                          for h in range(1, n + 1)}))
        return
    x = order[i]
    for h in range(1, n + 1):
        if h not in used[x[0]]:
            house[x] = h
            if all(test(house) for test in due[i]):
                used[x[0]].add(h)
                search(i + 1)
                used[x[0]].discard(h)
    house.pop(x, None)

search(0)
'''


def solver_source(prompt: str) -> str:
    return SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip()


# ------------------------------------------------------------------------------------------ replies

def _lines(answer: dict, attributes: list[str]) -> str:
    return "\n".join(f"{name}: house {row['house']}, " + ", ".join(row[a] for a in attributes[1:])
                     for name, row in sorted(answer.items(), key=lambda kv: kv[1]["house"]))


def _table(answer: dict, attributes: list[str]) -> str:
    head = "| Name | House | " + " | ".join(a.capitalize() for a in attributes[1:]) + " |"
    rule = "|" + "---|" * (len(attributes) + 1)
    rows = [f"| **{name}** | {row['house']} | " + " | ".join(row[a] for a in attributes[1:]) + " |"
            for name, row in sorted(answer.items(), key=lambda kv: kv[1]["house"])]
    return "\n".join([head, rule, *rows])


def _replies(answer: dict, attributes: list[str], rng: random.Random, index: int) -> tuple[str, list[str]]:
    by_house = sorted(answer, key=lambda name: answer[name]["house"])
    first = by_house[0]
    working = (f"Combining the clues step by step, {first} must be in house 1, and the rest follows "
               "clue by clue; every clue checks out against the grid below.\n\n")
    reference = working + (_table(answer, attributes) if index % 2 else
                           "**Final answer**\n\n" + _lines(answer, attributes))
    # a near miss: two neighbours swap one attribute
    attr = attributes[1 + rng.randrange(len(attributes) - 1)]
    left, right = by_house[1], by_house[2]
    near = {k: dict(v) for k, v in answer.items()}
    near[left][attr], near[right][attr] = answer[right][attr], answer[left][attr]
    # a hedge: one person's house given as two candidates
    hedge = _lines(answer, attributes).replace(f"{left}: house {answer[left]['house']},",
                                               f"{left}: house {answer[left]['house']} or "
                                               f"{answer[right]['house']},")
    every = "\n".join(f"{name}: house " + " or ".join(str(h) for h in range(1, len(answer) + 1)) + ", "
                      + ", ".join(" or ".join(sorted({answer[k][a] for k in answer})) for a in attributes[1:])
                      for name in answer)
    wrong = [
        _lines(near, attributes),
        hedge,
        "I'm sorry, but these clues do not determine a unique arrangement, so I cannot give one.",
        every,
        f"The answer is {first}.",
    ]
    return reference, wrong


# ------------------------------------------------------------------------------------------ cases

def _case(index: int, rng: random.Random, n: int, extra: int, difficulty: str) -> dict:
    attributes = ["name", *list(POOLS)[:extra]]
    values = [rng.sample(NAMES, n)] + [rng.sample(POOLS[a], n) for a in attributes[1:]]
    house, clues = _puzzle(rng, n, len(attributes))
    answer = {}
    for i, name in enumerate(values[0]):
        row = {"house": house[i]}
        for a in range(1, len(attributes)):
            row[attributes[a]] = values[a][house[a * n:(a + 1) * n].index(house[i])]
        answer[name] = row
    prompt = _prompt(n, attributes, values, clues)
    kinds = len({c[0] for c in clues})
    reference, wrong = _replies(answer, attributes, rng, index)
    space = f"({n}!)^{len(attributes)}"
    return {
        "id": f"{FAMILY}-{index:02d}",
        "family": FAMILY,
        "difficulty": difficulty,
        "title": f"Logic grid: {n} people, {len(attributes)} attributes, {len(clues)} clues",
        "prompt": prompt,
        "max_tokens": 32768 if difficulty == "hard" else 16384,
        "grader": {"type": "mapping", "answer": answer},
        "notes": (f"{n} people x {len(attributes)} attributes (house, {', '.join(attributes[1:])}): {space} "
                  f"candidate grids, {len(clues)} clues of {kinds} kinds, each one necessary (removing any "
                  "leaves several solutions), at most one placing a person in a given house. Most clues are "
                  "relational (left of, next door, a gap, between, either/or), so values must be placed by "
                  "chained elimination over many steps; a single slip in one row propagates. Graded on all "
                  f"{n * len(attributes)} cells."),
        "verify": {"solver": solver_source(prompt), "reference": reference, "wrong": wrong},
    }


# Hardness facts (steps, search, traps) per shape: one elimination step per clue; the candidates are the grids
# before any clue.
HARDNESS = [(16, 100000000000, 2), (16, 100000000000, 2), (18, 100000000000000, 2), (18, 100000000000000, 2), (22,
            1000000000000000000, 2), (22, 1000000000000000000, 2), (22, 1000000000000000000, 2), (22,
            1000000000000000000, 2), (26, 1000000000000000000, 2), (20, 100000000000000, 2)]


def cases(seed: int) -> list[dict]:
    rng = random.Random(f"{FAMILY}:{seed}")
    out = [_case(i, rng, n, extra, difficulty) for i, (n, extra, difficulty) in enumerate(SIZES, 1)]
    for case, facts in zip(out, HARDNESS, strict=True):
        declare(case, *facts)
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
