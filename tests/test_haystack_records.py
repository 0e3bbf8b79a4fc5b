"""The expect modes over many records (pytest_crucible/suite/haystack_records.py) and the long-context
families built on them (cases/longctx/records_cases.py, revisions_cases.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from adversarial import adversarial_replies

from pytest_crucible.grading import grade
from pytest_crucible.suite import haystack
from pytest_crucible.suite.case import builtin_cases_dir, load_case_file
from pytest_crucible.suite.haystack_records import read_date, record_answer
from pytest_crucible.suite.tiers import tier_of
from pytest_crucible.verify import verify_cases

FILES = [builtin_cases_dir() / "longctx" / name for name in ("records_cases.py", "revisions_cases.py")]
FAMILIES = ("LC-ledger", "LC-join", "LC-alias", "LC-absent", "LC-order", "LC-errata", "LC-drift", "LC-relative")


def test_dates_in_every_record_format_read_the_same():
    for text in ("14 March 2019", "March 14, 2019", "2019-03-14", "the 14th of March 2019"):
        assert read_date(text).isoformat() == "2019-03-14"
    with pytest.raises(ValueError, match="not a date"):
        read_date("14 Marchember 2019")


def test_sum_distinct_counts_a_copy_once_and_leaves_out_a_cancelled_record():
    doc = "R 1: 10 pots. R 2: 20 pots. R 1: 10 pots. R 3: 40 pots. R 3 was cancelled. R 9 was cancelled."
    spec = {"pattern": r"R (?P<id>\d+): (?P<n>\d+) pots", "void": r"R (?P<id>\d+) was cancelled"}
    assert record_answer({"sum_distinct": spec}, doc) == 30
    with pytest.raises(ValueError, match="two numbers"):
        record_answer({"sum_distinct": spec}, doc + " R 2: 21 pots.")


def test_group_max_joins_members_to_groups_and_refuses_a_tie():
    links = "A is run by Ann. B is run by Bob. C is run by Ann. "
    spec = {"member": r"(?P<member>[A-C]) is run by (?P<group>\w+)\.", "value": r"(?P<member>[A-C]) got (?P<n>\d+)"}
    assert record_answer({"group_max": spec}, links + "A got 5. B got 9. C got 6.") == "Ann"
    with pytest.raises(ValueError, match="2 groups tie at 11"):
        record_answer({"group_max": spec}, links + "A got 5. B got 11. C got 6.")
    with pytest.raises(ValueError, match="no group"):
        record_answer({"group_max": {**spec, "value": r"(?P<member>[A-D]) got (?P<n>\d+)"}}, links + "D got 1.")


def test_nth_dated_sorts_dates_written_in_different_formats():
    doc = ("X left on 2020-01-05. Y left on March 3, 2019. Z left on the 2nd of February 2020. "
           "W left on 9 December 2019.")
    spec = {"pattern": r"(?P<value>[W-Z]) left on (?P<date>[^.]+?)\.(?: |$)"}
    assert [record_answer({"nth_dated": {**spec, "k": k}}, doc) for k in (1, 2, 3, 4)] == ["Y", "W", "X", "Z"]
    with pytest.raises(ValueError, match="k=5"):
        record_answer({"nth_dated": {**spec, "k": 5}}, doc)


def test_current_keeps_the_last_statement_of_each_key():
    doc = "the Oak Hall seats 300 people. the Elm Hall seats 250 people. the Oak Hall seats 200 people, not 300."
    spec = {"pattern": r"the (?P<key>\w+ Hall) seats (?P<value>\d+) people"}
    assert record_answer({"current": {**spec, "pick": "max"}}, doc) == 250
    assert record_answer({"current": {**spec, "pick": "argmax"}}, doc) == "Elm Hall"
    assert record_answer({"current": {**spec, "pick": "sum"}}, doc) == 450


def test_running_replays_sets_and_changes_in_document_order():
    spec = {"set": r"set at (?P<n>\d+)", "add": r"up by (?P<n>\d+)", "sub": r"down by (?P<n>\d+)"}
    assert record_answer({"running": spec}, "set at 40. up by 5. down by 3. set at 60. up by 7.") == 67
    with pytest.raises(ValueError, match="a set before"):
        record_answer({"running": spec}, "up by 5. set at 40.")


def test_distinct_people_merges_aliases_transitively():
    spec = {"alias": r"(?P<name>\w+) is also (?P<alias>\w+)\.", "mention": r"visit from (?P<who>\w+)\."}
    doc = "Ann is also Nan. Nan is also Annie. Bob is also Rob. visit from Annie. visit from Ann. visit from Bob."
    assert record_answer({"distinct_people": spec}, doc) == 2


def test_absent_needs_exactly_one_item_never_matched():
    spec = {"among": ["Ash", "Elm", "Oak"], "pattern": r"The <X> landed"}
    assert record_answer({"absent": spec}, "The Ash landed. The Oak landed. The Elm turned back.") == "Elm"
    with pytest.raises(ValueError, match="2 listed items"):
        record_answer({"absent": spec}, "The Ash landed.")


def test_offset_path_reads_relations_both_ways():
    rel = r"The (?P<a>\w+) was (?P<n>\d+) days (?P<dir>after|before) the (?P<b>\w+)\."
    doc = ("The fair was 5 days after the race. The race was 3 days before the feast. "
           "The swim was 9 days after the fair.")
    assert record_answer({"offset_path": {"relation": rel, "from": "feast", "to": "swim"}}, doc) == 11
    with pytest.raises(ValueError, match="two offsets"):
        record_answer({"offset_path": {"relation": rel, "from": "feast", "to": "swim"}},
                      doc + " The swim was 2 days after the race.")
    with pytest.raises(ValueError, match="no chain"):
        record_answer({"offset_path": {"relation": rel, "from": "feast", "to": "bonfire"}}, doc)


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="must be one of .*sum_distinct"):
        haystack.expected_answer({"needles": [], "expect": {"median": "x"}}, "<document>\nx\n</document>")


@pytest.fixture(scope="module")
def suite():
    return [case for path in FILES for case in load_case_file(path)]


def test_each_family_has_three_context_classes_and_an_honest_tier(suite):
    assert Counter(c.family for c in suite) == {f: 3 for f in FAMILIES}
    for case in suite:
        assert case.difficulty == tier_of(case.hardness), case.id
        assert case.min_context <= {"01": 8192, "02": 32768, "03": 65536}[case.id.rsplit("-", 1)[1]], case.id
        assert len(case.verify["wrong"]) >= 4 and case.notes, case.id
    assert sum(c.difficulty == "hard" for c in suite) >= 14


@pytest.mark.parametrize("seed", (1, 2))  # the default seed: tests/test_suite.py verifies the whole suite
def test_every_seed_gives_sound_cases_that_gaming_replies_fail(seed):
    cases = [case for path in FILES for case in load_case_file(path, seed)]
    report = verify_cases(cases)
    assert report.problems == [] and report.haystacks_rebuilt == len(cases) == 24
    passed = [f"{c.id}: {label}" for c in cases for label, reply in adversarial_replies(c) if grade(c, reply).passed]
    assert passed == []
