"""CO-parse-outline: an indentation-based outline format (a small YAML-like subset) to Python data.

Hidden documents come from the seed: random nested data is written out by a serializer that chooses
freely among equivalent layouts (comments, blank lines, inline "- key:" items, quoting), so the expected
value is the data itself and the oracle is the writer, not a parser.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-outline"

# Hardness (README "How tiers are assigned", coding): stack of blocks, list versus mapping, inline - key:
# items, empty values, dedent and duplicate errors, comments respecting quotes, typed scalars, the parser.
# Traps: the wrong solutions.
HARDNESS = {"steps": 8, "search": 1, "traps": 5}

PROMPT = r'''
Write a Python function `parse_outline(text: str)` that reads this outline format and returns Python
data (dicts, lists, str, int, float, bool, None).

Lines and indentation:
- Lines that are empty, only spaces, or whose first non-space character is `#` are ignored. Indentation
  is spaces only; a tab in the indentation is a ValueError. The first counted line has no indentation.
- A block is a run of lines with the same indentation. A block whose first line starts with `- ` (or
  is just `-`) is a list, otherwise a mapping; a list line in a mapping block or a mapping line in a
  list block is a ValueError, and so is a line indented deeper than expected or a dedent to an
  indentation that no open block has.

Mapping lines are `key: value` or `key:`. The key is the text before the first `:` that is followed by
a space or ends the line; it must not be empty or start with `"`, `-` or `#`, and a key may appear only
once per mapping (else ValueError); a line with no such `:` is a ValueError. With `key:` (nothing after
it but perhaps an inline comment) the value is the block indented deeper on the following lines, or
None if the next line is not deeper.

List lines are `- value` or `-`. With `-` (again perhaps with an inline comment) the item is the
deeper block that follows (or None). If the
text after `- ` is itself a mapping line (`- name: x`), the item is a mapping whose first entry is on
that line and whose further entries are the following lines indented to where `name` starts.

Values: the text is cut at the first ` #` that is not inside double quotes (an inline comment), and
stripped. Then: empty, `null` or `~` gives None; `true` / `false` give booleans; an optional `-`
followed by digits gives an int; that followed by `.` and digits gives a float; text in double quotes
gives the string inside, where `\"`, `\\` and `\n` stand for `"`, backslash and newline (a `"` that
does not close the string at the very end is a ValueError); anything else is the text as a string.
An empty document gives None.

Example:
    parse_outline("name: demo\nitems:\n  - 1\n  - x: 2\n    y: true\n") == {"name": "demo", "items": [1, {"x": 2, "y": True}]}
'''

SOLUTION = r'''
import re

_KEY = re.compile(r'^([^"\-#](?:[^:]|:(?=[^ ]))*?):(?: (.*))?$')
_INT = re.compile(r"^-?\d+$")
_FLOAT = re.compile(r"^-?\d+\.\d+$")


def parse_outline(text):
    lines = []
    for raw in text.split("\n"):
        stripped = raw.lstrip(" ")
        if not stripped.strip() or stripped.startswith("#"):
            continue
        if stripped[0] == "\t" or "\t" in raw[:len(raw) - len(stripped)]:
            raise ValueError("tab in indentation")
        lines.append([len(raw) - len(stripped), stripped.rstrip()])
    if not lines:
        return None
    if lines[0][0] != 0:
        raise ValueError("the first line is indented")
    value, i = _block(lines, 0, 0)
    if i != len(lines):
        raise ValueError("unexpected indentation")
    return value


def _is_item(content):
    return content == "-" or content.startswith("- ")


def _nested(lines, i, indent):
    """The deeper block starting at line i, or None when line i is not deeper."""
    if i < len(lines) and lines[i][0] > indent:
        return _block(lines, i, lines[i][0])
    return None, i


def _block(lines, i, indent):
    if _is_item(lines[i][1]):
        out = []
        while i < len(lines) and lines[i][0] == indent:
            content = lines[i][1]
            if not _is_item(content):
                raise ValueError("a mapping line in a list")
            rest = content[1:].lstrip(" ")
            if not _cut(rest).strip():
                item, i = _nested(lines, i + 1, indent)
            elif _KEY.match(rest):
                lines[i] = [indent + len(content) - len(rest), rest]
                item, i = _block(lines, i, lines[i][0])
            else:
                item, i = _scalar(rest), i + 1
            out.append(item)
            _check_dedent(lines, i, indent)
        return out, i
    out = {}
    while i < len(lines) and lines[i][0] == indent:
        content = lines[i][1]
        if _is_item(content):
            raise ValueError("a list line in a mapping")
        m = _KEY.match(content)
        if not m or not m.group(1).strip():
            raise ValueError(f"not a mapping line: {content!r}")
        key = m.group(1).strip()
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        rest = m.group(2)
        if rest is None or not _cut(rest).strip():
            value, i = _nested(lines, i + 1, indent)
        else:
            value, i = _scalar(rest), i + 1
        out[key] = value
        _check_dedent(lines, i, indent)
    return out, i


def _check_dedent(lines, i, indent):
    if i < len(lines) and lines[i][0] > indent:
        raise ValueError("unexpected indentation")


def _cut(text):
    quoted, k = False, 0
    while k < len(text):
        c = text[k]
        if quoted and c == "\\":
            k += 2
            continue
        if c == '"':
            quoted = not quoted
        elif c == "#" and not quoted and (k == 0 or text[k - 1] == " "):
            return text[:k]
        k += 1
    return text


def _scalar(text):
    text = _cut(text).strip()
    if text in ("", "null", "~"):
        return None
    if text in ("true", "false"):
        return text == "true"
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if text.startswith('"'):
        out, k = [], 1
        while k < len(text):
            c = text[k]
            if c == "\\" and k + 1 < len(text) and text[k + 1] in '"\\n':
                out.append({'"': '"', "\\": "\\", "n": "\n"}[text[k + 1]])
                k += 2
            elif c == '"':
                if k != len(text) - 1:
                    raise ValueError("text after a closing quote")
                return "".join(out)
            else:
                out.append(c)
                k += 1
        raise ValueError("unterminated string")
    return text
'''

WRONG = [
    # inline comments cut even inside quotes
    mutate(SOLUTION, ('''        elif c == "#" and not quoted and (k == 0 or text[k - 1] == " "):''',
                      '''        elif c == "#" and (k == 0 or text[k - 1] == " "):''')),
    # "- key: value" items: the entries on the following lines are not gathered into the same item
    mutate(SOLUTION, ('''                lines[i] = [indent + len(content) - len(rest), rest]
                item, i = _block(lines, i, lines[i][0])''', '''                m = _KEY.match(rest)
                item, i = {m.group(1).strip(): _scalar(m.group(2) or "")}, i + 1
                if i < len(lines) and lines[i][0] > indent:
                    more, i = _block(lines, i, lines[i][0])
                    item.update(more if isinstance(more, dict) else {})''')),
    # a later duplicate key silently wins
    mutate(SOLUTION, ('''        if key in out:
            raise ValueError(f"duplicate key {key!r}")
''', '')),
    # every scalar stays a string
    mutate(SOLUTION, ('''    if text in ("", "null", "~"):
        return None
    if text in ("true", "false"):
        return text == "true"
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
''', '''    if text == "":
        return None
''')),
    # numbers with leading zeros kept as text (the YAML habit), though the format says digits make an int
    mutate(SOLUTION, (r'''_INT = re.compile(r"^-?\d+$")''', r'''_INT = re.compile(r"^-?(0|[1-9]\d*)$")''')),
]

TESTS = r'''
def _invalid(text):
    try:
        parse_outline(text)
    except ValueError:
        return True
    return False

def test_example():
    text = "name: demo\nitems:\n  - 1\n  - x: 2\n    y: true\n"
    assert parse_outline(text) == {"name": "demo", "items": [1, {"x": 2, "y": True}]}

def test_scalars():
    text = ('a: 1\nb: -2.50\nc: 007\nd: true\ne: False\nf: ~\ng:\nh: "q \\"x\\" # not\\n"\n'
            'i: url: http://x:8 # note\nj: 1e3\nk: -\nl: "#"\n')
    assert parse_outline(text) == {"a": 1, "b": -2.5, "c": 7, "d": True, "e": "False", "f": None, "g": None,
                                   "h": 'q "x" # not\n', "i": "url: http://x:8", "j": "1e3", "k": "-", "l": "#"}

def test_comments_and_blank_lines():
    text = "# head\n\nlist:\n\n   # indented comment\n  - a #tail\n  -\n\n  - c#d\n"
    assert parse_outline(text) == {"list": ["a", None, "c#d"]}
    assert parse_outline("") is None
    assert parse_outline("\n  \n# only\n") is None

def test_nesting():
    text = "a:\n  b:\n    -\n      - 1\n      - 2\n    -\n      c: 3\n  d: 4\ne: 5\n"
    assert parse_outline(text) == {"a": {"b": [[1, 2], {"c": 3}], "d": 4}, "e": 5}
    text = "- k: 1\n  l:\n    - 2\n- m: 3\n"
    assert parse_outline(text) == [{"k": 1, "l": [2]}, {"m": 3}]
    assert parse_outline("-    k: 1\n     j: 2\n") == [{"k": 1, "j": 2}]

def test_errors():
    for text in ["a: 1\na: 2\n", "a: 1\n- 2\n", "- 1\na: 2\n", "a:\n    b: 1\n  c: 2\n", " a: 1\n",
                 "a: 1\n  b: 2\n", "a:\n\tb: 1\n", "just text\n", 'a: "open\n', 'a: "x" y\n',
                 "- a: 1\n   b: 2\n", ": 1\n", "top:\n- 1\n", "-x: 1\n"]:
        assert _invalid(text), text

def test_seeded():
    for text, want in SEEDED:
        assert parse_outline(text) == want, text
'''


# ---------------------------------------------------------------- the writer (oracle)

def _show(value, rng):
    if value is None:
        return rng.choice(["", "null", "~"])
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    plain = (value and value == value.strip() and value not in ("null", "~", "true", "false")
             and not value.startswith(('"', "#", "-")) and "\n" not in value and " #" not in value
             and not _looks_numeric(value) and ": " not in value and not value.endswith(":"))
    if plain and rng.random() < 0.6:
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _looks_numeric(text):
    body = text[1:] if text.startswith("-") else text
    head, _, tail = body.partition(".")
    return head.isdigit() and (not _ or tail.isdigit())


def _comment(rng):
    return rng.choice(["", "", "", "  # note"])


def _write(value, indent, rng, out):
    pad = " " * indent
    if isinstance(value, dict):
        for key, item in value.items():
            _entry(f"{pad}{key}:", item, indent, rng, out)
    else:
        for item in value:
            if isinstance(item, dict) and item and rng.random() < 0.6:
                keys = list(item.items())
                shift = rng.choice([1, 2, 3])
                first_key, first_val = keys[0]
                _entry(f"{pad}-{' ' * shift}{first_key}:", first_val, indent + 1 + shift, rng, out)
                for key, val in keys[1:]:
                    _entry(f"{' ' * (indent + 1 + shift)}{key}:", val, indent + 1 + shift, rng, out)
            else:
                _entry(f"{pad}-", item, indent, rng, out)
        return


def _entry(head, value, indent, rng, out):
    if isinstance(value, (dict, list)) and value:
        out.append(head + _comment(rng))
        if rng.random() < 0.2:
            out.append("")
        _write(value, indent + rng.choice([1, 2, 4]), rng, out)
    else:
        shown = _show(value if not isinstance(value, (dict, list)) else None, rng)
        out.append((head + " " + shown if shown else head) + (_comment(rng) if shown else ""))


_SCALARS = [None, True, False, 0, -7, 12, 2.5, -0.25, "word", "two words", "x: y", "#tag", "a # b", '"q"',
            "line\nbreak", "007", "-", "true", "", "back\\slash"]


def _random_data(rng, depth):
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(_SCALARS)
    if rng.random() < 0.5:
        return [_random_data(rng, depth - 1) for _ in range(rng.randrange(1, 4))]
    return {f"{rng.choice(['k', 'name', 'x_y', 'a b'])}{i}": _random_data(rng, depth - 1)
            for i in range(rng.randrange(1, 4))}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    while len(seeded) < 25:
        data = _random_data(rng, 4)
        if not isinstance(data, (dict, list)):
            continue
        out = ["# generated"] if rng.random() < 0.3 else []
        _write(data, 0, rng, out)
        seeded.append(("\n".join(out) + rng.choice(["", "\n"]), _canonical(data)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Indentation-based outline format to Python data",
        prompt=PROMPT, entry_point="parse_outline", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        notes="""An indentation parser with a stack of open blocks: list versus mapping blocks, inline
        "- key:" items whose further entries align with the key, empty values taking the deeper block
        or None, inconsistent dedents and duplicate keys as errors, inline comments that must respect
        quotes, and a typed scalar grammar (007 is an int, 1e3 and False are strings). Twenty-five
        seeded documents are written from random data by a serializer that varies layout, quoting
        and comments, so the expected value is the data itself.""",
    )]


def _canonical(data):
    """Empty containers are written as an empty value, which reads back as None."""
    if isinstance(data, dict):
        return {k: _canonical(v) for k, v in data.items()} if data else None
    if isinstance(data, list):
        return [_canonical(v) for v in data] if data else None
    return data
