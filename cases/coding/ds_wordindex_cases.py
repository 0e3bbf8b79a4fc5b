"""CO-ds-wordindex: a multiset of words that counts the words matching wildcard patterns fast.

The seeded scripts' expected counts come from a list of the stored words and `re.fullmatch` on each
(the pattern turned into a regular expression); the reference walks a trie over (node, pattern
position) states and sums the end counts of the distinct nodes reached. The perf script is fixed and
pinned by a checksum.
"""

import re

from pytest_crucible import code_case, family_rng, mutate, script_tests

FAMILY = "CO-ds-wordindex"

# Hardness (README "How tiers are assigned", coding): a trie with end counts, removal of one copy,
# states (node, position) with '*' as empty-or-more, each matching word counted once however many
# ways it matches: 4 steps; 50,000 words against 1,000 patterns. Traps: the wrong solutions.
HARDNESS = {"steps": 4, "search": 50000, "traps": 5}

PROMPT = """
Write a Python class `WordIndex` holding a multiset of words (lowercase letters `a-z`, at least one).
`WordIndex()` starts empty; its methods:

- `add(word)`: store one more copy of the word; returns None.
- `remove(word)`: remove one copy; returns True, or False (changing nothing) when the word is not
  stored.
- `count(pattern)`: how many stored words (each copy counts) match the pattern. A pattern is made of
  letters, `?` (exactly one letter) and `*` (any run of letters, possibly empty); it must match the
  whole word. A word counts once however many ways it matches.

The index holds up to 100,000 words and is asked thousands of patterns that begin with a few letters; the
calls must finish within a couple of seconds, so a count may not test every stored word.

Example:

    w = WordIndex()
    for word in ["tea", "ten", "tea", "tender", "ted"]:
        w.add(word)
    w.count("te?")       # 4
    w.count("te*")       # 5
    w.count("t*e*")      # 5
    w.remove("tea")      # True
    w.count("*a")        # 1
"""

SOLUTION = '''
class WordIndex:
    def __init__(self):
        self.children = [{}]                   # node -> {letter: node}
        self.ends = [0]                        # copies of the word ending at each node

    def _node(self, word, create):
        node = 0
        for ch in word:
            nxt = self.children[node].get(ch)
            if nxt is None:
                if not create:
                    return None
                nxt = len(self.children)
                self.children.append({})
                self.ends.append(0)
                self.children[node][ch] = nxt
            node = nxt
        return node

    def add(self, word):
        self.ends[self._node(word, True)] += 1

    def remove(self, word):
        node = self._node(word, False)
        if node is None or self.ends[node] == 0:
            return False
        self.ends[node] -= 1
        return True

    def count(self, pattern):
        p = []
        for ch in pattern:                     # runs of '*' are one '*'
            if not (ch == "*" and p and p[-1] == "*"):
                p.append(ch)
        seen, stack, accepted = set(), [(0, 0)], set()
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            node, i = state
            if i == len(p):
                accepted.add(node)
                continue
            ch = p[i]
            if ch == "*":
                stack.append((node, i + 1))
                stack.extend((child, i) for child in self.children[node].values())
            elif ch == "?":
                stack.extend((child, i + 1) for child in self.children[node].values())
            elif ch in self.children[node]:
                stack.append((self.children[node][ch], i + 1))
        return sum(self.ends[node] for node in accepted)
'''

