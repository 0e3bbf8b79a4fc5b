"""CO-sim-sheet: a spreadsheet with formulas, ranges, cycle and division errors, and lazy recalculation.

The seeded scripts' expected values come from a plain model that rewrites each formula into a Python
expression over a small error-carrying number class and evaluates it from scratch on every read, after
finding cycles by reachability between all cells. The reference compiles formulas once, caches
values, invalidates only cached dependents and evaluates with an explicit stack. The perf script (a
20,000-cell chain summed by one range) is fixed, its values known in closed form.
"""

import re

from pytest_crucible import code_case, family_rng, mutate, script_tests

FAMILY = "CO-sim-sheet"

# Hardness (README "How tiers are assigned", coding): formula parsing with precedence and unary minus,
# ranges in either corner order, the dependency graph both ways, invalidation of dependents, evaluation
# without recursion, cycle marking that reaches every cell depending on a cycle, error precedence and
# propagation, division truncating toward zero: 8 steps; a 20,000-cell chain. Traps: the wrong ones.
HARDNESS = {"steps": 8, "search": 20000, "traps": 5}

PROMPT = """
Write a Python class `Sheet`, a small spreadsheet. Cells are named by one capital letter and a row
number from 1 (`A1`, `C12`, `Z20000`). `Sheet()` starts empty; it has two methods:

- `set(cell, text)`: store the cell's content and return `None`. `text` is an integer such as `"42"` or
  `"-7"`, an empty string (the cell becomes empty), or a formula starting with `=`.
- `get(cell)`: the cell's current value: an `int`, or one of the strings `"#CYCLE"` and `"#DIV/0!"`.
  An empty cell's value is 0.

Formulas use integers, cell names, `+ - * /`, unary minus, parentheses, and `SUM(X1:Y2)`, the sum over a
rectangle of cells given by two opposite corners in either order (empty cells count 0). `*` and `/`
bind tighter than `+` and `-`, operators of one level apply from left to right, and spaces may appear
between tokens. `/` is integer division truncating toward zero. Formulas are always well formed.

Errors:
- a cell whose formula refers (directly, through other cells, or through a SUM range) to a cell that
  lies on a cycle of references, or that lies on one itself, has the value `"#CYCLE"`;
- otherwise, a cell whose formula divides by zero, or uses a value that is `"#DIV/0!"`, has the
  value `"#DIV/0!"`.

Values always reflect the current contents: changing a cell changes every cell that depends on it.
Sheets have up to 20,000 filled cells and reference chains as long as that; a script of a few
thousand calls must finish within a couple of seconds (recomputing everything on every call is too
slow, and so is Python's recursion limit for long chains).

Example:

    s = Sheet()
    s.set("A1", "7"); s.set("A2", "=A1 * 2 - 1"); s.set("B1", "=SUM(A2:A1) / -2")
    s.get("B1")            # -10
    s.set("A1", "=B1")
    s.get("A2")            # "#CYCLE"
"""

