"""CO-parse-csv: a delimited-records reader whose rules differ from the csv module on purpose.

The seed picks the delimiter and draws the hidden tables. Each table is written out by an encoder
(random quoting, line-break styles, comments and a trailing break), so the expected records are known
without parsing: the oracle is the generator, a different method from the reference parser.
"""

import textwrap

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-csv"

# Hardness (README "How tiers are assigned", coding): seven interacting record rules (empty line, stray quote,
# lone CR, comment position, CRLF inside quotes, ...) and no str.splitlines. Traps: the wrong solutions.
HARDNESS = {"steps": 8, "search": 1, "traps": 5}
DELIMITERS = {",": "a comma (`,`)", ";": "a semicolon (`;`)", "|": "a vertical bar (`|`)",
              "\t": "a tab character (`\\t`)"}

PROMPT = """
Write a Python function `parse_records(text: str) -> list[list[str]]` that reads delimited records.
The field delimiter is {name}; the quote character is the double quote `"`.

Rules:
1. Records are separated by line breaks. A line break is "\\r\\n", a lone "\\n" or a lone "\\r" (no
   other character is a line break). A line break at the very end of the text does not start another
   record; an empty text has no records.
2. Within a record, fields are separated by the delimiter. A record is a list of its fields, in order.
3. A field whose first character is `"` is quoted: it runs to the matching closing `"`. Inside it, `""`
   stands for one `"`, and delimiters and line breaks are ordinary characters kept exactly as written
   (a "\\r\\n" inside a quoted field stays "\\r\\n"). The character right after the closing quote must be
   the delimiter, a line break or the end of the text.
4. Any other field is unquoted and is taken exactly as written, spaces included. It may not contain `"`.
5. An empty line is a record with one empty field, `[""]`.
6. A line whose very first character (at the start of a record) is `#` is a comment: it is skipped
   together with the line break that ends it. A `#` anywhere else is ordinary data.
7. Raise `ValueError` for a quoted field that is never closed, for a character other than the
   delimiter or a line break after a closing quote, and for a `"` inside an unquoted field.

Example:
    parse_records('id{d}name\\n7{d}"Lee{d} Ann"\\n') == [["id", "name"], ["7", "Lee{d} Ann"]]
"""

SOLUTION = '''
def parse_records(text):
    delim = DELIM
    records, i, n = [], 0, len(text)

    def skip_break(j):
        if text.startswith("\\r\\n", j):
            return j + 2
        return j + 1 if j < n else j

    while i < n:
        if text[i] == "#":
            j = i
            while j < n and text[j] not in "\\r\\n":
                j += 1
            i = skip_break(j)
            continue
        record = []
        while True:
            if i < n and text[i] == '"':
                i += 1
                parts = []
                while True:
                    if i >= n:
                        raise ValueError("a quoted field is never closed")
                    if text[i] == '"':
                        if i + 1 < n and text[i + 1] == '"':
                            parts.append('"')
                            i += 2
                            continue
                        i += 1
                        break
                    parts.append(text[i])
                    i += 1
                if i < n and text[i] not in (delim, "\\r", "\\n"):
                    raise ValueError(f"unexpected {text[i]!r} after a closing quote at offset {i}")
                record.append("".join(parts))
            else:
                j = i
                while j < n and text[j] not in (delim, "\\r", "\\n"):
                    if text[j] == '"':
                        raise ValueError(f'a " inside an unquoted field at offset {j}')
                    j += 1
                record.append(text[i:j])
                i = j
            if i < n and text[i] == delim:
                i += 1
                continue
            break
        records.append(record)
        i = skip_break(i)
    return records
'''

