"""CO-parse-shellwords: shell-style word splitting with quotes, escapes and $VAR expansion.

Hidden lines come from the seed in two kinds: random words encoded with random quoting (the expected
words are the ones encoded, so the oracle is the encoder), and fixed command lines with random variable
values, whose expected words a small Python function per line computes directly.
"""

import re

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-shellwords"

# Hardness (README "How tiers are assigned", coding): quotes, backslash in double quotes, single quotes,
# backslash-newline, $ before a non-name, field splitting of unquoted values, empty values, values never re-
# parsed. Traps: the wrong solutions.
HARDNESS = {"steps": 8, "search": 1, "traps": 5}

PROMPT = r"""
Write a Python function `split_command(line: str, env: dict[str, str]) -> list[str]` that splits a
command line into words the way a POSIX shell does, for this subset:

- Blanks (space, tab, newline) outside quotes separate words. Quoted and unquoted pieces that touch
  form one word: `a"b c"'d'` is the single word `ab cd`.
- Single quotes: every character up to the next `'` is literal (a backslash too).
- Double quotes: characters are literal, except that `\` followed by `"`, `\` or `$` stands for that
  character (before any other character the backslash is kept as it is), and `$` expansions (below)
  are replaced by the variable's value as is.
- Outside quotes, `\` makes the next character literal, except that a backslash followed by a newline
  removes both (a line continuation).
- `$NAME` (NAME: a letter or `_`, then letters, digits or `_`, as long as possible) and `${NAME}`
  expand to `env[NAME]`, or to "" when NAME is not in env. A `$` not followed by a name start or `{`
  is a literal `$`.
- An expansion outside quotes is split at runs of blanks: the first piece joins the word it is part of,
  each later piece starts a new word. A word made only of unquoted expansions that give nothing (no
  characters) disappears, but a word with any quotes in it stays, even if empty (`""` is an empty word).
- Raise `ValueError` for an unterminated quote, a `${` without its `}` or with something other than a
  NAME inside, and a backslash at the very end of the line.

Example:
    split_command('cp "$SRC" ${DST}/x', {"SRC": "my file", "DST": "/tmp"}) == ["cp", "my file", "/tmp/x"]
"""

SOLUTION = r'''
import re

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BLANKS = " \t\n"


def split_command(line, env):
    words, current, keep = [], [], False     # keep: the current word must be emitted even if empty
    i, n = 0, len(line)

    def finish():
        nonlocal current, keep
        if current or keep:
            words.append("".join(current))
        current, keep = [], False

    def expansion(i):
        """(value, index after) for a $ at i, or (None, i + 1) for a literal $."""
        if line.startswith("${", i):
            end = line.find("}", i + 2)
            if end == -1 or not _NAME.fullmatch(line[i + 2:end]):
                raise ValueError(f"bad ${{...}} at {i}")
            return env.get(line[i + 2:end], ""), end + 1
        m = _NAME.match(line, i + 1)
        if m is None:
            return None, i + 1
        return env.get(m.group(), ""), m.end()

    while i < n:
        c = line[i]
        if c in _BLANKS:
            finish()
            i += 1
        elif c == "\\":
            if i + 1 >= n:
                raise ValueError("backslash at the end")
            if line[i + 1] != "\n":
                current.append(line[i + 1])
            i += 2
        elif c == "'":
            end = line.find("'", i + 1)
            if end == -1:
                raise ValueError("unterminated single quote")
            current.append(line[i + 1:end])
            keep = True
            i = end + 1
        elif c == '"':
            keep = True
            i += 1
            while True:
                if i >= n:
                    raise ValueError("unterminated double quote")
                d = line[i]
                if d == '"':
                    i += 1
                    break
                if d == "\\" and i + 1 < n and line[i + 1] in '"\\$':
                    current.append(line[i + 1])
                    i += 2
                elif d == "$":
                    value, i = expansion(i)
                    current.append("$" if value is None else value)
                else:
                    current.append(d)
                    i += 1
        elif c == "$":
            value, i = expansion(i)
            if value is None:
                current.append("$")
                continue
            pieces = re.split(r"[ \t\n]+", value)
            for k, piece in enumerate(pieces):
                if k:
                    finish()
                if piece:
                    current.append(piece)
        else:
            current.append(c)
            i += 1
    finish()
    return words
'''

