"""CO-parse-patch: applying a unified diff, with default counts, pure insertions, offsets and no-newline marks.

Hidden edits come from the seed: a random text of distinct lines is edited at random, the patch is
written by difflib.unified_diff from the standard library, and the text is then shifted by padding
lines so the hunks must be found at an offset. The expected result is the edited text with the same
padding: no patch applier is involved in the oracle.
"""

import difflib

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-patch"

# Hardness (README "How tiers are assigned", coding): omitted counts, b = 0 insertion point, no-newline marks
# per side, empty context lines, count checks, nearest-match search with ties, bounded by the previous hunk,
# parsing. Traps: the wrong solutions.
HARDNESS = {"steps": 8, "search": 1, "traps": 5}

PROMPT = r"""
Write a Python function `apply_patch(original: str, patch: str) -> str` that applies a unified diff to
a text and returns the new text.

Lines of `original` end with "\n" except possibly the last. The patch may begin with a "--- ..." and a
"+++ ..." line, which are ignored. Then come hunks. A hunk starts with a header
`@@ -a,b +c,d @@` (anything after the second `@@` is ignored); a count that is left out (`@@ -a +c @@`)
is 1. The body follows, one line per patch line:
- " text" is a context line, "-text" a line to remove, "+text" a line to add; a completely empty patch
  line is a context line for an empty line;
- "\ No newline at end of file" says that the line just before it has no "\n" at its end (in the old
  text for a context or removed line, in the new text for an added line).
b must equal the number of context and removed lines, and d the number of context and added lines;
otherwise raise ValueError.

The old lines of a hunk (context and removed, in order) are expected to start at line a of the original
(1-based). When b is 0 the hunk only inserts, and its lines go right *after* line a (a = 0 means at the
very start). If the old lines are not found exactly (including line endings) at the expected place,
use the nearest place where they are found, the earlier one on a tie, but never one that starts before
the end of the previous hunk's old lines (hunks are applied in order, and each expected place shifts by
how far the previous hunk was moved). If they are found nowhere allowed, raise ValueError. Lines not
covered by any hunk are copied unchanged.

Example:
    apply_patch("a\nb\nc\n", "@@ -2 +2 @@\n-b\n+B\n") == "a\nB\nc\n"
"""

SOLUTION = r'''
import re

_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_patch(original, patch):
    old_lines = original.splitlines(keepends=True)
    hunks = _parse(patch)
    out, pos, shift = [], 0, 0
    for start, count, old, new in hunks:
        expected = (start if count == 0 else start - 1) + shift
        at = _locate(old_lines, old, expected, pos)
        if at is None:
            raise ValueError(f"hunk at line {start} does not apply")
        out.extend(old_lines[pos:at])
        out.extend(new)
        shift += at - expected
        pos = at + len(old)
    out.extend(old_lines[pos:])
    return "".join(out)


def _locate(lines, old, expected, lowest):
    best = None
    for at in range(lowest, len(lines) - len(old) + 1):
        if lines[at:at + len(old)] == old:
            if best is None or abs(at - expected) < abs(best - expected):
                best = at
    return best


def _parse(patch):
    lines = patch.splitlines()
    i = 0
    if i < len(lines) and lines[i].startswith("--- "):
        i += 1
        if i < len(lines) and lines[i].startswith("+++ "):
            i += 1
    hunks = []
    while i < len(lines):
        m = _HEADER.match(lines[i])
        if not m:
            raise ValueError(f"a hunk header is expected: {lines[i]!r}")
        a, b, c, d = m.groups()
        b = 1 if b is None else int(b)
        d = 1 if d is None else int(d)
        i += 1
        old, new = [], []
        last = None                                # which lists the previous body line went to
        while i < len(lines) and not lines[i].startswith("@@"):
            line = lines[i]
            if line.startswith("\\"):
                if last is None:
                    raise ValueError("a no-newline mark with no line before it")
                for target in last:
                    target[-1] = target[-1][:-1]
                i += 1
                continue
            kind, text = (line[0], line[1:]) if line else (" ", "")
            if kind == " ":
                old.append(text + "\n")
                new.append(text + "\n")
                last = (old, new)
            elif kind == "-":
                old.append(text + "\n")
                last = (old,)
            elif kind == "+":
                new.append(text + "\n")
                last = (new,)
            else:
                raise ValueError(f"bad hunk line {line!r}")
            i += 1
        if len(old) != b or len(new) != d:
            raise ValueError("hunk counts do not match its body")
        hunks.append((int(a), b, old, new))
    return hunks
'''

WRONG = [
    # a missing count read as 0
    mutate(SOLUTION, ("        b = 1 if b is None else int(b)\n        d = 1 if d is None else int(d)",
                      "        b = int(b or 0)\n        d = int(d or 0)")),
    # a pure insertion placed before line a instead of after it
    mutate(SOLUTION, ("        expected = (start if count == 0 else start - 1) + shift", "        expected = start - 1 + shift")),
    # old lines looked for only where the header says
    mutate(SOLUTION, ('''    best = None
    for at in range(lowest, len(lines) - len(old) + 1):''', '''    best = None
    for at in [expected] if lowest <= expected else []:''')),
    # the no-newline mark ignored
    mutate(SOLUTION, ("                for target in last:\n                    target[-1] = target[-1][:-1]\n", "")),
    # the first match from the top, not the nearest
    mutate(SOLUTION, ("            if best is None or abs(at - expected) < abs(best - expected):",
                      "            if best is None:")),
]

