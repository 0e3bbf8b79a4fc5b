"""State-machine traces: a 6-8 state machine reads a long input (a short block repeated hundreds of
times, then a tail); the question is the final state, or how many steps end in a given state.

The generator works at the level of blocks: it composes the block into one map from states to
states (with the visits one pass makes from each start), follows that map pass by pass, and skips
the repeating part once the states cycle. `verify.solver` parses the table and the input out of
the prompt and simulates every symbol, so both the shortcut and the rendering are checked.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.tiers import declare

FAMILY = "RE-fsm"
STATES = ["amber", "basalt", "cedar", "dune", "ember", "fjord", "garnet", "harbor", "indigo", "juniper"]
# (states, symbols, block length, passes (low, high), question, difficulty); passes 1 = written out
SHAPES = [(6, 2, 40, (1, 1), "state", "medium"), (6, 3, 5, (120, 400), "state", "hard"),
          (7, 3, 6, (300, 900), "state", "hard"), (7, 2, 7, (200, 700), "visits", "hard"),
          (8, 3, 5, (500, 999), "state", "hard"), (8, 3, 6, (150, 600), "visits", "hard")]


def _pass(table: dict, start: str, block: str, target: str) -> tuple[str, int]:
    """(state after one pass of the block from `start`, steps of that pass ending in `target`)."""
    state, hits = start, 0
    for symbol in block:
        state = table[state][symbol]
        hits += state == target
    return state, hits


def _run_blocks(table: dict, start: str, block: str, passes: int, tail: str, target: str) -> tuple[str, int]:
    """Final state and visits to `target`, jumping over whole cycles of the pass-to-pass map."""
    one = {s: _pass(table, s, block, target) for s in table}
    seen: dict[str, tuple[int, int]] = {}  # state at the start of a pass -> (pass number, visits before it)
    state, hits, done = start, 0, 0
    while done < passes:
        if state in seen:  # from here on the passes repeat with period `length`
            first, hits_then = seen[state]
            length, gained = done - first, hits - hits_then
            loops = (passes - done) // length
            done += loops * length
            hits += loops * gained
            seen = {}
            if done == passes:
                break
        seen[state] = (done, hits)
        state, more = one[state]
        hits += more
        done += 1
    last, more = _pass(table, state, tail, target)
    return last, hits + more


def _machine(rng: random.Random, n: int, k: int, length: int, passes: tuple[int, int], question: str):
    symbols = "012"[:k]
    while True:
        names = sorted(rng.sample(STATES, n))
        table = {s: {c: rng.choice(names) for c in symbols} for s in names}
        start = rng.choice(names)
        block = "".join(rng.choice(symbols) for _ in range(length))
        count = rng.randint(*passes)
        tail = "".join(rng.choice(symbols) for _ in range(rng.randint(1, 3))) if count > 1 else ""
        target = rng.choice(names)
        final, visits = _run_blocks(table, start, block, count, tail, target)
        # the pass-to-pass map must wander before it cycles, so that no shortcut guess works
        order, state = [], start
        while state not in order:
            order.append(state)
            state = _pass(table, state, block, target)[0]
        cycle = len(order) - order.index(state)
        reached = {s for row in table.values() for s in row.values()}
        if count > 1 and (cycle < 2 or len(order) < 3):
            continue
        if len(reached) < n or (question == "visits" and visits in (0, 200)):
            continue
        short = _run_blocks(table, start, block, count - 1, tail, target)[0] if count > 1 else None
        if short == final:
            continue
        return names, symbols, table, start, block, count, tail, target, final, visits, short, cycle


def _prompt(names, symbols, table, start, block, count, tail, target, question) -> str:
    head = "| state | " + " | ".join(symbols) + " |\n|---|" + "---|" * len(symbols)
    rows = "\n".join(f"| {s} | " + " | ".join(table[s][c] for c in symbols) + " |" for s in names)
    listed = ", ".join(symbols[:-1]) + " and " + symbols[-1]
    if count == 1:
        given = f"The input is `{block}`."
    else:
        given = f"The input is the block `{block}` written {count} times in a row, followed by `{tail}`."
    if question == "state":
        ask = "Which state is the machine in after reading the whole input? End with a final line of the " \
              "form `Answer: <state>`."
    else:
        ask = (f"How many of the steps end in state {target}? (Each symbol read is one step; a step that "
               f"stays in {target} counts too.) End with a final line of the form `Answer: <number>`.")
    return (
        f"A machine reads a string of the symbols {listed}, one symbol at a time, and moves between "
        f"{len(names)} states by this table (row: current state; column: symbol read; entry: next "
        f"state). It starts in state {start}.\n\n{head}\n{rows}\n\n{given}\n\n{ask}"
    )


SOLVER = r'''
import re
PROMPT = __PROMPT__
rows = re.findall(r"^\| (\w+) \| (.+) \|$", PROMPT, re.M)
symbols = rows[0][1].split(" | ")
table = {s: dict(zip(symbols, rest.split(" | "))) for s, rest in rows[1:]}
state = re.search(r"It starts in state (\w+)\.", PROMPT).group(1)
whole = re.search(r"The input is `(\w+)`\.", PROMPT)
if whole:
    text = whole.group(1)
else:
    block, times, tail = re.search(r"the block `(\w+)` written (\d+) times in a row, followed by `(\w*)`",
                                   PROMPT).groups()
    text = block * int(times) + tail
target = re.search(r"How many of the steps end in state (\w+)\?", PROMPT)
hits = 0
for symbol in text:
    state = table[state][symbol]
    hits += bool(target) and state == target.group(1)
print(hits if target else state)
'''


def solver_source(prompt: str) -> str:
    return SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip()


def _case(index: int, rng: random.Random, n: int, k: int, length: int, passes: tuple[int, int], question: str,
          difficulty: str) -> dict:
    (names, symbols, table, start, block, count, tail, target, final, visits, short,
     cycle) = _machine(rng, n, k, length, passes, question)
    prompt = _prompt(names, symbols, table, start, block, count, tail, target, question)
    others = [s for s in names if s != final]
    if question == "state":
        grader = {"type": "exact", "answer": final}
        near = short or rng.choice(others)
        # the start state is the answer of a model that reads nothing; when the machine ends where it started,
        # that wrong reply would be the gold, so another state stands in
        stay = start if start != final else next(s for s in names if s not in (final, near))
        wrong = [f"Answer: {near}", f"Answer: {final} or {near}", f"It ends in {near}, or possibly {final}.",
                 "I'm sorry, but I can't trace an input this long.", "Answer: " + ", ".join(names),
                 f"Answer: {stay}"]
        reference = (f"One pass of the block maps each state to another; from {start} the passes settle into a "
                     f"cycle of length {cycle}, so only the remainder matters. Reading the tail then gives the "
                     f"final state.\n\n**Answer:** {final.capitalize()}" if count > 1 else
                     f"Following the table symbol by symbol from {start}:\n\n... -> {final}\n\nAnswer: {final}")
        asked = "the final state"
    else:
        grader = {"type": "numeric", "answer": visits}
        wrong = [f"Answer: {visits - 1}", f"Answer: {visits + 1}", f"Answer: {visits + 3} or {visits}",
                 "I'm sorry, but I can't trace an input this long.",
                 "Answer: " + ", ".join(str(v) for v in range(0, 201))]
        if n != visits:
            wrong.append(f"The machine has {n} states.\n\nAnswer: {n}")
        reference = (f"Each pass of the block from a given state ends in {target} a fixed number of times; the "
                     f"passes cycle with period {cycle}, so the total is the cycle sum times the number of "
                     f"cycles plus the lead-in and the tail: {visits:,}.\n\nAnswer: {visits:,}")
        asked = f"the number of steps ending in {target}"
    steps = len(block) * count + len(tail)
    return {
        "id": f"{FAMILY}-{index:02d}",
        "family": FAMILY,
        "difficulty": difficulty,
        "title": f"State machine: {n} states, {steps} symbols, {asked}",
        "prompt": prompt,
        "max_tokens": 32768 if difficulty == "hard" else 16384,
        "grader": grader,
        "notes": (f"{n} states, {len(symbols)} symbols, {steps:,} steps. " + (
            f"Simulating every step is hopeless; the solver must compose the {len(block)}-symbol block into "
            f"one state map, find where the passes start to cycle (period {cycle}, after a lead-in), reduce "
            f"{count} modulo the period and then read the tail; an off-by-one in the pass count gives a "
            "different answer." if count > 1 else
            "A written-out input traced symbol by symbol: a long chain of table look-ups where one misread "
            "row derails the rest.")),
        "verify": {"solver": solver_source(prompt), "reference": reference, "wrong": list(dict.fromkeys(wrong))},
    }


# Hardness facts (steps, search, traps) per shape: the trace itself (40 look-ups) for the short shape;
# composing the block, finding the cycle and reducing the index for the long ones, whose naive trace runs
# blocks x passes steps.
HARDNESS = [(40, 1, 2), (11, 600, 2), (12, 1800, 2), (13, 1400, 2), (11, 2500, 2), (12, 900, 2)]


def cases(seed: int) -> list[dict]:
    rng = random.Random(f"{FAMILY}:{seed}")
    out = [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
    for case, facts in zip(out, HARDNESS, strict=True):
        declare(case, *facts)
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
