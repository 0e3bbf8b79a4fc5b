"""CO-parse-lexer: a tokenizer for a small language with positions, longest-match operators and errors.

The seeded sources are built from random token sequences joined by random spacing, comments and line
breaks, so their expected tokens and positions are known from the generator; faulty sources get one
fault planted at a known position. The reference scans character by character.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-lexer"

# Hardness (README "How tiers are assigned", coding): longest-match operators, number forms (hex,
# fraction, exponent, a dot that is not part of the number), a letter glued to a number as an error,
# strings with escapes that do not end them, comments, 1-based line and column: 6 rules on one scan;
# no search. Traps: the wrong solutions.
HARDNESS = {"steps": 6, "search": 1, "traps": 5}

OPERATORS = ["<<=", ">>=", "**", "//", "==", "!=", "<=", ">=", "<<", ">>", "->", "+=", "-=",
             "+", "-", "*", "/", "%", "<", ">", "=", "(", ")", "[", "]", "{", "}", ",", ".", ":", ";"]

PROMPT = """
Write a Python function `tokenize(source: str) -> list[tuple[str, str, int, int]]` that splits source
text into tokens `(kind, text, line, column)`: `text` is the token exactly as written in the source,
`line` and `column` (both from 1, a tab counts as one column) where its first character is.

- Spaces, tabs and line breaks (`\\n`) separate tokens and are not tokens; `#` starts a comment that
  runs to the end of the line (outside strings).
- `NAME`: a letter or `_`, then letters, digits and `_`.
- `NUMBER`: `0x` or `0X` followed by one or more hex digits; or digits, optionally a `.` followed by at
  least one digit, optionally then `e` or `E`, an optional sign and at least one digit. A `.` that is
  not followed by a digit does not belong to the number (`3.x` is NUMBER `3`, OP `.`, NAME `x`), nor
  does an `e` or `E` without a complete exponent after it. A letter, digit or `_` right after the end
  of a number is an error: `12ab` (at the `a`), `1e+` (at the `e`), `3e5x` (at the `x`), and `0x`
  without hex digits is an error at the `x`.
- `STRING`: text in `'` or `"` quotes, on one line; a backslash escapes the next character (so `\\"`
  does not end a `"` string); the text includes the quotes and backslashes as written.
- `OP`: one of `""" + " ".join(OPERATORS) + """`, always the longest one that fits (`<<=` rather than
  `<<` then `=`).

Anything else is an error: raise `ValueError` with the message `"line:column"` of the offending
character (for an unterminated string, of its opening quote).

Example:

    tokenize("x <<= 0x1F # set\\n  s = 'a\\\\'b'") == [("NAME", "x", 1, 1), ("OP", "<<=", 1, 3),
        ("NUMBER", "0x1F", 1, 7), ("NAME", "s", 2, 3), ("OP", "=", 2, 5), ("STRING", "'a\\\\'b'", 2, 7)]
