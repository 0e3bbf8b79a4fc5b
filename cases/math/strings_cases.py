"""MA-words: count words over three letters that avoid two blocks and use one letter a set number of
times (mod 2 or 3). The generator runs a dynamic programme over a pattern automaton; the solver
writes out every word."""

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import declare

FAMILY = "MA-words"
LETTER_SETS = [("A", "B", "C"), ("R", "G", "B"), ("X", "Y", "Z"), ("L", "M", "N"), ("P", "Q", "S")]

SOLVER = """
from itertools import product
total = 0
for letters in product(ALPHABET, repeat=LENGTH):
    word = "".join(letters)
    if any(block in word for block in BLOCKS):
        continue
    if word.count(LETTER) % MODULUS == RESIDUE:
        total += 1
print(total)
"""


def count_words(length, alphabet, blocks, letter, modulus, residue):
    """Words of `length` avoiding `blocks` whose count of `letter` is `residue` mod `modulus`."""
    prefixes = {b[:i] for b in blocks for i in range(len(b))}

    def step(state, ch):
        seen = state + ch
        if any(seen.endswith(b) for b in blocks):
            return None
        while seen not in prefixes:  # the longest suffix that can still grow into a block
            seen = seen[1:]
        return seen

    counts = {("", 0): 1}
    for _ in range(length):
        nxt = {}
        for (state, r), ways in counts.items():
            for ch in alphabet:
                to = step(state, ch)
                if to is not None:
                    key = (to, (r + (ch == letter)) % modulus)
                    nxt[key] = nxt.get(key, 0) + ways
        counts = nxt
    return sum(w for (_, r), w in counts.items() if r == residue), len(prefixes)


def _blocks(rng, alphabet):
    while True:
        first = "".join(rng.choice(alphabet) for _ in range(3))
        second = "".join(rng.choice(alphabet) for _ in range(rng.choice((2, 3))))
        overlapping = first[0] == first[-1] or first[:2] == first[1:]
        if first != second and second not in first and first not in second and overlapping \
                and len(set(first)) > 1 and len(set(second)) > 1:
            return [first, second]


def _case(rng, index, length, modulus, difficulty):
    alphabet = rng.choice(LETTER_SETS)
    blocks = _blocks(rng, alphabet)
    letter, residue = rng.choice(alphabet), rng.randrange(modulus)
    answer, states = count_words(length, alphabet, blocks, letter, modulus, residue)
    no_count, _ = count_words(length, alphabet, blocks, letter, 1, 0)
    one_block, _ = count_words(length, alphabet, blocks[:1], letter, modulus, residue)
    traps = [no_count, one_block]
    if residue == 0:
        traps.append(answer - count_words(length, alphabet, blocks, letter, length + 1, 0)[0])
    letters = ", ".join(alphabet[:-1]) + " and " + alphabet[-1]
    times = {2: "an even number of times (zero counts as even)",
             3: "a number of times that is a multiple of 3 (zero counts as a multiple of 3)"}[modulus]
    if residue:
        times = f"a number of times that leaves remainder {residue} when divided by {modulus}"
    example = blocks[0] + alphabet[0] if blocks[0][-1] != alphabet[0] else alphabet[1] + blocks[0]
    prompt = f"""
        A word here is any string of exactly {length} letters, each letter one of {letters}.
        How many such words contain neither the block {blocks[0]} nor the block {blocks[1]} (a block
        is a run of consecutive letters; for example {example} contains the block {blocks[0]}) and
        contain the letter {letter} {times}?
    """
    history = [count_words(k, alphabet, blocks, letter, modulus, residue)[0] for k in range(1, length + 1)]
    reference = f"""
        Track each word by the longest ending that could still grow into {blocks[0]} or {blocks[1]}
        ({states} such endings) and by the count of {letter} modulo {modulus}.

        | length | words that qualify |
        |---|---|
        """ + "\n        ".join(f"| {k} | {v} |" for k, v in enumerate(history, 1)) + f"""

        So there are **{answer:,}** words.

        **Answer:** {answer}
    """
    notes = f"""{3 ** length} words, too many to list by hand: the count needs a DP over {states}
        automaton states (the block {blocks[0]} overlaps itself, so remembering only the last letter or
        two miscounts) times {modulus} residues of the count of {letter}, carried through {length}
        steps without an arithmetic slip. Traps: dropping the letter condition ({no_count}), forgetting
        the second block ({one_block}), treating zero as not a multiple."""
    return numeric_case(
        family=FAMILY, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, ALPHABET=alphabet, LENGTH=length, BLOCKS=blocks, LETTER=letter,
                       MODULUS=modulus, RESIDUE=residue),
        reference=reference, notes=notes, max_tokens=16384 if difficulty == "medium" else 32768,
        title=f"{length}-letter words avoiding two blocks, counting one letter mod {modulus}")


# Hardness facts (steps, search, traps) per shape: a DP over automaton states and a residue, one step per
# letter; brute force lists every word.
HARDNESS = {"medium": (8, 6561, 2), "hard": (10, 59049, 2)}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    plan = [(8, 2, "medium"), (10, 3, "hard"), (10, 2, "hard"), (11, 3, "hard"), (11, 3, "hard"),
            (11, 2, "hard")]
    out = [_case(rng, i, length, modulus, difficulty)
            for i, (length, modulus, difficulty) in enumerate(plan, 1)]
    for case in out:  # the plan's label names the shape (shorter or longer); the rule gives the tier
        declare(case, *HARDNESS[case["difficulty"]])
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
