"""CO-text-columns: names laid out in columns the way `ls` does (filled down first, fewest rows that fit).

The seeded name lists and widths come from the seed; the expected lines come from an oracle that builds
the layout for every row count, measures its lines and keeps the fewest rows that fit; the reference
tries row counts upward, checks the column widths before building anything, and stops at the first
that fits.
"""

from pytest_crucible import code_case, family_rng, mutate, row_tests

FAMILY = "CO-text-columns"

# Hardness (README "How tiers are assigned", coding): column-major filling for a row count, column
# widths from their longest name, two-space gaps between columns only, the fewest rows that fit,
# the last column unpadded (no trailing spaces), a name wider than the line: 4 steps; no search.
# Traps: the wrong solutions.
HARDNESS = {"steps": 4, "search": 1, "traps": 4}

PROMPT = """
Write a Python function `columns(names: list[str], width: int) -> list[str]` that lays names out in
columns for a terminal `width` characters wide, the way `ls` does:

- For a number of rows r, the names fill the first column top to bottom (names 0 .. r-1), then the
  second column, and so on; so there are ceil(len(names) / r) columns.
- Each column is as wide as its longest name; columns are separated by exactly two spaces. A line is
  its names, each padded with spaces to its column's width, except that the last name on each line is
  not padded (no line ends with a space).
- Use the smallest r for which every line is at most `width` characters long (r = len(names), one
  column, always counts as fitting, even when a name is longer than `width`).
- Return the lines top to bottom; no names gives `[]`.

Example:

    columns(["a", "bb", "ccc", "d", "ee"], 9) == ["a    d", "bb   ee", "ccc"]
"""

SOLUTION = '''
def columns(names, width):
    n = len(names)
    for rows in range(1, n + 1):
        cols = -(-n // rows)
        widths = [max(len(name) for name in names[c * rows:(c + 1) * rows]) for c in range(cols)]
        if rows == n or sum(widths) + 2 * (cols - 1) <= width:
            break
    else:
        return []
    lines = []
    for r in range(rows):
        cells = [names[c * rows + r] for c in range(cols) if c * rows + r < n]
        line = "".join(cell.ljust(widths[c] + 2) for c, cell in enumerate(cells[:-1])) + cells[-1]
        lines.append(line)
    return lines
'''

WRONG = [
    # filled across the rows first
    mutate(SOLUTION, ('''        widths = [max(len(name) for name in names[c * rows:(c + 1) * rows])''',
                      '''        widths = [max(len(names[i]) for i in range(c, n, cols))'''),
           ('''        cells = [names[c * rows + r] for c in range(cols) if c * rows + r < n]''',
            '''        cells = [names[r * cols + c] for c in range(cols) if r * cols + c < n]''')),
    # every name padded, so lines end with spaces
    mutate(SOLUTION, (
        '''        line = "".join(cell.ljust(widths[c] + 2) for c, cell in enumerate(cells[:-1])) + cells[-1]''',
                      '''        line = "  ".join(cell.ljust(widths[c]) for c, cell in enumerate(cells))''')),
    # the width test counts a gap after the last column too
    mutate(SOLUTION, ("sum(widths) + 2 * (cols - 1) <= width", "sum(widths) + 2 * cols <= width")),
    # the number of columns fixed by the widest name, not by trying row counts
    '''
    def columns(names, width):
        if not names:
            return []
        widest = max(len(name) for name in names)
        cols = max(1, (width + 2) // (widest + 2))
        rows = -(-len(names) // cols)
        cols = -(-len(names) // rows)
        widths = [max(len(name) for name in names[c * rows:(c + 1) * rows]) for c in range(cols)]
        lines = []
        for r in range(rows):
            cells = [names[c * rows + r] for c in range(cols) if c * rows + r < len(names)]
            lines.append("".join(cell.ljust(widths[c] + 2) for c, cell in enumerate(cells[:-1])) + cells[-1])
        return lines
    ''',
]


def _oracle(names, width):
    """Build the layout for every row count, measure its lines, keep the fewest rows that fit."""
    n = len(names)
    layouts = {}
    for rows in range(n, 0, -1):
        grid = [names[start:start + rows] for start in range(0, n, rows)]
        lines = []
        for r in range(rows):
            parts = [(col[r], max(map(len, col))) for col in grid if r < len(col)]
            text = ""
            for k, (name, w) in enumerate(parts):
                text += name if k == len(parts) - 1 else name + " " * (w - len(name) + 2)
            lines.append(text)
        if rows == n or max(map(len, lines)) <= width:
            layouts[rows] = lines
    return layouts[min(layouts)] if layouts else []


_NAMES = ["a", "bb", "ccc", "README.md", "setup.py", "src", "tests", "x", "docs", "CHANGELOG", "lib", "Makefile",
          "notes.txt", "pyproject.toml", "io", "z9"]


def cases(seed):
    rng = family_rng(FAMILY, seed)
    rows = [((["a", "bb", "ccc", "d", "ee"], 9), ["a    d", "bb   ee", "ccc"]), (([], 10), []),
            ((["averyveryverylongname", "b"], 8), ["averyveryverylongname", "b"]),
            ((["a", "b", "c"], 7), ["a  b  c"]),
            ((["a", "b", "c", "d"], 6), _oracle(["a", "b", "c", "d"], 6))]
    for _ in range(40):
        names = [rng.choice(_NAMES) for _ in range(rng.randrange(1, 18))]
        width = rng.randrange(4, 60)
        rows.append(((names, width), _oracle(names, width)))
    assert all(_oracle(list(a[0]), a[1]) == want for a, want in rows)
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Names in columns as ls lays them out",
        prompt=PROMPT, entry_point="columns", tests=row_tests("columns", rows), solution=SOLUTION, wrong=WRONG,
        notes="""A terminal column layout: columns filled top to bottom, widths per column, two-space
        gaps only between columns, no trailing spaces, and the fewest rows that fit. Filling across,
        padding the last name, counting a trailing gap, or deriving the column count from the widest
        name alone each break rows of the hidden lists.""",
    )]
