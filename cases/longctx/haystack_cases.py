"""Long-context retrieval cases built from generated haystacks (see pytest_crucible/haystack.py).

Each case's prompt is rebuilt by `crucible cases verify` from verify.haystack (seed, size, needles,
question, expect) and must come out identical; the needles and counts the grader relies on are
checked in the rebuilt text. Sizes are estimated at 4 characters per token: three ~2k-token cases
that a small 8k-context model can attempt, and ~12k / ~24k hard ones.
"""

from pytest_crucible.haystack import haystack_case

_ANSWER_LINE = "Finish with a final line of the form `Answer: <number>`."


def cases():
    return [
        haystack_case(
            id="LC01-passphrase-2k", difficulty="easy", seed=101, target_tokens=2000,
            title="One passphrase in ~2k tokens", tags=["smoke"],
            needles=[{"text": "The passphrase for the harbour archive is AMBER-KESTREL-58.", "depth": 0.4}],
            question="What is the passphrase for the harbour archive? Reply with the passphrase only.",
            expect={"values": "AMBER-KESTREL-58"},
            grader={"type": "exact", "answer": "AMBER-KESTREL-58"},
            reference="AMBER-KESTREL-58",
            wrong=["AMBER-KESTREL-85", "The archive passphrase is not given."],
        ),
        haystack_case(
            id="LC02-lamp-rating-2k", difficulty="medium", seed=202, target_tokens=2000,
            title="One number in ~2k tokens, with a look-alike",
            needles=[
                {"text": "The keeper noted that the new lighthouse lamp is rated at 7342 candela.", "depth": 0.72},
                {"text": "The keeper noted that the old lighthouse lamp had been rated at 5190 candela.", "depth": 0.2},
            ],
            question=f"According to the document, at how many candela is the new lighthouse lamp rated? {_ANSWER_LINE}",
            expect={"values": 7342},
            grader={"type": "numeric", "answer": 7342},
            reference="The keeper's note gives the new lamp's rating.\nAnswer: 7342",
            wrong=["Answer: 5190", "Answer: 7432"],
        ),
        haystack_case(
            id="LC03-heron-count-2k", difficulty="medium", seed=303, target_tokens=2200,
            title="Count repeated sightings in ~2k tokens, ignoring near-misses",
            needles=[
                {"text": "A grey heron landed on the north pier.", "count": 3},
                {"text": "A grey heron circled the north pier without landing.", "count": 2},
            ],
            question=("How many times does the document say that a grey heron landed on the north pier? "
                      f"Count only landings, not sightings of a heron that did not land. {_ANSWER_LINE}"),
            expect={"count_of": 0},
            grader={"type": "numeric", "answer": 3},
            reference="Three sentences report a heron landing on the north pier.\nAnswer: 3",
            wrong=["Answer: 5", "Answer: 2"],
        ),
        haystack_case(
            id="LC04-three-locker-codes-12k", difficulty="hard", seed=404, target_tokens=11500,
            title="Three codes and a decoy in ~12k tokens",
            needles=[
                "The code for the copper locker is 4817.",
                "The code for the slate locker is 2093.",
                "The code for the amber locker is 6650.",
                "The code for the copper cupboard is 5521.",
            ],
            question=("What are the codes of the copper locker, the slate locker and the amber locker? Reply "
                      'with only a JSON object with integer values, in the form {"copper": 0, "slate": 0, '
                      '"amber": 0}.'),
            expect={"values": {"copper": 4817, "slate": 2093, "amber": 6650}},
            grader={"type": "json", "root": "object",
                    "required": {"copper": "integer", "slate": "integer", "amber": "integer"},
                    "exact": {"copper": 4817, "slate": 2093, "amber": 6650}, "extra_keys": False},
            reference='{"copper": 4817, "slate": 2093, "amber": 6650}',
            wrong=['{"copper": 5521, "slate": 2093, "amber": 6650}',
                   '{"copper": "4817", "slate": "2093", "amber": "6650"}'],
        ),
        haystack_case(
            id="LC05-flour-delivery-24k", difficulty="hard", seed=505, target_tokens=24000,
            title="One number early in ~24k tokens, a look-alike late",
            needles=[
                {"text": "The mill ledger shows that the winter flour delivery weighed 8264 kilograms.",
                 "depth": 0.12},
                {"text": "The mill ledger shows that the summer flour delivery weighed 5179 kilograms.",
                 "depth": 0.91},
            ],
            question=f"How many kilograms did the winter flour delivery weigh? {_ANSWER_LINE}",
            expect={"values": 8264},
            grader={"type": "numeric", "answer": 8264},
            reference="The mill ledger entry for the winter delivery gives its weight.\nAnswer: 8264",
            wrong=["Answer: 5179", "Answer: 8246"],
        ),
        haystack_case(
            id="LC06-permit-count-12k", difficulty="hard", seed=606, target_tokens=11500,
            title="Count seven events among refusals in ~12k tokens",
            needles=[
                {"text": "The harbour master stamped a late permit for the salt barge.", "count": 7},
                {"text": "The harbour master refused a late permit for the salt barge.", "count": 4},
            ],
            question=("How many times does the document say that the harbour master stamped a late permit for "
                      f"the salt barge? Do not count the refusals. {_ANSWER_LINE}"),
            expect={"count_of": 0},
            grader={"type": "numeric", "answer": 7},
            reference="Counting only the stamped permits gives seven.\nAnswer: 7",
            wrong=["Answer: 11", "Answer: 6"],
        ),
        haystack_case(
            id="LC07-signal-box-24k", difficulty="hard", seed=707, target_tokens=24000,
            title="Two needles far apart in ~24k tokens",
            needles=[
                {"text": "The password for the signal box is COPPER-LINNET-31.", "depth": 0.86},
                {"text": "The signal box logbook records 6127 trains in its first year.", "depth": 0.33},
            ],
            question=("What is the password for the signal box, and how many trains does its logbook record in "
                      'its first year? Reply with only a JSON object in the form {"password": "...", '
                      '"trains": 0}.'),
            expect={"values": {"password": "COPPER-LINNET-31", "trains": 6127}},
            grader={"type": "json", "root": "object",
                    "required": {"password": "string", "trains": "integer"},
                    "exact": {"password": "COPPER-LINNET-31", "trains": 6127}, "extra_keys": False},
            reference='```json\n{"password": "COPPER-LINNET-31", "trains": 6127}\n```',
            wrong=['{"password": "COPPER-LINNET-13", "trains": 6127}',
                   '{"password": "COPPER-LINNET-31", "trains": 6172}'],
        ),
    ]
