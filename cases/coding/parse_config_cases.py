"""CO-parse-config: a strict TOML-like configuration subset (tables, dotted headers, typed values) with
errors that name the line.

The seeded documents are written from random nested data by a serializer here (random spacing,
comments, strings holding `#`, `=` and escapes, headers of a sub-table before its parent), so the
expected result is the data itself; faulty documents get one fault planted at a known line. The
reference is a line-by-line parser with a small value scanner.
"""

import json

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-config"

# Hardness (README "How tiers are assigned", coding): comments outside strings only, string escapes,
# integers with single underscores, arrays, dotted headers nesting tables (a child before its parent),
# duplicate keys, headers and key/table clashes as errors, 1-based line numbers: 7 rules on one text;
# no search. Traps: the wrong solutions.
HARDNESS = {"steps": 7, "search": 1, "traps": 5}

PROMPT = r"""
Write a Python function `parse_config(text: str) -> dict` for this configuration format, raising
`ValueError` whose message starts with `line N:` (N the 1-based line where the problem is) on any
error.

- Each line is blank, a comment, a table header or a key/value pair. `#` starts a comment that runs to
  the end of the line, except inside a string. Spaces and tabs around tokens are ignored.
- A key is one or more of `A-Z a-z 0-9 _ -`. A pair is `key = value`; pairs before the first header
  go into the top-level dict, later ones into the table of the last header.
- A header `[name]` or `[a.b.c]` (parts are keys, joined by single dots, no spaces inside the
  brackets) selects a table: `[a.b]` is the dict at result["a"]["b"], creating missing tables on the
  way. A table may get its own header after one of its sub-tables had one.
- Values: integers (optional `+`/`-`, digits, single `_` allowed only between two digits: `1_000`);
  `true` / `false`; strings in double quotes with the escapes `\"`, `\\`, `\n`, `\t` (any other
  backslash, or a missing closing quote, is an error); arrays `[v, v, ...]` of these values (possibly
  nested, possibly empty, on one line, no trailing comma).
- Errors: a line that is none of the above or a bad value; a key given twice in one table; a header for a
  table that already had a header; a key and a table with the same name in one table (either order).

Example:

    parse_config('title = "a # b"  # note\n[db.main]\nport = 8_080\n[db]\nhosts = ["x", "y"]\n') == \
        {"title": "a # b", "db": {"main": {"port": 8080}, "hosts": ["x", "y"]}}
"""

SOLUTION = r'''
import re

_KEY = re.compile(r"[A-Za-z0-9_-]+")
_INT = re.compile(r"[+-]?\d+(_\d+)*")


def parse_config(text):
    root = table = {}
    headed, pairs = set(), set()      # ids of tables given a header; (key, id of table) set by a pair
    for number, line in enumerate(text.split("\n"), 1):
        try:
            table = _line(line, root, table, headed, pairs)
        except _Bad as bad:
            raise ValueError(f"line {number}: {bad}") from None
    return root


class _Bad(Exception):
    pass


def _line(line, root, table, headed, pairs):
    s = line.strip(" \t")
    if not s or s.startswith("#"):
        return table
    if s.startswith("["):
        end = s.find("]")
        if end < 0 or _rest(s, end + 1):
            raise _Bad("bad header")
        parts = s[1:end].split(".")
        if not all(_KEY.fullmatch(p) for p in parts):
            raise _Bad("bad table name")
        node = root
        for p in parts:
            if p not in node:
                node[p] = {}
            elif not isinstance(node[p], dict) or (p, id(node)) in pairs:
                raise _Bad(f"{p} is not a table")
            node = node[p]
        if id(node) in headed:
            raise _Bad("table defined twice")
        headed.add(id(node))
        return node
    key_match = _KEY.match(s)
    if not key_match:
        raise _Bad("expected a key")
    key = key_match.group(0)
    i = _skip(s, key_match.end())
    if i >= len(s) or s[i] != "=":
        raise _Bad("expected =")
    value, i = _value(s, _skip(s, i + 1))
    if _rest(s, i):
        raise _Bad("text after the value")
    if key in table:
        raise _Bad(f"{key} given twice")
    table[key] = value
    pairs.add((key, id(table)))
    return table


def _skip(s, i):
    while i < len(s) and s[i] in " \t":
        i += 1
    return i


def _rest(s, i):
    i = _skip(s, i)
    return i < len(s) and s[i] != "#"


def _value(s, i):
    if i >= len(s):
        raise _Bad("missing value")
    if s[i] == '"':
        out, i = [], i + 1
        while True:
            if i >= len(s):
                raise _Bad("unterminated string")
            c = s[i]
            if c == '"':
                return "".join(out), i + 1
            if c == "\\":
                nxt = s[i + 1] if i + 1 < len(s) else ""
                if nxt not in '"\\nt':
                    raise _Bad("bad escape")
                out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
                i += 2
            else:
                out.append(c)
                i += 1
    if s[i] == "[":
        items, i = [], _skip(s, i + 1)
        if i < len(s) and s[i] == "]":
            return items, i + 1
        while True:
            item, i = _value(s, i)
            items.append(item)
            i = _skip(s, i)
            if i < len(s) and s[i] == ",":
                i = _skip(s, i + 1)
                if i < len(s) and s[i] == "]":
                    raise _Bad("trailing comma")
                continue
            if i < len(s) and s[i] == "]":
                return items, i + 1
            raise _Bad("bad array")
    m = re.compile(r"[^\s,\]#]+").match(s, i)
    if not m:
        raise _Bad("missing value")
    word = m.group(0)
    if word in ("true", "false"):
        return word == "true", m.end()
    if _INT.fullmatch(word):
        return int(word.replace("_", "")), m.end()
    raise _Bad(f"bad value {word!r}")
'''

