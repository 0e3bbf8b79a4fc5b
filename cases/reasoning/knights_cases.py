"""Knights, knaves and spies: generated island puzzles with exactly one consistent assignment.

The generator draws the hidden kinds, then gives every inhabitant one or two statements that are
true for a knight and false for a knave (a spy's may go either way): about one other's kind, two
being alike or different, exact and minimum counts over a group (which may include the speaker),
the parity of a count, conditionals, disjunctions and conjunctions. It redraws statements until an
enumeration of all 2^n assignments (n * 2^(n-1) with one spy) leaves exactly one.

`verify.solver` re-derives the answer from the prompt text alone: it parses each quoted statement
with its own grammar (a rendering slip in the generator shows) and enumerates every assignment,
printing each consistent one as a JSON line; verify requires exactly one.
"""

from __future__ import annotations

import json
import random
from itertools import product

from pytest_crucible.suite.tiers import declare

FAMILY = "RE-knights"
NAMES = ["Abel", "Brisa", "Corin", "Delia", "Emrys", "Fenna", "Gideon", "Halle", "Isolde", "Joaquin",
         "Keziah", "Lorcan", "Mireille", "Nestor", "Oriel", "Pallas", "Quilla", "Rafferty", "Sabine",
         "Tobiah"]
NUMBER = {0: "zero", 1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
          9: "nine"}
# (inhabitants, statements each, with a spy, difficulty) for each case of a seed
SHAPES = [(6, 1, False, "medium"), (7, 1, False, "medium"), (8, 1, False, "hard"), (9, 1, False, "hard"),
          (9, 1, False, "hard"), (7, 2, False, "hard"), (8, 2, False, "hard"), (7, 1, True, "hard"),
          (8, 1, True, "hard")]
KINDS = ("knight", "knave")


# ------------------------------------------------------------------------------------------ statements
# ("is", x, kind) | ("same", x, y) | ("differ", x, y) | ("exactly", k, group, kind)
# | ("atleast", k, group, kind) | ("parity", "even"|"odd", group, kind) | ("if", x, kx, y, ky)
# | ("or", x, kx, y, ky) | ("both", x, y, kind); people are indices, groups tuples of indices

def _true(s: tuple, kind: list[str]) -> bool:
    t = s[0]
    if t == "is":
        return kind[s[1]] == s[2]
    if t == "same":
        return kind[s[1]] == kind[s[2]]
    if t == "differ":
        return kind[s[1]] != kind[s[2]]
    if t in ("exactly", "atleast", "parity"):
        count = sum(kind[p] == s[3] for p in s[2])
        if t == "exactly":
            return count == s[1]
        if t == "atleast":
            return count >= s[1]
        return count % 2 == (0 if s[1] == "even" else 1)
    if t == "if":
        return kind[s[1]] != s[2] or kind[s[3]] == s[4]
    if t == "or":
        return kind[s[1]] == s[2] or kind[s[3]] == s[4]
    return kind[s[1]] == s[3] and kind[s[2]] == s[3]  # both


def _random_statement(rng: random.Random, speaker: int, n: int, spy: bool) -> tuple:
    others = [p for p in range(n) if p != speaker]
    t = rng.choices(["is", "same", "differ", "exactly", "atleast", "parity", "if", "or", "both"],
                    [2, 2, 2, 3, 2, 2, 3, 2, 1])[0]
    x, y = rng.sample(others, 2)
    kinds = KINDS + (("spy",) if spy else ())
    if t == "is":
        return ("is", x, rng.choice(kinds))
    if t in ("same", "differ"):
        return (t, x, y)
    if t in ("exactly", "atleast", "parity"):
        size = rng.randint(3, min(5, n))
        group = tuple(sorted(rng.sample(range(n), size)))  # may include the speaker
        kind = rng.choice(KINDS)
        if t == "exactly":
            return ("exactly", rng.randint(1, size - 1), group, kind)
        if t == "atleast":
            return ("atleast", rng.randint(2, size - 1), group, kind)
        return ("parity", rng.choice(["even", "odd"]), group, kind)
    if t in ("if", "or"):
        return (t, x, rng.choice(KINDS), y, rng.choice(KINDS))
    return ("both", x, y, rng.choice(KINDS))


def _assignments(n: int, spy: bool) -> list[list[str]]:
    out = []
    for kinds in product(KINDS, repeat=n):
        if not spy:
            out.append(list(kinds))
            continue
        for p in range(n):  # exactly one spy: it replaces whatever kind p drew
            if kinds[p] == "knight":
                out.append([*kinds[:p], "spy", *kinds[p + 1:]])
    return out