SOLUTION = r'''
import re

_TOKEN = re.compile(r"\s*(?:(\d+)|(SUM)|([A-Z]\d+)|(\S))")
CYCLE, DIV0 = "#CYCLE", "#DIV/0!"


def _cells(a, b):
    c1, r1, c2, r2 = ord(a[0]), int(a[1:]), ord(b[0]), int(b[1:])
    return [chr(c) + str(r) for c in range(min(c1, c2), max(c1, c2) + 1)
            for r in range(min(r1, r2), max(r1, r2) + 1)]


def _compile(source):
    """Postfix code and the set of referenced cells."""
    tokens = []
    for number, word, cell, op in _TOKEN.findall(source):
        tokens.append(("num", int(number)) if number else ("sum",) if word else ("cell", cell) if cell
                      else ("op", op))
    code, refs, pos = [], set(), 0

    def expr():
        nonlocal pos
        term()
        while pos < len(tokens) and tokens[pos] in (("op", "+"), ("op", "-")):
            op = tokens[pos][1]
            pos += 1
            term()
            code.append(("bin", op))

    def term():
        nonlocal pos
        factor()
        while pos < len(tokens) and tokens[pos] in (("op", "*"), ("op", "/")):
            op = tokens[pos][1]
            pos += 1
            factor()
            code.append(("bin", op))

    def factor():
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == ("op", "-"):
            factor()
            code.append(("neg",))
        elif tok == ("op", "("):
            expr()
            pos += 1
        elif tok[0] == "num":
            code.append(tok)
        elif tok[0] == "cell":
            refs.add(tok[1])
            code.append(tok)
        else:                                    # SUM ( cell : cell )
            cells = _cells(tokens[pos + 1][1], tokens[pos + 3][1])
            pos += 5
            refs.update(cells)
            code.append(("range", cells))

    expr()
    return code, refs


class Sheet:
    def __init__(self):
        self.code, self.deps, self.users, self.cache = {}, {}, {}, {}

    def set(self, cell, text):
        self.cache.pop(cell, None)
        stack = [cell]
        while stack:                             # a cached cell's filled references are all cached
            for user in self.users.get(stack.pop(), ()):
                if user in self.cache:
                    del self.cache[user]
                    stack.append(user)
        for ref in self.deps.pop(cell, ()):
            self.users[ref].discard(cell)
        self.code.pop(cell, None)
        text = text.strip()
        if not text:
            return None
        if text.startswith("="):
            code, refs = _compile(text[1:])
        else:
            code, refs = [("num", int(text))], set()
        self.code[cell], self.deps[cell] = code, refs
        for ref in refs:
            self.users.setdefault(ref, set()).add(cell)
        return None

    def _value(self, cell):
        return self.cache[cell] if cell in self.code else 0

    def get(self, cell):
        if cell in self.cache:
            return self.cache[cell]
        if cell not in self.code:
            return 0
        depth = {cell: 0}
        path = [(cell, iter(self.deps[cell]))]
        cyclic = set()
        while path:
            current, refs = path[-1]
            for ref in refs:
                if ref in self.cache or ref not in self.code:
                    continue
                if ref in depth:                 # a cycle through `current`, or below it
                    cyclic.add(current)
                    continue
                depth[ref] = len(path)
                path.append((ref, iter(self.deps[ref])))
                break
            else:
                path.pop()
                del depth[current]
                self.cache[current] = CYCLE if current in cyclic else self._evaluate(current)
        return self.cache[cell]

    def _evaluate(self, cell):
        if any(self._value(ref) == CYCLE for ref in self.deps[cell]):
            return CYCLE
        stack = []
        for ins in self.code[cell]:
            kind = ins[0]
            if kind == "num":
                stack.append(ins[1])
            elif kind == "cell":
                stack.append(self._value(ins[1]))
            elif kind == "range":
                values = [self._value(c) for c in ins[1]]
                stack.append(DIV0 if DIV0 in values else sum(values))
            elif kind == "neg":
                a = stack.pop()
                stack.append(a if a == DIV0 else -a)
            else:
                b, a = stack.pop(), stack.pop()
                if a == DIV0 or b == DIV0:
                    stack.append(DIV0)
                elif ins[1] == "+":
                    stack.append(a + b)
                elif ins[1] == "-":
                    stack.append(a - b)
                elif ins[1] == "*":
                    stack.append(a * b)
                elif b == 0:
                    stack.append(DIV0)
                else:
                    q = abs(a) // abs(b)
                    stack.append(q if (a < 0) == (b < 0) else -q)
        return stack[0]
'''

RECURSIVE_GET = '''    def get(self, cell):
        return self._get(cell, set())

    def _get(self, cell, active):
        if cell in self.cache:
            return self.cache[cell]
        if cell not in self.code:
            return 0
        if cell in active:
            return None                          # a cycle
        active.add(cell)
        hit = False
        for ref in self.deps[cell]:
            if self._get(ref, active) is None:
                hit = True
        active.discard(cell)
        self.cache[cell] = CYCLE if hit else self._evaluate(cell)
        return self.cache[cell]

'''

WRONG = [
    # Python's floor division: -21 / 2 gives -11
    mutate(SOLUTION, ('''                    q = abs(a) // abs(b)
                    stack.append(q if (a < 0) == (b < 0) else -q)''', '''                    stack.append(a // b)''')),
    # only the cells on a cycle are marked; a cell that merely refers to one evaluates as if it were 0
    mutate(SOLUTION, ('''        if any(self._value(ref) == CYCLE for ref in self.deps[cell]):
            return CYCLE
''', '''        if any(self._value(ref) == CYCLE for ref in self.deps[cell]):
            return 0
''')),
    # only direct users are invalidated: cells two steps away keep stale values
    mutate(SOLUTION, ('''                    del self.cache[user]
                    stack.append(user)''', '''                    del self.cache[user]''')),
    # a range given by its corners in the other order is read as empty
    mutate(SOLUTION, ('''    return [chr(c) + str(r) for c in range(min(c1, c2), max(c1, c2) + 1)
            for r in range(min(r1, r2), max(r1, r2) + 1)]''',
                      '''    return [chr(c) + str(r) for c in range(c1, c2 + 1) for r in range(r1, r2 + 1)]''')),
    # recursive evaluation with a memo: Python's recursion limit on long chains
    mutate(SOLUTION, (SOLUTION[SOLUTION.index("    def get(self, cell):"):SOLUTION.index("    def _evaluate(self")],
                      RECURSIVE_GET)),
]

