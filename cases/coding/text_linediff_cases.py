"""CO-text-linediff: a shortest line diff (fewest deleted plus inserted lines) of two long files.

Any shortest edit script passes: the tests rebuild both files from the script and compare its number of
edits with the minimum, which the generator gets from a longest-common-subsequence table over the small
seeded files (the reference walks Myers' diagonals instead). The perf files are unique lines with known
edits, so their minimum is known by construction.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-text-linediff"

# Hardness (README "How tiers are assigned", coding): the furthest-reaching point per diagonal for each
# edit count, snakes along equal lines, keeping each round's frontier, the walk back, the kept/edited
# lines in order, empty files and repeated lines: 7 steps; 20,000-line files rule out the quadratic
# table. Traps: the wrong solutions (difflib's matcher, prefix/suffix trimming, a greedy look-ahead,
# the quadratic table).
HARDNESS = {"steps": 7, "search": 20000, "traps": 4}

PROMPT = """
Write a Python function `line_diff(a: list[str], b: list[str]) -> list[str]` that returns a shortest
edit script turning the lines `a` into the lines `b`. Each entry of the script is one line with a
two-character prefix:

- `"  " + line`: a line kept (it is in both files),
- `"- " + line`: a line of `a` deleted,
- `"+ " + line`: a line of `b` inserted.

Reading the script from the top, the kept and deleted lines are exactly `a` in order, and the kept and
inserted lines are exactly `b` in order. The number of deleted plus inserted lines must be the smallest
possible. When several shortest scripts exist, any of them is accepted.

The files have up to 20,000 lines each and differ in at most a few hundred lines; the function must
finish within a couple of seconds.

Example:

    line_diff(["x", "a", "b"], ["a", "b", "y"]) == ["- x", "  a", "  b", "+ y"]
