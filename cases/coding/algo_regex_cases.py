"""CO-algo-regex: a full-match regular expression engine that stays polynomial on any pattern.

The seeded patterns are random syntax trees written out twice, in the task's syntax and in Python's;
the expected answers come from `re.fullmatch` on short texts (where backtracking is harmless). The
reference compiles the pattern to a Thompson automaton and runs the set of live states. The perf
inputs (nested repetitions against a few thousand characters) make backtracking, Python's `re`
included, take exponential time.
"""

import re

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-regex"

# Hardness (README "How tiers are assigned", coding): precedence (alternation < concatenation <
# postfix), classes with ranges, negation and edge dashes, escapes, empty alternatives, the automaton,
# epsilon closure through nested stars, the state-set run, full match: 8 steps; texts of 3,000
# characters against nested repetitions. Traps: the wrong solutions.
HARDNESS = {"steps": 8, "search": 3000, "traps": 5}

PROMPT = r"""
Write a Python function `matches(pattern: str, text: str) -> bool` that tells whether the whole of
`text` matches `pattern`, a regular expression in this syntax:

- any character other than the special ones `\ . [ ] ( ) | * + ?` matches itself;
- `\` followed by any character matches that character literally (`\.` matches a dot, `\\` a backslash);
- `.` matches any one character;
- `[...]` matches one character from a set: single characters and ranges `x-y` (inclusive, by code
  point); a `-` first or last in the set is a literal dash; `[^...]` matches one character NOT in the
  set; inside a set, `\` escapes the next character (write `\]` for a `]`);
- `(...)` groups; `a|b` matches either side; a side may be empty: `(x|)` matches `x` or nothing;
- postfix `*` (zero or more), `+` (one or more), `?` (zero or one) apply to the item just before them;
  they can stack (`a*?` is `(a*)?`);
- precedence from loosest to tightest: `|`, then concatenation, then the postfix operators.

Patterns are always well formed (no `*` without an item, balanced parentheses and brackets). Texts are
up to 3,000 characters and patterns up to 300, and the function must stay fast on every pattern,
including nested repetitions such as `(a|aa)*b` (backtracking takes exponential time on those).

Examples:

    matches("ab*|c", "abbb") is True
    matches("ab*|c", "ac") is False
    matches("[a-c-]+x?", "c-a") is True
    matches(r"(\.|[^.])*\.", "a.b.") is True
"""

SOLUTION = r'''
def matches(pattern, text):
    machine = _Machine(pattern)
    start, ends = machine.alternation()
    final = machine.state("match")
    machine.patch(ends, final)
    current = machine.closure([start])
    for ch in text:
        step = []
        for s in current:
            kind, test = machine.kind[s], machine.test[s]
            if kind == "char" and test(ch):
                step.append(machine.out[s][0])
        current = machine.closure(step)
        if not current:
            return False
    return final in current


class _Machine:
    """Thompson's construction: each parse function returns (start state, dangling exits)."""

    def __init__(self, pattern):
        self.p, self.i = pattern, 0
        self.kind, self.test, self.out = [], [], []

    def state(self, kind, test=None):
        self.kind.append(kind)
        self.test.append(test)
        self.out.append([None, None])
        return len(self.kind) - 1

    def patch(self, ends, target):
        for s, slot in ends:
            self.out[s][slot] = target

    def closure(self, starts):
        seen, stack, live = set(), list(starts), []
        while stack:
            s = stack.pop()
            if s is None or s in seen:
                continue
            seen.add(s)
            if self.kind[s] == "split":
                stack.extend(self.out[s])
            else:
                live.append(s)
        return live

    def peek(self):
        return self.p[self.i] if self.i < len(self.p) else None

    def alternation(self):
        start, ends = self.sequence()
        while self.peek() == "|":
            self.i += 1
            other, more = self.sequence()
            split = self.state("split")
            self.out[split] = [start, other]
            start, ends = split, ends + more
        return start, ends

    def sequence(self):
        parts = []
        while self.peek() is not None and self.peek() not in "|)":
            parts.append(self.repeat())
        if not parts:
            empty = self.state("split")
            return empty, [(empty, 0)]
        start, ends = parts[0]
        for nxt_start, nxt_ends in parts[1:]:
            self.patch(ends, nxt_start)
            ends = nxt_ends
        return start, ends

    def repeat(self):
        start, ends = self.atom()
        while self.peek() is not None and self.peek() in "*+?":
            op = self.p[self.i]
            self.i += 1
            split = self.state("split")
            self.out[split][0] = start
            if op == "*":
                self.patch(ends, split)
                start, ends = split, [(split, 1)]
            elif op == "+":
                self.patch(ends, split)
                ends = [(split, 1)]
            else:
                start, ends = split, ends + [(split, 1)]
        return start, ends

    def atom(self):
        ch = self.p[self.i]
        self.i += 1
        if ch == "(":
            start, ends = self.alternation()
            self.i += 1                      # the ")"
            return start, ends
        if ch == "[":
            test = self.char_set()
        elif ch == ".":
            test = lambda c: True
        else:
            if ch == "\\":
                ch = self.p[self.i]
                self.i += 1
            test = ch.__eq__
        s = self.state("char", test)
        return s, [(s, 0)]

    def char_set(self):
        negate = self.peek() == "^"
        if negate:
            self.i += 1
        items = []                           # (character, escaped)
        while self.p[self.i] != "]":
            ch = self.p[self.i]
            if ch == "\\":
                self.i += 1
                items.append((self.p[self.i], True))
            else:
                items.append((ch, False))
            self.i += 1
        self.i += 1
        singles, ranges, k = set(), [], 0
        while k < len(items):
            ch, _ = items[k]
            if k + 2 < len(items) and items[k + 1] == ("-", False):
                ranges.append((ch, items[k + 2][0]))
                k += 3
            else:
                singles.add(ch)
                k += 1
        def test(c):
            inside = c in singles or any(lo <= c <= hi for lo, hi in ranges)
            return inside != negate
        return test
'''