"""

SOLUTION = r'''
OPERATORS = sorted(["<<=", ">>=", "**", "//", "==", "!=", "<=", ">=", "<<", ">>", "->", "+=", "-=",
                    "+", "-", "*", "/", "%", "<", ">", "=", "(", ")", "[", "]", "{", "}", ",", ".", ":", ";"],
                   key=len, reverse=True)
HEX = set("0123456789abcdefABCDEF")


def tokenize(source):
    tokens = []
    for line_no, line in enumerate(source.split("\n"), 1):
        i = 0
        while i < len(line):
            c = line[i]
            col = i + 1
            if c in " \t":
                i += 1
            elif c == "#":
                break
            elif c.isalpha() or c == "_":
                j = i + 1
                while j < len(line) and (line[j].isalnum() or line[j] == "_"):
                    j += 1
                tokens.append(("NAME", line[i:j], line_no, col))
                i = j
            elif c.isdigit():
                j = _number_end(line, i, line_no)
                tokens.append(("NUMBER", line[i:j], line_no, col))
                i = j
            elif c in "'\"":
                j = i + 1
                while j < len(line) and line[j] != c:
                    j += 2 if line[j] == "\\" else 1
                if j >= len(line):
                    raise ValueError(f"{line_no}:{col}")
                tokens.append(("STRING", line[i:j + 1], line_no, col))
                i = j + 1
            else:
                op = next((o for o in OPERATORS if line.startswith(o, i)), None)
                if op is None:
                    raise ValueError(f"{line_no}:{col}")
                tokens.append(("OP", op, line_no, col))
                i += len(op)
    return tokens


def _number_end(line, i, line_no):
    n = len(line)
    if line[i] == "0" and i + 1 < n and line[i + 1] in "xX":
        j = i + 2
        while j < n and line[j] in HEX:
            j += 1
        if j == i + 2:
            raise ValueError(f"{line_no}:{i + 2}")
    else:
        j = i
        while j < n and line[j].isdigit():
            j += 1
        if j + 1 < n and line[j] == "." and line[j + 1].isdigit():
            j += 1
            while j < n and line[j].isdigit():
                j += 1
        if j < n and line[j] in "eE":
            k = j + 1
            if k < n and line[k] in "+-":
                k += 1
            if k < n and line[k].isdigit():
                while k < n and line[k].isdigit():
                    k += 1
                j = k
    if j < n and (line[j].isalnum() or line[j] == "_"):
        raise ValueError(f"{line_no}:{j + 1}")
    return j
'''

WRONG = [
    # operators tried shortest first
    mutate(SOLUTION, ("                   key=len, reverse=True)", "                   key=len)")),
    # columns counted from 0
    mutate(SOLUTION, ("            col = i + 1\n", "            col = i\n")),
    # a backslash does not protect the quote after it
    mutate(SOLUTION, ('                    j += 2 if line[j] == "\\\\" else 1', "                    j += 1")),
    # a dot always joins the number: 3.x fails, 1..2 fails
    mutate(SOLUTION, ('        if j + 1 < n and line[j] == "." and line[j + 1].isdigit():',
                      '        if j < n and line[j] == ".":')),
    # comments cut off before the line is scanned, so a '#' inside a string ends the line
    mutate(SOLUTION, ("        i = 0\n        while i < len(line):",
                      "        line = line.split('#')[0]\n        i = 0\n        while i < len(line):")),
]

TESTS = r'''
def outcome(source):
    try:
        return [list(t) for t in tokenize(source)]
    except ValueError as exc:
        return "error " + str(exc)

def test_example():
    assert tokenize("x <<= 0x1F # set\n  s = 'a\\'b'") == [("NAME", "x", 1, 1), ("OP", "<<=", 1, 3),
        ("NUMBER", "0x1F", 1, 7), ("NAME", "s", 2, 3), ("OP", "=", 2, 5), ("STRING", "'a\\'b'", 2, 7)]

def test_edges():
    assert outcome("") == []
    assert outcome("3.x") == [["NUMBER", "3", 1, 1], ["OP", ".", 1, 2], ["NAME", "x", 1, 3]]
    assert outcome("1..2") == [["NUMBER", "1", 1, 1], ["OP", ".", 1, 2], ["OP", ".", 1, 3], ["NUMBER", "2", 1, 4]]
    assert outcome("2e-3 4E5 6e+") == "error 1:11"
    assert outcome("a**=b") == [["NAME", "a", 1, 1], ["OP", "**", 1, 2], ["OP", "=", 1, 4], ["NAME", "b", 1, 5]]
    assert outcome("12ab") == "error 1:3"
    assert outcome("\tf(0x)") == "error 1:5"
    assert outcome('x = "a # b" # c') == [["NAME", "x", 1, 1], ["OP", "=", 1, 3], ["STRING", '"a # b"', 1, 5]]
    assert outcome("ok\n  'open") == "error 2:3"
    assert outcome("a ? b") == "error 1:3"
    assert outcome("x->y>>=1") == [["NAME", "x", 1, 1], ["OP", "->", 1, 2], ["NAME", "y", 1, 4],
                                   ["OP", ">>=", 1, 5], ["NUMBER", "1", 1, 8]]

def test_seeded():
    for source, want in SEEDED:
        assert outcome(source) == want, source
'''

_NAMES = ["x", "_tmp", "count2", "e", "E1", "exp", "a_b_c", "x0"]
_NUMBERS = ["0", "42", "3.25", "1e9", "2.5E-3", "7e+2", "0x1f", "0XAB", "10"]
_STRINGS = ["'hi'", '"a b"', "'it\\'s'", '"say \\"x\\""', "'#'", '""', "'\\\\'", '"tab\\t"']


def _token(rng):
    roll = rng.random()
    if roll < 0.3:
        return "NAME", rng.choice(_NAMES)
    if roll < 0.5:
        return "NUMBER", rng.choice(_NUMBERS)
    if roll < 0.65:
        return "STRING", rng.choice(_STRINGS)
    return "OP", rng.choice(OPERATORS)


def _glued(prev, nxt):
    """Would writing these two tokens without a space make them read differently?"""
    kinds = (prev[0], nxt[0])
    if kinds[0] in ("NAME", "NUMBER") and kinds[1] in ("NAME", "NUMBER"):
        return True
    if kinds == ("OP", "OP"):
        return True
    if kinds[0] == "NUMBER" and nxt[1] in (".", "+", "-") or kinds[1] == "NUMBER" and prev[1] == ".":
        return True
    return False


def _source(rng):
    """(source, expected tokens) from a random token sequence."""
    lines, expected, line, col, current = [], [], 1, 1, ""
    previous = None
    for _ in range(rng.randrange(0, 14)):
        kind, text = _token(rng)
        if rng.random() < 0.12:
            if rng.random() < 0.5:
                current += " # " + rng.choice(["note", "x = 'q'", "#"])
            lines.append(current)
            current, line, col, previous = "", line + 1, 1, None
        sep = rng.choice(["", " ", "  ", "\t"])
        if previous and sep == "" and _glued(previous, (kind, text)):
            sep = " "
        current += sep
        col = len(current) + 1
        current += text
        expected.append([kind, text, line, col])
        previous = (kind, text)
    lines.append(current)
    return "\n".join(lines), expected


_FAULTS = [("12ab", 3), ("0x", 2), ("0xg", 2), ("1e5x", 4), ("'open", 1), ('"no end', 1), ("@", 1), ("a$", 2),
           ("3_", 2), ("!x", 1), ("`", 1)]


def _faulty(rng):
    source, _ = _source(rng)
    lines = source.split("\n")
    row = rng.randrange(len(lines))
    fault, offset = rng.choice(_FAULTS)
    text = lines[row].split("#")[0] if "'" not in lines[row] and '"' not in lines[row] else ""
    prefix = text + (" " if text else "")
    lines[row] = prefix + fault
    for r in range(row + 1, len(lines)):
        lines[r] = ""
    return "\n".join(lines), f"error {row + 1}:{len(prefix) + offset}"


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = [_source(rng) for _ in range(45)] + [_faulty(rng) for _ in range(25)]
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Tokenizer with positions, longest-match operators and errors",
        prompt=PROMPT, entry_point="tokenize", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        notes="""A tokenizer is routine; this one pins the places where hand-written scanners slip:
        longest operator match, a dot or an exponent that does not belong to the number, a letter
        glued to a number as an error (with its column), escaped quotes inside strings, '#' inside
        strings, and 1-based columns. Each wrong solution breaks one of these.""",
    )]
