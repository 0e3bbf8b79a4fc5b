"""IN-edits: a numbered edit script applied to generated lines; the reply is the edited text, exactly.

Each edit's line numbers refer to the text as it stands after the edits before it, so a deletion or an
insertion renumbers every later line: the trap is to keep the original numbering. The generator applies
the edits as structured operations; `verify.solver` parses the lines and the edit script from the prompt
text and replays them.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-edits"
REFUSAL = "I'm sorry, but I can't help with that request."
ADJ = ("amber", "brisk", "copper", "dusty", "early", "faint", "gentle", "hollow", "idle", "jagged", "quiet",
       "rusty", "silver", "tidal", "velvet", "woollen", "narrow", "lofty", "muddy", "pale")
NOUN = ("harbour", "lantern", "orchard", "ferry", "meadow", "kettle", "bridge", "chapel", "market", "garden",
        "quarry", "beacon", "pantry", "cellar", "island", "mill", "tower", "valley", "wharf", "forge")
VERB = ("waits", "glows", "leans", "hums", "drifts", "rests", "sways", "shines", "sleeps", "turns")
PREP = ("beside", "below", "behind", "beyond", "near", "under", "past", "above")
# (edits, steps) per sibling; a sibling's steps are its edits, each one applied to the result of the last
SHAPES = (5, 8, 9, 11)


def _line(rng: random.Random) -> str:
    return f"{rng.choice(ADJ)} {rng.choice(NOUN)} {rng.choice(VERB)} {rng.choice(PREP)} the {rng.choice(NOUN)}"


def _apply(text: list[str], op: tuple) -> list[str]:
    text = list(text)
    kind, a = op[0], op[1] - 1
    if kind == "delete":
        del text[a]
    elif kind == "swap":
        b = op[2] - 1
        text[a], text[b] = text[b], text[a]
    elif kind == "end":
        text.append(text.pop(a))
    elif kind == "insert":
        text.insert(a + 1, op[2])
    elif kind == "replace":
        text[a] = " ".join(op[3] if w == op[2] else w for w in text[a].split())
    elif kind == "upper":
        text[a] = " ".join(w.upper() if k % 2 else w for k, w in enumerate(text[a].split()))
    elif kind == "reverse":
        text[a] = " ".join(reversed(text[a].split()))
    return text


def _say(op: tuple) -> str:
    kind = op[0]
    return {"delete": "Delete line {1}.", "swap": "Swap lines {1} and {2}.", "end": "Move line {1} to the end.",
            "insert": 'Insert a new line "{2}" after line {1}.',
            "replace": 'In line {1}, replace the word "{2}" with "{3}".',
            "upper": "In line {1}, write every second word (the 2nd, 4th, ...) in capital letters.",
            "reverse": "In line {1}, reverse the order of the words."}[kind].format(*op)


def _script(rng: random.Random, start: list[str], n: int) -> list[tuple]:
    ops, text = [], list(start)
    kinds = ["delete", "insert", "swap", "end", "replace", "upper", "reverse"]
    for k in range(n):
        # a renumbering edit comes early, so later edits see shifted numbers
        kind = ("delete", "insert")[k % 2] if k < 2 else rng.choice(kinds)
        size = len(text)
        a = rng.randint(1, size - 1 if kind in ("end", "insert") else size)
        if kind == "swap":
            b = rng.choice([x for x in range(1, size + 1) if x != a])
            op: tuple = (kind, min(a, b), max(a, b))
        elif kind == "insert":
            op = (kind, a, _line(rng))
        elif kind == "replace":
            line = text[a - 1].split()
            unique = [w for w in line if w != "the" and line.count(w) == 1]  # "the word" names one word
            if not unique:
                kind, op = "reverse", ("reverse", a)
                ops.append(op)
                text = _apply(text, op)
                continue
            word = rng.choice(unique)
            op = (kind, a, word, rng.choice([x for x in NOUN + ADJ if x not in text[a - 1].split()]))
        else:
            op = (kind, a)
        ops.append(op)
        text = _apply(text, op)
    return ops


def _by_original(start: list[str], ops: list[tuple]) -> list[str]:
    """The trap: every line number read in the original numbering (inserted lines have none)."""
    rows: list[list] = [[k + 1, s] for k, s in enumerate(start)]
    for op in ops:
        at = {r[0]: i for i, r in enumerate(rows) if r[0] is not None}
        if op[1] not in at or (op[0] == "swap" and op[2] not in at):
            continue
        i = at[op[1]]
        if op[0] == "delete":
            del rows[i]
        elif op[0] == "swap":
            j = at[op[2]]
            rows[i][1], rows[j][1] = rows[j][1], rows[i][1]
        elif op[0] == "end":
            rows.append(rows.pop(i))
        elif op[0] == "insert":
            rows.insert(i + 1, [None, op[2]])
        else:
            rows[i][1] = _apply([rows[i][1]], (op[0], 1, *op[2:]))[0]
    return [r[1] for r in rows]


SOLVER = r'''
import re
PROMPT = __PROMPT__
text = re.findall(r"^(\d+): (.+)$", PROMPT.split("Edits:")[0], re.M)
text = [line for _, line in sorted(text, key=lambda t: int(t[0]))]
script = re.findall(r"^E\d+\. (.+)$", PROMPT, re.M)
for edit in script:
    nums = [int(x) for x in re.findall(r"line[s]? (\d+)(?: and (\d+))?", edit)[0] if x]
    i = nums[0] - 1
    quoted = re.findall(r'"([^"]+)"', edit)
    if edit.startswith("Delete"):
        text = text[:i] + text[i + 1:]
    elif edit.startswith("Swap"):
        j = nums[1] - 1
        text[i], text[j] = text[j], text[i]
    elif edit.startswith("Move"):
        text = text[:i] + text[i + 1:] + [text[i]]
    elif edit.startswith("Insert"):
        text = text[:i + 1] + [quoted[0]] + text[i + 1:]
    elif "replace the word" in edit:
        text[i] = " ".join(quoted[1] if w == quoted[0] else w for w in text[i].split())
    elif "every second word" in edit:
        ws = text[i].split()
        ws[1::2] = [w.upper() for w in ws[1::2]]
        text[i] = " ".join(ws)
    elif "reverse the order" in edit:
        text[i] = " ".join(text[i].split()[::-1])
    else:
        raise SystemExit("unknown edit: " + edit)
print("\n".join(text))
'''


def _case(index: int, rng: random.Random, n_edits: int) -> dict:
    start = [_line(rng) for _ in range(rng.randint(6, 8))]
    ops = _script(rng, start, n_edits)
    final = start
    for op in ops:
        final = _apply(final, op)
    listing = "\n".join(f"{k + 1}: {s}" for k, s in enumerate(start))
    script = "\n".join(f"E{k + 1}. {_say(op)}" for k, op in enumerate(ops))
    prompt = (f"Here is a text of {len(start)} numbered lines:\n\n{listing}\n\nEdits:\n{script}\n\n"
              "Apply the edits in order. The line numbers in each edit refer to the text as it stands after "
              "all the edits before it (a deletion or an insertion renumbers the lines below it). Words are "
              "separated by single spaces; keep every other word exactly as it is. Output only the final "
              "text, one line per line, without line numbers and without any comment.\n")
    constraints = [{"kind": "lines_equal", "lines": final}, {"kind": "no_preamble"}]
    trap = _by_original(start, ops)
    reverse = start
    for op in reversed(ops):
        try:
            reverse = _apply(reverse, op)
        except IndexError:
            break
    wrong = [REFUSAL, "\n".join(trap), "\n".join(_apply_all(start, ops[:-1])), "\n".join(start),
             "\n".join(f"{k + 1}: {s}" for k, s in enumerate(final)),
             "\n".join(final) + "\n\nOr, reading the numbers in the original text:\n" + "\n".join(trap),
             "\n".join(final[:-1])]
    if reverse != final:
        wrong.append("\n".join(reverse))
    wrong = [w for w in dict.fromkeys(wrong) if w != "\n".join(final)]
    hardness = {"steps": n_edits, "search": 1, "traps": 2}
    reference = "```text\n" + "\n".join(final) + "\n```"
    notes = (f"{n_edits} edits, each applied to the result of the one before: a deletion and an insertion come "
             "first, so every later line number points at a shifted line. The traps are the original numbering "
             "(stored: the script replayed on original line numbers) and a dropped last edit; one wrong word "
             "anywhere fails the exact comparison.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"{n_edits} edits to {len(start)} lines, renumbering as they go", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 16384, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": reference, "wrong": wrong}}


def _apply_all(text: list[str], ops: list[tuple]) -> list[str]:
    for op in ops:
        text = _apply(text, op)
    return text


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, n) for i, n in enumerate(SHAPES, 1)]
