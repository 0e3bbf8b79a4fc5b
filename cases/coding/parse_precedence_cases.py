"""CO-parse-precedence: an integer expression language whose precedence table the seed draws.

The seed decides which operators exist, how they are grouped into levels and which levels group to the
right, so a memorised evaluator does not fit. Hidden expressions are random trees printed with the fewest
parentheses the table allows (plus some redundant ones); the oracle evaluates the tree, a different
method from parsing the text.
"""

import textwrap

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-precedence"

# Hardness (README "How tiers are assigned", coding): the drawn levels and directions, mixed operators on one
# level, truncating division and remainder, big integers, unary minus, errors, tokenizer, parser. Traps: the
# wrong solutions.
HARDNESS = {"steps": 8, "search": 1, "traps": 4}
MEANING = {
    "+": "a + b is the sum",
    "-": "a - b is the difference",
    "*": "a * b is the product",
    "/": "a / b is the quotient truncated toward zero (-7 / 2 is -3); b is never 0",
    "%": "a % b is the remainder that goes with that quotient, a - b * (a / b), so it has the sign of a "
         "(-7 % 2 is -1); b is never 0",
    "^": "a ^ b is a to the power b; b is never negative",
    "@": "a @ b is the larger of a and b",
    "&": "a & b is the bitwise AND (two's complement, as Python's & on int)",
    "<<": "a << b shifts a left by b bits (a * 2 ** b); b is never negative",
}
OPTIONAL = ["@", "&", "<<"]

PROMPT = """
Write a Python function `evaluate(expression: str) -> int` for a small integer expression language.

Tokens: decimal integer literals (digits only; leading zeros allowed, "007" is 7), the binary operators
listed below, unary minus, parentheses, and spaces or tabs anywhere between tokens. Values are integers
of any size (far beyond 64 bits).

Operators:
{meanings}

Precedence, from the level that binds tightest to the loosest:
{levels}
Operators on one level group in that level's direction: left-associative means a o b o c is
(a o b) o c, right-associative means a o (b o c), also when the two o are different operators of the
same level. Unary minus binds tighter than every binary operator: -2 ^ 2 is (-2) ^ 2, and it may repeat
(--5 is 5, 3 - -4 is 7). Parentheses may nest up to 300 deep, and expressions are up to 20,000
characters long. Inputs are always well formed.

Examples:
{examples}
"""

SOLUTION = '''
def evaluate(expression):
    levels = LEVELS            # [(["^", "<<"], "right"), ...], loosest level first
    prec, right = {}, {}
    for i, (ops, direction) in enumerate(levels):
        for op in ops:
            prec[op] = i
            right[op] = direction == "right"
    symbols = sorted(prec, key=len, reverse=True)
    tokens = []
    pos, n = 0, len(expression)
    while pos < n:
        ch = expression[pos]
        if ch in " \\t":
            pos += 1
        elif ch.isdigit():
            end = pos
            while end < n and expression[end].isdigit():
                end += 1
            tokens.append(int(expression[pos:end]))
            pos = end
        elif ch in "()":
            tokens.append(ch)
            pos += 1
        else:
            for s in symbols:
                if expression.startswith(s, pos):
                    tokens.append(s)
                    pos += len(s)
                    break
            else:
                raise ValueError(f"unexpected {ch!r}")

    def apply(op, a, b):
        if op == "+": return a + b
        if op == "-": return a - b
        if op == "*": return a * b
        if op == "/":
            q = abs(a) // abs(b)
            return q if (a < 0) == (b < 0) else -q
        if op == "%": return a - b * apply("/", a, b)
        if op == "^": return a ** b
        if op == "@": return max(a, b)
        if op == "&": return a & b
        if op == "<<": return a << b
        raise ValueError(op)

    # shunting-yard without recursion: deep nesting costs no stack
    values, ops = [], []   # ops holds binary operators, "(" and "neg"

    def reduce_top():
        op = ops.pop()
        if op == "neg":
            values.append(-values.pop())
        else:
            b = values.pop()
            a = values.pop()
            values.append(apply(op, a, b))

    expect_operand = True
    for tok in tokens:
        if expect_operand:
            if tok == "-":
                ops.append("neg")
            elif tok == "(":
                ops.append("(")
            else:
                values.append(tok)
                while ops and ops[-1] == "neg":
                    reduce_top()
                expect_operand = False
        elif tok == ")":
            while ops[-1] != "(":
                reduce_top()
            ops.pop()
            while ops and ops[-1] == "neg":
                reduce_top()
        else:
            p = prec[tok]
            while ops and ops[-1] != "(" and (prec[ops[-1]] > p or (prec[ops[-1]] == p and not right[tok])):
                reduce_top()
            ops.append(tok)
            expect_operand = True
    while ops:
        reduce_top()
    return values[0]
'''