WRONG = [
    # shlex and then expansion word by word: no field splitting, and \$ inside double quotes kept
    r'''
    import re
    import shlex

    def split_command(line, env):
        def expand(word):
            if re.search(r"\$\{(?![A-Za-z_][A-Za-z0-9_]*\})", word):
                raise ValueError("bad ${")
            word = re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda m: env.get(m.group(1), ""), word)
            return re.sub(r"\$([A-Za-z_][A-Za-z0-9_]*)", lambda m: env.get(m.group(1), ""), word)
        return [expand(w) for w in shlex.split(line)]
    ''',
    # expansions outside quotes not split into words
    mutate(SOLUTION, (r'''            pieces = re.split(r"[ \t\n]+", value)''', r'''            pieces = [value]''')),
    # a word that is only an empty expansion is kept as an empty word
    mutate(SOLUTION, (r'''            value, i = expansion(i)
            if value is None:
                current.append("$")
                continue''', r'''            value, i = expansion(i)
            keep = True
            if value is None:
                current.append("$")
                continue''')),
    # inside double quotes a backslash escapes every character
    mutate(SOLUTION, (r'''if d == "\\" and i + 1 < n and line[i + 1] in '"\\$':''', r'''if d == "\\" and i + 1 < n:''')),
    # single quotes honour backslash escapes
    mutate(SOLUTION, (r'''            end = line.find("'", i + 1)
            if end == -1:
                raise ValueError("unterminated single quote")
            current.append(line[i + 1:end])''', r'''            end = i + 1
            while end < n and line[end] != "'":
                end += 2 if line[end] == "\\" else 1
            if end >= n:
                raise ValueError("unterminated single quote")
            current.append(re.sub(r"\\(.)", r"\1", line[i + 1:end]))''')),
]

TESTS = r'''
def _invalid(line, env=None):
    try:
        split_command(line, env or {})
    except ValueError:
        return True
    return False

def test_basics():
    assert split_command('cp "$SRC" ${DST}/x', {"SRC": "my file", "DST": "/tmp"}) == ["cp", "my file", "/tmp/x"]
    assert split_command("  a\tb \n c  ", {}) == ["a", "b", "c"]
    assert split_command("", {}) == []
    assert split_command("   ", {}) == []
    assert split_command("a\"b c\"'d'", {}) == ["ab cd"]

def test_quotes_and_escapes():
    assert split_command("'it\\''s'", {}) == ["it\\s"]
    assert split_command("'a\\\"b'", {}) == ['a\\"b']
    assert split_command('"x\\"y" "p\\q" "\\\\" "\\$HOME"', {"HOME": "/h"}) == ['x"y', "p\\q", "\\", "$HOME"]
    assert split_command("a\\ b \\'c\\' \\\\", {}) == ["a b", "'c'", "\\"]
    assert split_command("ab\\\ncd ef", {}) == ["abcd", "ef"]
    assert split_command('"" \'\' x""', {}) == ["", "", "x"]

def test_expansion():
    env = {"A": "1 2", "E": "", "S": "  pad  ", "Q": "'q' \"r\"", "D": "$A"}
    assert split_command("$A", env) == ["1", "2"]
    assert split_command("x$Ay", env) == ["x"]
    assert split_command("x${A}y", env) == ["x1", "2y"]
    assert split_command('"$A"', env) == ["1 2"]
    assert split_command("$E", env) == []
    assert split_command("a $E b", env) == ["a", "b"]
    assert split_command('"$E"', env) == [""]
    assert split_command("$E''", env) == [""]
    assert split_command("<$S>", env) == ["<", "pad", ">"]
    assert split_command("$Q", env) == ["'q'", '"r"']
    assert split_command("$D", env) == ["$A"]
    assert split_command("$MISSING x", env) == ["x"]
    assert split_command("$Ax ${A}x", env) == ["1", "2x"]
    assert split_command("$ $1 a$ ${A}$", env) == ["$", "$1", "a$", "1", "2$"]
    assert split_command("'$A' \"${A}\"", env) == ["$A", "1 2"]

def test_errors():
    for line in ["'open", '"open', "tail\\", "${A", "${}", "${1x}", '"${A"', "${A B}"]:
        assert _invalid(line, {"A": "x"}), line

def test_seeded_lines():
    for line, env, want in SEEDED:
        assert split_command(line, env) == want, (line, env)
'''


