"""CO-parse-query: a record filter language (and/or/not, comparisons, in, exists) with strict typing.

Hidden queries are random syntax trees drawn by the seed, printed with random keyword case, spacing and
redundant parentheses; the oracle evaluates the tree on the records directly, without parsing text.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-query"

# Hardness (README "How tiers are assigned", coding): tokenizer, three-level parser, true not 1, cross-kind
# ordering false, missing fields, not versus !=, case-insensitive keywords, escapes, a dozen errors. Traps:
# the wrong solutions.
HARDNESS = {"steps": 9, "search": 1, "traps": 5}

PROMPT = r"""
Write a Python function `matching(records: list[dict], query: str) -> list[int]` that returns, in
increasing order, the indices of the records that satisfy `query`.

Grammar (keywords `and`, `or`, `not`, `in`, `exists`, `true`, `false`, `null` are case-insensitive):
    query      := disjunct ("or" disjunct)*
    disjunct   := negation ("and" negation)*
    negation   := "not" negation | test
    test       := "(" query ")" | field "exists" | field op value | field "in" "[" value ("," value)* "]"
    op         := "=" | "!=" | "<" | "<=" | ">" | ">=" | "~"
    field      := name ("." name)*      (name: a letter or "_", then letters, digits, "_")
    value      := number | string | true | false | null
A number is an optional "-", digits, and optionally "." and digits. A string is in double quotes, with
\" and \\ standing for " and \. Spaces may appear between any tokens. Anything else is a ValueError.

Meaning:
- A field `a.b.c` looks up key "a" in the record, then "b" in that value (which must be a dict), and so
  on. If any step fails, the field is *missing*: every test on it is false, including `!=` and `in`,
  and `exists` is false; otherwise `exists` is true.
- Values are equal only when they have the same kind: numbers (int or float, compared by value),
  strings, booleans, null (None). A boolean is never equal to a number (true is not 1).
- `=` is that equality; `!=` is its negation (for a field that is not missing); `in` is true when the
  field equals any listed value.
- `<`, `<=`, `>`, `>=` compare two numbers or two strings (Python order); with any other pair of kinds
  they are false. `~` is true when both are strings and the value occurs inside the field.

Example:
    matching([{"age": 30, "tags": {"vip": True}}, {"age": 17}], 'age >= 18 and tags.vip = true') == [0]
