"""CO-parse-table: a Markdown-style table writer with exact widths, alignment and escaping.

Hidden tables come from the seed; the oracle builds each line from str.ljust/rjust on cells it renders
itself, then the tests also check structural properties (equal line lengths, column boundaries).
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-table"

# Hardness (README "How tiers are assigned", coding): booleans not numbers, an all-None column not numeric,
# widths of the escaped text, minimum width 3, the colon rule, short rows padded. Traps: the wrong solutions.
HARDNESS = {"steps": 6, "search": 1, "traps": 4}

PROMPT = """
Write a Python function `render_table(headers: list[str], rows: list[list]) -> str` that writes a
Markdown-style table.

- Cell text: None is "", True / False are "yes" / "no", an int is str(value), a float is written with
  exactly two decimals (f"{value:.2f}"), a string as is. In every text (headers included) each
  newline becomes a space and each `|` becomes `\\|`.
- A column is numeric when it has at least one int or float cell (booleans are not numbers) and every
  cell in it is an int, a float or None. Numeric columns are right-aligned, all others left-aligned; a
  header is aligned like its column.
- A column's width is the length of its longest text, header included (at least 3).
- Each line is `| ` + the cells padded to their widths and joined by ` | ` + ` |`. The second line is
  `|` followed, for each column, by width + 2 dashes and `|`, where a numeric column ends its dashes
  with `:` instead of the last dash.
- A row shorter than the headers is padded with None; a longer one raises ValueError.
Lines are joined with "\\n", with no newline at the end.

Example:
    render_table(["fruit", "n"], [["fig", 3], ["kiwi", None]]) == (
        "| fruit |   n |\\n"
        "|-------|----:|\\n"
        "| fig   |   3 |\\n"
        "| kiwi  |     |")