WRONG = [
    # a word that matches in two ways is counted twice: every path to the end adds its copies
    mutate(SOLUTION, ("        seen, stack, accepted = set(), [(0, 0)], set()",
                      "        seen, stack, accepted = set(), [(0, 0)], []"),
           ("                accepted.add(node)", "                accepted.append(node)"),
           ('''            if state in seen:
                continue
            seen.add(state)
''', "")),
    # '*' needs at least one letter
    mutate(SOLUTION, ('''                stack.append((node, i + 1))
                stack.extend((child, i) for child in self.children[node].values())''',
                      '''                stack.extend((child, i) for child in self.children[node].values())
                stack.extend((child, i + 1) for child in self.children[node].values())''')),
    # removing a word that is not stored still reports success
    mutate(SOLUTION, ('''        if node is None or self.ends[node] == 0:
            return False
        self.ends[node] -= 1
        return True''', '''        if node is not None and self.ends[node] > 0:
            self.ends[node] -= 1
        return True''')),
    # a stored word counted once, however many copies it has
    mutate(SOLUTION, ("        return sum(self.ends[node] for node in accepted)",
                      "        return sum(1 for node in accepted if self.ends[node])")),
    # right, but every count tests every stored word
    """
    import fnmatch
    from collections import Counter

    class WordIndex:
        def __init__(self):
            self.words = Counter()

        def add(self, word):
            self.words[word] += 1

        def remove(self, word):
            if self.words[word] == 0:
                return False
            self.words[word] -= 1
            return True

        def count(self, pattern):
            return sum(n for w, n in self.words.items() if n and fnmatch.fnmatchcase(w, pattern))
    """,
]


class _Model:
    def __init__(self):
        self.words = []

    def add(self, word):
        self.words.append(word)

    def remove(self, word):
        if word in self.words:
            self.words.remove(word)
            return True
        return False

    def count(self, pattern):
        regex = re.compile("".join("[a-z]" if c == "?" else "[a-z]*" if c == "*" else c for c in pattern))
        return sum(1 for w in self.words if regex.fullmatch(w))


def _word(rng):
    return "".join(rng.choice("aabt") for _ in range(rng.randrange(1, 6)))


def _pattern(rng):
    return "".join(rng.choice("ab??**t") for _ in range(rng.randrange(1, 6)))


def _script(rng):
    model, steps = _Model(), []
    for _ in range(rng.randrange(15, 45)):
        roll = rng.random()
        if roll < 0.45:
            word = _word(rng)
            steps.append(("add", [word], model.add(word)))
        elif roll < 0.6:
            word = rng.choice(model.words) if model.words and rng.random() < 0.6 else _word(rng)
            steps.append(("remove", [word], model.remove(word)))
        else:
            pattern = _pattern(rng)
            steps.append(("count", [pattern], model.count(pattern)))
    return [], steps


FIXED = [("add", ["tea"]), ("add", ["ten"]), ("add", ["tea"]), ("add", ["tender"]), ("add", ["ted"]),
         ("count", ["te?"]), ("count", ["te*"]), ("count", ["t*e*"]), ("remove", ["tea"]), ("count", ["*a"]),
         ("count", ["a*a*"]), ("add", ["aaa"]), ("count", ["a*a*"]), ("count", ["*a**"]), ("count", ["?"]),
         ("remove", ["zzz"]), ("remove", ["te"]), ("count", ["te"]), ("remove", ["tea"]), ("remove", ["tea"]),
         ("count", ["t??"]), ("count", ["*"])]

PERF_INPUT = '''
args = ()
'''
PERF_CHECK = '''
import random
rng = random.Random(111)
letters = "etaoinshrdlucmfw"
for _ in range(50000):
    result.add("".join(rng.choice(letters) for _ in range(rng.randrange(3, 9))))
total = 0
for q in range(1000):
    head = "".join(rng.choice(letters) for _ in range(3))
    tail = "".join(rng.choice("?*etaoin") for _ in range(rng.randrange(1, 5)))
    total += (q + 1) * result.count(head + tail)
    if q % 3 == 0:
        result.remove(head + "e")
assert total == {total}
'''


PERF_TOTAL = 290787   # the reference and the fnmatch scan agree (once, offline)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    model = _Model()
    scripts = [([], [(m, a, getattr(model, m)(*a)) for m, a in FIXED])]
    scripts += [_script(rng) for _ in range(12)]
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Word multiset counting wildcard matches through a trie",
        prompt=PROMPT, entry_point="WordIndex", what="class", tests=script_tests("WordIndex", scripts),
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "words-50k", "input": PERF_INPUT, "check": PERF_CHECK.format(total=PERF_TOTAL)}],
        notes="""Wildcard search in a trie is a known exercise (usually with '?' only, and a yes/no
        answer); counting with '*' adds the trap that a word reachable along two paths (a*a* on aaa)
        must count once, and copies must each count. A scan with fnmatch over every word is right
        and about 5 x 10^7 matches on the perf script.""",
    )]

