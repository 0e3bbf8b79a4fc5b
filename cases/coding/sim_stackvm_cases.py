"""CO-sim-stackvm: an interpreter for a small stack machine with calls, jumps, errors and a step limit.

The seeded programs (random straight-line code, loops, calls, deliberate faults) come from the seed;
their expected output and status come from an interpreter written here as a table of handlers over
pre-split lines; the reference is a single dispatch loop over parsed instructions.
"""

from pytest_crucible import code_case, family_rng, mutate, row_tests

FAMILY = "CO-sim-stackvm"

# Hardness (README "How tiers are assigned", coding): the load pass (comments, labels, duplicate labels,
# bad instructions), source line numbers, the stack rules with underflow, truncating DIV and MOD with
# the dividend's sign, conditional jumps that pop, calls and returns on their own stack, the step
# limit at exactly 10,000: 7 rules on one machine state; no search. Traps: the wrong solutions.
HARDNESS = {"steps": 7, "search": 1, "traps": 5}

PROMPT = """
Write a Python function `run(source: str) -> tuple[list[int], str]` that executes a program for a small
stack machine and returns the list of printed values and a status.

The source has one instruction per line. Everything after a `#` is a comment; blank lines are
ignored. A line `name:` (a name of letters, digits and `_`, then a colon, nothing else) defines a
label for the next instruction. Instructions (the stack holds ints; "pop" takes the top value):

- `PUSH n` (n an integer, maybe negative), `POP`, `DUP` (push a copy of the top), `SWAP` (swap the top
  two), `OVER` (push a copy of the second value from the top);
- `ADD`, `SUB`, `MUL`, `DIV`, `MOD`: pop b, then pop a, push a+b, a-b, a*b, a/b or a mod b. DIV
  truncates toward zero and MOD has the sign of a (so a == (a DIV b) * b + (a MOD b)); b == 0 is an
  error;
- `JMP label`; `JZ label` and `JNZ label` pop a value and jump when it is zero / not zero;
- `CALL label` jumps and remembers the following instruction on a separate call stack; `RET` returns
  to the last remembered one;
- `PRINT` pops a value and appends it to the output; `HALT` stops.

The program starts at its first instruction and stops, with status `"ok"`, at `HALT` or after its last
line. Errors stop it with status `"error: <what> at line <n>"`, n the 1-based line of the source
(comment and blank lines count), and the values printed so far are still returned:

- before running, the first line (from the top) that is not blank, a comment, a label or a valid
  instruction gives `bad instruction`, and the second definition of a label gives `duplicate label`;
- while running: `stack underflow` (an instruction needs more values than the stack holds),
  `division by zero`, `unknown label` (a jump or call to a label that is not defined), `return
  without call`, and `step limit`: a program may execute at most 10,000 instructions, and the line of
  the 10,001st instruction is reported.

Example:

    run("PUSH 7\\nPUSH -2\\nDIV\\nPRINT  # -3\\nloop:\\nJMP nowhere") == ([-3], "error: unknown label at line 6")
"""

SOLUTION = r'''
import re

_LABEL = re.compile(r"^([A-Za-z0-9_]+):$")
_ARITY = {"POP": 1, "DUP": 1, "SWAP": 2, "OVER": 2, "ADD": 2, "SUB": 2, "MUL": 2, "DIV": 2, "MOD": 2,
          "JZ": 1, "JNZ": 1, "PRINT": 1, "PUSH": 0, "JMP": 0, "CALL": 0, "RET": 0, "HALT": 0}
_NEEDS = {"PUSH": "int", "JMP": "name", "JZ": "name", "JNZ": "name", "CALL": "name"}


def run(source):
    program, labels = [], {}                   # program: (line number, op, argument)
    for number, raw in enumerate(source.split("\n"), 1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        label = _LABEL.match(text)
        if label:
            if label.group(1) in labels:
                return [], f"error: duplicate label at line {number}"
            labels[label.group(1)] = len(program)
            continue
        parts = text.split()
        op = parts[0]
        if op not in _ARITY or len(parts) != (2 if op in _NEEDS else 1):
            return [], f"error: bad instruction at line {number}"
        arg = None
        if op == "PUSH":
            if not re.fullmatch(r"-?\d+", parts[1]):
                return [], f"error: bad instruction at line {number}"
            arg = int(parts[1])
        elif op in _NEEDS:
            if not re.fullmatch(r"[A-Za-z0-9_]+", parts[1]):
                return [], f"error: bad instruction at line {number}"
            arg = parts[1]
        program.append((number, op, arg))
    stack, calls, out, pc, steps = [], [], [], 0, 0
    while pc < len(program):
        number, op, arg = program[pc]
        steps += 1
        if steps > 10000:
            return out, f"error: step limit at line {number}"
        if len(stack) < _ARITY[op]:
            return out, f"error: stack underflow at line {number}"
        pc += 1
        if op == "PUSH":
            stack.append(arg)
        elif op == "POP":
            stack.pop()
        elif op == "DUP":
            stack.append(stack[-1])
        elif op == "SWAP":
            stack[-1], stack[-2] = stack[-2], stack[-1]
        elif op == "OVER":
            stack.append(stack[-2])
        elif op in ("ADD", "SUB", "MUL", "DIV", "MOD"):
            b, a = stack.pop(), stack.pop()
            if op in ("DIV", "MOD") and b == 0:
                return out, f"error: division by zero at line {number}"
            if op == "ADD":
                stack.append(a + b)
            elif op == "SUB":
                stack.append(a - b)
            elif op == "MUL":
                stack.append(a * b)
            else:
                q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
                stack.append(q if op == "DIV" else a - q * b)
        elif op == "PRINT":
            out.append(stack.pop())
        elif op == "HALT":
            return out, "ok"
        elif op == "RET":
            if not calls:
                return out, f"error: return without call at line {number}"
            pc = calls.pop()
        else:
            jump = True
            if op in ("JZ", "JNZ"):
                value = stack.pop()
                jump = (value == 0) == (op == "JZ")
            if jump:
                if arg not in labels:
                    return out, f"error: unknown label at line {number}"
                if op == "CALL":
                    calls.append(pc)
                pc = labels[arg]
    return out, "ok"
'''

