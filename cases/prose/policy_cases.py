"""PR-policy: a library's loan rules applied to three members' situations, each answered with its reason on its own
labelled line; judged against the answers the rules give.

The rules interact: a fine starts only after a grace period and stops at a cap, a reserved book cannot be renewed
whatever the member's record, and a child's loan limit differs from an adult's. Each question needs two of the
rules together, so quoting the rules back does not answer it. The screen passes only a reply that gives all three
answers' key words; the near miss in verify.wrong answers every question in the reference's words but charges
the fine from the first late day (the grace period ignored), which only the judge can fail.
"""

from __future__ import annotations

from pytest_crucible import family_rng
from pytest_crucible.suite.tiers import ruled

FAMILY = "PR-policy"
REFUSAL = "I'm sorry, but I can't help with that."
LIBRARIES = ("Eastgate Library", "Wharfside Library", "Priory Lane Library", "Canal Basin Library")
NAMES = ("Sam", "Ana", "Jo", "Ravi", "Mia", "Tom", "Lea", "Kofi")
NOTES = ("Medium: three situations, each needing two rules at once (grace days and a cap for the fine; a reservation "
         "that blocks a renewal whatever else holds; a child's limit against books already out). Traps: the fine "
         "from the first late day or, where the cap binds, the cap ignored (the stored near miss), the adult limit "
         "for a child.")


def _pence(p: int) -> str:
    return f"£{p // 100}.{p % 100:02d}"


def _case(rng, number: int) -> dict:
    library = rng.choice(LIBRARIES)
    a, b, c = rng.sample(NAMES, 3)
    grace, per_day = rng.randint(2, 4), rng.choice((15, 20, 25, 30))
    cap = per_day * rng.randint(4, 7)
    adult, child = rng.randint(10, 15), rng.randint(4, 7)
    while True:  # the near miss: the grace days charged too or, where the cap hides that, the cap ignored
        late = grace + rng.randint(2, 6)
        fine = min((late - grace) * per_day, cap)
        capped = (late - grace) * per_day > cap
        naive = min(late * per_day, cap) if not capped else (late - grace) * per_day
        if naive != fine:
            break
    has_out = child - rng.randint(1, 3)
    can_take = child - has_out
    rules = (f"Loan rules at {library}: 1. Adults may have {adult} books out at once, children under 12 may have "
             f"{child}. 2. A book may be renewed twice, unless another member has reserved it; a reserved book "
             f"cannot be renewed. 3. A late book is fined {per_day}p for each day late, but the first {grace} days "
             f"late are free, and the fine for one book never goes above {_pence(cap)}. 4. Members with unpaid fines "
             f"over £5 cannot borrow until they pay.")
    questions = (f"Q1. {a} returns one book {late} days late. How much is the fine?\n"
                 f"Q2. {b} has renewed a book once and owes no fines, but another member has reserved it. Can {b} "
                 f"renew it?\nQ3. {c} is 9 years old and already has {has_out} books out. How many more can {c} "
                 f"borrow today?")
    prompt = (f"{rules}\n\nAnswer each question on its own line, labelled Q1, Q2 and Q3, with the reason in one "
              f"sentence.\n{questions}")
    fine_text = _pence(fine)
    capped_note = f", capped at {_pence(cap)}" if capped else ""
    points = [{"text": f"Q1: {fine_text} ({late} days late, the first {grace} free, {per_day}p a day after)",
               "any": [fine_text, f"{fine}p"]},
              {"text": "Q2: no, a reserved book cannot be renewed", "any": ["reserv*"]},
              {"text": f"Q3: {can_take} more, as children may have {child} books out", "any": [str(child)]},
              "the answers are on three lines labelled Q1, Q2 and Q3"]
    reference = (f"Q1: {fine_text}. The first {grace} of the {late} days are free, so {late - grace} days at "
                 f"{per_day}p{capped_note}.\nQ2: No. The book is reserved by another member, and a reserved book "
                 f"cannot be renewed."
                 f"\nQ3: {can_take} more. Children under 12 may have {child} books out, and {c} has {has_out}.")
    accepted = [
        f"Q1 - {fine_text}: {late - grace} chargeable days ({late} late minus {grace} free) at {per_day}p each"
        f"{capped_note}.\n"
        f"Q2 - No: someone else has reserved it, and reserved books can't be renewed.\n"
        f"Q3 - {can_take}: a child can have {child} books at once and already has {has_out}.",
        f"**Q1.** The fine is {fine}p ({fine_text}), because only days after the first {grace} are charged"
        f"{' and one book is never fined more than that' if capped else ''}.\n"
        f"**Q2.** {b} cannot renew it, since it has been reserved.\n"
        f"**Q3.** {c} can borrow {can_take} more books: the limit for under-12s is {child}.",
        f"Q1: {a} pays {fine_text}; {grace} grace days, then {per_day}p a day for {late - grace} days"
        f"{capped_note}.\n"
        f"Q2: No renewal is possible, because another member has reserved the book.\n"
        f"Q3: {can_take}, since children under 12 may have {child} books out at once."]
    wrong = [REFUSAL,
             f"{library} is open six days a week and welcomes members of all ages; ask at the desk for details.",
             f"Maybe {fine}p or {naive}p for Q1, depending on the free days; Q2 depends on the reservation; Q3 is "
             f"{can_take}.",
             f"Q1: {_pence(naive)}. "
             + (f"{late - grace} days charged" if capped else f"{late} days late") + f" at {per_day}p a day."
             f"\nQ2: No. The book is reserved by another "
             f"member, and a reserved book cannot be renewed.\nQ3: {can_take} more. Children under 12 may have "
             f"{child} books out, and {c} has {has_out}."]
    return {"id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "prose", **ruled(6, 1, 3),
            "tags": ["judged"], "notes": NOTES, "prompt": prompt,
            "grader": {"type": "judge", "rubric": "facts", "gold": reference, "points": points},
            "verify": {"reference": reference, "accepted": accepted, "wrong": wrong}}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, k) for k in (1, 2, 3)]
