"""CO-text-runs: run-length encoding with escapes, a run threshold, chunked long runs, and a strict decoder.

The seeded texts and encodings come from the seed; the expected encodings come from an encoder here
built on itertools.groupby and a regular expression for escaping, and the expected decodings (or
errors) of hand-broken encodings from a decoder driven by one regular expression over the tokens; the
reference scans characters by index.
"""

import re
from itertools import groupby

from pytest_crucible import code_case, family_rng, mutate, row_tests

FAMILY = "CO-text-runs"

# Hardness (README "How tiers are assigned", coding): the run threshold, escapes for digits and
# backslashes, chunks of at most 99 with the remainder under the same rule, and a decoder that rejects
# a dangling backslash, a count without a character, and counts out of range or with a leading zero:
# 5 steps; no search. Traps: the wrong solutions.
HARDNESS = {"steps": 5, "search": 1, "traps": 5}

PROMPT = r"""
Write two Python functions, `encode(text: str) -> str` and `decode(code: str) -> str`, for this
run-length format:

- A character is written as itself, except a digit `0-9` or a backslash, which is written with a
  backslash before it (`7` becomes `\7`, `\` becomes `\\`).
- A run of n equal characters with 3 <= n <= 99 is written as the decimal count n followed by the
  written character (`aaaa` becomes `4a`, `7777` becomes `4\7`). Runs of 1 or 2 are written
  character by character (`bb` stays `bb`).
- A run longer than 99 is cut into pieces of 99 from its start, and the rest (if any) follows the
  rules above (a rest of 1 or 2 is written plainly).

`decode` inverts `encode` and accepts exactly the strings `encode` can produce; for anything else it
raises `ValueError`: a backslash at the end or before a character that is not a digit or backslash, a
count not followed by a character, a count below 3, above 99 or with a leading zero, and a count-free
run of 3 or more equal characters (which `encode` would have counted) or a count followed by a run
that continues with the same character when that count is below 99.

Examples:

    encode("aaaabcc") == "4abcc"
    encode("x1111\\") == "x4\\1\\\\"
    decode("3z12\\5") == "zzz555555555555"
    decode("aaa")  # raises ValueError
"""

SOLUTION = r'''
def encode(text):
    out, i = [], 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] == text[i]:
            j += 1
        n, ch = j - i, text[i]
        written = "\\" + ch if ch.isdigit() or ch == "\\" else ch
        while n >= 99:
            out.append("99" + written)
            n -= 99
        if n >= 3:
            out.append(str(n) + written)
        else:
            out.append(written * n)
        i = j
    return "".join(out)


def decode(code):
    pieces, i = [], 0                       # pieces: (count or None, character)
    while i < len(code):
        count = None
        if code[i].isdigit():
            j = i
            while j < len(code) and code[j].isdigit():
                j += 1
            digits = code[i:j]
            if digits[0] == "0" or not 3 <= int(digits) <= 99:
                raise ValueError(f"bad count {digits}")
            count, i = int(digits), j
        if i >= len(code):
            raise ValueError("a count without a character")
        if code[i] == "\\":
            if i + 1 >= len(code) or not (code[i + 1].isdigit() or code[i + 1] == "\\"):
                raise ValueError("bad escape")
            ch, i = code[i + 1], i + 2
        else:
            ch, i = code[i], i + 1
        pieces.append((count, ch))
    text = "".join(ch * (count or 1) for count, ch in pieces)
    if encode(text) != code:
        raise ValueError("not in the canonical form")
    return text
'''