WRONG = [
    # translated to Python's re: right answers, exponential time on nested repetitions
    r'''
    import re

    def matches(pattern, text):
        out, i = [], 0
        while i < len(pattern):
            ch = pattern[i]
            if ch == "\\":
                out.append(re.escape(pattern[i + 1]))
                i += 2
                continue
            if ch == "[":
                j = i + 1
                body = []
                if j < len(pattern) and pattern[j] == "^":
                    body.append("^")
                    j += 1
                while pattern[j] != "]":
                    if pattern[j] == "\\":
                        body.append(re.escape(pattern[j + 1]))
                        j += 2
                    else:
                        body.append(pattern[j] if pattern[j] == "-" else re.escape(pattern[j]))
                        j += 1
                out.append("[" + "".join(body) + "]")
                i = j + 1
                continue
            out.append("(?:" if ch == "(" else ch)
            i += 1
        return re.fullmatch("".join(out), text, re.DOTALL) is not None
    ''',
    # a backtracking matcher over the parsed pattern: exponential on (a|aa)*b
    r'''
    def matches(pattern, text):
        tree, _ = _alt(pattern, 0)
        return any(end == len(text) for end in _run(tree, text, 0))

    def _alt(p, i):
        options = []
        seq, i = _seq(p, i)
        options.append(seq)
        while i < len(p) and p[i] == "|":
            seq, i = _seq(p, i + 1)
            options.append(seq)
        return ("alt", options), i

    def _seq(p, i):
        items = []
        while i < len(p) and p[i] not in "|)":
            item, i = _atom(p, i)
            while i < len(p) and p[i] in "*+?":
                item = (p[i], item)
                i += 1
            items.append(item)
        return ("seq", items), i

    def _atom(p, i):
        ch = p[i]
        if ch == "(":
            tree, i = _alt(p, i + 1)
            return tree, i + 1
        if ch == "[":
            j, negate = i + 1, False
            if p[j] == "^":
                negate, j = True, j + 1
            items = []
            while p[j] != "]":
                if p[j] == "\\":
                    items.append((p[j + 1], True))
                    j += 2
                else:
                    items.append((p[j], False))
                    j += 1
            singles, ranges, k = set(), [], 0
            while k < len(items):
                if k + 2 < len(items) and items[k + 1] == ("-", False):
                    ranges.append((items[k][0], items[k + 2][0]))
                    k += 3
                else:
                    singles.add(items[k][0])
                    k += 1
            return ("set", singles, ranges, negate), j + 1
        if ch == ".":
            return ("any",), i + 1
        if ch == "\\":
            return ("lit", p[i + 1]), i + 2
        return ("lit", ch), i + 1

    def _run(tree, text, pos):
        kind = tree[0]
        if kind == "alt":
            for option in tree[1]:
                yield from _run(option, text, pos)
        elif kind == "seq":
            yield from _seq_run(tree[1], 0, text, pos)
        elif kind in ("*", "+", "?"):
            inner = tree[1]
            if kind == "?":
                yield pos
                yield from _run(inner, text, pos)
                return
            if kind == "*":
                yield pos
            for end in _run(inner, text, pos):
                if end != pos:
                    yield from _run(("*", inner), text, end)
                elif kind == "+":
                    yield end
        elif pos < len(text):
            c = text[pos]
            if kind == "any" or (kind == "lit" and c == tree[1]):
                yield pos + 1
            elif kind == "set":
                inside = c in tree[1] or any(lo <= c <= hi for lo, hi in tree[2])
                if inside != tree[3]:
                    yield pos + 1

    def _seq_run(items, k, text, pos):
        if k == len(items):
            yield pos
            return
        for mid in _run(items[k], text, pos):
            yield from _seq_run(items, k + 1, text, mid)
    ''',
    # the epsilon closure without a seen set: (a*)* loops for ever
    mutate(SOLUTION, ("            if s is None or s in seen:\n                continue\n            seen.add(s)",
                      "            if s is None:\n                continue")),
    # a dash at the end of a set read as the start of a range
    mutate(SOLUTION, ("            if k + 2 < len(items) and items[k + 1] == (\"-\", False):",
                      "            if k + 1 < len(items) and items[k + 1] == (\"-\", False):\n"
                      "                if k + 2 == len(items):\n"
                      "                    k += 2\n"
                      "                    continue")),
    # + compiled like *: zero repetitions allowed
    mutate(SOLUTION, ('''            elif op == "+":
                self.patch(ends, split)
                ends = [(split, 1)]''', '''            elif op == "+":
                self.patch(ends, split)
                start, ends = split, [(split, 1)]''')),
]

