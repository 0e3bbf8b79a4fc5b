"""CO-parse-template: a template renderer with filters, escaping, if/for blocks and standalone lines.

Hidden contexts come from the seed and are rendered through three fixed templates; each template has a
plain Python function written next to it that produces the same text directly (the oracle), so the
expected output does not come from a template engine.
"""

import html

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-template"

# Hardness (README "How tiers are assigned", coding): tokenizer, block parser with if/elif/else and nested
# for, scoped lookups with loop, filters, auto-escaping with raw, literal tag openers, the standalone-line
# rule, error kinds. Traps: the wrong solutions.
HARDNESS = {"steps": 10, "search": 1, "traps": 6}

PROMPT = r"""
Write a Python function `render(template: str, context: dict) -> str` for this template language.

Output tags: `{{ path }}` or `{{ path | filter | filter ... }}` (spaces around the path, the pipes and
the filters are optional).
- A path is a name followed by zero or more `.part`; a part is a name (a dict key) or a non-negative
  integer (a list index). Names are letters, digits and `_`, not starting with a digit. A name is looked
  up in the loop variables first (innermost first), then in `context`. Any failed lookup (missing name,
  missing key, index out of range, a part applied to something else) raises `KeyError`.
- Filters run left to right: `upper`, `lower` and `trim` (strip surrounding whitespace) turn the value
  into text first and then change it; `len` gives the length of the value. Any other filter name raises
  `ValueError`, and so does `raw` anywhere but last.
- The final value becomes text: None is "", True is "true", False is "false", anything else str(value).
  The text is then HTML-escaped (`&`, `<`, `>`, `"`, `'` become `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#39;`)
  unless the last filter is `raw`.

Block tags:
- `{% if cond %}` ... optional `{% elif cond %}` ... optional `{% else %}` ... `{% end %}`, where cond is
  a path or `not` followed by a path, tested with Python truthiness.
- `{% for name in path %}` ... `{% end %}` repeats its body for each item of a list, with `name` bound to
  the item and `loop.index` (1-based), `loop.first` and `loop.last` available; an inner loop's `loop`
  hides the outer one.
- Unbalanced or malformed tags raise `ValueError`.

Escapes: `\{{` outputs `{{` and `\{%` outputs `{%` (as plain text); a backslash before anything else is
an ordinary character.

Standalone lines: when a line of the template holds exactly one block tag and otherwise only spaces
and tabs, the whole line, including the newline that ends it, is left out of the output (the tag still
does its job). A line is the text between two newlines, or the start or end of the template. Output
tags and lines with two tags are never standalone.

Example:
    render("Hi {{ user.name | upper }}!", {"user": {"name": "ada"}}) == "Hi ADA!"
"""