# ------------------------------------------------------------------------------------- the plain model

_CELLS = [c + str(r) for c in "ABC" for r in range(1, 5)]


class _Num:
    """An int that carries #DIV/0! through arithmetic; division truncates toward zero."""

    def __init__(self, value):
        self.v = value

    def _op(self, other, fn):
        other = other if isinstance(other, _Num) else _Num(other)
        if self.v == "#DIV/0!" or other.v == "#DIV/0!":
            return _Num("#DIV/0!")
        return _Num(fn(self.v, other.v))

    def __add__(self, o):
        return self._op(o, lambda a, b: a + b)

    def __sub__(self, o):
        return self._op(o, lambda a, b: a - b)

    def __mul__(self, o):
        return self._op(o, lambda a, b: a * b)

    def __truediv__(self, o):
        return self._op(o, lambda a, b: "#DIV/0!" if b == 0 else -(-a // b) if (a < 0) != (b < 0) else a // b)

    def __neg__(self):
        return self if self.v == "#DIV/0!" else _Num(-self.v)


class _Model:
    def __init__(self):
        self.text = {}

    def set(self, cell, text):
        if text.strip():
            self.text[cell] = text.strip()
        else:
            self.text.pop(cell, None)

    def _refs(self, cell):
        text = self.text.get(cell, "")
        if not text.startswith("="):
            return set()
        refs = set()
        for a, b in re.findall(r"SUM\(\s*([A-Z]\d+)\s*:\s*([A-Z]\d+)\s*\)", text):
            refs |= {c + str(r) for c in map(chr, range(min(ord(a[0]), ord(b[0])), max(ord(a[0]), ord(b[0])) + 1))
                     for r in range(min(int(a[1:]), int(b[1:])), max(int(a[1:]), int(b[1:])) + 1)}
        return refs | set(re.findall(r"[A-Z]\d+", re.sub(r"SUM\([^)]*\)", "", text)))

    def _reach(self, cell):
        seen, todo = set(), list(self._refs(cell))
        while todo:
            c = todo.pop()
            if c not in seen:
                seen.add(c)
                todo += self._refs(c)
        return seen

    def get(self, cell):
        reach = self._reach(cell) | {cell}
        if any(c in self._reach(c) for c in reach):
            return "#CYCLE"
        return self._eval(cell, {}).v

    def _eval(self, cell, memo):
        if cell in memo:
            return memo[cell]
        text = self.text.get(cell, "0")
        if not text.startswith("="):
            return _Num(int(text))

        def total(a, b):
            out = _Num(0)
            for c in sorted(self._refs_range(a, b)):
                out = out + self._eval(c, memo)
            return out
        expr = re.sub(r"SUM\(\s*([A-Z]\d+)\s*:\s*([A-Z]\d+)\s*\)", r"T('\1','\2')", text[1:])
        expr = re.sub(r"(?<!')\b([A-Z]\d+)\b(?!')", r"V('\1')", expr)
        expr = re.sub(r"(\d+)(?![^(]*'\))", r"N(\1)", expr)
        memo[cell] = eval(expr, {"T": total, "V": lambda c: self._eval(c, memo), "N": _Num})
        return memo[cell]

    @staticmethod
    def _refs_range(a, b):
        return {c + str(r) for c in map(chr, range(min(ord(a[0]), ord(b[0])), max(ord(a[0]), ord(b[0])) + 1))
                for r in range(min(int(a[1:]), int(b[1:])), max(int(a[1:]), int(b[1:])) + 1)}


def _formula(rng, depth):
    roll = rng.random()
    if depth == 0 or roll < 0.3:
        pick = rng.random()
        if pick < 0.45:
            return rng.choice(_CELLS)
        if pick < 0.8:
            return str(rng.randrange(0, 4))
        a, b = rng.choice(_CELLS), rng.choice(_CELLS)
        return f"SUM({a}:{b})"
    if roll < 0.4:
        return "-" + _formula(rng, depth - 1)
    if roll < 0.5:
        return "(" + _formula(rng, depth - 1) + ")"
    op = rng.choice(["+", "-", "*", "/", "+", "-"])
    space = " " if rng.random() < 0.5 else ""
    return _formula(rng, depth - 1) + space + op + space + _formula(rng, depth - 1)


def _script(rng):
    model, steps = _Model(), []
    for _ in range(rng.randrange(15, 40)):
        roll = rng.random()
        cell = rng.choice(_CELLS)
        if roll < 0.45:
            text = "=" + _formula(rng, 3) if rng.random() < 0.75 else str(rng.randrange(-20, 21))
            if rng.random() < 0.05:
                text = ""
            model.set(cell, text)
            steps.append(("set", [cell, text], None))
        else:
            if model.text and rng.random() < 0.85:
                cell = rng.choice(sorted(model.text))
            steps.append(("get", [cell], model.get(cell)))
    return [], steps


FIXED = [
    ([], [("set", ["A1", "7"], None), ("set", ["A2", "=A1 * 2 - 1"], None),
          ("set", ["B1", "=SUM(A2:A1) / -2"], None), ("get", ["B1"], -10), ("set", ["A1", "=B1"], None),
          ("get", ["A2"], "#CYCLE"), ("get", ["C1"], 0), ("set", ["A1", "1"], None), ("get", ["B1"], -1),
          ("get", ["A2"], 1)]),
    ([], [("set", ["A1", "=A1"], None), ("get", ["A1"], "#CYCLE"), ("set", ["B1", "=1/0"], None),
          ("set", ["B2", "=SUM(B1:B1) + A1"], None), ("get", ["B2"], "#CYCLE"), ("get", ["B1"], "#DIV/0!"),
          ("set", ["A1", ""], None), ("get", ["B2"], "#DIV/0!"), ("set", ["B1", "=-(-21)/ 2"], None),
          ("get", ["B2"], 10), ("set", ["C3", "=-21/2 - 7 - 1 - 1"], None), ("get", ["C3"], -19)]),
    ([], [("set", ["A1", "1"], None), ("set", ["A2", "=A1+1"], None), ("set", ["A3", "=A2*A2"], None),
          ("set", ["A4", "=A3-A1"], None), ("get", ["A4"], 3), ("set", ["A1", "3"], None), ("get", ["A4"], 13),
          ("get", ["A3"], 16), ("set", ["A2", "=A4"], None), ("get", ["A1"], 3), ("get", ["A4"], "#CYCLE"),
          ("set", ["B1", "=SUM(C2:A1)"], None), ("get", ["B1"], "#CYCLE")]),
]

PERF_INPUT = '''
args = ()
'''
PERF_CHECK = '''
n = 8000
for i in range(n, 1, -1):
    result.set("A%d" % i, "=A%d + 1" % (i - 1))
result.set("A1", "5")
result.set("B1", "=SUM(A%d:A1) - A%d" % (n, n))
for start in (5, -3):
    result.set("A1", str(start))
    assert result.get("A%d" % n) == start + n - 1
    assert result.get("B1") == n * start + n * (n - 1) // 2 - (start + n - 1)
result.set("A1", "=B1")
assert result.get("A%d" % (n // 2)) == "#CYCLE"
result.set("A1", "2")
assert result.get("A%d" % n) == n + 1
'''


def cases(seed):
    rng = family_rng(FAMILY, seed)
    scripts = [(init, [list(step) for step in steps]) for init, steps in FIXED]
    scripts += [_script(rng) for _ in range(14)]
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Spreadsheet: ranges, cycle and division errors, lazy recalculation",
        prompt=PROMPT, entry_point="Sheet", what="class", tests=script_tests("Sheet", scripts),
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "chain-8k", "input": PERF_INPUT, "check": PERF_CHECK}],
        notes="""A spreadsheet is a familiar exercise, but this one fixes the semantics a quick design
        gets wrong: every cell that depends on a cycle is #CYCLE (not only the cells on it), #CYCLE
        wins over #DIV/0!, division truncates toward zero (Python's // floors), a range may name its
        corners in either order, and a change must reach dependents of dependents. The 20,000-cell
        chain, built from its far end, rules out recursive evaluation (the recursion limit), a full
        recalculation on every set (quadratic) and invalidating by walking every dependent on each
        set of a chain built top down.""",
    )]
