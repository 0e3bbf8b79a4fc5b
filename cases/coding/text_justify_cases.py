"""CO-text-justify: greedy full justification with marked hyphenation points.

The seeded paragraphs and widths come from the seed; the expected lines come from an oracle here that
first lists, for the whole paragraph, every piece a word can be cut into and then fills lines by
trying the cut points from the right; the reference walks words left to right and cuts the one that
overflows. Both are checked against each other by `crucible cases verify`.
"""

from pytest_crucible import code_case, family_rng, mutate, row_tests

FAMILY = "CO-text-justify"

# Hardness (README "How tiers are assigned", coding): greedy filling, the longest hyphenated prefix
# that fits (the hyphen counted), the rest of the word keeping its later points, overflowing words,
# spaces spread with the extra ones on the left, a last line and one-word lines left alone: 6 rules on
# one text; no search. Traps: the wrong solutions.
HARDNESS = {"steps": 6, "search": 1, "traps": 4}

PROMPT = """
Write a Python function `justify(text: str, width: int) -> list[str]` that lays a paragraph out in
lines of exactly `width` characters. Words are separated by runs of spaces and line breaks. A word
may contain `~` marks: points where it may be hyphenated (the marks are never printed).

1. Fill lines greedily: a line takes the next word as long as its words joined by single spaces fit
   in `width` characters.
2. When the next word does not fit, cut it at the mark that gives the longest first part that, with
   a `-` added, still fits on the line (after a space, unless the line is empty). The first part with
   its `-` ends the line; the rest of the word (with its remaining marks) starts the next line and is
   treated like a word again (it may be cut again). If no mark works, the word goes to the next line
   whole.
3. A word (or rest) that cannot fit even on an empty line and has no usable mark stands alone on its
   line, longer than `width`.
4. Every line except the last is then justified: spaces are added between its words until it is
   `width` long, as evenly as possible, the gaps further left getting one more when they cannot be
   equal. A line with a single word, and the last line, keep single spaces and get no padding (no
   trailing spaces). A text without words gives `[]`.

Example:

    justify("a quick hy~phen~ation ex~am~ple", 10) == ["a    quick", "hyphen-", "ation  ex-", "ample"]
"""

SOLUTION = '''
def justify(text, width):
    words = text.split()
    lines, line = [], []
    queue = list(reversed(words))
    while queue:
        word = queue.pop()
        plain = word.replace("~", "")
        used = sum(len(w) for w in line) + len(line)      # letters plus one space before the new word
        room = width - used if line else width
        if len(plain) <= room:
            line.append(plain)
            continue
        cut = None
        marks = [i for i, ch in enumerate(word) if ch == "~"]
        for m in reversed(marks):
            head = word[:m].replace("~", "")
            if head and len(head) + 1 <= room:
                cut = m
                break
        if cut is not None:
            line.append(word[:cut].replace("~", "") + "-")
            lines.append(line)
            line = []
            queue.append(word[cut + 1:])
        elif line:
            lines.append(line)
            line = []
            queue.append(word)
        else:
            lines.append([plain])
    if line:
        lines.append(line)
    out = []
    for k, words_in_line in enumerate(lines):
        if k == len(lines) - 1 or len(words_in_line) == 1:
            out.append(" ".join(words_in_line))
            continue
        gaps = len(words_in_line) - 1
        spaces = width - sum(len(w) for w in words_in_line)
        row = ""
        for g, w in enumerate(words_in_line[:-1]):
            row += w + " " * (spaces // gaps + (1 if g < spaces % gaps else 0))
        out.append(row + words_in_line[-1])
    return out
'''

WRONG = [
    # the hyphen not counted in the width
    mutate(SOLUTION, ("            if head and len(head) + 1 <= room:",
                      "            if head and len(head) <= room:")),
    # extra spaces go to the gaps on the right
    mutate(SOLUTION, ("(1 if g < spaces % gaps else 0)", "(1 if gaps - 1 - g < spaces % gaps else 0)")),
    # the last line justified too
    mutate(SOLUTION, ("        if k == len(lines) - 1 or len(words_in_line) == 1:",
                      "        if len(words_in_line) == 1:")),
    # the rest of a cut word loses its marks: it can never be cut again
    mutate(SOLUTION, ("            queue.append(word[cut + 1:])",
                      "            queue.append(word[cut + 1:].replace('~', ''))")),
]


def _oracle(text, width):
    """Lines as lists of pieces, filling by trying every cut of the overflowing word from the right."""
    pending = [w for w in text.split()]
    lines, current = [], []
    while pending:
        word = pending.pop(0)
        length = sum(map(len, current)) + len(current)
        free = width - length if current else width
        parts = word.split("~")
        whole = "".join(parts)
        if len(whole) <= free:
            current.append(whole)
            continue
        options = [("".join(parts[:k]), "~".join(parts[k:])) for k in range(len(parts) - 1, 0, -1)]
        fitting = [(head, rest) for head, rest in options if head and len(head) + 1 <= free]
        if fitting:
            head, rest = fitting[0]
            lines.append(current + [head + "-"])
            current = []
            pending.insert(0, rest)
        elif current:
            lines.append(current)
            current = []
            pending.insert(0, word)
        else:
            lines.append([whole])
    if current:
        lines.append(current)
    out = []
    for index, pieces in enumerate(lines):
        if index + 1 == len(lines) or len(pieces) < 2:
            out.append(" ".join(pieces))
            continue
        total = width - sum(map(len, pieces))
        gaps = [total // (len(pieces) - 1)] * (len(pieces) - 1)
        for g in range(total % (len(pieces) - 1)):
            gaps[g] += 1
        out.append("".join(p + " " * s for p, s in zip(pieces, gaps + [0])))
    return out


_WORDS = ["a", "an", "the", "of", "text", "hy~phen~ation", "ex~am~ple", "in~de~pen~dent~ly", "ap~ple",
          "wrap", "ab~c", "mo~no~syl~la~bic", "sup~er~cal~i~fra~gil~is~tic", "x~y", "long~er"]


def cases(seed):
    rng = family_rng(FAMILY, seed)
    rows = [(("a quick hy~phen~ation ex~am~ple", 10), _oracle("a quick hy~phen~ation ex~am~ple", 10)),
            (("", 5), []), (("  \n ", 5), []), (("one", 10), ["one"]),
            (("toolongword a", 4), ["toolongword", "a"]),
            (("aa bb cc dd", 8), _oracle("aa bb cc dd", 8))]
    for _ in range(40):
        words = [rng.choice(_WORDS) for _ in range(rng.randrange(1, 14))]
        text = rng.choice([" ", "  ", "\n"]).join(words)
        width = rng.randrange(4, 24)
        rows.append(((text, width), _oracle(text, width)))
    assert rows[0][1] == ["a    quick", "hyphen-", "ation  ex-", "ample"], rows[0][1]
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Full justification with marked hyphenation points",
        prompt=PROMPT, entry_point="justify", tests=row_tests("justify", rows), solution=SOLUTION, wrong=WRONG,
        notes="""Text justification is a known exercise; the hyphenation points add the rules replies
        miss: the longest first part that fits with its hyphen, a rest that keeps its later marks and
        may be cut again, overflowing words alone, extra spaces on the left gaps, and a last line
        that is not stretched.""",
    )]