SOLUTION = r'''
import re

_TAG = re.compile(r"\\(\{[{%])|\{\{(.*?)\}\}|\{%(.*?)%\}", re.S)
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_PATH = re.compile(rf"{_NAME}(?:\.(?:{_NAME}|\d+))*$")
_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}


def render(template, context):
    tokens = _tokens(template)
    tree, pos = _parse(tokens, 0, ())
    if pos != len(tokens):
        raise ValueError("unexpected block tag")
    out = []
    _run(tree, [context], out)
    return "".join(out)


def _tokens(template):
    """[("text", s) | ("out", expr) | ("block", words)] with standalone lines already removed."""
    raw = []
    pos = 0
    for m in _TAG.finditer(template):
        raw.append(["text", template[pos:m.start()]])
        if m.group(1):
            raw.append(["text", m.group(1)])
        elif m.group(2) is not None:
            raw.append(["out", m.group(2)])
        else:
            raw.append(["block", m.group(3)])
        pos = m.end()
    raw.append(["text", template[pos:]])
    # merge neighbouring text so that a line's neighbours are one text token each side
    merged = []
    for tok in raw:
        if tok[0] == "text" and merged and merged[-1][0] == "text":
            merged[-1][1] += tok[1]
        else:
            merged.append(tok)
    standalone = []                              # decided on the template as written
    for i, tok in enumerate(merged):
        if tok[0] != "block":
            continue
        before = merged[i - 1][1] if i > 0 and merged[i - 1][0] == "text" else None
        after = merged[i + 1][1] if i + 1 < len(merged) and merged[i + 1][0] == "text" else None
        if before is None or after is None:
            continue
        head = before.rsplit("\n", 1)
        line_start = head[-1]
        starts_line = len(head) == 2 or i == 1
        tail = after.split("\n", 1)
        line_end = tail[0]
        ends_line = len(tail) == 2 or i + 2 == len(merged)
        if starts_line and ends_line and not line_start.strip(" \t") and not line_end.strip(" \t"):
            standalone.append((i, len(line_start)))
    for i, width in standalone:
        before = merged[i - 1][1]
        merged[i - 1][1] = before[:len(before) - width]
        after = merged[i + 1][1]
        merged[i + 1][1] = after.split("\n", 1)[1] if "\n" in after else ""
    return [(kind, value) for kind, value in merged if kind != "text" or value]


def _parse(tokens, pos, closers):
    nodes = []
    while pos < len(tokens):
        kind, value = tokens[pos]
        if kind == "text":
            nodes.append(("text", value))
            pos += 1
        elif kind == "out":
            nodes.append(("out",) + _output(value))
            pos += 1
        else:
            words = value.split()
            if not words:
                raise ValueError("empty block tag")
            if words[0] in closers:
                return nodes, pos
            if words[0] == "if":
                branches = []
                cond = _condition(words[1:])
                while True:
                    body, pos = _parse(tokens, pos + 1, ("elif", "else", "end"))
                    branches.append((cond, body))
                    if pos >= len(tokens):
                        raise ValueError("if without end")
                    words = tokens[pos][1].split()
                    if words[0] == "elif":
                        cond = _condition(words[1:])
                    elif words[0] == "else":
                        if len(words) != 1:
                            raise ValueError("bad else")
                        body, pos = _parse(tokens, pos + 1, ("end",))
                        branches.append((None, body))
                        if pos >= len(tokens):
                            raise ValueError("if without end")
                        break
                    else:
                        break
                if tokens[pos][1].split() != ["end"]:
                    raise ValueError("bad end")
                nodes.append(("if", branches))
                pos += 1
            elif words[0] == "for":
                if len(words) != 4 or words[2] != "in" or not re.fullmatch(_NAME, words[1]) \
                        or not _PATH.match(words[3]):
                    raise ValueError("bad for tag")
                body, pos = _parse(tokens, pos + 1, ("end",))
                if pos >= len(tokens) or tokens[pos][1].split() != ["end"]:
                    raise ValueError("for without end")
                nodes.append(("for", words[1], words[3], body))
                pos += 1
            else:
                raise ValueError(f"unexpected block tag {value.strip()!r}")
    if closers:
        raise ValueError("missing end")
    return nodes, pos


def _condition(words):
    negate = bool(words) and words[0] == "not"
    rest = words[1:] if negate else words
    if len(rest) != 1 or not _PATH.match(rest[0]):
        raise ValueError("bad condition")
    return negate, rest[0]


def _output(expr):
    parts = [p.strip() for p in expr.split("|")]
    path, filters = parts[0], parts[1:]
    if not _PATH.match(path):
        raise ValueError(f"bad path {path!r}")
    for i, f in enumerate(filters):
        if f not in ("upper", "lower", "trim", "len", "raw") or (f == "raw" and i != len(filters) - 1):
            raise ValueError(f"bad filter {f!r}")
    return path, filters


def _lookup(path, scopes):
    first, *rest = path.split(".")
    for scope in reversed(scopes):
        if isinstance(scope, dict) and first in scope:
            value = scope[first]
            break
    else:
        raise KeyError(first)
    for part in rest:
        if part.isdigit():
            if not isinstance(value, list) or int(part) >= len(value):
                raise KeyError(part)
            value = value[int(part)]
        else:
            if not isinstance(value, dict) or part not in value:
                raise KeyError(part)
            value = value[part]
    return value


def _text(value):
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def _run(nodes, scopes, out):
    for node in nodes:
        if node[0] == "text":
            out.append(node[1])
        elif node[0] == "out":
            value = _lookup(node[1], scopes)
            for f in node[2]:
                if f == "len":
                    value = len(value)
                elif f != "raw":
                    value = {"upper": str.upper, "lower": str.lower, "trim": str.strip}[f](_text(value))
            text = _text(value)
            if not node[2] or node[2][-1] != "raw":
                text = "".join(_ESCAPES.get(c, c) for c in text)
            out.append(text)
        elif node[0] == "if":
            for cond, body in node[1]:
                if cond is None or bool(_lookup(cond[1], scopes)) != cond[0]:
                    _run(body, scopes, out)
                    break
        else:
            _, name, path, body = node
            items = _lookup(path, scopes)
            for i, item in enumerate(items):
                loop = {"index": i + 1, "first": i == 0, "last": i == len(items) - 1}
                _run(body, scopes + [{"loop": loop, name: item}], out)
'''