class _Island:
    """Every assignment of kinds, and per statement the set of assignments where it is true (as the
    bits of an int), so checking a puzzle is a few big-integer ANDs."""

    def __init__(self, n: int, spy: bool):
        self.every = _assignments(n, spy)
        self.full = (1 << len(self.every)) - 1
        self.holds = {k: [self._bits(lambda a, p=p, k=k: a[p] == k) for p in range(n)]
                      for k in ("knight", "knave", "spy")}

    def _bits(self, test) -> int:
        return sum(1 << i for i, a in enumerate(self.every) if test(a))

    def truth(self, s: tuple) -> int:
        """The same sets as _true, built from the per-person sets with bit operations."""
        h, t = self.holds, s[0]
        if t == "is":
            return h[s[2]][s[1]]
        if t in ("same", "differ"):
            same = 0
            for k in h:
                same |= h[k][s[1]] & h[k][s[2]]
            return same if t == "same" else self.full & ~same
        if t in ("exactly", "atleast", "parity"):
            counts = [self.full]  # counts[j]: assignments where exactly j of the group so far are the kind
            for p in s[2]:
                is_kind = h[s[3]][p]
                counts = [(c & ~is_kind) | (counts[j - 1] & is_kind if j else 0) for j, c in
                          enumerate([*counts, 0])]
            if t == "exactly":
                return counts[s[1]]
            wanted = range(s[1], len(counts)) if t == "atleast" else range(s[1] == "odd", len(counts), 2)
            bits = 0
            for j in wanted:
                bits |= counts[j]
            return bits
        if t == "if":
            return (self.full & ~h[s[2]][s[1]]) | h[s[4]][s[3]]
        if t == "or":
            return h[s[2]][s[1]] | h[s[4]][s[3]]
        return h[s[3]][s[1]] & h[s[3]][s[2]]  # both

    def consistent(self, truths: list[list[int]]) -> int:
        """Bits of the assignments where every knight's statements are true and every knave's false."""
        fits = self.full
        for p, ts in enumerate(truths):
            all_true = all_false = self.full
            for t in ts:
                all_true &= t
                all_false &= ~t
            fits &= self.holds["spy"][p] | self.holds["knight"][p] & all_true | self.holds["knave"][p] & all_false
        return fits


def _puzzle(rng: random.Random, n: int, each: int, spy: bool) -> tuple[list[str], list[list[tuple]]]:
    island = _Island(n, spy)
    while True:
        kind = [rng.choice(KINDS) for _ in range(n)]
        if spy:
            kind[rng.randrange(n)] = "spy"
        if not 2 <= kind.count("knight") <= n - 2:
            continue

        def fitting(speaker: int, taken: list[int]) -> tuple[tuple, int]:
            """A statement that fits the speaker's kind and says something no other statement says."""
            while True:
                s = _random_statement(rng, speaker, n, spy)
                if kind[speaker] == "spy" or _true(s, kind) == (kind[speaker] == "knight"):
                    truth = island.truth(s)
                    if truth not in taken and island.full & ~truth not in taken:
                        return s, truth

        said: list[list[tuple]] = [[] for _ in range(n)]
        truths: list[list[int]] = [[] for _ in range(n)]
        for p in range(n):
            for _ in range(each):
                s, truth = fitting(p, [t for ts in truths for t in ts])
                said[p].append(s)
                truths[p].append(truth)
        for _ in range(60 * n):
            fits = island.consistent(truths)
            if fits.bit_count() == 1:
                break
            # redraw a statement of someone two of the surviving assignments disagree about
            first = (fits & -fits).bit_length() - 1
            rest = fits ^ (1 << first)
            a, b = island.every[first], island.every[(rest & -rest).bit_length() - 1]
            speaker = rng.choice([p for p in range(n) if a[p] != b[p]])
            slot = rng.randrange(each)
            others = [t for q, ts in enumerate(truths) for i, t in enumerate(ts) if (q, i) != (speaker, slot)]
            said[speaker][slot], truths[speaker][slot] = fitting(speaker, others)
        else:
            continue
        if sum(s[0] in ("exactly", "atleast", "parity", "if", "or") for ss in said for s in ss) >= n // 2:
            return kind, said


# ------------------------------------------------------------------------------------------ text

def _group(group: tuple, speaker: int, names: list[str]) -> str:
    words = ["I" if p == speaker else names[p] for p in group]
    return ", ".join(words[:-1]) + " and " + words[-1]