"""

SOLUTION = '''
def render_table(headers, rows):
    columns = len(headers)
    grid = []
    for row in rows:
        if len(row) > columns:
            raise ValueError("a row is longer than the headers")
        grid.append(list(row) + [None] * (columns - len(row)))

    def text(value):
        if value is None:
            out = ""
        elif value is True or value is False:
            out = "yes" if value else "no"
        elif isinstance(value, float):
            out = f"{value:.2f}"
        else:
            out = str(value)
        return out.replace("\\n", " ").replace("|", "\\\\|")

    def number(value):
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    numeric = []
    for c in range(columns):
        cells = [r[c] for r in grid]
        numeric.append(any(number(v) for v in cells) and all(v is None or number(v) for v in cells))
    texts = [[text(h) for h in headers]] + [[text(v) for v in r] for r in grid]
    widths = [max(3, max(len(t[c]) for t in texts)) for c in range(columns)]

    def line(cells):
        padded = [cell.rjust(w) if numeric[c] else cell.ljust(w) for c, (cell, w) in enumerate(zip(cells, widths))]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if numeric[c] else "-" * (w + 2) for c, w in enumerate(widths)) + "|"
    return "\\n".join([line(texts[0]), rule] + [line(t) for t in texts[1:]])
'''

WRONG = [
    # booleans counted as numbers (bool is an int subclass)
    mutate(SOLUTION, ("        return isinstance(value, (int, float)) and not isinstance(value, bool)",
                      "        return isinstance(value, (int, float))")),
    # widths measured before escaping
    mutate(SOLUTION, ('''        return out.replace("\\n", " ").replace("|", "\\\\|")''', '''        return out.replace("\\n", " ")'''),
           ('''        return "| " + " | ".join(padded) + " |"''', '''        return "| " + " | ".join(p.replace("|", "\\\\|") for p in padded) + " |"''')),
    # the minimum width of 3 forgotten
    mutate(SOLUTION, ("    widths = [max(3, max(len(t[c]) for t in texts)) for c in range(columns)]",
                      "    widths = [max(len(t[c]) for t in texts) for c in range(columns)]")),
    # a column of only None cells taken as numeric
    mutate(SOLUTION, ("        numeric.append(any(number(v) for v in cells) and all(v is None or number(v) for v in cells))",
                      "        numeric.append(all(v is None or number(v) for v in cells))")),
]

TESTS = r'''
def _shape(text, columns):
    lines = text.split("\n")
    assert len({len(l) for l in lines}) == 1, text
    for l in lines:
        assert l.startswith("|") and l.endswith("|")
    return lines

def test_example():
    assert render_table(["fruit", "n"], [["fig", 3], ["kiwi", None]]) == (
        "| fruit |   n |\n"
        "|-------|----:|\n"
        "| fig   |   3 |\n"
        "| kiwi  |     |")

def test_kinds():
    out = render_table(["a", "b", "c", "d"], [[1.5, True, "x", None], [2, False, 3, None]])
    assert out == ("|    a | b   | c   | d   |\n"
                   "|-----:|-----|-----|-----|\n"
                   "| 1.50 | yes | x   |     |\n"
                   "|    2 | no  | 3   |     |")

def test_escaping_and_newlines():
    out = render_table(["k|v"], [["a\nb"], ["|"]])
    assert out == "| k\\|v |\n|------|\n| a b  |\n| \\|   |"
    _shape(out, 1)

def test_short_and_long_rows():
    assert render_table(["x", "y"], [[1]]) == "|   x | y   |\n|----:|-----|\n|   1 |     |"
    try:
        render_table(["x"], [[1, 2]])
    except ValueError:
        pass
    else:
        raise AssertionError("a long row must raise ValueError")

def test_no_rows():
    assert render_table(["h"], []) == "| h   |\n|-----|"

def test_seeded():
    for headers, rows, want in SEEDED:
        out = render_table(headers, rows)
        _shape(out, len(headers))
        assert out == want, (headers, rows)
'''


def _cell(value):
    if value is None:
        s = ""
    elif isinstance(value, bool):
        s = {True: "yes", False: "no"}[value]
    elif isinstance(value, float):
        s = "%.2f" % value
    else:
        s = str(value)
    return s.replace("\n", " ").replace("|", "\\|")


def _oracle(headers, rows):
    rows = [r + [None] * (len(headers) - len(r)) for r in rows]
    cols = list(zip(*([headers] + rows)))
    lines = []
    kinds = []
    for c, col in enumerate(cols):
        body = col[1:]
        nums = [v for v in body if type(v) in (int, float)]
        kinds.append(bool(nums) and all(v is None or type(v) in (int, float) for v in body))
    cells = [[_cell(v) for v in row] for row in [headers] + rows]
    widths = [max([3] + [len(r[c]) for r in cells]) for c in range(len(headers))]
    for i, row in enumerate(cells):
        parts = [(s.rjust(w) if kinds[c] else s.ljust(w)) for c, (s, w) in enumerate(zip(row, widths))]
        lines.append("| " + " | ".join(parts) + " |")
        if i == 0:
            lines.append("|" + "|".join(("-" * (w + 1) + ":" if kinds[c] else "-" * (w + 2))
                                        for c, w in enumerate(widths)) + "|")
    return "\n".join(lines)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    pool = [None, True, False, 0, 7, -12, 123456, 2.5, -0.125, 1e6, "", "ab", "a|b", "two\nlines", "longer text"]
    for _ in range(25):
        width = rng.randrange(1, 5)
        headers = [rng.choice(["id", "name", "qty", "a|b", "x", "notes\nhere"]) for _ in range(width)]
        kinds = [rng.choice(["num", "num", "any"]) for _ in range(width)]
        rows = []
        for _ in range(rng.randrange(0, 5)):
            row = []
            for c in range(rng.randrange(0, width + 1)):
                if kinds[c] == "num":
                    row.append(rng.choice([None, 0, 7, -12, 123456, 2.5, -0.125, 1e6]))
                else:
                    row.append(rng.choice(pool))
            rows.append(row)
        seeded.append((headers, rows, _oracle(headers, rows)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Markdown-style table with exact widths, alignment and escaping",
        prompt=PROMPT, entry_point="render_table", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        notes="""Medium: every rule is spelled out, but a few are easy to miss together: booleans are
        ints in Python yet not numbers here, a column of only None is not numeric, widths count the
        escaped text and have a minimum of 3, the rule line marks numeric columns with a colon, and
        short rows are padded. Twenty-five seeded tables, each line checked exactly.""",
    )]