WRONG = [
    # no HTML escaping
    mutate(SOLUTION, ('''            if not node[2] or node[2][-1] != "raw":
                text = "".join(_ESCAPES.get(c, c) for c in text)
''', '')),
    # block tags leave their lines behind
    mutate(SOLUTION, ('''            standalone.append((i, len(line_start)))''', '''            pass''')),
    # a line counts as standalone if what surrounds the tag is blank, even when the line has another tag
    mutate(SOLUTION, ('''        before = merged[i - 1][1] if i > 0 and merged[i - 1][0] == "text" else None
        after = merged[i + 1][1] if i + 1 < len(merged) and merged[i + 1][0] == "text" else None
        if before is None or after is None:
            continue''', '''        before = merged[i - 1][1] if i > 0 and merged[i - 1][0] == "text" else ""
        after = merged[i + 1][1] if i + 1 < len(merged) and merged[i + 1][0] == "text" else ""
        if i == 0 or i + 1 == len(merged) or merged[i - 1][0] != "text" or merged[i + 1][0] != "text":
            continue'''), ("        starts_line = len(head) == 2 or i == 1", "        starts_line = True"),
           ("        ends_line = len(tail) == 2 or i + 2 == len(merged)", "        ends_line = True")),
    # loop.index counted from 0
    mutate(SOLUTION, ('loop = {"index": i + 1,', 'loop = {"index": i,')),
    # escaped tags not recognised: \{{ x }} still renders x
    mutate(SOLUTION, (r'''_TAG = re.compile(r"\\(\{[{%])|\{\{(.*?)\}\}|\{%(.*?)%\}", re.S)''',
                      r'''_TAG = re.compile(r"(?!)(x)|\{\{(.*?)\}\}|\{%(.*?)%\}", re.S)''')),
    # booleans printed the Python way
    mutate(SOLUTION, ('''    if value is True:
        return "true"
    if value is False:
        return "false"
''', '')),
]