"""

SOLUTION = '''
def line_diff(a, b):
    n, m = len(a), len(b)
    v = {1: 0}
    trace = []
    for d in range(n + m + 1):
        trace.append(dict(v))
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[k - 1] < v[k + 1]):
                x = v[k + 1]            # a step down: an insertion
            else:
                x = v[k - 1] + 1        # a step right: a deletion
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            v[k] = x
            if x >= n and y >= m:
                return _walk_back(a, b, trace)
    return []


def _walk_back(a, b, trace):
    script = []
    x, y = len(a), len(b)
    for d in range(len(trace) - 1, -1, -1):
        v = trace[d]
        k = x - y
        if k == -d or (k != d and v[k - 1] < v[k + 1]):
            pk = k + 1
        else:
            pk = k - 1
        px = v[pk]
        py = px - pk
        while x > px and y > py:
            script.append("  " + a[x - 1])
            x -= 1
            y -= 1
        if d > 0:
            if x == px:
                script.append("+ " + b[y - 1])
            else:
                script.append("- " + a[x - 1])
        x, y = px, py
    script.reverse()
    return script
'''

WRONG = [
    # difflib's matcher: longest matching blocks first, not a longest common subsequence
    """
    import difflib

    def line_diff(a, b):
        out = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes():
            if tag == "equal":
                out += ["  " + s for s in a[i1:i2]]
            else:
                out += ["- " + s for s in a[i1:i2]]
                out += ["+ " + s for s in b[j1:j2]]
        return out
    """,
    # common prefix and suffix kept, the whole middle replaced
    """
    def line_diff(a, b):
        i = 0
        while i < len(a) and i < len(b) and a[i] == b[i]:
            i += 1
        j = 0
        while j < len(a) - i and j < len(b) - i and a[-1 - j] == b[-1 - j]:
            j += 1
        middle_a, middle_b = a[i:len(a) - j], b[i:len(b) - j]
        return (["  " + s for s in a[:i]] + ["- " + s for s in middle_a] + ["+ " + s for s in middle_b]
                + ["  " + s for s in a[len(a) - j:]])
    """,
    # greedy: insert lines of b until the next line of a comes up, else delete it
    """
    def line_diff(a, b):
        out, i, j = [], 0, 0
        while i < len(a) and j < len(b):
            if a[i] == b[j]:
                out.append("  " + a[i])
                i += 1
                j += 1
            elif a[i] in b[j:]:
                out.append("+ " + b[j])
                j += 1
            else:
                out.append("- " + a[i])
                i += 1
        return out + ["- " + s for s in a[i:]] + ["+ " + s for s in b[j:]]
    """,
    # the textbook longest-common-subsequence table: right, but (n + 1) x (m + 1) cells
    """
    def line_diff(a, b):
        n, m = len(a), len(b)
        table = [[0] * (m + 1) for _ in range(n + 1)]
        for i in range(n - 1, -1, -1):
            row, below = table[i], table[i + 1]
            for j in range(m - 1, -1, -1):
                row[j] = below[j + 1] + 1 if a[i] == b[j] else max(below[j], row[j + 1])
        out, i, j = [], 0, 0
        while i < n and j < m:
            if a[i] == b[j]:
                out.append("  " + a[i])
                i += 1
                j += 1
            elif table[i + 1][j] >= table[i][j + 1]:
                out.append("- " + a[i])
                i += 1
            else:
                out.append("+ " + b[j])
                j += 1
        return out + ["- " + s for s in a[i:]] + ["+ " + s for s in b[j:]]
    """,
    # the walk back's tie test differs from the forward pass's: the path it rebuilds is not the one found
    mutate(SOLUTION, ("        if k == -d or (k != d and v[k - 1] < v[k + 1]):\n            pk = k + 1",
                      "        if k == -d or (k != d and v[k - 1] <= v[k + 1]):\n            pk = k + 1")),
]

TESTS = '''
def rebuild(script):
    old, new, edits = [], [], 0
    for entry in script:
        tag, line = entry[:2], entry[2:]
        assert tag in ("  ", "- ", "+ "), entry
        if tag != "+ ":
            old.append(line)
        if tag != "- ":
            new.append(line)
        edits += tag != "  "
    return old, new, edits

def check(a, b, want):
    old, new, edits = rebuild(line_diff(list(a), list(b)))
    assert old == a and new == b, (a, b)
    assert edits == want, (a, b, edits, want)

def test_example_and_edges():
    check(["x", "a", "b"], ["a", "b", "y"], 2)
    check([], [], 0)
    check([], ["p", "q"], 2)
    check(["p", "q"], [], 2)
    check(["same", "", "- x"], ["same", "", "- x"], 0)
    check(["", "+ a", "  b"], ["  b", "", "+ a"], 2)

def test_blocks_that_trick_matchers():
    check(list("abcdefghij") + list("XYZ"), list("XYZ") + list("abcdefghij"), 6)
    check(list("aXbXcXdXeX"), list("abcdeXXXXX"), 8)

def test_seeded():
    for a, b, want in SEEDED:
        check(a, b, want)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
a = ["line %d: %x" % (i, rng.getrandbits(40)) for i in range({n})]
b = list(a)
for i in sorted(rng.sample(range(len(b)), {dels}), reverse=True):
    del b[i]
for k in range({ins}):
    b.insert(rng.randrange(len(b) + 1), "new %d" % k)
args = (a, b)
'''
PERF_CHECK = '''
old, new, edits = [], [], 0
for entry in result:
    if entry[:2] != "+ ":
        old.append(entry[2:])
    if entry[:2] != "- ":
        new.append(entry[2:])
    edits += entry[:2] != "  "
assert old == args[0] and new == args[1]
assert edits == {edits}
'''


def _shortest(a, b) -> int:
    """Deleted plus inserted lines of a shortest script: the lengths minus twice a longest common
    subsequence, by the table."""
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n):
        for j in range(m):
            table[i + 1][j + 1] = table[i][j] + 1 if a[i] == b[j] else max(table[i][j + 1], table[i + 1][j])
    return n + m - 2 * table[n][m]


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(40):
        alphabet = [chr(97 + i) for i in range(rng.randrange(2, 7))] + [""]
        a = [rng.choice(alphabet) for _ in range(rng.randrange(0, 25))]
        b = list(a)
        for _ in range(rng.randrange(0, 8)):
            if b and rng.random() < 0.5:
                del b[rng.randrange(len(b))]
            else:
                b.insert(rng.randrange(len(b) + 1), rng.choice(alphabet))
        if rng.random() < 0.3:
            b = [rng.choice(alphabet) for _ in range(rng.randrange(0, 25))]
        seeded.append((a, b, _shortest(a, b)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Shortest line diff of 20,000-line files",
        prompt=PROMPT, entry_point="line_diff", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "files-20k", "input": PERF_INPUT.format(seed=51, n=20000, dels=120, ins=90),
               "check": PERF_CHECK.format(edits=210)},
              {"name": "files-16k", "input": PERF_INPUT.format(seed=52, n=16000, dels=40, ins=160),
               "check": PERF_CHECK.format(edits=200)}],
        notes="""The textbook answer is the longest-common-subsequence table, which is right and needs
        4 x 10^8 cells on the perf files; the reach of a strong model is difflib (whose matcher takes
        the longest block first and is not shortest), trimming a common prefix and suffix, or a
        greedy look-ahead, all of which the hidden pairs with repeated lines catch. Passing needs an
        O((n + m) D) method, Myers' diagonal frontier with a walk back that makes exactly the forward
        pass's choices, written from memory without an off-by-one at the d = 0 round or at the
        edges of the frontier.""",
    )]