def _sentence(s: tuple, speaker: int, names: list[str]) -> str:
    t, who = s[0], names
    if t == "is":
        return f"{who[s[1]]} is a {s[2]}."
    if t == "same":
        return f"{who[s[1]]} and {who[s[2]]} are of the same kind."
    if t == "differ":
        return f"{who[s[1]]} and {who[s[2]]} are of different kinds."
    if t == "exactly":
        noun = f"is a {s[3]}" if s[1] == 1 else f"are {s[3]}s"
        return f"Exactly {NUMBER[s[1]]} of {_group(s[2], speaker, names)} {noun}."
    if t == "atleast":
        return f"At least {NUMBER[s[1]]} of {_group(s[2], speaker, names)} are {s[3]}s."
    if t == "parity":
        return f"An {s[1]} number of {_group(s[2], speaker, names)} are {s[3]}s."
    if t == "if":
        return f"If {who[s[1]]} is a {s[2]}, then {who[s[3]]} is a {s[4]}."
    if t == "or":
        return f"{who[s[1]]} is a {s[2]} or {who[s[3]]} is a {s[4]}, or both."
    return f"Both {who[s[1]]} and {who[s[2]]} are {s[3]}s."


def _prompt(names: list[str], said: list[list[tuple]], spy: bool) -> str:
    n = len(names)
    rules = ("Every inhabitant of an island is a knight or a knave. Knights only make true statements; "
             "knaves only make false ones.")
    if spy:
        rules = ("Every inhabitant of an island is a knight, a knave or a spy. Knights only make true "
                 "statements, knaves only make false ones, and a spy's statements may be true or false. "
                 "Exactly one of the people below is a spy.")
    lines = "\n".join(f"- {names[p]}: \"{_sentence(s, p, names)}\"" for p in range(n) for s in said[p])
    form = "`Name: knight`, `Name: knave` or `Name: spy`" if spy else "`Name: knight` or `Name: knave`"
    return (
        f"{rules}\n\nYou meet {NUMBER[n]} inhabitants: {', '.join(names)}. They say the following "
        f"(\"I\" is the speaker; \"A or B\" means at least one of the two; zero counts as an even "
        f"number; \"same kind\" means both are knights or both knaves{' or both spies' if spy else ''}):"
        f"\n\n{lines}\n\n"
        "Exactly one assignment of kinds is consistent with everything said. Work it out, then end "
        f"your reply with one line per inhabitant, in the form {form}."
    )


# ------------------------------------------------------------------------------------------ solver

SOLVER = r'''
import json, re
from itertools import product
PROMPT = __PROMPT__
names = re.search(r"You meet \w+ inhabitants: (.+?)\. They say", PROMPT).group(1).split(", ")
spy = "Exactly one of the people below is a spy" in PROMPT
NUM = {w: i for i, w in enumerate("zero one two three four five six seven eight nine".split())}

def person(word, speaker):
    return speaker if word in ("I", "me") else names.index(word)

def group(text, speaker):
    return [person(w, speaker) for w in re.split(r", | and ", text)]

def kind_word(w):
    return w[:-1] if w.endswith("s") else w

def reader(speaker, text):
    text = text.rstrip(".")
    m = re.fullmatch(r"(\w+) is an? (\w+)", text)
    if m:
        x, k = person(m.group(1), speaker), m.group(2)
        return lambda a: a[x] == k
    m = re.fullmatch(r"(\w+) and (\w+) are of (the same|different) kinds?", text)
    if m:
        x, y, same = person(m.group(1), speaker), person(m.group(2), speaker), m.group(3) == "the same"
        return lambda a: (a[x] == a[y]) == same
    m = re.fullmatch(r"Exactly (\w+) of (.+) (?:is an?|are) (\w+)", text)
    if m:
        k, g, kind = NUM[m.group(1)], group(m.group(2), speaker), kind_word(m.group(3))
        return lambda a: sum(a[p] == kind for p in g) == k
    m = re.fullmatch(r"At least (\w+) of (.+) are (\w+)", text)
    if m:
        k, g, kind = NUM[m.group(1)], group(m.group(2), speaker), kind_word(m.group(3))
        return lambda a: sum(a[p] == kind for p in g) >= k
    m = re.fullmatch(r"An (even|odd) number of (.+) are (\w+)", text)
    if m:
        rest, g, kind = (0 if m.group(1) == "even" else 1), group(m.group(2), speaker), kind_word(m.group(3))
        return lambda a: sum(a[p] == kind for p in g) % 2 == rest
    m = re.fullmatch(r"If (\w+) is an? (\w+), then (\w+) is an? (\w+)", text)
    if m:
        x, kx, y, ky = person(m.group(1), speaker), m.group(2), person(m.group(3), speaker), m.group(4)
        return lambda a: a[x] != kx or a[y] == ky
    m = re.fullmatch(r"(\w+) is an? (\w+) or (\w+) is an? (\w+), or both", text)
    if m:
        x, kx, y, ky = person(m.group(1), speaker), m.group(2), person(m.group(3), speaker), m.group(4)
        return lambda a: a[x] == kx or a[y] == ky
    m = re.fullmatch(r"Both (\w+) and (\w+) are (\w+)", text)
    if m:
        x, y, kind = person(m.group(1), speaker), person(m.group(2), speaker), kind_word(m.group(3))
        return lambda a: a[x] == kind and a[y] == kind
    raise SystemExit("cannot read: " + text)

said = [(names.index(m.group(1)), reader(names.index(m.group(1)), m.group(2)))
        for m in re.finditer(r'^- (\w+): "(.+)"$', PROMPT, re.M)]
kinds = ["knight", "knave"] + (["spy"] if spy else [])
for a in product(kinds, repeat=len(names)):
    if spy and a.count("spy") != 1:
        continue
    if all(a[p] == "spy" or test(a) == (a[p] == "knight") for p, test in said):
        print(json.dumps(dict(zip(names, a))))
'''


