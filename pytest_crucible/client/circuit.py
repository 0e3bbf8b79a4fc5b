"""A provider's circuit: after a run of connection failures, stop asking it, and look now and then whether it
is back.

The rule: `failures_to_open` (3) failed attempts in a row that got no HTTP response at all (connection
refused, no route, DNS, connect timeout), with no answer between them, open the circuit. The attempt that
opens it ends its item as an infrastructure error (the run still fails); every request after that raises
ProviderDown at once, without touching the network, and its item is skipped with reason `provider down`.
One request every `probe_every_s` (10 s) goes through as a probe: an answer of any kind (even an HTTP
error: the server is up) closes the circuit, and the provider's items are asked again; a connection
failure keeps it open until the next probe. Each change is told once through `on_change`.

Every client of one provider shares its circuit (the session makes one per provider); it is thread-safe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from pytest_crucible.common.errors import PROVIDER_DOWN, ProviderDown

FAILURES_TO_OPEN = 3
PROBE_EVERY_S = 10.0


class Circuit:
    def __init__(self, name: str, *, failures_to_open: int = FAILURES_TO_OPEN, probe_every_s: float = PROBE_EVERY_S,
                 clock: Callable[[], float] = time.monotonic, on_change: Callable[[str], None] | None = None):
        self.name = name
        self.failures_to_open = failures_to_open
        self.probe_every_s = probe_every_s
        self._clock = clock
        self._on_change = on_change
        self._lock = threading.Lock()
        self.failures = 0              # connection failures in a row
        self.opened_at: float | None = None
        self._probe_at = 0.0           # when the next probe may go
        self._probing = False
        self.skipped = 0               # requests refused while open
        self._last = ""

    @property
    def open(self) -> bool:
        return self.opened_at is not None

    def admit(self) -> None:
        """Before an attempt: return to send it (a closed circuit, or this is the probe), or raise ProviderDown."""
        with self._lock:
            if self.opened_at is None:
                return
            now = self._clock()
            if not self._probing and now >= self._probe_at:
                self._probing = True
                return
            self.skipped += 1
            wait = max(0.0, self._probe_at - now)
            raise ProviderDown(f"{PROVIDER_DOWN}: {self.name} refused or dropped {self.failures} connections in a "
                               f"row ({self._last}); next probe in {wait:.0f} s")

    def connect_failed(self, reason: str) -> bool:
        """An attempt got no response. True when this failure opened the circuit; raises ProviderDown when it
        was already open (the item is skipped, not retried)."""
        with self._lock:
            self.failures += 1
            self._last = reason
            if self.opened_at is not None:
                self._probing = False
                self._probe_at = self._clock() + self.probe_every_s
                raise ProviderDown(f"{PROVIDER_DOWN}: {self.name} still unreachable ({reason})")
            if self.failures < self.failures_to_open:
                return False
            self.opened_at = self._clock()
            self._probe_at = self.opened_at + self.probe_every_s
        self._tell(f"provider {self.name} is down ({self.failures} connection failures in a row: {reason}); its "
                   f"remaining items are skipped as '{PROVIDER_DOWN}', and one request every "
                   f"{self.probe_every_s:g} s checks whether it is back")
        return True

    def answered(self) -> None:
        """An attempt got an HTTP response (success or not): the provider is up."""
        with self._lock:
            was_open = self.opened_at is not None
            self.failures, self.opened_at, self._probing = 0, None, False
        if was_open:
            self._tell(f"provider {self.name} is back: its items are asked again")

    def _tell(self, message: str) -> None:
        if self._on_change is not None:
            self._on_change(message)