TESTS = r'''
def _raises(kind, template, context):
    try:
        render(template, context)
    except kind:
        return True
    return False

def test_output_tags():
    assert render("Hi {{ user.name | upper }}!", {"user": {"name": "ada"}}) == "Hi ADA!"
    assert render("{{a}}|{{ a|lower }}|{{a | len}}", {"a": "XyZ"}) == "XyZ|xyz|3"
    assert render("[{{ s | trim | upper }}]", {"s": "  ok \t"}) == "[OK]"
    assert render("{{ xs.1.k }}", {"xs": [{"k": 1}, {"k": 2}]}) == "2"
    assert render("{{ n }}{{ t }}{{ f }}{{ z }}", {"n": None, "t": True, "f": False, "z": 0}) == "truefalse0"
    assert render("{{ xs | len }}", {"xs": [1, 2, 3]}) == "3"

def test_escaping():
    ctx = {"v": "<a href='x'>&\"</a>"}
    assert render("{{ v }}", ctx) == "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
    assert render("{{ v | raw }}", ctx) == ctx["v"]
    assert render("{{ v | upper | raw }}", ctx) == ctx["v"].upper()
    assert render("<b>{{ v | len }}</b>", ctx) == "<b>18</b>"
    assert render(r"\{{ v }} and \{% if %} and \x", ctx) == r"{{ v }} and {% if %} and \x"

def test_if_blocks():
    t = "{% if a %}A{% elif not b %}notB{% else %}B{% end %}"
    assert render(t, {"a": 1, "b": 0}) == "A"
    assert render(t, {"a": [], "b": 0}) == "notB"
    assert render(t, {"a": "", "b": "x"}) == "B"
    assert render("{% if x %}yes{% end %}.", {"x": {}}) == "."

def test_for_loops():
    t = "{% for u in users %}{{ loop.index }}:{{ u }}{% if not loop.last %}, {% end %}{% end %}"
    assert render(t, {"users": ["a", "b", "c"]}) == "1:a, 2:b, 3:c"
    assert render(t, {"users": []}) == ""
    t = "{% for r in rows %}{% for c in r %}{{ loop.index }}{% end %}{{ loop.index }};{% end %}"
    assert render(t, {"rows": [[7, 8], [9]]}) == "121;12;"
    assert render("{% for x in xs %}{{ x }}{% end %}{{ x }}", {"xs": [1, 2], "x": "!"}) == "12!"

def test_standalone_lines():
    t = "Items:\n  {% for i in xs %}\n  - {{ i }}\n  {% end %}\nDone\n"
    assert render(t, {"xs": [1, 2]}) == "Items:\n  - 1\n  - 2\nDone\n"
    t = "a\n{% if x %}\nb\n{% end %}"
    assert render(t, {"x": True}) == "a\nb\n"
    assert render("{% if x %}\ny\n{% end %}\n", {"x": 1}) == "y\n"
    t = "{% if x %}{{ y }}\n{% end %}"
    assert render(t, {"x": 1, "y": 2}) == "2\n"
    t = "x {% if a %}\n{% end %}"
    assert render(t, {"a": 1}) == "x \n"
    t = " {% if a %} {% end %} \nz"
    assert render(t, {"a": 1}) == "   \nz"
    assert render("{{ y }}\n", {"y": 5}) == "5\n"
    assert render("\t{% if a %}\t\r\nq{% end %}", {"a": 1}) == "\t\t\r\nq"

def test_errors():
    assert _raises(KeyError, "{{ nope }}", {})
    assert _raises(KeyError, "{{ a.b }}", {"a": 3})
    assert _raises(KeyError, "{{ a.5 }}", {"a": [1]})
    assert _raises(KeyError, "{% if a.b %}{% end %}", {"a": {}})
    assert _raises(ValueError, "{{ a | shout }}", {"a": 1})
    assert _raises(ValueError, "{{ a | raw | upper }}", {"a": 1})
    assert _raises(ValueError, "{% if a %}x", {"a": 1})
    assert _raises(ValueError, "x{% end %}", {})
    assert _raises(ValueError, "{% for a of b %}{% end %}", {"b": []})
    assert _raises(ValueError, "{% else %}", {})

def test_seeded_contexts():
    for template, context, want in SEEDED:
        assert render(template, context) == want, (template, context)
'''

# ---------------------------------------------------------------- fixed templates and their oracles

ROSTER = """\
Team {{ team.name | upper }}
{% for m in team.members %}
  {{ loop.index }}. {{ m.name }}{% if m.lead %} (lead){% end %}
  {% if not m.tags %}
  no tags
  {% else %}
  tags: {% for t in m.tags %}{{ t }}{% if not loop.last %}, {% end %}{% end %}
  {% end %}
{% end %}
Total: {{ team.members | len }}
"""