def solver_source(prompt: str) -> str:
    return SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip()


# ------------------------------------------------------------------------------------------ cases

def _case(index: int, rng: random.Random, n: int, each: int, spy: bool, difficulty: str) -> dict:
    names = rng.sample(NAMES, n)
    kind, said = _puzzle(rng, n, each, spy)
    answer = dict(zip(names, kind))
    prompt = _prompt(names, said, spy)
    flipped = next(p for p in range(n) if kind[p] != "spy")
    near = dict(answer)
    near[names[flipped]] = "knave" if kind[flipped] == "knight" else "knight"
    lines = "\n".join(f"{name}: {k}" for name, k in answer.items())
    reference = (f"Suppose {names[0]} were a {'knave' if kind[0] == 'knight' else 'knight'}; following the "
                 "statements through leads to a contradiction, so the only consistent assignment is:\n\n"
                 + "\n".join(f"- **{name}**: {k.capitalize()}" for name, k in answer.items()))
    kinds_listed = "knight or knave or spy" if spy else "knight or knave"
    wrong = [
        "\n".join(f"{name}: {k}" for name, k in near.items()),
        lines.replace(f"{names[flipped]}: {kind[flipped]}", f"{names[flipped]}: {kind[flipped]} or "
                      f"{near[names[flipped]]}"),
        "I can't solve this: the statements are contradictory, so no assignment is consistent.",
        "\n".join(f"{name}: {kinds_listed}" for name in names),
        "\n".join(f"{name}: knight" for name in names),
        "Answer: 7",
    ]
    space = f"{n} * 2^{n - 1} = {n * 2 ** (n - 1)}" if spy else f"2^{n} = {2 ** n}"
    statements = sum(len(s) for s in said)
    extra = (" One inhabitant is a spy whose statements carry no information, so every case split must "
             "also place the spy." if spy else "")
    extra += " Each speaker makes two statements, both true or both false." if each == 2 else ""
    return {
        "id": f"{FAMILY}-{index:02d}",
        "family": FAMILY,
        "difficulty": difficulty,
        "title": f"Knights and knaves{' and a spy' if spy else ''}: {n} inhabitants, {statements} statements",
        "prompt": prompt,
        "max_tokens": 32768 if difficulty == "hard" else 16384,
        "grader": {"type": "mapping", "answer": answer},
        "notes": (f"{space} candidate assignments and exactly one consistent. Statements count over groups "
                  "that include the speaker, state parities and conditionals, so a speaker's kind changes "
                  "what every one of their statements asserts; solving needs nested case splits and "
                  "careful counting, and a reply that flips one inhabitant fails." + extra),
        "verify": {"solver": solver_source(prompt), "reference": reference, "wrong": wrong},
    }


# Hardness facts (steps, search, traps) per shape: one step per statement to weigh in the case split; the
# candidates are the kind assignments.
HARDNESS = [(6, 64, 2), (7, 128, 2), (8, 256, 2), (9, 512, 2), (9, 512, 2), (14, 128, 2), (16, 256, 2), (8, 448,
            2), (9, 1024, 2)]


def cases(seed: int) -> list[dict]:
    rng = random.Random(f"{FAMILY}:{seed}")
    out = [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
    for case, facts in zip(out, HARDNESS, strict=True):
        declare(case, *facts)
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