# Plausible mistakes: Python's floor division and modulo, float division, every level grouped to the
# left, and a recursive-descent parser (one function per level) that runs out of stack on deep nesting.
WRONG = [
    mutate(SOLUTION, ('''            q = abs(a) // abs(b)
            return q if (a < 0) == (b < 0) else -q''', '''            return a // b'''),
           ('if op == "%": return a - b * apply("/", a, b)', 'if op == "%": return a % b')),
    mutate(SOLUTION, ('''            q = abs(a) // abs(b)
            return q if (a < 0) == (b < 0) else -q''', '''            return int(a / b)''')),
    mutate(SOLUTION, ('(prec[ops[-1]] == p and not right[tok])', 'prec[ops[-1]] == p')),
    '''
    import re

    def evaluate(expression):
        levels = LEVELS
        symbols = sorted({op for ops, _ in levels for op in ops}, key=len, reverse=True)
        pattern = "|".join(re.escape(s) for s in symbols)
        tokens = re.findall(r"\\d+|[()]|" + pattern, expression)
        pos = 0

        def apply(op, a, b):
            if op == "/":
                q = abs(a) // abs(b)
                return q if (a < 0) == (b < 0) else -q
            if op == "%":
                return a - b * apply("/", a, b)
            return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "^": lambda: a ** b,
                    "@": lambda: max(a, b), "&": lambda: a & b, "<<": lambda: a << b}[op]()

        def parse(level):
            nonlocal pos
            if level == len(levels):
                return unary()
            ops, direction = levels[level]
            left = parse(level + 1)
            if direction == "right":
                if pos < len(tokens) and tokens[pos] in ops:
                    op = tokens[pos]
                    pos += 1
                    return apply(op, left, parse(level))
                return left
            while pos < len(tokens) and tokens[pos] in ops:
                op = tokens[pos]
                pos += 1
                left = apply(op, left, parse(level + 1))
            return left

        def unary():
            nonlocal pos
            tok = tokens[pos]
            pos += 1
            if tok == "-":
                return -unary()
            if tok == "(":
                value = parse(0)
                pos += 1
                return value
            return int(tok)

        return parse(0)
    ''',
]

TESTS = '''
def test_examples_and_traps():
    for expression, value in TARGETED:
        assert evaluate(expression) == value, expression

def test_deep_nesting():
    assert evaluate("(" * 300 + "12" + ")" * 300) == 12
    assert evaluate("-(" * 300 + "5" + ")" * 300) == 5
    assert evaluate("-" * 301 + "7") == -7

def test_seeded_expressions():
    for expression, value in SEEDED:
        assert evaluate(expression) == value, expression
'''


def _apply(op, a, b):
    if op in ("/", "%"):
        if b == 0:
            raise ZeroDivisionError
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return q if op == "/" else a - b * q
    if op in ("^", "<<") and b < 0:
        raise ValueError("negative exponent or shift")
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "^":
        return a ** b
    if op == "<<":
        return a << b
    return max(a, b) if op == "@" else a & b


class _Table:
    def __init__(self, levels):
        self.levels = levels  # loosest first
        self.level = {op: i for i, (ops, _) in enumerate(levels) for op in ops}
        self.right = {op: d == "right" for ops, d in levels for op in ops}

    def value(self, tree):
        if isinstance(tree, int):
            return tree
        if tree[0] == "neg":
            return -self.value(tree[1])
        op, a, b = tree
        return _apply(op, self.value(a), self.value(b))

    def text(self, tree, rng=None):
        """Fewest parentheses the table allows; with rng, some redundant ones and random spacing."""
        def wrap(s):
            return "(" + s + ")"

        def space():
            return rng.choice(["", "", " ", "  ", "\t"]) if rng else " "

        if isinstance(tree, int):
            return ("0" * rng.randrange(2) if rng and rng.random() < 0.1 else "") + str(tree)
        if tree[0] == "neg":
            inner = self.text(tree[1], rng)
            return "-" + space().replace("\t", "") + (wrap(inner) if isinstance(tree[1], tuple) and tree[1][0] != "neg"
                                                     else inner)
        op, a, b = tree
        p = self.level[op]
        left, right = self.text(a, rng), self.text(b, rng)
        if isinstance(a, tuple) and a[0] != "neg":
            pa = self.level[a[0]]
            if pa < p or (pa == p and self.right[op]) or (rng and rng.random() < 0.1):
                left = wrap(left)
        if isinstance(b, tuple) and b[0] != "neg":
            pb = self.level[b[0]]
            if pb < p or (pb == p and not self.right[op]) or (rng and rng.random() < 0.1):
                right = wrap(right)
        return left + space() + op + space() + right