# Plausible mistakes: the csv module (empty lines, stray quotes), line-first splitting with
# splitlines (normalises breaks, splits on \x0c and \u2028), a lone \r not treated as a break,
# leniency after a closing quote, and comment detection that skips leading blanks.
WRONG = [
    '''
    import csv
    import io

    def parse_records(text):
        kept = "".join(line for line in text.splitlines(True) if not line.startswith("#"))
        return [row for row in csv.reader(io.StringIO(kept, newline=""), delimiter=DELIM, strict=True)]
    ''',
    '''
    def parse_records(text):
        records, pending = [], None
        for line in text.splitlines():
            if pending is None and line.startswith("#"):
                continue
            pending = line if pending is None else pending + "\\n" + line
            if pending.count('"') % 2:
                continue
            fields, buf, quoted, i = [], [], False, 0
            while i < len(pending):
                c = pending[i]
                if quoted:
                    if c == '"' and pending[i + 1:i + 2] == '"':
                        buf.append('"'); i += 1
                    elif c == '"':
                        quoted = False
                    else:
                        buf.append(c)
                elif c == '"':
                    if buf:
                        raise ValueError("quote inside an unquoted field")
                    quoted = True
                elif c == DELIM:
                    fields.append("".join(buf)); buf = []
                else:
                    buf.append(c)
                i += 1
            fields.append("".join(buf))
            records.append(fields)
            pending = None
        if pending is not None:
            raise ValueError("a quoted field is never closed")
        return records
    ''',
    mutate(SOLUTION, ('text[j] not in "\\r\\n"', 'text[j] != "\\n"'),
           ('if i < n and text[i] not in (delim, "\\r", "\\n")', 'if i < n and text[i] not in (delim, "\\n")'),
           ('while j < n and text[j] not in (delim, "\\r", "\\n")', 'while j < n and text[j] not in (delim, "\\n")'),
           ('return j + 1 if j < n else j', 'return j + 1 if j < n and text[j] == "\\n" else j')),
    mutate(SOLUTION, ('raise ValueError(f"unexpected {text[i]!r} after a closing quote at offset {i}")', 'pass')),
    mutate(SOLUTION, ('if text[i] == "#":', 'if text[i:].lstrip(" ").startswith("#"):')),
]

TESTS = '''
import itertools

def _raises(text):
    try:
        parse_records(text)
    except ValueError:
        return True
    return False

def test_basics():
    d = DELIM
    assert parse_records("") == []
    assert parse_records("a") == [["a"]]
    assert parse_records(f"a{d}b\\nc{d}d\\n") == [["a", "b"], ["c", "d"]]
    assert parse_records(f" a {d} b") == [[" a ", " b"]]
    assert parse_records(f"{d}") == [["", ""]]

def test_line_break_styles():
    d = DELIM
    assert parse_records(f"a{d}1\\r\\nb{d}2\\rc{d}3\\n") == [["a", "1"], ["b", "2"], ["c", "3"]]
    assert parse_records("x\\r") == [["x"]]
    assert parse_records("x\\r\\r\\n") == [["x"], [""]]
    assert parse_records("p\\x0cq\\u2028r\\x1ds") == [["p\\x0cq\\u2028r\\x1ds"]]

def test_empty_lines_and_trailing_break():
    assert parse_records("\\n") == [[""]]
    assert parse_records("a\\n\\n") == [["a"], [""]]
    assert parse_records("a\\n\\nb") == [["a"], [""], ["b"]]
    assert parse_records("\\r\\n\\r\\n") == [[""], [""]]

def test_quoted_fields():
    d = DELIM
    assert parse_records(f'"a{d}b"{d}"say ""hi"""') == [[f"a{d}b", 'say "hi"']]
    assert parse_records(f'""{d}""""') == [["", '"']]
    assert parse_records('"one\\r\\ntwo\\rthree\\nfour"') == [["one\\r\\ntwo\\rthree\\nfour"]]
    assert parse_records('""') == [[""]]
    assert parse_records('"x"\\n') == [["x"]]

def test_comments():
    d = DELIM
    assert parse_records(f"#h{d}x\\na{d}b\\n# tail") == [["a", "b"]]
    assert parse_records("#only") == []
    assert parse_records(" #not\\n") == [[" #not"]]
    assert parse_records(f"a{d}#b") == [["a", "#b"]]
    assert parse_records('"#q"\\n#c\\r\\nz') == [["#q"], ["z"]]
    assert parse_records('"x\\n#not a comment"\\n') == [["x\\n#not a comment"]]
    assert parse_records("#a\\r\\n#b\\r#c\\n\\n") == [[""]]

def test_errors():
    d = DELIM
    assert _raises('"open')
    assert _raises(f'"a"{d}"b')
    assert _raises('"a""')
    assert _raises('"a" ')
    assert _raises(f'"a"b{d}c')
    assert _raises('ab"c')
    assert _raises(f'x{d}y"\\n')
    assert not _raises('#"unbalanced comment\\nok')

def test_seeded_tables():
    for text, records in SEEDED:
        assert parse_records(text) == records, text

def test_seeded_faults():
    for text in SEEDED_FAULTS:
        assert _raises(text), text
'''