WRONG = [
    # digits not escaped: a digit after a count merges with it
    mutate(SOLUTION, ('''        written = "\\\\" + ch if ch.isdigit() or ch == "\\\\" else ch''',
                      '''        written = "\\\\" + ch if ch == "\\\\" else ch''')),
    # runs of two counted too
    mutate(SOLUTION, ("        if n >= 3:\n", "        if n >= 2:\n")),
    # a rest of one or two after the 99-pieces written with a count
    mutate(SOLUTION, ('''        while n >= 99:
            out.append("99" + written)
            n -= 99
        if n >= 3:''', '''        while n > 99:
            out.append("99" + written)
            n -= 99
        if n >= 3 or len(out) and out[-1] == "99" + written and n:''')),
    # the decoder takes whatever it can read: no check of the canonical form
    mutate(SOLUTION, ('''    if encode(text) != code:
        raise ValueError("not in the canonical form")
''', '')),
    # a count read as a single digit: 12 is read as 1, then the 2 as a character
    mutate(SOLUTION, ('''            while j < len(code) and code[j].isdigit():
                j += 1
            digits''', '''            if j < len(code) and code[j].isdigit():
                j += 1
            digits''')),
]


def _oracle_encode(text):
    out = []
    for ch, group in groupby(text):
        n = len(list(group))
        written = re.sub(r"([0-9\\])", r"\\\1", ch)
        out += ["99" + written] * (n // 99)
        rest = n % 99
        out.append(f"{rest}{written}" if rest >= 3 else written * rest)
    return "".join(out)


_TOKEN = re.compile(r"(?:([1-9][0-9]?)?)(\\[0-9\\]|[^0-9\\])")


def _oracle_decode(code):
    pos, text = 0, []
    while pos < len(code):
        m = _TOKEN.match(code, pos)
        if not m or (m.group(1) and int(m.group(1)) < 3):
            return "!ValueError"
        ch = m.group(2)[-1]
        text.append(ch * int(m.group(1) or 1))
        pos = m.end()
    text = "".join(text)
    return text if _oracle_encode(text) == code else "!ValueError"


def _text(rng):
    parts = []
    for _ in range(rng.randrange(0, 7)):
        ch = rng.choice("ab7\\0 z")
        parts.append(ch * rng.choice([1, 1, 2, 3, 4, 9, 12, 98, 99, 100, 101, 102, 198, 200]))
    return "".join(parts)


def _broken(rng, code):
    fixes = [lambda c: c + "\\", lambda c: c + "5", lambda c: "02a" + c, lambda c: "2a" + c, lambda c: "100a" + c,
             lambda c: c + "aaa", lambda c: "3aa" + c, lambda c: "\\q" + c, lambda c: c + "\\\\\\\\\\\\",
             lambda c: "99a" + "a" + c]
    return rng.choice(fixes)(code)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    rows_encode = [(("aaaabcc",), "4abcc"), (("x1111\\",), "x4\\1\\\\"), (("",), "")]
    rows_decode = [(("3z12\\5",), "zzz555555555555"), (("aaa",), "!ValueError"), (("",), "")]
    for _ in range(25):
        text = _text(rng)
        code = _oracle_encode(text)
        rows_encode.append(((text,), code))
        rows_decode.append(((code,), text))
        broken = _broken(rng, code)
        rows_decode.append(((broken,), _oracle_decode(broken)))
    assert all(_oracle_decode(c[0]) == want for c, want in rows_decode)
    tests = (row_tests("encode", rows_encode).replace("def test_rows", "def test_encode_rows") + "\n" +
             row_tests("decode", rows_decode, errors=("ValueError",)).replace("import json\n", "", 1)
             .replace("ROWS", "DECODE_ROWS").replace("def test_rows", "def test_decode_rows")
             .replace("def plain(value)", "def _plain_unused(value)", 1))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Run-length encoding with escapes, 99-chunks and a strict decoder",
        prompt=PROMPT, entry_point="decode", tests=tests, solution=SOLUTION, wrong=WRONG, what="functions",
        notes="""Run-length encoding is a first exercise; this format adds what makes it invertible
        and strict: digits escaped so a count cannot swallow them, runs of two written plainly,
        runs over 99 cut into 99-pieces with the rest under the same threshold, and a decoder that
        accepts only canonical output (no uncounted run of three, no count of 100, no leading zero,
        no stray backslash).""",
    )]