TESTS = r'''
def test_examples():
    assert matches("ab*|c", "abbb") is True
    assert matches("ab*|c", "ac") is False
    assert matches("[a-c-]+x?", "c-a") is True
    assert matches(r"(\.|[^.])*\.", "a.b.") is True

def test_edges():
    assert matches("", "") is True
    assert matches("", "a") is False
    assert matches("(x|)y", "y") is True
    assert matches("(|x)+", "xx") is True
    assert matches("a+", "") is False
    assert matches("(a*)*", "") is True
    assert matches("(a*)*b", "aab") is True
    assert matches("a*?b", "b") is True
    assert matches(r"\\\*\(", "\\*(") is True
    assert matches("[-a]", "-") is True
    assert matches("[ab-]", "-") is True
    assert matches("[^-a]", "-") is False
    assert matches(r"[\]x]+", "]x]") is True
    assert matches("[^a-c]", "d") is True
    assert matches("[^a-c]", "b") is False
    assert matches("ab|cd", "ad") is False
    assert matches(".", "\n") is True

def test_seeded():
    for pattern, text, want in SEEDED:
        assert matches(pattern, text) is want, (pattern, text)
'''

PERF = [
    ("pairs-3000", "args = ('(a|aa)*b', 'a' * 3000)", "assert result is False"),
    ("nested-plus", "args = ('(x+x+)+y', 'x' * 2500)", "assert result is False"),
    ("long-hit", "args = ('(' + '|'.join('[a-z]%s' % c for c in 'abcdefghij') + ')*(a*)*z?', 'qa' * 1500)",
     "assert result is True"),
]

_ALPHABET = "ab-.]x"


def _escape(ch: str) -> str:
    return "\\" + ch if ch in "\\.[]()|*+?" else ch


def _node(rng, depth):
    """A random pattern as (task syntax, Python syntax)."""
    roll = rng.random()
    if depth <= 0 or roll < 0.35:
        kind = rng.random()
        if kind < 0.55:
            ch = rng.choice(_ALPHABET)
            return _escape(ch), re.escape(ch)
        if kind < 0.65:
            return ".", "."
        negate = rng.random() < 0.3
        members = rng.sample("abx-.", rng.randrange(1, 4))
        ours = "".join("\\]" if m == "]" else m for m in members)
        if "-" in members:                       # keep dashes at an edge so they stay literal
            ours = "-" + ours.replace("-", "")
        if rng.random() < 0.3:
            ours += "a-b" if rng.random() < 0.5 else "-"
            members = members + (["a", "b"] if ours.endswith("a-b") else ["-"])
        py = "".join(re.escape(m) for m in members)
        return "[" + ("^" if negate else "") + ours + "]", "[" + ("^" if negate else "") + py + "]"
    if roll < 0.6:
        parts = [_node(rng, depth - 1) for _ in range(rng.randrange(2, 4))]
        return "".join(p[0] for p in parts), "".join(p[1] for p in parts)
    if roll < 0.8:
        parts = [_node(rng, depth - 1) if rng.random() < 0.85 else ("", "") for _ in range(rng.randrange(2, 4))]
        return "(" + "|".join(p[0] for p in parts) + ")", "(?:" + "|".join(p[1] for p in parts) + ")"
    inner = _node(rng, depth - 1)
    op = rng.choice("*+?")
    return "(" + inner[0] + ")" + op, "(?:" + inner[1] + ")" + op


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    while len(seeded) < 120:
        ours, py = _node(rng, 4)
        compiled = re.compile(py, re.DOTALL)
        texts = ["".join(rng.choice("ab-.]x") for _ in range(rng.randrange(0, 9))) for _ in range(3)]
        hits = []
        for _ in range(20):                       # texts the pattern matches: grown from a random walk
            text = "".join(rng.choice("ab-.]x") for _ in range(rng.randrange(0, 6)))
            if compiled.fullmatch(text):
                hits.append(text)
        for text in texts + hits[:2]:
            seeded.append((ours, text, compiled.fullmatch(text) is not None))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Regular expression full match that never backtracks",
        prompt=PROMPT, entry_point="matches", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": name, "input": text, "check": check} for name, text, check in PERF],
        notes="""The easy reply (translate to Python's re, or a recursive backtracker) is right on
        every small input and takes exponential time on (a|aa)*b or (x+x+)+y against a few thousand
        characters, so passing needs an automaton run by state sets or memoised matching over
        (position, pattern node). Around that, the syntax has its own traps: alternation looser than
        concatenation, a dash at either edge of a set, escaped ] inside a set, empty alternatives,
        stacked postfix operators and the epsilon closure through (a*)*, which loops without a seen
        set.""",
    )]
