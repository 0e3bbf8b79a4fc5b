"""CO-parse-pretty: a width-aware pretty printer for JSON-like data (flat when it fits, else broken).

Hidden values and widths come from the seed. The oracle takes each container's flat text from
json.dumps (not from a printer of its own) and applies the layout rule to it; the tests also check
that every output parses back to the value.
"""

import json

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-pretty"

# Hardness (README "How tiers are assigned", coding): the fit test counting indentation, key prefix and
# trailing comma, recursion one level deeper, scalars never broken, empty containers. Traps: the wrong
# solutions.
HARDNESS = {"steps": 6, "search": 1, "traps": 4}

PROMPT = """
Write a Python function `pretty(value, width: int) -> str` that prints a JSON-like value (dicts with
string keys, lists, strings, ints, floats, True, False, None) as JSON text laid out for a given width.

- Scalars are written as JSON: null, true, false, ints as usual, floats as Python's repr, strings in
  double quotes with JSON escapes for `"`, `\\` and control characters (other characters unescaped).
- The flat form of a list is `[` items joined by `, ` `]`; of a dict, `{` entries `"key": value` joined
  by `, ` `}`; empty ones are `[]` and `{}`.
- Layout: a value is written flat when its flat form fits on its line: the column where it starts
  (indentation plus, inside a dict, the `"key": ` before it) plus its length plus 1 if a comma follows
  it must be at most `width`. Otherwise a non-empty list or dict is broken: the opening bracket ends
  the line, each item or entry goes on its own line indented two more spaces than the line the bracket
  opened on (each laid out by the same rule), all but the last followed by a comma, and the closing
  bracket sits on its own line at the opening line's indentation. Scalars and empty containers are
  never broken, even when too long.
- The top-level value starts at column 0. No trailing spaces, no final newline.

Example:
    pretty({"a": [1, 2], "b": "x"}, 14) == '{\\n  "a": [1, 2],\\n  "b": "x"\\n}'
"""

SOLUTION = '''
def pretty(value, width):
    lines = []
    _place(value, "", "", "", width, lines)
    return "\\n".join(lines)


def _scalar(value):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return repr(value)
    out = ['"']
    for ch in value:
        if ch in '"\\\\':
            out.append("\\\\" + ch)
        elif ch in "\\n\\r\\t\\b\\f":
            out.append({"\\n": "\\\\n", "\\r": "\\\\r", "\\t": "\\\\t", "\\b": "\\\\b", "\\f": "\\\\f"}[ch])
        elif ord(ch) < 0x20:
            out.append("\\\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _flat(value):
    if isinstance(value, list):
        return "[" + ", ".join(_flat(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(_scalar(k) + ": " + _flat(v) for k, v in value.items()) + "}"
    return _scalar(value)


def _place(value, indent, prefix, suffix, width, lines):
    """Write `indent + prefix + value + suffix`, breaking value if its flat form does not fit."""
    flat = _flat(value)
    container = isinstance(value, (list, dict)) and len(value) > 0
    if not container or len(indent) + len(prefix) + len(flat) + len(suffix) <= width:
        lines.append(indent + prefix + flat + suffix)
        return
    opening, closing = ("[", "]") if isinstance(value, list) else ("{", "}")
    lines.append(indent + prefix + opening)
    inner = indent + "  "
    items = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
    for i, (key, item) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        _place(item, inner, "" if key is None else _scalar(key) + ": ", comma, width, lines)
    lines.append(indent + closing + suffix)
'''

WRONG = [
    # the comma after a value not counted
    mutate(SOLUTION, ("    if not container or len(indent) + len(prefix) + len(flat) + len(suffix) <= width:",
                      "    if not container or len(indent) + len(prefix) + len(flat) <= width:")),
    # the key in front of a dict value not counted
    mutate(SOLUTION, ("    if not container or len(indent) + len(prefix) + len(flat) + len(suffix) <= width:",
                      "    if not container or len(indent) + len(flat) + len(suffix) <= width:")),
    # too wide means json.dumps with indent: everything inside is broken too
    '''
    import json

    def pretty(value, width):
        flat = json.dumps(value, ensure_ascii=False)
        if len(flat) <= width:
            return flat
        return json.dumps(value, ensure_ascii=False, indent=2)
    ''',
    # the indentation left out of the fit test
    mutate(SOLUTION, ("    if not container or len(indent) + len(prefix) + len(flat) + len(suffix) <= width:",
                      "    if not container or len(prefix) + len(flat) + len(suffix) <= width:")),
]