def _esc(text):
    return html.escape(text, quote=True).replace("&#x27;", "&#39;")


def _roster(ctx):
    team = ctx["team"]
    lines = [f"Team {_esc(team['name'].upper())}"]
    for i, m in enumerate(team["members"], 1):
        lines.append(f"  {i}. {_esc(m['name'])}" + (" (lead)" if m["lead"] else ""))
        lines.append("  no tags" if not m["tags"] else "  tags: " + ", ".join(_esc(t) for t in m["tags"]))
    lines.append(f"Total: {len(team['members'])}")
    return "\n".join(lines) + "\n"


TABLE = """\
<table>
{% for row in rows %}
  <tr class="{% if loop.first %}first{% elif loop.last %}last{% else %}mid{% end %}">{% for c in row %}<td>{{ c }}</td>{% end %}</tr>
{% end %}
</table>
{% if note %}
<p>{{ note | raw }}</p>
{% end %}
"""


def _table(ctx):
    out = ["<table>"]
    rows = ctx["rows"]
    for i, row in enumerate(rows):
        cls = "first" if i == 0 else "last" if i == len(rows) - 1 else "mid"
        cells = "".join(f"<td>{_esc(_show(c))}</td>" for c in row)
        out.append(f'  <tr class="{cls}">{cells}</tr>')
    out.append("</table>")
    if ctx["note"]:
        out.append(f"<p>{ctx['note']}</p>")
    return "\n".join(out) + "\n"


def _show(value):
    return "" if value is None else "true" if value is True else "false" if value is False else str(value)


LETTER = "Dear {{ who | trim }},\\{{ not a tag }}\n{% if owed %}  You owe {{ owed }}.\n{% end %}  Bye\n"


def _letter(ctx):
    text = f"Dear {_esc(ctx['who'].strip())},{{{{ not a tag }}}}\n"
    if ctx["owed"]:
        text += f"  You owe {_esc(_show(ctx['owed']))}.\n"
    return text + "  Bye\n"


_WORDS = ["ada", "Bob", "<i>x</i>", "O'Neil", "a&b", " pad ", "Zoë", '"q"']


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(6):
        members = [{"name": rng.choice(_WORDS), "lead": rng.random() < 0.3,
                    "tags": rng.sample(_WORDS, rng.randrange(0, 3))} for _ in range(rng.randrange(0, 4))]
        ctx = {"team": {"name": rng.choice(_WORDS), "members": members}}
        seeded.append((ROSTER, ctx, _roster(ctx)))
    for _ in range(6):
        rows = [[rng.choice([rng.choice(_WORDS), rng.randrange(100), None, True, False])
                 for _ in range(rng.randrange(0, 3))] for _ in range(rng.randrange(0, 5))]
        ctx = {"rows": rows, "note": rng.choice(["", "<em>fine</em>", None, "a & b"])}
        seeded.append((TABLE, ctx, _table(ctx)))
    for _ in range(4):
        ctx = {"who": rng.choice(_WORDS), "owed": rng.choice([0, 12, None, "3 <€>", False])}
        seeded.append((LETTER, ctx, _letter(ctx)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Template renderer: filters, escaping, blocks, standalone lines",
        prompt=PROMPT, entry_point="render", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        notes="""A tokenizer, a block parser with if/elif/else and nested for, scoped lookups with a
        per-loop `loop` object, filters, auto-escaping with a raw opt-out, escapes for literal tag
        openers, and the standalone-line rule, which is where most implementations slip: a line holding
        exactly one block tag vanishes with its newline, while lines with an output tag or two tags stay.
        Error kinds are specified (KeyError for lookups, ValueError for syntax). Sixteen seeded contexts
        go through three templates whose output is also produced by plain Python.""",
    )]