WRONG = [
    # comments cut before the line is read: a '#' inside a string ends it
    mutate(SOLUTION, ('''    s = line.strip(" \\t")
    if not s or s.startswith("#"):''', '''    s = line.split("#", 1)[0].strip(" \\t")
    if not s:''')),
    # a repeated key silently replaces the first
    mutate(SOLUTION, ('''    if key in table:
        raise _Bad(f"{key} given twice")
''', '')),
    # underscores removed before the number is checked: 1__0 and 1_ accepted
    mutate(SOLUTION, ('''    if _INT.fullmatch(word):''', '''    if _INT.fullmatch(word.replace("_", "")):''')),
    # line numbers counted from 0
    mutate(SOLUTION, ('''    for number, line in enumerate(text.split("\\n"), 1):''',
                      '''    for number, line in enumerate(text.split("\\n")):''')),
    # a header for a table that only existed through a sub-table's header counts as a second definition
    mutate(SOLUTION, ('''            if p not in node:
                node[p] = {}''', '''            if p not in node:
                node[p] = {}
                headed.add(id(node[p]))''')),
]

TESTS = r'''
def outcome(text):
    try:
        return parse_config(text)
    except ValueError as exc:
        message = str(exc)
        assert message.startswith("line "), message
        return "error at " + message.split(":")[0]

def test_example():
    assert parse_config('title = "a # b"  # note\n[db.main]\nport = 8_080\n[db]\nhosts = ["x", "y"]\n') == \
        {"title": "a # b", "db": {"main": {"port": 8080}, "hosts": ["x", "y"]}}

def test_edges():
    assert parse_config("") == {}
    assert parse_config("a=-1_2\nb = +3\nc=[ ]\nd = [[1], [true, \"q\\\"\\\\\"]]") == \
        {"a": -12, "b": 3, "c": [], "d": [[1], [True, 'q"\\']]}
    assert parse_config('[x]\n[y.z]\n[y]\nk = "\\t#"') == {"x": {}, "y": {"z": {}, "k": "\t#"}}
    assert outcome("a = 1\n\n[a]") == "error at line 3"
    assert outcome("[a]\nb = 1\n[a.b]") == "error at line 3"
    assert outcome("[a.b]\n[a]\n[a.b]") == "error at line 3"
    assert outcome("x = 1_") == "error at line 1"
    assert outcome("x = [1, 2,]") == "error at line 1"
    assert outcome('# c\nx = "abc') == "error at line 2"
    assert outcome('x = "a\\qb"') == "error at line 1"
    assert outcome("[a .b]") == "error at line 1"
    assert outcome("x = yes") == "error at line 1"

def test_seeded():
    for text, want in SEEDED:
        assert outcome(text) == want, text
'''

_WORDS = ["alpha", "beta", "db", "main", "port", "host-name", "x_1", "v2", "name", "list", "k"]
_TRICKY = ["a # b", "key = value", 'say "hi"', "back\\slash", "tab\there", "line\nbreak", "", "[not a table]"]