WRONG = [
    # Python's floor division and modulo
    mutate(SOLUTION, ('''                q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
                stack.append(q if op == "DIV" else a - q * b)''',
                      '''                stack.append(a // b if op == "DIV" else a % b)''')),
    # line numbers counted over instructions only
    mutate(SOLUTION, ('''        program.append((number, op, arg))''',
                      '''        program.append((len(program) + 1, op, arg))''')),
    # one instruction too many allowed
    mutate(SOLUTION, ("        if steps > 10000:", "        if steps > 10001:")),
    # JZ / JNZ peek at the value instead of popping it
    mutate(SOLUTION, ("                value = stack.pop()", "                value = stack[-1]")),
    # RET with an empty call stack ends the program quietly
    mutate(SOLUTION, ('''                return out, f"error: return without call at line {number}"''',
                      '''                return out, "ok"''')),
]

# ------------------------------------------------------------------------------------- the oracle


def _oracle(source):
    lines = source.split("\n")
    code = {}                                  # index -> (line, words)
    order, labels = [], {}
    for i, raw in enumerate(lines):
        text = raw.partition("#")[0].strip()
        if text == "":
            continue
        if text.endswith(":") and text[:-1].replace("_", "a").isalnum() and text[:-1].isascii():
            name = text[:-1]
            if name in labels:
                return [], f"error: duplicate label at line {i + 1}"
            labels[name] = len(order)
            continue
        words = text.split()
        simple = {"POP", "DUP", "SWAP", "OVER", "ADD", "SUB", "MUL", "DIV", "MOD", "PRINT", "RET", "HALT"}
        ok = (len(words) == 1 and words[0] in simple) or (
            len(words) == 2 and words[0] in {"JMP", "JZ", "JNZ", "CALL"}
            and words[1].replace("_", "a").isalnum() and words[1].isascii()) or (
            len(words) == 2 and words[0] == "PUSH" and words[1].lstrip("-").isdigit() and words[1].count("-") <= 1
            and not words[1].startswith("--") and (words[1][0] == "-" or words[1][0].isdigit()))
        if not ok:
            return [], f"error: bad instruction at line {i + 1}"
        code[len(order)] = (i + 1, words)
        order.append(i + 1)
    state = {"stack": [], "calls": [], "out": [], "pc": 0}

    def need(k):
        if len(state["stack"]) < k:
            raise _Stop("stack underflow")

    def binary(fn):
        def handler(_):
            need(2)
            b = state["stack"].pop()
            a = state["stack"].pop()
            state["stack"].append(fn(a, b))
        return handler

    def divide(a, b):
        if b == 0:
            raise _Stop("division by zero")
        return -(-a // b) if (a < 0) != (b < 0) else a // b

    def modulo(a, b):
        if b == 0:
            raise _Stop("division by zero")
        return a - divide(a, b) * b

    def goto(name):
        if name not in labels:
            raise _Stop("unknown label")
        state["pc"] = labels[name]

    def jump_if(zero):
        def handler(name):
            need(1)
            if (state["stack"].pop() == 0) == zero:
                goto(name)
        return handler

    def call(name):
        back = state["pc"]
        goto(name)
        state["calls"].append(back)

    def ret(_):
        if not state["calls"]:
            raise _Stop("return without call")
        state["pc"] = state["calls"].pop()

    def pick(k):
        def handler(_):
            need(k)
            state["stack"].append(state["stack"][-k])
        return handler

    def swap(_):
        need(2)
        state["stack"][-2:] = state["stack"][-2:][::-1]

    def pop(_):
        need(1)
        state["stack"].pop()

    def show(_):
        need(1)
        state["out"].append(state["stack"].pop())

    handlers = {"PUSH": lambda n: state["stack"].append(int(n)), "POP": pop, "DUP": pick(1), "OVER": pick(2),
                "SWAP": swap, "ADD": binary(lambda a, b: a + b), "SUB": binary(lambda a, b: a - b),
                "MUL": binary(lambda a, b: a * b), "DIV": binary(divide), "MOD": binary(modulo),
                "JMP": goto, "JZ": jump_if(True), "JNZ": jump_if(False), "CALL": call, "RET": ret,
                "PRINT": show}
    executed = 0
    while state["pc"] in code:
        line, words = code[state["pc"]]
        executed += 1
        if executed == 10001:
            return state["out"], f"error: step limit at line {line}"
        if words[0] == "HALT":
            return state["out"], "ok"
        state["pc"] += 1
        try:
            handlers[words[0]](words[1] if len(words) > 1 else None)
        except _Stop as stop:
            return state["out"], f"error: {stop.args[0]} at line {line}"
    return state["out"], "ok"


class _Stop(Exception):
    pass


def _noise(rng, lines):
    out = []
    for line in lines:
        if rng.random() < 0.15:
            out.append(rng.choice(["", "   ", "# a note", "  # indented note"]))
        out.append(line + (rng.choice(["", "  # why", "\t#x"]) if rng.random() < 0.2 else ""))
    return "\n".join(out)


def _straight(rng):
    ops = []
    for _ in range(rng.randrange(3, 14)):
        roll = rng.random()
        if roll < 0.4:
            ops.append(f"PUSH {rng.randrange(-30, 31)}")
        else:
            ops.append(rng.choice(["POP", "DUP", "SWAP", "OVER", "ADD", "SUB", "MUL", "DIV", "MOD", "PRINT",
                                   "PRINT", "DIV", "MOD"]))
    return ops


def _loop(rng):
    n = rng.randrange(0, 6)
    body = ["DUP", "PRINT"] if rng.random() < 0.7 else ["DUP", "DUP", "MUL", "PRINT"]
    cond = rng.choice(["JZ", "JNZ"])
    if cond == "JZ":
        return [f"PUSH {n}", "top:", "DUP", "JZ done", *body, "PUSH 1", "SUB", "JMP top", "done:", "POP", "PUSH 99",
                "PRINT"]
    return [f"PUSH {n + 1}", "top:", "PUSH 1", "SUB", *body, "DUP", "JNZ top", "PRINT"]


def _calls(rng):
    x, y = rng.randrange(-9, 10), rng.randrange(-9, 10)
    lines = [f"PUSH {x}", f"PUSH {y}", "CALL combine", "PRINT", f"PUSH {y}", "CALL twice", "PRINT"]
    if rng.random() < 0.6:
        lines.append("HALT")
    lines += ["combine:", rng.choice(["MOD", "DIV", "SUB", "OVER"]), "RET", "twice:", "DUP", "ADD", "RET"]
    return lines


def _fault(rng):
    kind = rng.randrange(6)
    if kind == 0:
        return ["PUSH 1", "PRINT", "push 2", "PRINT"]
    if kind == 1:
        return ["a:", "PUSH 1", "PRINT", "b:", "a:", "PUSH 2"]
    if kind == 2:
        return ["PUSH 3", "PRINT", "RET"]
    if kind == 3:
        return ["PUSH 1", "JNZ missing", "PUSH 2"]
    if kind == 4:
        return ["PUSH 1", "PUSH 2", "ADD 3"]
    return ["PUSH -7", "PUSH 0", "MOD"]


def _limit(padding):
    """1 + 5 * 1998 + 2 + padding + 3 instructions: exactly 10,000 with padding 4."""
    return ["PUSH 1998", "top:", "DUP", "JZ done", "PUSH 1", "SUB", "JMP top", "done:"] + \
        ["PUSH 5"] * padding + ["POP", "PUSH 42", "PRINT"]


def cases(seed):
    rng = family_rng(FAMILY, seed)
    sources = [
        "PUSH 7\nPUSH -2\nDIV\nPRINT  # -3\nloop:\nJMP nowhere",
        "PUSH -7\nPUSH 2\nMOD\nPRINT\nPUSH 7\nPUSH -2\nMOD\nPRINT\nPUSH -7\nPUSH -2\nDIV\nPRINT",
        "\n# only comments\n\n",
        "x:\nPUSH 1\nJZ x\nPUSH 2\nPRINT\nPRINT",
        "\n".join(_limit(3)), "\n".join(_limit(4)), "\n".join(_limit(5)),
        "f:\nRET",
        "CALL f\nPUSH 5\nPRINT\nHALT\nf:\nPUSH 4\nPRINT\nRET",
    ]
    makers = [_straight, _straight, _loop, _calls, _fault]
    while len(sources) < 60:
        sources.append(_noise(rng, rng.choice(makers)(rng)))
    rows = [((source,), list(_oracle(source))) for source in sources]
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="A small stack machine: calls, jumps, errors, a step limit",
        prompt=PROMPT, entry_point="run", tests=row_tests("run", rows), solution=SOLUTION, wrong=WRONG,
        notes="""Each rule is simple; together they leave little room: truncating division and a
        modulo with the dividend's sign (Python's // and % differ on negatives), line numbers that
        count comment and blank lines, conditional jumps that pop, a return without a call as an
        error, the step limit at exactly the 10,001st instruction, and load-time errors reported in
        source order.""",
    )]
