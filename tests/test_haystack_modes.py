"""The later expect modes (pytest_crucible/suite/haystack_joins.py, haystack_events.py, haystack_tallies.py) and
the long-context families built on them (cases/longctx/joins_cases.py, events_cases.py, tallies_cases.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from adversarial import adversarial_replies

from pytest_crucible.grading import grade
from pytest_crucible.suite import haystack
from pytest_crucible.suite.case import builtin_cases_dir, load_case_file
from pytest_crucible.suite.haystack_modes import record_answer
from pytest_crucible.suite.tiers import tier_of
from pytest_crucible.verify import verify_cases

FILES = [builtin_cases_dir() / "longctx" / name for name in ("joins_cases.py", "events_cases.py", "tallies_cases.py")]
FAMILIES = ("LC-triple", "LC-criteria", "LC-rank2", "LC-manager", "LC-setdiff", "LC-transfers", "LC-schedule",
            "LC-firstafter", "LC-authority", "LC-peak", "LC-units", "LC-invariant", "LC-median", "LC-table")


def test_join_sum_follows_every_link_and_refuses_a_broken_chain():
    spec = {"value": r"P (?P<n>\d+) at (?P<key>\w+)\.", "links": [r"(?P<a>\w+) uses (?P<b>\w+)\.",
                                                                   r"(?P<b>\w+) drives (?P<a>\w+)\."],
            "target": "Ann"}
    doc = "Gorse uses Kite. Heron uses Hawk. Lark uses Kite. Ann drives Kite. Bob drives Hawk. "
    assert record_answer({"join_sum": spec}, doc + "P 5 at Gorse. P 7 at Heron. P 9 at Lark.") == 14
    with pytest.raises(ValueError, match="link 1 does not continue from Rook"):
        record_answer({"join_sum": spec}, doc + "P 5 at Rook.")
    with pytest.raises(ValueError, match="linked to both"):
        record_answer({"join_sum": spec}, doc + "Gorse uses Hawk. P 5 at Gorse.")


def test_count_where_needs_every_condition_and_every_fact():
    facts = {"port": r"(?P<key>\w+) is at (?P<value>\w+)\.", "crew": r"(?P<key>\w+) has (?P<value>\d+) crew\."}
    spec = {"facts": facts, "where": {"port": ["eq", "Looe"], "crew": ["gt", 3]}}
    doc = "A is at Looe. A has 4 crew. B is at Looe. B has 3 crew. C is at Fowey. C has 9 crew."
    assert record_answer({"count_where": spec}, doc) == 1
    with pytest.raises(ValueError, match="D have no crew"):
        record_answer({"count_where": spec}, doc + " D is at Looe.")


def test_rank_two_breaks_ties_by_the_second_key():
    spec = {"first": r"(?P<key>\w+) won (?P<value>\d+)\.", "second": r"(?P<key>\w+) took (?P<value>\d+)s\.", "k": 2}
    doc = "A won 5. B won 7. C won 5. A took 400s. B took 420s. C took 390s."
    assert record_answer({"rank_two": spec}, doc) == "C"
    assert record_answer({"rank_two": {**spec, "k": 3}}, doc) == "A"
    with pytest.raises(ValueError, match="tie on both"):
        record_answer({"rank_two": spec}, doc.replace("390s", "400s"))


def test_common_manager_is_the_nearest_shared_boss():
    spec = {"reports": r"(?P<who>\w+) reports to (?P<boss>\w+)\.", "a": "E", "b": "F"}
    doc = "B reports to A. C reports to A. D reports to B. E reports to D. F reports to B. G reports to C."
    assert record_answer({"common_manager": spec}, doc) == "B"
    assert record_answer({"common_manager": {**spec, "b": "G"}}, doc) == "A"


def test_set_difference_merges_split_lists():
    spec = {"lists": r"(?:Also present|Present) at the (?P<meeting>\w+ meeting): (?P<names>[A-Za-z ,]+)\.",
            "within": "fair meeting", "without": "board meeting", "people": ["Ann", "Bob", "Cy", "Di"]}
    doc = ("Present at the fair meeting: Ann, Bob and Cy. Also present at the fair meeting: Di. "
           "Present at the board meeting: Bob. Also present at the board meeting: Di and Ed.")
    assert record_answer({"set_difference": spec}, doc) == {"Ann": True, "Bob": False, "Cy": True, "Di": False}


def test_balances_nets_transfers_in_both_directions():
    spec = {"open": r"The (?P<account>\w+) fund opened with £(?P<n>\d+)\.",
            "move": r"£(?P<n>\d+) went from (?P<src>\w+) to (?P<dst>\w+)\.", "account": "bell"}
    doc = "The bell fund opened with £100. The choir fund opened with £50. £30 went from bell to choir. " \
          "£12 went from choir to bell. £5 went from choir to library."
    assert record_answer({"balances": spec}, doc) == 82


def test_schedule_on_follows_moves_and_drops_cancellations():
    d = r"\d+ [A-Z][a-z]+"
    spec = {"book": rf"The (?P<event>\w+) is on (?P<date>{d})\.", "move": rf"The (?P<event>\w+) moved from "
            rf"(?P<from>{d}) to (?P<to>{d})\.", "cancel": r"The (?P<event>\w+) was cancelled\.", "on": "9 May"}
    doc = ("The fair is on 9 May. The swim is on 2 May. The race is on 4 May. "
           "The fair moved from 9 May to 1 June. The race moved from 9 May to 3 June. "
           "The swim moved from 2 May to 9 May. The race moved from 4 May to 9 May.")
    # the race reaches 9 May and then moves on (the later notice is written first)
    assert record_answer({"schedule_on": spec}, doc) == "swim"
    with pytest.raises(ValueError, match="0 events"):
        record_answer({"schedule_on": spec}, doc + " The swim was cancelled.")


def test_first_after_compares_times_not_document_order():
    spec = {"event": r"At (?P<time>\d\d:\d\d), the boat launched\.",
            "line": r"At (?P<time>\d\d:\d\d), (?P<who>\w+) saw"}
    doc = "At 10:40, Cy saw it. At 09:10, Ann saw it. At 10:05, the boat launched. At 10:20, Bob saw it."
    assert record_answer({"first_after": spec}, doc) == "Bob"


def test_ruled_source_ranks_the_source_before_the_date():
    spec = {"pattern": r"(?P<source>notice|leaflet) of (?P<date>[\w ]+?), the (?P<item>\w+ fee) is £(?P<value>\d+)\.",
            "rank": ["notice", "leaflet"], "items": ["crane fee", "water fee"]}
    doc = ("notice of 3 May 2020, the crane fee is £40. leaflet of 2022-01-05, the crane fee is £55. "
           "leaflet of 1 June 2021, the water fee is £9. leaflet of the 2nd of June 2021, the water fee is £11.")
    assert record_answer({"ruled_source": spec}, doc) == {"crane fee": 40, "water fee": 11}


def test_peak_overlap_sweeps_the_stays():
    spec = {"arrive": r"(?P<who>\w+) in at (?P<time>\d\d:\d\d)\.",
            "leave": r"(?P<who>\w+) out at (?P<time>\d\d:\d\d)\."}
    doc = "A in at 09:00. A out at 12:00. B in at 10:00. B out at 11:00. C in at 11:30. C out at 13:00."
    assert record_answer({"peak_overlap": spec}, doc) == 2
    with pytest.raises(ValueError, match="one later departure"):
        record_answer({"peak_overlap": spec}, doc + " D in at 14:00.")


def test_converted_total_reads_each_unit_size():
    spec = {"unit": r"A (?P<unit>\w+) of flour holds (?P<n>\d+) kilos\.",
            "add": r"got (?P<n>\d+) (?P<unit>[a-z]+?)s? of flour",
            "sub": r"used (?P<n>\d+) (?P<unit>[a-z]+?)s? of flour", "base": "kilo"}
    doc = "A sack of flour holds 25 kilos. A bag of sugar holds 2 kilos. got 2 sacks of flour. used 7 kilos of flour."
    assert record_answer({"converted_total": spec}, doc) == 43
    with pytest.raises(ValueError, match="how big a bag"):
        record_answer({"converted_total": spec}, doc + " got 3 bags of flour.")


def test_rule_breaker_applies_reissues():
    spec = {"pattern": r"Slip (?P<id>\d+): (?P<a>\d+) x (?P<b>\d+) = (?P<total>\d+)\.",
            "fix": r"Slip (?P<id>\d+) reissued: (?P<total>\d+)\."}
    doc = "Slip 1: 3 x 4 = 12. Slip 2: 5 x 6 = 35. Slip 3: 2 x 9 = 81. Slip 2 reissued: 30."
    assert record_answer({"rule_breaker": spec}, doc) == "3"
    with pytest.raises(ValueError, match="2 records"):
        record_answer({"rule_breaker": spec}, doc.replace("Slip 2 reissued: 30.", ""))


def test_median_of_needs_an_odd_count():
    spec = {"pattern": r"landed (?P<n>\d+) kilos"}
    assert record_answer({"median_of": spec}, "landed 40 kilos; landed 12 kilos; landed 30 kilos") == 30
    with pytest.raises(ValueError, match="even"):
        record_answer({"median_of": spec}, "landed 40 kilos; landed 12 kilos")


def test_split_table_reads_each_row_by_its_own_header():
    doc = ("Page 1:\n| Boat | Port | Length |\n| --- | --- | --- |\n| Ash | Looe | 10 |\n| Elm | Fowey | 7 |\nfiller\n"
           "Page 2:\n| Length | Boat | Port |\n| --- | --- | --- |\n| 12 | Oak | Looe |\n")
    spec = {"header": "Boat", "where": ["Port", "Looe"], "sum": "Length"}
    assert record_answer({"split_table": spec}, doc) == 22
    with pytest.raises(ValueError, match="no header"):
        record_answer({"split_table": spec}, "| Ash | Looe | 10 |")


def test_the_later_modes_are_offered_by_haystack_expect():
    with pytest.raises(ValueError, match="must be one of .*join_sum.*split_table"):
        haystack.expected_answer({"needles": [], "expect": {"mode": "x"}}, "<document>\nx\n</document>")


@pytest.fixture(scope="module")
def suite():
    return [case for path in FILES for case in load_case_file(path)]


def test_each_family_has_three_context_classes_and_an_honest_tier(suite):
    assert Counter(c.family for c in suite) == {f: 3 for f in FAMILIES}
    for case in suite:
        assert case.difficulty == tier_of(case.hardness), case.id
        assert case.min_context <= {"01": 8192, "02": 16384, "03": 32768}[case.id.rsplit("-", 1)[1]], case.id
        assert len(case.verify["wrong"]) >= 4 and case.notes, case.id
    assert len({c.family for c in suite if c.difficulty == "hard"}) >= 10


def test_another_seed_gives_sound_cases_that_gaming_replies_fail():
    # the default seed: tests/test_suite.py verifies the whole suite
    cases = [case for path in FILES for case in load_case_file(path, 1)]
    report = verify_cases(cases)
    assert report.problems == [] and report.haystacks_rebuilt == len(cases) == 42
    passed = [f"{c.id}: {label}" for c in cases for label, reply in adversarial_replies(c) if grade(c, reply).passed]
    assert passed == []