def _encode_word(rng, word):
    """One word written with random quoting; never splits or joins words."""
    out = []
    if word == "":
        return rng.choice(['""', "''"])
    for ch in word:
        style = rng.randrange(3)
        if ch == "'" and style == 1:
            style = 0
        if style == 0:                                   # backslash or bare
            out.append(ch if ch.isalnum() and rng.random() < 0.7 else "\\" + ch)
        elif style == 1:
            out.append(f"'{ch}'")
        else:
            out.append('"' + ("\\" + ch if ch in '"\\$' else ch) + '"')
    return "".join(out)


_CHARS = ["a", "b", "7", " ", "\t", "'", '"', "\\", "$", "$A", "{", "}", "x y", "-", "="]

TEMPLATES = [
    ('run $CMD --out="$OUT" $FLAGS',
     lambda e: ["run", *e["CMD"].split(), "--out=" + e["OUT"], *e["FLAGS"].split()]),
    ("pre${MID}post '$MID' \"[$MID]\"",
     lambda e: _join_fields("pre", e["MID"], "post") + ["$MID", f"[{e['MID']}]"]),
    ("$FLAGS$CMD end", lambda e: _glue(e["FLAGS"], e["CMD"]) + ["end"]),
]


def _join_fields(head, value, tail):
    """Words of head+value+tail when value (unquoted) is split at blanks."""
    pieces = re.split(r"[ \t\n]+", value)
    pieces[0] = head + pieces[0]
    pieces[-1] = pieces[-1] + tail
    return [p for p in pieces if p]


def _glue(first, second):
    a = re.split(r"[ \t\n]+", first)
    b = re.split(r"[ \t\n]+", second)
    joined = a[:-1] + [a[-1] + b[0]] + b[1:]
    return [p for p in joined if p]


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(25):
        words = ["".join(rng.choice(_CHARS) for _ in range(rng.randrange(0, 4))) for _ in range(rng.randrange(1, 4))]
        line = rng.choice(["", " "]) + rng.choice([" ", "  ", "\t", " \n"]).join(_encode_word(rng, w) for w in words)
        seeded.append((line, {"A": "should not appear"}, words))
    values = ["", " ", "x", "a b", "  lead", "trail  ", "t\tab", "q'uo\"te", "$A"]
    for template, oracle in TEMPLATES:
        for _ in range(5):
            env = {k: rng.choice(values) for k in ("CMD", "OUT", "FLAGS", "MID")}
            seeded.append((template, env, oracle(env)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Shell-style word splitting with quotes, escapes and $VAR fields",
        prompt=PROMPT, entry_point="split_command", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        notes="""shlex covers the quoting but not expansion, and bolting expansion on after splitting gets
        field splitting wrong (an unquoted value with blanks makes several words, an empty one makes
        none, while "" is an empty word). Further traps: backslash inside double quotes only escapes ",
        \\ and $; single quotes have no escapes; backslash-newline disappears; $ before a non-name is
        literal; and values are never re-parsed. Forty seeded lines: random words under random quoting
        and three command lines under random variable values.""",
    )]