TESTS = r'''
def _invalid(original, patch):
    try:
        apply_patch(original, patch)
    except ValueError:
        return True
    return False

def test_basics():
    assert apply_patch("a\nb\nc\n", "@@ -2 +2 @@\n-b\n+B\n") == "a\nB\nc\n"
    assert apply_patch("a\nb\nc\n", "--- x\n+++ y\n@@ -1,3 +1,2 @@\n a\n-b\n c\n") == "a\nc\n"
    assert apply_patch("a\nb\n", "") == "a\nb\n"
    assert apply_patch("a\n\nb\n", "@@ -1,3 +1,3 @@ ctx\n a\n\n-b\n+c\n") == "a\n\nc\n"

def test_insertions():
    assert apply_patch("a\nb\n", "@@ -1,0 +2 @@\n+x\n") == "a\nx\nb\n"
    assert apply_patch("a\nb\n", "@@ -0,0 +1,2 @@\n+x\n+y\n") == "x\ny\na\nb\n"
    assert apply_patch("a\nb\n", "@@ -2,0 +3 @@\n+z\n") == "a\nb\nz\n"
    assert apply_patch("", "@@ -0,0 +1 @@\n+only\n") == "only\n"

def test_no_newline_marks():
    assert apply_patch("a\nb", "@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+b\n") == "a\nb\n"
    assert apply_patch("a\nb\n", "@@ -2 +2 @@\n-b\n+b\n\\ No newline at end of file\n") == "a\nb"
    assert apply_patch("a\nb", "@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n") == "A\nb"
    assert _invalid("a\nb\n", "@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+c\n")

def test_offsets():
    text = "x\ny\nk\nz\nk\nw\n"
    assert apply_patch(text, "@@ -1 +1 @@\n-k\n+K\n") == "x\ny\nK\nz\nk\nw\n"
    assert apply_patch(text, "@@ -6 +6 @@\n-k\n+K\n") == "x\ny\nk\nz\nK\nw\n"
    assert apply_patch(text, "@@ -4 +4 @@\n-k\n+K\n") == "x\ny\nK\nz\nk\nw\n"
    two = "@@ -1 +1 @@\n-k\n+K\n@@ -2 +2 @@\n-k\n+Q\n"
    assert apply_patch(text, two) == "x\ny\nK\nz\nQ\nw\n"
    assert _invalid(text, "@@ -5 +5 @@\n-k\n+K\n@@ -1 +1 @@\n-k\n+Q\n")
    assert _invalid(text, "@@ -1 +1 @@\n-q\n+Q\n")

def test_bad_patches():
    assert _invalid("a\n", "@@ -1,2 +1 @@\n-a\n+b\n")
    assert _invalid("a\n", "@@ -1 +1,2 @@\n-a\n+b\n")
    assert _invalid("a\n", "junk\n@@ -1 +1 @@\n-a\n+b\n")
    assert _invalid("a\n", "@@ -1 +1 @@\n*a\n+b\n")

def test_seeded_edits():
    for original, patch, want in SEEDED:
        assert apply_patch(original, patch) == want, (original, patch)
'''


def _draw(rng):
    words = ["apple", "brook", "cedar", "delta", "ember", "fjord", "grove", "haven", "inlet", "jetty"]
    lines = [f"{rng.choice(words)} {i}\n" for i in range(rng.randrange(3, 18))]
    edited = list(lines)
    for _ in range(rng.randrange(1, 4)):
        op = rng.randrange(3)
        k = rng.randrange(len(edited) + (op == 1))
        if op == 0 and edited:
            del edited[min(k, len(edited) - 1)]
        elif op == 1:
            edited.insert(k, f"new {rng.randrange(1000)}\n")
        elif edited:
            edited[min(k, len(edited) - 1)] = f"changed {rng.randrange(1000)}\n"
    context = rng.randrange(0, 3)
    patch = "".join(difflib.unified_diff(lines, edited, "old", "new", n=context))
    # a hunk without context lines cannot be found at an offset, so padding only comes with context
    pad = [f"padding {i}\n" for i in range(rng.choice([0, 2, 5]) if context else 0)]
    return "".join(pad + lines), patch, "".join(pad + edited)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = [_draw(rng) for _ in range(25)]
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Applying a unified diff with offsets and no-newline marks",
        prompt=PROMPT, entry_point="apply_patch", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        notes="""The unified format hides several rules a model must get exactly right: a count left out
        means 1; with b = 0 the start names the line *after which* to insert (0 for the top); the
        no-newline mark edits the previous line on the old or new side only; empty patch lines are
        context; counts must match. Applying needs a nearest-match search with ties to the earlier
        place, bounded by the previous hunk, with the shift carried forward. Twenty-five seeded edits
        are written by difflib and shifted by padding, so hunks land at offsets.""",
    )]
