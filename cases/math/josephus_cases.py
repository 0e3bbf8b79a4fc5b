"""MA-josephus: n people in a circle, every k-th one leaves; who is left (or who leaves in a given turn)?
The idea is the Josephus recurrence read backwards: the survivor of n people is the survivor of n - 1
shifted by k, J(n) = (J(n - 1) + k) mod n, and with n in the thousands it must be run in jumps (while the
shift does not wrap, many steps are one addition). The generator runs the recurrence; the solver seats the
people in a list and removes them one at a time."""

from math import log

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-josephus"

SOLVER = """
circle = list(range(1, PEOPLE + 1))
spot = (START - 1) % PEOPLE
out = []
while circle:
    spot = (spot + STEP - 1) % len(circle)
    out.append(circle.pop(spot))
print(out[TURN - 1] if TURN else out[-1])
"""


def leaves(n, k, turn):
    """0-based seat (counting from the first person counted) of whoever leaves in `turn`, by the recurrence
    f(n, 1) = (k - 1) mod n, f(n, t) = (f(n - 1, t - 1) + k) mod n."""
    first = n - turn + 1
    seat = (k - 1) % first
    for size in range(first + 1, n + 1):
        seat = (seat + k) % size
    return seat


def seat_number(n, start, seat):
    return (start - 1 + seat) % n + 1


def _case(rng, index):
    n = rng.randrange(2000, 9000)
    k = rng.randrange(3, 10)
    start = 1 if index == 1 else rng.randrange(2, n)
    turn = rng.randrange(n // 3, 2 * n // 3) if index == 3 else 0
    answer = seat_number(n, start, leaves(n, k, turn or n))
    top = 1 << (n.bit_length() - 1)
    traps = [seat_number(n, start, leaves(n, k - 1, turn or n)),  # "skip k people" read as every (k-1)-th
             seat_number(n, start, leaves(n, k + 1, turn or n)),  # skip k people, the k+1-th leaves
             2 * (n - top) + 1,                                  # the every-second-person formula
             seat_number(n, 1, leaves(n, k, turn or n))]          # counting from person 1 regardless
    if turn:
        traps.append(seat_number(n, start, leaves(n, k, n)))  # the last one left, not the turn asked
    begin = "person 1" if start == 1 else f"person {start}"
    question = (f"Which person is the {turn}{_ordinal(turn)} to leave?" if turn
                else "Which person is the last one left?")
    prompt = f"""
        {n} people, numbered 1 to {n} clockwise, stand in a circle. Starting with {begin}, they count
        off clockwise 1, 2, ..., {k}; the person who says {k} leaves the circle, and the counting starts
        again at 1 with the next person still in the circle. This goes on until everyone has left.
        {question} Give the person's number.
    """
    first = f', starting from f({n - turn + 1}) = {k - 1} mod {n - turn + 1} for the first to leave' if turn else ''
    last = f', the last one left instead of turn {turn} ({traps[4]})' if turn else ''
    reference = f"""
        Number the seats from the first person counted (seat 0 = person {start}). With m people, whoever
        leaves {'in turn t' if turn else 'last'} sits at f(m) = (f(m - 1) + {k}) mod m of the circle that
        starts at the first person counted, since after the first person leaves the rest is the same game
        with m - 1 people shifted by {k}{first}.
        Running the recurrence up to m = {n} (in jumps while no wrap happens) gives seat
        {leaves(n, k, turn or n)}, which is person {answer}.

        Answer: {answer}
    """
    jumps = round(log(n) / log(k / (k - 1)))
    hardness = {"steps": jumps, "search": n, "traps": len(set(traps) - {answer})}
    what = f"the {turn}{_ordinal(turn)} to leave" if turn else "the survivor"
    notes = f"""{n} people, every {k}-th leaves, {what}: simulating is out of reach by hand, and the
        recurrence f(m) = (f(m-1) + {k}) mod m has {n - turn} steps unless run in jumps of many steps (about
        ln n / ln({k}/{k - 1}) ≈ {jumps} jumps, each with a floor and a wrap to get right). Traps: every
        ({k}-1)-th ({traps[0]}), every ({k}+1)-th ({traps[1]}), the every-second formula
        2(n - 2^⌊log2 n⌋) + 1 ({traps[2]}){', counting from person 1 although counting starts at '
        + str(start) + ' (' + str(traps[3]) + ')' if start != 1 else ''}{last}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, PEOPLE=n, STEP=k, START=start, TURN=turn), reference=reference, notes=notes,
        max_tokens=32768, title=f"Josephus: {n} people, every {k}-th leaves")


def _ordinal(n):
    return "th" if 10 <= n % 100 < 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