def _encode(rng, records, delim):
    """Write records out following the rules, choosing freely where the rules allow."""
    out, previous_break = [], None
    for index, record in enumerate(records):
        last = index == len(records) - 1
        if record == [""] and previous_break != "\r" and not last and rng.random() < 0.6:
            line = ""
        else:
            fields = []
            for position, value in enumerate(record):
                needs = (any(c in value for c in (delim, '"', "\r", "\n")) or
                         (position == 0 and (value.startswith("#") or (len(record) == 1 and value == ""))))
                if needs or rng.random() < 0.25:
                    fields.append('"' + value.replace('"', '""') + '"')
                else:
                    fields.append(value)
            line = delim.join(fields)
        if rng.random() < 0.2:
            out.append("#" + rng.choice(["note", "x" + delim + "y", ' "q', ""]) + rng.choice(["\n", "\r\n"]))
        out.append(line)
        if not last or rng.random() < 0.5:
            previous_break = rng.choice(["\n", "\r\n", "\r"])
            out.append(previous_break)
    return "".join(out)


def _random_field(rng, delim):
    pieces = ["a", "b", "7", " ", delim, '"', "\n", "\r\n", "\r", "#", "x y", "\u2028", ""]
    return "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 5)))


def _faulty(rng, delim):
    """A text that breaks rule 7 in one of three ways."""
    head = delim.join(rng.choice(["a", "bb", '"q"', ""]) for _ in range(rng.randrange(1, 3)))
    fault = rng.choice([f'ab"c', f'"x{delim}y', f'"v"w', f'"z"" '])
    tail = rng.choice(["", "\n", "\r\nok"]) if not fault.startswith('"x') else ""
    return rng.choice(["", "#c\n", "row\r\n"]) + head + delim + fault + tail


def cases(seed):
    rng = family_rng(FAMILY, seed)
    delim = rng.choice(sorted(DELIMITERS))
    seeded = []
    for _ in range(40):
        width = rng.randrange(1, 4)
        records = [[_random_field(rng, delim) for _ in range(width if rng.random() < 0.8 else rng.randrange(1, 4))]
                   for _ in range(rng.randrange(1, 5))]
        seeded.append((_encode(rng, records, delim), records))
    faults = [_faulty(rng, delim) for _ in range(12)]
    prompt = PROMPT.format(name=DELIMITERS[delim], d=delim if delim != "\t" else "\\t")
    assign = f"DELIM = {delim!r}\n"
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Delimited records with quoting, comments and three line-break styles",
        prompt=prompt, entry_point="parse_records", tests=TESTS, solution=assign + SOLUTION,
        data={"DELIM": delim, "SEEDED": seeded, "SEEDED_FAULTS": faults},
        wrong=[assign + textwrap.dedent(w) for w in WRONG],
        notes="""Seven interacting rules, several of which contradict the csv module a model reaches for
        (an empty line is a record, a stray quote in an unquoted field is an error, a lone CR is a break,
        comments only at the start of a record, CRLF inside quotes kept verbatim). str.splitlines also
        breaks on form feed and U+2028, which the hidden tests contain. Forty seeded tables with random
        quoting and break styles plus twelve malformed texts must all come out right.""",
    )]