def _value(rng, depth=0):
    roll = rng.random()
    if roll < 0.3:
        return rng.randrange(-5000, 5000)
    if roll < 0.45:
        return rng.random() < 0.5
    if roll < 0.8 or depth > 1:
        return rng.choice(_TRICKY + _WORDS)
    return [_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]


def _write(rng, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        text = str(abs(value))
        if len(text) > 3 and rng.random() < 0.5:
            text = text[:-3] + "_" + text[-3:]
        sign = "-" if value < 0 else ("+" if rng.random() < 0.2 else "")
        return sign + text
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'
    sep = rng.choice([",", ", ", " ,  "])
    return "[" + rng.choice(["", " "]) + sep.join(_write(rng, v) for v in value) + "]"


def _document(rng):
    """(lines, data): root pairs, then tables (a child header sometimes before its parent's)."""
    data, lines = {}, []
    for key in rng.sample(_WORDS, rng.randrange(0, 4)):
        data[key] = _value(rng)
    tables = []
    for _ in range(rng.randrange(0, 4)):
        path = tuple(rng.sample(["t", "u", "w"], 1)) + tuple(rng.sample(["p", "q"], rng.randrange(0, 2)))
        if path not in tables and not (len(path) == 1 and path[0] in data):
            tables.append(path)
    rng.shuffle(tables)
    for key, value in data.items():
        lines.append(_pair(rng, key, value))
    for path in tables:
        node = data
        for p in path:
            node = node.setdefault(p, {})
        lines.append("[" + ".".join(path) + "]" + (rng.choice(["", "  # table"]) if rng.random() < 0.3 else ""))
        for key in rng.sample(_WORDS, rng.randrange(0, 3)):
            if key not in node and not any(t[:len(path) + 1] == path + (key,) for t in tables):
                node[key] = _value(rng)
                lines.append(_pair(rng, key, node[key]))
    out = []
    for line in lines:
        if rng.random() < 0.15:
            out.append(rng.choice(["", "# comment", "   ", "\t# x = 1"]))
        out.append(line)
    return out, data


def _pair(rng, key, value):
    eq = rng.choice(["=", " = ", "  =\t", "= "])
    tail = rng.choice(["", "  # note", " #"]) if rng.random() < 0.3 else ""
    return rng.choice(["", " ", "\t"]) + key + eq + _write(rng, value) + tail


_FAULTS = ["x = yes", "x = 1__0", 'x = "open', "x = [1,,2]", "just text", "a b = 1", "[t..p]", "[ t ]",
           'x = "bad \\e"', "x = 1 2", "= 5", "x = _1"]


def _faulty(rng):
    lines, data = _document(rng)
    kind = rng.random()
    if kind < 0.5 or not lines:
        at = rng.randrange(len(lines) + 1)
        lines.insert(at, rng.choice(_FAULTS))
        return lines, at + 1
    pairs = [i for i, line in enumerate(lines) if "=" in line and not line.lstrip().startswith("#")
             and not line.lstrip().startswith("[")]
    if pairs and kind < 0.75:
        i = rng.choice(pairs)
        key = lines[i].strip().split("=")[0].strip()
        lines.insert(i + 1, f"{key} = 1")                  # the same key again, in the same table
        return lines, i + 2
    headers = [i for i, line in enumerate(lines) if line.startswith("[")]
    if headers:
        i = rng.choice(headers)
        lines.append(lines[i].split("#")[0].strip())          # the same header again, at the end
        return lines, len(lines)
    lines.insert(0, "[oops] extra")
    return lines, 1


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(30):
        lines, data = _document(rng)
        text = "\n".join(lines)
        assert json.loads(json.dumps(data)) == data
        seeded.append((text, data))
    for _ in range(30):
        lines, at = _faulty(rng)
        seeded.append(("\n".join(lines), f"error at line {at}"))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Strict TOML-like config: dotted tables, typed values, error lines",
        prompt=PROMPT, entry_point="parse_config", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        notes="""A TOML-like subset with its strictness spelled out: a '#' inside a string is text,
        underscores only between digits, a table's own header may follow its sub-table's header (but
        not repeat), a key and a table may not share a name in either order, and every error names
        its 1-based line. Replies that strip comments first, let a later key win, clean underscores
        before checking, count lines from 0 or treat an implicitly created table as defined fail the
        hidden documents.""",
    )]
