"""The speed item kind (layer 6): speed cases measured, judged for plausibility, summarised.

    item_kind      the speed item kind: warm-up, N rounds, a nonce per prompt, 1..N concurrent streams
    plausibility   decode ceiling = bandwidth / bytes read per token; TTFT floor for the prompt
    summary        report.json `models.<name>.speed`, goodput, markdown and terminal blocks
    capacity       `crucible capacity`: the most concurrent streams whose correct goodput meets the SLO

Per-request metrics (recorded on every row) are in results/request_metrics.py; the hardware table in
local/hardware.py; run-wide speed settings and the endpoint lock in engine/. Nothing here imports pytest.
"""

from __future__ import annotations

from pytest_crucible.results.request_metrics import quantile, request_metrics, spread
from pytest_crucible.speed.summary import accuracy_timings, goodput, speed_section

__all__ = ["request_metrics", "quantile", "spread", "speed_section", "goodput", "accuracy_timings"]
