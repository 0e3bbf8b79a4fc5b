"""MA-waiting: a biased three-colour spinner is spun until a given colour word (or its second occurrence)
appears; the expected number of spins as an exact fraction. The idea is Conway's overlap formula: the
expected wait is the sum of 1/P(b) over every border b of the word (a prefix that is also a suffix, the
whole word included), and by renewal a second occurrence (overlaps allowed) costs another 1/P(word). The
solver builds the Markov chain of 'longest suffix that is a prefix' by comparing strings and solves its
linear equations exactly by Gaussian elimination."""

from fractions import Fraction

from pytest_crucible import family_rng, numeric_case, program, spell

FAMILY = "MA-waiting"

SOLVER = """
from fractions import Fraction
word, probs = WORD, {k: Fraction(v) for k, v in PROBS.items()}
def state_after(j, letter):
    text = word[:j] + letter
    return max(i for i in range(len(word) + 1) if text.endswith(word[:i]))
states = [(c, j) for c in range(TIMES) for j in range(len(word) + 1) if not (j == len(word) and c == 0)]
index = {s: i for i, s in enumerate(states)}
size = len(states)
rows = []
for c, j in states:
    row = [Fraction(0)] * (size + 1)
    row[index[(c, j)]] += 1
    row[size] = Fraction(1)
    for letter, p in probs.items():
        k = state_after(j, letter)
        done = c + (k == len(word))
        if done < TIMES:
            row[index[(done, k)]] -= p
    rows.append(row)
for col in range(size):
    pivot = next(r for r in range(col, size) if rows[r][col] != 0)
    rows[col], rows[pivot] = rows[pivot], rows[col]
    for r in range(size):
        if r != col and rows[r][col] != 0:
            f = rows[r][col] / rows[col][col]
            rows[r] = [a - f * b for a, b in zip(rows[r], rows[col])]
e = rows[index[(0, 0)]][size] / rows[index[(0, 0)]][index[(0, 0)]]
print(f"{e.numerator}/{e.denominator}")
"""

CHANCES = [("1/2", "1/3", "1/6"), ("2/5", "2/5", "1/5"), ("1/2", "1/4", "1/4"), ("3/8", "3/8", "1/4"),
           ("3/5", "1/5", "1/5"), ("1/3", "1/2", "1/6"), ("3/10", "1/2", "1/5")]
COLOURS = "RGB"
NAMES = {"R": "red", "G": "green", "B": "blue"}


def borders(word):
    return [k for k in range(1, len(word) + 1) if word[:k] == word[-k:]]


def chance(text, probs):
    out = Fraction(1)
    for letter in text:
        out *= probs[letter]
    return out


def expected(word, probs, times):
    first = sum(1 / chance(word[:k], probs) for k in borders(word))
    return first + (times - 1) / chance(word, probs)


def _case(rng, index):
    times = 2 if index == 3 else 1
    while True:
        length = rng.randrange(6, 9)
        word = "".join(rng.choice(COLOURS) for _ in range(length))
        if len(borders(word)) >= 3 and len(set(word)) == 3:
            break
    probs = dict(zip(COLOURS, map(Fraction, rng.choice(CHANCES)), strict=True))
    answer = expected(word, probs, times)
    full = 1 / chance(word, probs)
    uniform = {c: Fraction(1, 3) for c in COLOURS}
    traps = [full * times,                               # no overlaps counted
             expected(word, uniform, times),             # the bias ignored
             2 * expected(word, probs, 1) if times == 2                            # twice the first wait
             else answer - 1 / chance(word[:borders(word)[-2]], probs)]         # longest proper border dropped
    spinner = ", ".join(f"{NAMES[c]} with probability {probs[c]}" for c in COLOURS)
    code = "".join(word)
    target = (f"the colour sequence {code} has appeared twice (the two appearances may overlap)" if times == 2
              else f"the last {len(word)} spins read {code}")
    prompt = f"""
        A spinner shows {spinner}, independently on every spin (write R, G, B for the colours). It is spun
        repeatedly until {target}. What is the expected number of spins?
    """
    renewal = (f" After an appearance, the next one (overlaps allowed) takes 1/P({code}) = {full} more spins on "
               "average, by renewal." if times == 2 else "")
    terms = " + ".join(f"1/P({word[:k]})" for k in borders(word))
    reference = f"""
        The borders of {code} (prefixes that are also suffixes, the whole word included) have lengths
        {', '.join(map(str, borders(word)))}. By Conway's overlap argument (a fair gamble on the sequence),
        the expected wait for {code} is {terms} = {expected(word, probs, 1)}.{renewal}

        Expected number of spins: **{answer}**.

        Answer: {spell(answer)}
    """
    steps = 2 + len(borders(word)) + 2 * (times - 1)  # find the borders, weigh each, add; renewal
    second = ", then the renewal step for the second appearance" if times == 2 else ""
    hardness = {"steps": steps, "search": 1, "traps": len(set(traps) - {answer})}
    notes = f"""A {len(word)}-letter word with borders {borders(word)} on a biased spinner: the answer needs
        every border found and weighted by its own probability (Conway's formula){second};
        a Markov chain with {len(word) + 1} states is the long way round.
        Traps: 1/P(word) ignoring overlaps ({traps[0]}),
        the bias ignored ({traps[1]}),
        {'twice the first wait' if times == 2 else 'the longest proper border dropped'} ({traps[2]})."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, WORD=word, PROBS={c: str(p) for c, p in probs.items()}, TIMES=times),
        reference=reference, notes=notes, max_tokens=16384, as_fraction=True,
        title=f"Waiting for {code}{' twice' if times == 2 else ''}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