"""

SOLUTION = r'''
import re

_TOKEN = re.compile(r'\s*(?:(-?\d+(?:\.\d+)?)|("(?:[^"\\]|\\["\\])*")|(<=|>=|!=|[=<>~()\[\],])|([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*))')
_KEYWORDS = {"and", "or", "not", "in", "exists", "true", "false", "null"}
_MISSING = object()


def matching(records, query):
    tokens = _tokenize(query)
    tree, pos = _disjunction(tokens, 0)
    if pos != len(tokens):
        raise ValueError(f"unexpected {tokens[pos][1]!r}")
    return [i for i, record in enumerate(records) if _holds(tree, record)]


def _tokenize(text):
    tokens, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"bad character at {pos}")
        number, string, symbol, word = m.groups()
        if number is not None:
            tokens.append(("value", float(number) if "." in number else int(number)))
        elif string is not None:
            tokens.append(("value", re.sub(r'\\(["\\])', r"\1", string[1:-1])))
        elif symbol is not None:
            tokens.append(("sym", symbol))
        elif word.lower() in _KEYWORDS:
            low = word.lower()
            if low in ("true", "false", "null"):
                tokens.append(("value", {"true": True, "false": False, "null": None}[low]))
            else:
                tokens.append(("kw", low))
        else:
            tokens.append(("field", word))
        pos = m.end()
    return tokens


def _peek(tokens, pos):
    return tokens[pos] if pos < len(tokens) else ("end", None)


def _disjunction(tokens, pos):
    left, pos = _conjunction(tokens, pos)
    while _peek(tokens, pos) == ("kw", "or"):
        right, pos = _conjunction(tokens, pos + 1)
        left = ("or", left, right)
    return left, pos


def _conjunction(tokens, pos):
    left, pos = _negation(tokens, pos)
    while _peek(tokens, pos) == ("kw", "and"):
        right, pos = _negation(tokens, pos + 1)
        left = ("and", left, right)
    return left, pos


def _negation(tokens, pos):
    if _peek(tokens, pos) == ("kw", "not"):
        inner, pos = _negation(tokens, pos + 1)
        return ("not", inner), pos
    return _test(tokens, pos)


def _test(tokens, pos):
    kind, value = _peek(tokens, pos)
    if (kind, value) == ("sym", "("):
        inner, pos = _disjunction(tokens, pos + 1)
        if _peek(tokens, pos) != ("sym", ")"):
            raise ValueError("missing )")
        return inner, pos + 1
    if kind != "field":
        raise ValueError(f"a field is expected, got {value!r}")
    field = value
    kind, value = _peek(tokens, pos + 1)
    if (kind, value) == ("kw", "exists"):
        return ("exists", field), pos + 2
    if (kind, value) == ("kw", "in"):
        if _peek(tokens, pos + 2) != ("sym", "["):
            raise ValueError("[ expected after in")
        values, pos = [], pos + 3
        while True:
            k, v = _peek(tokens, pos)
            if k != "value":
                raise ValueError("a value is expected in the list")
            values.append(v)
            k, v = _peek(tokens, pos + 1)
            pos += 2
            if (k, v) == ("sym", "]"):
                return ("in", field, values), pos
            if (k, v) != ("sym", ","):
                raise ValueError(", or ] expected")
    if kind == "sym" and value in ("=", "!=", "<", "<=", ">", ">=", "~"):
        k, v = _peek(tokens, pos + 2)
        if k != "value":
            raise ValueError("a value is expected")
        return ("cmp", field, value, v), pos + 3
    raise ValueError("an operator is expected")


def _lookup(record, field):
    value = record
    for part in field.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _kind(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if v is None:
        return "null"
    return "other"


def _equal(a, b):
    return _kind(a) == _kind(b) != "other" and a == b


def _holds(node, record):
    op = node[0]
    if op == "or":
        return _holds(node[1], record) or _holds(node[2], record)
    if op == "and":
        return _holds(node[1], record) and _holds(node[2], record)
    if op == "not":
        return not _holds(node[1], record)
    value = _lookup(record, node[1])
    if op == "exists":
        return value is not _MISSING
    if value is _MISSING:
        return False
    if op == "in":
        return any(_equal(value, v) for v in node[2])
    cmp, target = node[2], node[3]
    if cmp == "=":
        return _equal(value, target)
    if cmp == "!=":
        return not _equal(value, target)
    if cmp == "~":
        return isinstance(value, str) and isinstance(target, str) and target in value
    if _kind(value) != _kind(target) or _kind(value) not in ("number", "string"):
        return False
    return {"<": value < target, "<=": value <= target, ">": value > target, ">=": value >= target}[cmp]
'''

WRONG = [
    # Python's == : true equals 1
    mutate(SOLUTION, ('''    return _kind(a) == _kind(b) != "other" and a == b''', '''    return a == b''')),
    # a missing field compared as None: "x != 1" holds for records without x
    mutate(SOLUTION, ('''    if value is _MISSING:
        return False
''', '''    if value is _MISSING:
        value = None
''')),
    # and / or parsed at one level, left to right
    mutate(SOLUTION, ('''    left, pos = _conjunction(tokens, pos)
    while _peek(tokens, pos) == ("kw", "or"):
        right, pos = _conjunction(tokens, pos + 1)
        left = ("or", left, right)
    return left, pos''', '''    left, pos = _negation(tokens, pos)
    while _peek(tokens, pos) in (("kw", "or"), ("kw", "and")):
        op = _peek(tokens, pos)[1]
        right, pos = _negation(tokens, pos + 1)
        left = (op, left, right)
    return left, pos''')),
    # keywords only in lower case
    mutate(SOLUTION, ('''        elif word.lower() in _KEYWORDS:
            low = word.lower()''', '''        elif word in _KEYWORDS:
            low = word''')),
    # ordering across kinds left to Python (raises TypeError, or compares bools as numbers)
    mutate(SOLUTION, ('''    if _kind(value) != _kind(target) or _kind(value) not in ("number", "string"):
        return False
''', '')),
]

TESTS = r'''
RECORDS = [
    {"name": "Ada", "age": 36, "tags": {"vip": True, "tier": 2}},
    {"name": "bob", "age": 17.5, "tags": {"vip": False}},
    {"name": "Cy \"C\"", "age": "n/a", "tags": None},
    {"name": "dee", "active": 1},
    {"age": 1, "active": True, "name": "Eve\\x"},
]

def _invalid(query):
    try:
        matching(RECORDS, query)
    except ValueError:
        return True
    return False

def test_comparisons():
    assert matching([{"age": 30, "tags": {"vip": True}}, {"age": 17}], 'age >= 18 and tags.vip = true') == [0]
    assert matching(RECORDS, "age > 17") == [0, 1]
    assert matching(RECORDS, "age <= 17.5") == [1, 4]
    assert matching(RECORDS, 'age >= "a"') == [2]
    assert matching(RECORDS, 'name ~ "e"') == [3, 4]
    assert matching(RECORDS, 'name = "Cy \\"C\\""') == [2]
    assert matching(RECORDS, 'name = "Eve\\\\x"') == [4]
    assert matching(RECORDS, "age = 36.0") == [0]
    assert matching(RECORDS, "age = -1") == []

def test_kinds_never_mix():
    assert matching(RECORDS, "active = 1") == [3]
    assert matching(RECORDS, "active = true") == [4]
    assert matching(RECORDS, "tags.vip > 0") == []
    assert matching(RECORDS, "tags = null") == [2]
    assert matching(RECORDS, "age in [1, \"n/a\"]") == [2, 4]
    assert matching(RECORDS, "active in [true]") == [4]

def test_missing_fields():
    assert matching(RECORDS, "active != 1") == [4]
    assert matching(RECORDS, "tags.tier != 2") == []
    assert matching(RECORDS, "tags.vip != true") == [1]
    assert matching(RECORDS, "not tags.tier = 2") == [1, 2, 3, 4]
    assert matching(RECORDS, "tags.vip exists") == [0, 1]
    assert matching(RECORDS, "not age exists") == [3]

def test_precedence_and_keywords():
    assert matching(RECORDS, "age = 1 or age = 36 and tags.tier = 3") == [4]
    assert matching(RECORDS, "(age = 1 or age = 36) and tags.tier = 2") == [0]
    assert matching(RECORDS, "NOT active EXISTS And age < 20") == [1]
    assert matching(RECORDS, "Age < 20") == []
    assert matching(RECORDS, "not not active = TRUE") == [4]
    assert matching(RECORDS, "  age=1or age=36 ") == [0, 4]

def test_errors():
    for query in ["", "age", "age >", "age = ", "(age = 1", "age = 1 )", "age == 1", "age in 1", "age in [",
                  "age in []", 'name = "x', "and = 1", "age = 1 and", "1 = age", "age = x", "age = 1 age = 2",
                  "age = 1.", "age = .5", "age ! 1"]:
        assert _invalid(query), query

def test_seeded_queries():
    for records, query, want in SEEDED:
        assert matching(records, query) == want, (records, query)
'''


# ---------------------------------------------------------------- the oracle: trees, not text

_FIELDS = ["a", "b", "c.d", "c.e"]
_VALUES = [0, 1, 2, -3, 1.5, "x", "xy", "", True, False, None]


def _kind(v):
    return "bool" if isinstance(v, bool) else "number" if isinstance(v, (int, float)) else \
        "string" if isinstance(v, str) else "null" if v is None else "other"


def _get(record, field):
    value = record
    for part in field.split("."):
        if not isinstance(value, dict) or part not in value:
            return (False, None)
        value = value[part]
    return (True, value)


def _same(a, b):
    return _kind(a) == _kind(b) and _kind(a) != "other" and a == b


def _truth(tree, record):
    op = tree[0]
    if op in ("or", "and"):
        results = [_truth(t, record) for t in tree[1:]]
        return any(results) if op == "or" else all(results)
    if op == "not":
        return not _truth(tree[1], record)
    found, value = _get(record, tree[1])
    if op == "exists":
        return found
    if not found:
        return False
    if op == "in":
        return any(_same(value, v) for v in tree[2])
    cmp, target = tree[2], tree[3]
    if cmp in ("=", "!="):
        return _same(value, target) == (cmp == "=")
    if cmp == "~":
        return isinstance(value, str) and isinstance(target, str) and target in value
    if _kind(value) != _kind(target) or _kind(value) not in ("number", "string"):
        return False
    return {"<": value < target, "<=": value <= target, ">": value > target, ">=": value >= target}[cmp]


def _show(v, rng):
    if isinstance(v, bool) or v is None:
        word = {True: "true", False: "false", None: "null"}[v]
        return rng.choice([word, word.upper(), word.capitalize()])
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(v)


def _kw(word, rng):
    return rng.choice([word, word.upper(), word.capitalize()])


def _text(tree, rng, level=0):
    """level: 0 inside or, 1 inside and, 2 inside not."""
    op = tree[0]
    sp = lambda: rng.choice([" ", "  "])  # noqa: E731
    if op in ("or", "and"):
        need = (op == "or" and level > 0) or (op == "and" and level > 1) or rng.random() < 0.15
        inner = (sp() + _kw(op, rng) + sp()).join(_text(t, rng, 0 if op == "or" else 1) for t in tree[1:])
        return f"({inner})" if need else inner
    if op == "not":
        return _kw("not", rng) + " " + _text(tree[1], rng, 2)
    if op == "exists":
        return f"{tree[1]} {_kw('exists', rng)}"
    if op == "in":
        return f"{tree[1]} {_kw('in', rng)} [" + ", ".join(_show(v, rng) for v in tree[2]) + "]"
    return f"{tree[1]}{rng.choice(['', ' '])}{tree[2]}{rng.choice(['', ' '])}{_show(tree[3], rng)}"


def _random_tree(rng, depth):
    if depth == 0 or rng.random() < 0.35:
        kind = rng.choice(["cmp", "cmp", "cmp", "in", "exists"])
        field = rng.choice(_FIELDS)
        if kind == "exists":
            return ("exists", field)
        if kind == "in":
            return ("in", field, rng.sample(_VALUES, rng.randrange(1, 4)))
        return ("cmp", field, rng.choice(["=", "!=", "<", "<=", ">", ">=", "~"]), rng.choice(_VALUES))
    op = rng.choice(["or", "and", "not"])
    if op == "not":
        return ("not", _random_tree(rng, depth - 1))
    return (op,) + tuple(_random_tree(rng, depth - 1) for _ in range(rng.randrange(2, 4)))


def _random_record(rng):
    record = {}
    for key in ("a", "b"):
        if rng.random() < 0.8:
            record[key] = rng.choice(_VALUES)
    if rng.random() < 0.7:
        record["c"] = rng.choice([{"d": rng.choice(_VALUES)}, {"e": rng.choice(_VALUES), "d": rng.choice(_VALUES)},
                                  rng.choice(_VALUES)])
    return record


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    while len(seeded) < 40:
        records = [_random_record(rng) for _ in range(6)]
        tree = _random_tree(rng, 3)
        want = [i for i, r in enumerate(records) if _truth(tree, r)]
        if want in ([], list(range(6))) and rng.random() < 0.6:
            continue
        seeded.append((records, _text(tree, rng), want))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Record filter language with strict typing and missing fields",
        prompt=PROMPT, entry_point="matching", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        notes="""A tokenizer and a three-level recursive-descent parser plus an evaluator whose typing
        rules deliberately differ from Python's: true is not 1, ordering across kinds is false rather
        than an error, and a missing field makes even != false (so `not f = v` and `f != v` differ).
        Keywords are case-insensitive, strings carry escapes, and a dozen malformed queries must raise
        ValueError. Forty seeded queries are random syntax trees printed with random case, spacing and
        parentheses, evaluated directly as trees by the oracle.""",
    )]
