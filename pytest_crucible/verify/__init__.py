"""`crucible cases verify`: prove every case is right before it is allowed to judge a model.

For each case:
- it loads (schema), its id is unique, its grader spec is valid;
- every tool the grader (or a scripted assistant turn) names is defined in the case's tools;
- its tier: declared `hardness` facts must give its `difficulty` by the rule of suite/tiers.py, with no
  more traps than `verify.wrong` replies; a case of the built-in suite must declare them;
- every regular expression in the grader compiles and finishes on adversarial input within a
  deadline (a catastrophic pattern would hang grading of a long reply);
- its verification data is present (`verify:` in the case), and
  - `solution` (code cases): run through the code grader in the sandbox; it must pass its own tests;
  - `solver`: a brute-force program run in the sandbox; what it prints must equal the grader's answer
    (one line: a number, a string, or a JSON object; a logic puzzle whose solver prints two solutions
    is reported as not unique);
  - `haystack`: the generator parameters of a long-context case; the prompt is rebuilt and must be
    identical, and the needles and counts the grader relies on are checked in it;
  - `reference`: a model-like reply that must pass the grader; `wrong`: replies that must fail;
    `accepted`: replies the grader should accept, judged together (an imported benchmark's listed
    possible answers): at least ACCEPTED_SHARE of all of them must pass, and each that does not is
    listed with its reason (VerifyReport.rejected) without being a problem of its own;
    For a multi-turn case (a `simulation`), each is a script of assistant turns (a list; a single reply
    is a one-turn script) replayed against the simulation through agent_loop, and the whole trace is
    graded; the reference must use only calls the simulation's tables answer, and every script must
    end exactly where the loop stops. Such a case needs at least two wrong scripts.

Sandbox work (solvers, reference solutions) runs in parallel on a few threads. Without a sandbox
nothing is run, and every case that needed one is reported as a problem: a case that was not
verified is never counted as verified.

No check here names a grader type: what a case's grader needs (tools, a solver, a judge, its own sandbox
jobs) it says through the grading.base.Grader hooks, so a grader from an entry point is verified like a
built-in one. Modules: report (what was found), case_run (one case's state, the default reply check),
static, tiers, regexes, answers (solvers, haystacks), runner (the order of it all).

The core imports no pytest.
"""

from pytest_crucible.verify.case_run import response_from
from pytest_crucible.verify.regexes import adversarial_inputs
from pytest_crucible.verify.report import ACCEPTED_SHARE, CaseProblem, VerifyReport
from pytest_crucible.verify.runner import verify_cases, verify_paths
from pytest_crucible.verify.static import VERIFY_KEYS

__all__ = ["ACCEPTED_SHARE", "VERIFY_KEYS", "CaseProblem", "VerifyReport", "adversarial_inputs", "response_from",
           "verify_cases", "verify_paths"]
