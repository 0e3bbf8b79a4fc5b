"""CO-parse-jsonpath: a small JSON path language (keys, indexes, slices, unions, wildcards, descent).

Hidden documents and paths come from the seed. The oracle first lists every node of the document with
its route from the root (pre-order) and then walks the path as a function over such lists, written
independently of the reference's parser and evaluator.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-jsonpath"

# Hardness (README "How tiers are assigned", coding): descent in pre-order including the node, Python slices
# with negative steps, negative indexes, unions in order, quoted keys with escapes, ValueError versus silent
# misses, tokenizer, evaluator. Traps: the wrong solutions.
HARDNESS = {"steps": 8, "search": 1, "traps": 5}

PROMPT = """
Write a Python function `select(document, path: str) -> list` that evaluates a path over a JSON-like
document (nested dicts, lists, strings, numbers, booleans and None) and returns the selected values,
in order.

A path starts with `$` (the document itself) and is followed by zero or more steps, each applied to
every node selected so far, in order:
- `.name` (name: a letter or `_`, then letters, digits or `_`) and `['key']` or `["key"]` select the
  value under that key of a dict. Inside quotes, `\\'`, `\\"` and `\\\\` stand for `'`, `"` and `\\`; any
  other character stands for itself.
- `[i]` selects item i of a list; a negative i counts from the end (-1 is the last item).
- `[start:stop]` and `[start:stop:step]` select items of a list exactly as Python's slicing does
  (each number may be omitted, may be negative; step is never 0).
- `[*]` and `.*` select every item of a list, or every value of a dict in its key order.
- `[a, b, ...]` (a union) selects, for each entry in turn, what that entry alone would select;
  entries are indexes or quoted keys.
- `..` followed by a step (`..name`, `..*`, `..[...]`) applies that step to the node itself and to
  every node below it, visiting a node before its children and children in order.
Spaces are allowed around the entries inside brackets and nowhere else. A step that does not fit the
node (a key on a list, an index on a dict, a missing key, an index out of range) selects nothing for
that node; it is not an error. Selected values are returned as they are (not copied), duplicates
included. Raise `ValueError` for a path that does not follow this syntax.

Example:
    select({"a": [{"b": 1}, {"b": 2}]}, "$.a[*].b") == [1, 2]