def _draw_table(rng):
    while True:
        ops = ["+", "-", "*", "/", "%", "^"] + rng.sample(OPTIONAL, rng.randrange(1, 3))
        rng.shuffle(ops)
        count = rng.randrange(3, 5)
        cuts = sorted(rng.sample(range(1, len(ops)), count - 1))
        groups = [ops[i:j] for i, j in zip([0] + cuts, cuts + [len(ops)])]
        levels = [(sorted(g), rng.choice(["left", "right"])) for g in groups]
        lopsided = {"-", "/", "%", "^", "<<"}
        directions = {d for g, d in levels if lopsided & set(g)}
        if directions == {"left", "right"}:
            return _Table(levels)


def _random_tree(rng, table, depth):
    if depth == 0 or rng.random() < 0.25:
        leaf = rng.randrange(0, 40) if rng.random() < 0.1 else rng.randrange(1, 40)
        return ("neg", leaf) if rng.random() < 0.15 else leaf
    op = rng.choice(sorted(table.level))
    a = _random_tree(rng, table, depth - 1)
    if op in ("^", "<<"):
        b = rng.randrange(1, 4) if op == "^" else rng.randrange(0, 70)
    else:
        b = _random_tree(rng, table, depth - 1)
    tree = (op, a, b)
    try:
        value = table.value(tree)
    except (ZeroDivisionError, ValueError):
        return _random_tree(rng, table, depth)
    if abs(value) > 10 ** 60:
        return _random_tree(rng, table, depth)
    return ("neg", tree) if rng.random() < 0.08 else tree


def _targeted(rng, table):
    """Trees where a wrong grouping, floor division or float division gives another value."""
    trees = [("/", ("neg", 7), 2), ("%", ("neg", 7), 2), ("/", 7, ("neg", 2)), ("%", 7, ("neg", 2)),
             ("/", ("neg", 7), ("neg", 2)), ("%", ("neg", 7), ("neg", 2)),
             ("^", ("neg", 2), 2), ("-", 3, ("neg", 4)), ("neg", ("neg", 5)),
             ("/", ("-", 0, ("+", ("^", 3, 41), 1)), 3), ("%", ("+", ("^", 10, 30), 7), 1000003)]
    lopsided = ["-", "/", "%", "^", "<<"]
    for ops, direction in table.levels:
        for op in ops:
            for other in ops:
                if op not in lopsided and other not in lopsided:
                    continue
                for _ in range(20):
                    a, b, c = (rng.randrange(20, 90), rng.randrange(5, 15), rng.randrange(2, 4))
                    if "^" in (op, other) or "<<" in (op, other):
                        a, b, c = 2, rng.randrange(2, 4), 2
                    tree = (op, (other, a, b), c) if direction == "left" else (op, a, (other, b, c))
                    try:
                        table.value(tree)
                    except (ZeroDivisionError, ValueError):
                        continue
                    trees.append(tree)
                    break
    for low_ops, _ in table.levels[:1]:
        for high_ops, _ in table.levels[-1:]:
            lo, hi = rng.choice(low_ops), rng.choice(high_ops)
            trees.append((lo, 50, (hi, 3, 2)))
            trees.append((lo, (hi, 3, 2), 9))
    out = []
    for tree in trees:
        text = table.text(tree)
        out.append((text, table.value(tree)))
    return out


def _describe(table):
    meanings = "\n".join(f"- {MEANING[op]}" for op in MEANING if op in table.level)
    lines = []
    for rank, (ops, direction) in enumerate(reversed(table.levels), 1):
        lines.append(f"{rank}. {'  '.join(ops)}   ({direction}-associative)")
    return meanings, "\n".join(lines)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    table = _draw_table(rng)
    seeded = []
    while len(seeded) < 60:
        tree = _random_tree(rng, table, rng.randrange(2, 6))
        if isinstance(tree, tuple):
            seeded.append((table.text(tree, rng), table.value(tree)))
    examples = []
    for tree in [("-", 10, ("-", 4, 3)) if table.right["-"] else ("-", ("-", 10, 4), 3),
                 ("*", 2, ("+", 3, 4))]:
        examples.append(f"    evaluate({table.text(tree)!r}) == {table.value(tree)}")
    meanings, levels = _describe(table)
    prompt = PROMPT.format(meanings=meanings, levels=levels, examples="\n".join(examples))
    assign = f"LEVELS = {table.levels!r}\n"
    data = {"TARGETED": _targeted(rng, table), "SEEDED": seeded}
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Expression evaluator for a drawn precedence table",
        prompt=prompt, entry_point="evaluate", tests=TESTS, data=data, solution=assign + SOLUTION,
        wrong=[assign + textwrap.dedent(w) for w in WRONG],
        notes="""The operator set, the grouping into 3-4 levels and each level's direction are drawn
        from the seed, so no memorised evaluator fits: a level may hold + and / together, or make -
        right-associative. Traps: mixed operators on one right-associative level, division and
        remainder truncating toward zero (not Python's floor), values beyond 2^53 (float division
        breaks), unary minus binding tighter than ^, and nesting 300 deep, which overflows the stack
        of a parser with one recursive function per level. Sixty seeded random trees printed with the
        fewest parentheses must evaluate exactly.""",
    )]
