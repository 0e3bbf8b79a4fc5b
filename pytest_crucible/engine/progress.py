"""The run's progress, one line per model: done/total, passed/failed/errors so far, cost, requests in
flight, ETA. Fed by the controlling process as rows arrive; the plugin decides when to print."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

EVERY_S = 10.0   # at most one progress block this often (and one when a model's last item is done)


@dataclass
class ModelProgress:
    total: int = 0
    done: int = 0
    counts: dict = field(default_factory=lambda: {"passed": 0, "failed": 0, "error": 0, "skipped": 0})
    cost: float = 0.0
    first_done: float | None = None


class Progress:
    def __init__(self, clock=time.monotonic):
        self.models: dict[str, ModelProgress] = {}
        self.in_flight: dict[str, dict[str, int]] = {}   # process -> model -> requests in flight
        self._clock = clock
        self._printed: float | None = None   # the first block comes EVERY_S after the first row

    def expect(self, model: str, items: int) -> None:
        self.models.setdefault(model, ModelProgress()).total = items

    def record(self, row) -> bool:
        """Count a finished row; True when it was the model's last item."""
        model = self.models.setdefault(row.model, ModelProgress())
        model.done += 1
        model.counts[row.outcome if row.outcome in model.counts else "error"] += 1
        model.cost += row.cost_usd or 0.0
        if model.first_done is None:
            model.first_done = self._clock()
        if self._printed is None:
            self._printed = self._clock()
        return model.done == model.total

    def due(self) -> bool:
        return self._printed is not None and self._clock() - self._printed >= EVERY_S

    def lines(self, names=None) -> list[str]:
        self._printed = now = self._clock()
        out = []
        for name in names or self.models:
            m = self.models[name]
            flying = sum(p.get(name, 0) for p in self.in_flight.values())
            c = m.counts
            text = (f"{name}: {m.done}/{m.total} done ({c['passed']} passed, {c['failed']} failed, "
                    f"{c['error']} errors, {c['skipped']} skipped), ${m.cost:.4f}, {flying} in flight")
            out.append(f"{text}, ETA {self._eta(m, now)}")
        return out

    def _eta(self, m: ModelProgress, now: float) -> str:
        if m.done >= m.total:
            return "done"
        if m.done < 2:
            return "-"
        assert m.first_done is not None  # set when its first item finished
        # the model's own pace since its first item finished (models of one run may take turns)
        pace = (now - m.first_done) / (m.done - 1)
        seconds = int(pace * (m.total - m.done) + 0.5)
        return f"{seconds // 60}:{seconds % 60:02d}"