"""

SOLUTION = '''
def select(document, path):
    steps = _parse(path)
    nodes = [document]
    for descend, selector in steps:
        if descend:
            nodes = [n for node in nodes for n in _preorder(node)]
        nodes = [v for node in nodes for v in _apply(selector, node)]
    return nodes


def _preorder(node):
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        children = list(n.values()) if isinstance(n, dict) else n if isinstance(n, list) else []
        stack.extend(reversed(children))
    return out


def _apply(selector, node):
    kind = selector[0]
    if kind == "key":
        return [node[selector[1]]] if isinstance(node, dict) and selector[1] in node else []
    if kind == "all":
        return list(node.values()) if isinstance(node, dict) else list(node) if isinstance(node, list) else []
    if kind == "index":
        if isinstance(node, list) and -len(node) <= selector[1] < len(node):
            return [node[selector[1]]]
        return []
    if kind == "slice":
        return node[slice(*selector[1:])] if isinstance(node, list) else []
    return [v for part in selector[1] for v in _apply(part, node)]        # union


def _parse(path):
    if not path.startswith("$"):
        raise ValueError("a path starts with $")
    i, n, steps = 1, len(path), []
    while i < n:
        descend = path.startswith("..", i)
        if descend:
            i += 2
            if i < n and path[i] == "[":
                selector, i = _bracket(path, i)
            else:
                selector, i = _dotted(path, i)
        elif path[i] == ".":
            selector, i = _dotted(path, i + 1)
        elif path[i] == "[":
            selector, i = _bracket(path, i)
        else:
            raise ValueError(f"unexpected {path[i]!r} at {i}")
        steps.append((descend, selector))
    return steps


def _dotted(path, i):
    if i < len(path) and path[i] == "*":
        return ("all",), i + 1
    j = i
    while j < len(path) and (path[j] == "_" or path[j].isascii() and path[j].isalnum()):
        j += 1
    name = path[i:j]
    if not name or name[0].isdigit():
        raise ValueError(f"a name is expected at {i}")
    return ("key", name), j


def _bracket(path, i):
    i += 1
    entries = []
    while True:
        while i < len(path) and path[i] == " ":
            i += 1
        if i >= len(path):
            raise ValueError("unclosed [")
        c = path[i]
        if c in "'\\"":
            quote, i, chars = c, i + 1, []
            while True:
                if i >= len(path):
                    raise ValueError("unclosed quote")
                if path[i] == "\\\\" and i + 1 < len(path) and path[i + 1] in "'\\"\\\\":
                    chars.append(path[i + 1])
                    i += 2
                elif path[i] == quote:
                    i += 1
                    break
                else:
                    chars.append(path[i])
                    i += 1
            entries.append(("key", "".join(chars)))
        elif c == "*":
            entries.append(("all",))
            i += 1
        else:
            j = i
            while j < len(path) and (path[j] in "-:" or path[j].isdigit()):
                j += 1
            text = path[i:j]
            if ":" in text:
                parts = text.split(":")
                if len(parts) > 3:
                    raise ValueError("bad slice")
                numbers = [int(p) if p else None for p in parts]
                if len(numbers) == 3 and numbers[2] == 0:
                    raise ValueError("slice step 0")
                entries.append(("slice", *numbers))
            else:
                try:
                    entries.append(("index", int(text)))
                except ValueError:
                    raise ValueError(f"bad bracket entry at {i}") from None
            i = j
        while i < len(path) and path[i] == " ":
            i += 1
        if i < len(path) and path[i] == ",":
            i += 1
            continue
        if i < len(path) and path[i] == "]":
            i += 1
            break
        raise ValueError(f"expected , or ] at {i}")
    if len(entries) == 1:
        return entries[0], i
    if any(e[0] in ("all", "slice") for e in entries):
        raise ValueError("unions hold indexes and keys only")
    return ("union", entries), i
'''

WRONG = [
    # descent skips the node itself: $..a misses the root's own "a"
    mutate(SOLUTION, ("    out, stack = [], [node]", "    out, stack = [], list(reversed(list(node.values()) if isinstance(node, dict) else node if isinstance(node, list) else []))")),
    # descent visits nodes level by level instead of depth first
    mutate(SOLUTION, ('''    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        children = list(n.values()) if isinstance(n, dict) else n if isinstance(n, list) else []
        stack.extend(reversed(children))
    return out''', '''    out = [node]
    for n in out:
        out.extend(list(n.values()) if isinstance(n, dict) else n if isinstance(n, list) else [])
    return out''')),
    # negative indexes wrap around with modulo: -5 on a 3-item list selects something
    mutate(SOLUTION, ('''        if isinstance(node, list) and -len(node) <= selector[1] < len(node):
            return [node[selector[1]]]''', '''        if isinstance(node, list) and node and selector[1] < len(node):
            return [node[selector[1] % len(node)]]''')),
    # slices by hand with defaults 0 and len: a negative step selects nothing
    mutate(SOLUTION, ('''        return node[slice(*selector[1:])] if isinstance(node, list) else []''', '''        if not isinstance(node, list):
            return []
        start, stop, step = (list(selector[1:]) + [None])[:3]
        start = 0 if start is None else start if start >= 0 else max(0, len(node) + start)
        stop = len(node) if stop is None else min(stop, len(node)) if stop >= 0 else max(0, len(node) + stop)
        return [node[k] for k in range(start, stop, step or 1)]''')),
    # escapes inside quotes not understood
    mutate(SOLUTION, (r'''                if path[i] == "\\" and i + 1 < len(path) and path[i + 1] in "'\"\\":
                    chars.append(path[i + 1])
                    i += 2
                elif path[i] == quote:''', "                if path[i] == quote:")),
]

TESTS = '''
DOC = {
    "store": {
        "book": [
            {"title": "Tide", "price": 8, "tags": ["sea", "salt"]},
            {"title": "Ash", "price": 12, "tags": []},
            {"title": "Moss", "price": 5, "tags": ["green"], "note": {"price": 1}},
        ],
        "price": 99,
        "o'k": {"a.b": 1, "\\\\": 2},
    },
    "price": 0,
    "list": [[1, 2], [3, [4, 5]]],
}

def _invalid(path):
    try:
        select(DOC, path)
    except ValueError:
        return True
    return False

def test_keys_and_indexes():
    assert select(DOC, "$") == [DOC]
    assert select(DOC, "$.store.book[0].title") == ["Tide"]
    assert select(DOC, "$['store']['book'][-1]['title']") == ["Moss"]
    assert select(DOC, "$.store.book[3]") == []
    assert select(DOC, "$.store.book[-4]") == []
    assert select(DOC, "$.store.book.title") == []
    assert select(DOC, "$.store[0]") == []
    assert select(DOC, "$.missing.deeper") == []

def test_quoted_keys():
    assert select(DOC, "$.store['o\\\\'k']['a.b']") == [1]
    assert select(DOC, '$.store["o\\'k"]["\\\\\\\\"]') == [2]

def test_wildcards_slices_unions():
    assert select(DOC, "$.store.book[*].price") == [8, 12, 5]
    assert select(DOC, "$.store.*") == [DOC["store"]["book"], 99, DOC["store"]["o'k"]]
    assert select(DOC, "$.store.book[::-1].title") == ["Moss", "Ash", "Tide"]
    assert select(DOC, "$.store.book[-2:].title") == ["Ash", "Moss"]
    assert select(DOC, "$.store.book[:-1:2].title") == ["Tide"]
    assert select(DOC, "$.store.book[ 2 , 0 , 2 ].price") == [5, 8, 5]
    assert select(DOC, "$.store['price', 'nope', \\"book\\"][0].title") == ["Tide"]
    assert select(DOC, "$.list[*][*]") == [1, 2, 3, [4, 5]]

def test_descent():
    assert select(DOC, "$..price") == [0, 99, 8, 12, 5, 1]
    assert select(DOC, "$.store..price") == [99, 8, 12, 5, 1]
    assert select(DOC, "$..tags[0]") == ["sea", "green"]
    assert select({"a": {"b": {"x": 1}}, "c": {"x": 2}}, "$..x") == [1, 2]
    assert select(DOC, "$.list..[0]") == [[1, 2], 1, 3, 4]
    assert select(DOC, "$.list..*") == [[1, 2], [3, [4, 5]], 1, 2, 3, [4, 5], 4, 5]

def test_invalid_paths():
    for path in ["store", "$.", "$..", "$[", "$['a'", "$[1:2:0]", "$.1a", "$[a]", "$ .a", "$[1:2:3:4]",
                 "$.a b", "$[*, 1]", "$['x']x"]:
        assert _invalid(path), path

def test_seeded_paths():
    for document, path, want in SEEDED:
        assert select(document, path) == want, (document, path)
'''


# ---------------------------------------------------------------- the oracle

def _children(node):
    if isinstance(node, dict):
        return list(node.items())
    if isinstance(node, list):
        return list(enumerate(node))
    return []


def _walk(node):
    """Every node below and including `node`, pre-order."""
    yield node
    for _, child in _children(node):
        yield from _walk(child)


def _step(kind, arg, node):
    pairs = _children(node)
    if kind == "name":
        return [v for k, v in pairs if isinstance(node, dict) and k == arg]
    if kind == "star":
        return [v for _, v in pairs]
    if kind == "index":
        size = len(node) if isinstance(node, list) else 0
        return [v for k, v in pairs if isinstance(node, list) and k == arg % size and -size <= arg < size]
    if kind == "slice":
        if not isinstance(node, list):
            return []
        wanted = range(len(node))[slice(*arg)]
        return [node[k] for k in wanted]
    return [v for entry in arg for v in _step(entry[0], entry[1], node)]


def _oracle(document, steps):
    current = [document]
    for descend, kind, arg in steps:
        if descend:
            current = [n for c in current for n in _walk(c)]
        current = [v for c in current for v in _step(kind, arg, c)]
    return current


def _render(rng, descend, kind, arg):
    prefix = ".." if descend else ""
    space = lambda: rng.choice(["", "", " "])  # noqa: E731
    if kind == "name":
        if arg.isidentifier() and rng.random() < 0.6:
            return prefix + ("" if descend else ".") + arg
        quote = rng.choice(["'", '"'])
        body = arg.replace("\\", "\\\\").replace(quote, "\\" + quote)
        return f"{prefix}[{space()}{quote}{body}{quote}{space()}]"
    if kind == "star":
        return prefix + rng.choice(["[*]", "*" if descend else ".*"])
    if kind == "index":
        return f"{prefix}[{space()}{arg}{space()}]"
    if kind == "slice":
        text = ":".join("" if a is None else str(a) for a in arg)
        return f"{prefix}[{text}]"
    entries = []
    for k, a in arg:
        entries.append(str(a) if k == "index" else "'" + a.replace("\\", "\\\\").replace("'", "\\'") + "'")
    return f"{prefix}[" + f"{space()},{space()}".join(entries) + "]"


_KEYS = ["a", "b", "k_1", "x.y", "it's", "q\"", "b\\s"]


def _random_doc(rng, depth):
    if depth == 0 or rng.random() < 0.25:
        return rng.choice([rng.randrange(100), "s", True, None])
    if rng.random() < 0.5:
        return {k: _random_doc(rng, depth - 1) for k in rng.sample(_KEYS, rng.randrange(0, 4))}
    return [_random_doc(rng, depth - 1) for _ in range(rng.randrange(0, 4))]


def _random_step(rng):
    kind = rng.choice(["name", "name", "star", "index", "slice", "union"])
    if kind == "name":
        arg = rng.choice(_KEYS)
    elif kind == "index":
        arg = rng.randrange(-4, 4)
    elif kind == "slice":
        arg = tuple(rng.choice([None, rng.randrange(-3, 4)]) for _ in range(rng.choice([2, 3])))
        if len(arg) == 3 and arg[2] == 0:
            arg = arg[:2]
    elif kind == "union":
        arg = [("index", rng.randrange(-3, 3)) if rng.random() < 0.5 else ("name", rng.choice(_KEYS))
               for _ in range(rng.randrange(2, 4))]
    else:
        arg = None
    return rng.random() < 0.3, kind, arg


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    while len(seeded) < 40:
        doc = _random_doc(rng, 4)
        steps = [_random_step(rng) for _ in range(rng.randrange(1, 4))]
        if any(kind == "union" and all(k == "index" for k, _ in arg) and len(arg) == 1 for _, kind, arg in steps):
            continue
        path = "$" + "".join(_render(rng, *step) for step in steps)
        want = _oracle(doc, steps)
        if not want and rng.random() < 0.7:
            continue
        seeded.append((doc, path, want))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="A JSON path language: keys, slices, unions, wildcards, descent",
        prompt=PROMPT, entry_point="select", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        notes="""A tokenizer plus evaluator with many small semantics to get exactly right: descent
        includes the node itself and visits depth first (pre-order), Python slice semantics with
        negative steps, negative indexes without wrap-around, unions in entry order with duplicates
        kept, quoted keys with escapes, and ValueError for malformed paths while type mismatches
        silently select nothing. Forty seeded documents and paths are checked against an evaluator
        written separately from the reference.""",
    )]