TESTS = r'''
import json

def _check(value, width):
    text = pretty(value, width)
    assert json.loads(text) == value, text
    return text

def test_example_and_scalars():
    assert pretty({"a": [1, 2], "b": "x"}, 14) == '{\n  "a": [1, 2],\n  "b": "x"\n}'
    assert pretty(None, 1) == "null"
    assert pretty([True, False, 1.5, -0.0, 10**20], 80) == "[true, false, 1.5, -0.0, 100000000000000000000]"
    assert pretty('q"\\\n\té\x01', 0) == '"q\\"\\\\\\n\\té\\u0001"'
    assert pretty([], 0) == "[]" and pretty({}, 0) == "{}"

def test_exact_fit():
    v = [[1, 2], [3, 4]]
    assert pretty(v, 16) == "[[1, 2], [3, 4]]"
    assert pretty(v, 15) == "[\n  [1, 2],\n  [3, 4]\n]"
    assert pretty(v, 9) == "[\n  [1, 2],\n  [3, 4]\n]"
    assert pretty(v, 8) == "[\n  [\n    1,\n    2\n  ],\n  [3, 4]\n]"

def test_keys_and_commas_count():
    v = {"long key": [1, 2, 3], "x": 0}
    assert pretty(v, 31) == '{"long key": [1, 2, 3], "x": 0}'
    assert pretty(v, 24) == '{\n  "long key": [1, 2, 3],\n  "x": 0\n}'
    assert pretty(v, 23) == '{\n  "long key": [\n    1,\n    2,\n    3\n  ],\n  "x": 0\n}'

def test_too_long_scalars_stay():
    v = {"k": "a very long string that cannot fit", "n": [1]}
    assert pretty(v, 10) == '{\n  "k": "a very long string that cannot fit",\n  "n": [1]\n}'

def test_nested_mixed():
    v = {"id": 7, "tags": ["x", "y"], "meta": {"a": {"b": [1, {"c": None}]}}}
    text = _check(v, 24)
    assert text == ('{\n  "id": 7,\n  "tags": ["x", "y"],\n  "meta": {\n    "a": {\n      "b": [\n        1,\n'
                    '        {"c": null}\n      ]\n    }\n  }\n}')

def test_seeded():
    for value, width, want in SEEDED:
        assert _check(value, width) == want, (value, width)
'''


def _oracle(value, width, indent=0, prefix="", suffix=""):
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (list, dict)) or not value or indent + len(prefix) + len(flat) + len(suffix) <= width:
        return [" " * indent + prefix + flat + suffix]
    open_, close = "[]" if isinstance(value, list) else "{}"
    items = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
    out = [" " * indent + prefix + open_]
    for i, (key, item) in enumerate(items):
        head = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
        out += _oracle(item, width, indent + 2, head, "," if i + 1 < len(items) else "")
    return out + [" " * indent + close + suffix]


def _random_value(rng, depth):
    if depth == 0 or rng.random() < 0.3:
        return rng.choice([None, True, False, 0, -12, 3.25, 1e21, "", "ab", 'q"uote', "tab\there", "é"])
    if rng.random() < 0.5:
        return [_random_value(rng, depth - 1) for _ in range(rng.randrange(0, 4))]
    return {rng.choice(["a", "bb", "key", "k\"q", "z"]) + str(i): _random_value(rng, depth - 1)
            for i in range(rng.randrange(0, 4))}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(30):
        value = _random_value(rng, 4)
        flat = len(json.dumps(value, ensure_ascii=False))
        width = rng.randrange(max(1, flat // 3), flat + 3)
        seeded.append((value, width, "\n".join(_oracle(value, width))))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Width-aware pretty printer for JSON-like data",
        prompt=PROMPT, entry_point="pretty", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        notes="""An exact layout rule where every character counts: the fit test includes the
        indentation, the key prefix and the trailing comma, a broken container's children are laid
        out by the same rule one level deeper, and scalars never break. Off-by-one widths are tested
        at the exact boundary. json.dumps(indent=2) breaks everything and is wrong. Thirty seeded
        values are laid out at widths around their flat length, and every output must parse back.""",
    )]
