"""Speed: per-request metrics from the stream, speed cases, plausibility against the hardware, goodput.

    metrics        request_metrics(response) -> dict, recorded on every row (accuracy rows too)
    runner         the speed item kind: warm-up, N rounds, a nonce per prompt, 1..N concurrent streams
    plausibility   decode ceiling = bandwidth / bytes read per token; TTFT floor for the prompt
    hardware       GPU bandwidth table, CPU default, --crucible-bandwidth
    endpoint_lock  exclusive items (speed) alone per endpoint, other items of local models shared
    settings       --crucible-bandwidth, --crucible-slo, warm-up / repeat overrides
    summary        report.json `models.<name>.speed`, goodput, markdown and terminal blocks

Nothing here imports pytest.
"""

from __future__ import annotations

from .metrics import quantile, request_metrics, spread
from .summary import accuracy_timings, goodput, speed_section

__all__ = ["request_metrics", "quantile", "spread", "speed_section", "goodput", "accuracy_timings"]
