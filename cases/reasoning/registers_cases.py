"""Register-machine traces: a numbered program of 12-25 instructions with nested counted loops, a
conditional jump and modular arithmetic, run until it halts (hundreds to thousands of steps).

The generator builds a structured program (assignments, counted loops, if-blocks), compiles it to
the listing with line-number jumps, and computes the answer by evaluating the structure: register
values, and the number of instructions executed from what each construct costs per pass. The
questions ask for a final register value, or for the instruction count (an off-by-one trap at
every loop test). `verify.solver` parses the listing out of the prompt and executes it
instruction by instruction, so a compiler or cost slip in the generator shows.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.tiers import declare

FAMILY = "RE-regvm"
# (loop depth, question, difficulty): "value" asks for a register, "steps" for the instruction count
SHAPES = [(1, "value", "medium"), (2, "value", "hard"), (2, "value", "hard"), (2, "steps", "hard"),
          (2, "value", "hard"), (3, "value", "hard"), (2, "steps", "hard")]
RULES = """\
- `set r k`: put the number k in register r.
- `add r x`, `sub r x`, `mul r x`: r = r + x, r = r - x, r = r * x (x is a register or a number).
- `mod r k`: replace r by the remainder of r divided by k (0 to k - 1).
- `jmp L`: continue at line L.
- `jz r L`: if r is 0, continue at line L; otherwise go on to the next line.
- `jle r x L`: if r <= x, continue at line L; otherwise go on to the next line.
- `halt`: stop."""


# ------------------------------------------------------------------------------------------ structure
# ("op", name, r, x) | ("loop", counter, times, body) | ("if", r, x, body) with x a register or int

def _run(block: list, regs: dict, tally: dict) -> None:
    """Evaluate the structure. tally: "steps" (instructions its listing executes), "peak" (largest
    value), "values" (register -> the values it held). A negative value raises ValueError."""
    for node in block:
        if node[0] == "op":
            _, name, r, x = node
            v = regs[x] if isinstance(x, str) else x
            regs[r] = {"set": lambda: v, "add": lambda: regs[r] + v, "sub": lambda: regs[r] - v,
                       "mul": lambda: regs[r] * v, "mod": lambda: regs[r] % v}[name]()
            tally["steps"] += 1
            if regs[r] < 0:
                raise ValueError("negative register")
            tally["peak"] = max(tally["peak"], regs[r])
            tally["values"].setdefault(r, set()).add(regs[r])
        elif node[0] == "loop":  # set; then per pass: jz, body, sub, jmp; then the jz that exits
            _, counter, times, body = node
            regs[counter] = times
            tally["steps"] += 1
            while regs[counter] != 0:
                tally["steps"] += 1
                _run(body, regs, tally)
                regs[counter] -= 1
                tally["steps"] += 2
            tally["steps"] += 1
        else:  # if: one jle that skips the body when the test fails
            _, r, x, body = node
            tally["steps"] += 1
            if regs[r] > (regs[x] if isinstance(x, str) else x):
                _run(body, regs, tally)


def _compile(block: list, lines: list[str]) -> None:
    for node in block:
        if node[0] == "op":
            _, name, r, x = node
            lines.append(f"{name} {r} {x}")
        elif node[0] == "loop":
            _, counter, times, body = node
            lines.append(f"set {counter} {times}")
            test = len(lines)
            lines.append("")  # the exit test, patched once the loop's end is known
            _compile(body, lines)
            lines.append(f"sub {counter} 1")
            lines.append(f"jmp {test + 1}")
            lines[test] = f"jz {counter} {len(lines) + 1}"
        else:
            _, r, x, body = node
            at = len(lines)
            lines.append("")
            _compile(body, lines)
            lines[at] = f"jle {r} {x} {len(lines) + 1}"


def _arith(rng: random.Random, targets: list[str], sources: list[str]) -> tuple:
    r = rng.choice(targets)
    kind = rng.choices(["add", "sub", "mul", "mod"], [5, 2, 1, 2])[0]
    if kind == "mod":
        return ("op", "mod", r, rng.randint(7, 40))
    if kind == "mul":
        return ("op", "mul", r, rng.randint(2, 3))
    others = [x for x in sources if x != r]
    x = rng.choice(others) if kind == "sub" or rng.random() < 0.6 else rng.randint(1, 9)
    return ("op", kind, r, x)


def _block(rng: random.Random, depth: int, counters: list[str], data: list[str]) -> list:
    """A loop body: a few arithmetic steps, maybe an if-block, and (depth > 1) an inner loop."""
    visible = data + counters
    body = [_arith(rng, data, visible) for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.8:
        r = rng.choice(data)
        body.append(("if", r, rng.choice([rng.randint(5, 30), rng.choice([x for x in data if x != r])]),
                     [_arith(rng, data, visible), ("op", "mod", r, rng.randint(5, 25))]))
    if depth > 1:
        inner = counters[len(counters) - depth + 1]
        body.append(("loop", inner, rng.randint(2, 6), _block(rng, depth - 1, counters, data)))
    rng.shuffle(body)
    return body


def _program(rng: random.Random, depth: int, question: str) -> tuple[list[str], str, int]:
    while True:
        data = ["a", "b", "c"]
        counters = ["i", "j", "k"][:depth]
        init = [("op", "set", r, rng.randint(0, 9)) for r in data]
        passes = rng.randint(3, 9) if depth > 1 else rng.randint(12, 30)
        program = init + [("loop", counters[0], passes, _block(rng, depth, counters, data))]
        program.append(("op", "mod", "a", rng.randint(50, 997)))
        regs = {r: 0 for r in data + counters}
        tally: dict = {"steps": 1, "peak": 0, "values": {}}  # the final halt counts too
        try:
            _run(program, regs, tally)
        except ValueError:  # a register went negative: draw again
            continue
        lines: list[str] = []
        _compile(program, lines)
        lines.append("halt")
        asked = rng.choice(data) if question == "value" else "steps"
        answer = tally["steps"] if question == "steps" else regs[asked]
        busy = min(len(tally["values"].get(r, ())) for r in data)  # every data register keeps changing
        if (80 <= tally["steps"] <= 4000 and tally["peak"] < 10**5 and busy >= 6 and answer not in (0, 200)
                and any(line.startswith("jle") for line in lines)):
            return lines, asked, answer


# ------------------------------------------------------------------------------------------ text

def _prompt(lines: list[str], asked: str) -> str:
    listing = "\n".join(f"{i:>2}: {line}" for i, line in enumerate(lines, 1))
    question = ("How many instructions does the machine execute in total, counting every instruction "
                "each time it runs, jumps and the final `halt` included? End with a final line of the form "
                "`Answer: <number>`." if asked == "steps" else
                f"What number is in register {asked} when the machine halts? End with a final line of the form "
                "`Answer: <number>`.")
    return (
        "A machine has integer registers a, b, c, i, j and k, all 0 at the start, and runs the numbered "
        "program below from line 1, one instruction at a time, going on to the next line unless an "
        f"instruction says otherwise:\n\n{RULES}\n\n```\n{listing}\n```\n\n{question}"
    )


SOLVER = r'''
import re
PROMPT = __PROMPT__
program = re.search(r"```\n(.*?)\n```", PROMPT, re.S).group(1)
code = {}
for line in program.splitlines():
    number, text = line.split(":", 1)
    code[int(number)] = text.split()
regs = {r: 0 for r in "abcijk"}

def value(x):
    return regs[x] if x in regs else int(x)

pc, executed = 1, 0
while True:
    op, *args = code[pc]
    executed += 1
    pc += 1
    if op == "halt":
        break
    if op == "set":
        regs[args[0]] = value(args[1])
    elif op == "add":
        regs[args[0]] += value(args[1])
    elif op == "sub":
        regs[args[0]] -= value(args[1])
    elif op == "mul":
        regs[args[0]] *= value(args[1])
    elif op == "mod":
        regs[args[0]] %= value(args[1])
    elif op == "jmp":
        pc = int(args[0])
    elif op == "jz" and regs[args[0]] == 0:
        pc = int(args[1])
    elif op == "jle" and regs[args[0]] <= value(args[1]):
        pc = int(args[2])
asked = re.search(r"What number is in register (\w) when", PROMPT)
print(regs[asked.group(1)] if asked else executed)
'''


def solver_source(prompt: str) -> str:
    return SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip()


def _case(index: int, rng: random.Random, depth: int, question: str, difficulty: str) -> dict:
    lines, asked, answer = _program(rng, depth, question)
    prompt = _prompt(lines, asked)
    loops = sum(line.startswith("jz") for line in lines)
    if asked == "steps":
        near = [answer - 1, answer + 1, answer - loops]
        trap = "forgetting the final test of each loop"
    else:
        near = [answer + 1, answer - 1]
        trap = "one pass too many or too few"
    wrong = list(dict.fromkeys([
        *(f"Answer: {w}" for w in near),
        f"Tracing the loops gives {answer} or {answer + 3}.\n\nAnswer: {answer + 3} or {answer}",
        "I'm sorry, but I can't run programs, so I can't say what it computes.",
        "Answer: " + ", ".join(str(k) for k in range(0, 201)),
        *([f"The program has {len(lines)} instructions.\n\nAnswer: {len(lines)}"] if len(lines) != answer else []),
    ]))
    passes = next(int(line.split()[2]) for line in lines if line.startswith("set i "))
    reference = (f"The outer loop on i runs {passes} times; on each pass the inner work and the conditional jump "
                 "change the registers, so I carried a, b and c through every pass, checking each `jle` "
                 f"against the current values.\n\n**Answer:** {answer}")
    return {
        "id": f"{FAMILY}-{index:02d}",
        "family": FAMILY,
        "difficulty": difficulty,
        "title": (f"Register machine: {len(lines)} lines, {loops} loop(s), "
                  + ("count the executed instructions" if asked == "steps" else f"final value of {asked}")),
        "prompt": prompt,
        "max_tokens": 32768 if difficulty == "hard" else 16384,
        "grader": {"type": "numeric", "answer": answer},
        "notes": (f"{len(lines)} instructions with {loops} counted loop(s) nested {depth} deep and a conditional "
                  "jump inside, running hundreds to thousands of steps; the values wrap through `mod`, so "
                  "there is no closed form to shortcut the trace, and the conditional changes behaviour "
                  f"between passes. Typical slip: {trap}."),
        "verify": {"solver": solver_source(prompt), "reference": reference, "wrong": wrong},
    }


# Hardness facts (steps, search, traps) per shape: the trace through the loops (hundreds of dependent updates,
# no search); one pass too many or too few is the trap.
HARDNESS = [(10, 1, 2), (14, 1, 2), (14, 1, 2), (14, 1, 2), (14, 1, 2), (18, 1, 2), (14, 1, 2)]


def cases(seed: int) -> list[dict]:
    rng = random.Random(f"{FAMILY}:{seed}")
    out = [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
    for case, facts in zip(out, HARDNESS, strict=True):
        declare(case, *facts)
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
