"""The run's progress: per model, done/total, the pass rate so far with its interval, errors, skips and
measurements, cost (only where the model has a price), requests in flight, ETA; or one line for the whole
run (pytest -q). Fed by the controlling process as rows arrive; the plugin decides when to print."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_crucible.results.row import MEASURED, OUTCOMES

EVERY_S = 10.0   # at most one progress block this often (and one when a model's last item is done)

Interval = Callable[[int, int], list[float] | None]  # (passed, scored) -> [low, high], e.g. a Wilson interval


@dataclass
class ModelProgress:
    total: int = 0
    done: int = 0
    counts: dict = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    cost: float = 0.0
    priced: bool = False   # whether the model has a price: a free local model shows no `$0.0000`
    first_done: float | None = None


class Progress:
    def __init__(self, clock=time.monotonic, interval: Interval | None = None):
        self.models: dict[str, ModelProgress] = {}
        self.in_flight: dict[str, dict[str, int]] = {}   # process -> model -> requests in flight
        self._clock = clock
        self._interval = interval
        self._printed: float | None = None   # the first block comes EVERY_S after the first row

    def expect(self, model: str, items: int, priced: bool = False) -> None:
        entry = self.models.setdefault(model, ModelProgress())
        entry.total, entry.priced = items, priced

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

    @property
    def finished(self) -> bool:
        return bool(self.models) and all(m.done >= m.total for m in self.models.values())

    def lines(self, names=None) -> list[str]:
        self._printed = now = self._clock()
        out = []
        for name in names or self.models:
            m = self.models[name]
            flying = sum(p.get(name, 0) for p in self.in_flight.values())
            cost = f", ${m.cost:.4f}" if m.priced else ""
            out.append(f"{name}: {m.done}/{m.total} done, {self._rate(m.counts)}, {self._others(m.counts)}"
                       f"{cost}, {flying} in flight, ETA {self._eta(m, now)}")
        return out

    def line(self) -> str:
        """The whole run in one line (pytest -q): done/total, pass rate with its interval, ETA."""
        self._printed = now = self._clock()
        models = list(self.models.values())
        counts = {o: sum(m.counts[o] for m in models) for o in OUTCOMES}
        done, total = sum(m.done for m in models), sum(m.total for m in models)
        etas = [self._seconds_left(m, now) for m in models]
        known = [e for e in etas if e is not None]
        eta = "done" if done >= total else ("-" if len(known) < len(etas) else _clock_text(max(known)))
        return f"{done}/{total} done, {self._rate(counts)}, ETA {eta}"

    def _rate(self, counts: dict) -> str:
        passed, scored = counts["passed"], counts["passed"] + counts["failed"]
        if not scored:
            return "no answer scored yet"
        ci = self._interval(passed, scored) if self._interval is not None else None
        spread = f" [{ci[0]:.0%}-{ci[1]:.0%}]" if ci else ""
        return f"{passed / scored:.0%}{spread} passed ({passed}/{scored})"

    @staticmethod
    def _others(counts: dict) -> str:
        text = f"{counts['error']} errors, {counts['skipped']} skipped"
        return text + (f", {counts[MEASURED]} measured" if counts[MEASURED] else "")

    def _eta(self, m: ModelProgress, now: float) -> str:
        if m.done >= m.total:
            return "done"
        seconds = self._seconds_left(m, now)
        return "-" if seconds is None else _clock_text(seconds)

    @staticmethod
    def _seconds_left(m: ModelProgress, now: float) -> int | None:
        if m.done >= m.total:
            return 0
        if m.done < 2:
            return None
        assert m.first_done is not None  # set when its first item finished
        # the model's own pace since its first item finished (models of one run may take turns)
        pace = (now - m.first_done) / (m.done - 1)
        return int(pace * (m.total - m.done) + 0.5)


def _clock_text(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"
