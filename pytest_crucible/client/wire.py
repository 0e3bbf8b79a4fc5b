"""When a request's bytes left this machine and when the answer's bytes arrived.

A timer read in Python after a socket read is late by however long the process waited for a CPU (a busy
machine, a virtual machine waking an idle core) and by the parsing that comes before it: on a 2-core
box that was 1 to 3 ms per token chunk, more after a long wait for the first token. Linux stamps every
packet it receives (``SO_TIMESTAMPNS``); the client's connections read with ``recvmsg`` and keep that
stamp, so a chunk's arrival time is when its last byte reached this machine, not when Python got round
to it. Likewise a request starts when its first byte is written (or its connection is opened), not when
the HTTP library began building it.

Plain-HTTP connections on Linux get the kernel's stamps. TLS connections (the ``ssl`` module hands out
no ancillary data) and other systems fall back to the process clock, which the response records.
Several chunks that arrive in one read share that read's stamp: the arrival of its last packet. Linux
stamps packets only while some socket asks for it, so the first backend of a process holds one such
socket open for good and waits until stamping is really on.

:func:`drain` also keeps a finished stream's connection open for the next request (see there). Every
read also ends at ``WireTimes.read_until()``: a drain's time limit, or the streamed request's deadline
and idle gap (guard.py), so a silent endpoint is cut on time, not a whole read timeout later.
"""

from __future__ import annotations

import socket
import struct
import sys
import threading
import time
from typing import Any

import httpcore2
import httpx2

__all__ = ["WireTimes", "StampedBackend", "drain", "kernel_stamps_available"]

# Linux's value on every architecture Python commonly runs on (asm-generic); the socket module has no
# constant for it. The stamp is a struct timespec on CLOCK_REALTIME.
SO_TIMESTAMPNS = 35
_TIMESPEC = struct.Struct("@ll")  # struct timespec: two C longs
_ANCILLARY_SIZE = socket.CMSG_SPACE(_TIMESPEC.size) if hasattr(socket, "CMSG_SPACE") else 0


class WireTimes(threading.local):
    """Per thread (one request at a time per thread): the moments of the request in flight, on the
    ``time.perf_counter`` clock. ``begin()`` starts a new request."""

    requested_at: float | None = None  # the HTTP library handed the request to its connection pool
    sent_at: float | None = None       # its first byte was written, or its new connection was opened
    arrived_at: float | None = None    # kernel arrival of the bytes of the latest read; None: not known
    drain_until: float | None = None   # while draining (see drain), reads give up at this moment
    guard: Any = None                  # the streamed request's RequestGuard (guard.py): reads end at its bounds

    def read_until(self) -> float | None:
        """The moment the next read must give up (None: only its own timeout bounds it)."""
        bounds = [self.drain_until, self.guard.read_until() if self.guard is not None else None]
        return min((b for b in bounds if b is not None), default=None)

    def begin(self, now: float) -> None:
        self.requested_at = now
        self.sent_at = None
        self.arrived_at = None

    def mark_sent(self) -> None:
        if self.sent_at is None:
            self.sent_at = time.perf_counter()


def _arrival(ancillary: list[tuple[int, int, bytes]]) -> float | None:
    """The kernel's receive stamp, moved from CLOCK_REALTIME to the perf_counter clock."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= _TIMESPEC.size:
            seconds, nanoseconds = _TIMESPEC.unpack_from(data)
            now_ns, wall_ns = time.perf_counter_ns(), time.time_ns()
            age_ns = wall_ns - (seconds * 1_000_000_000 + nanoseconds)
            # a negative age means the wall clock was stepped back since: the stamp cannot be placed
            return (now_ns - age_ns) / 1e9 if age_ns >= 0 else None
    return None


class _Stream(httpcore2.NetworkStream):
    """A connection that records send and (when ``stamped``) kernel arrival times in ``times``."""

    def __init__(self, inner: httpcore2.NetworkStream, times: WireTimes, stamped: bool) -> None:
        self._inner = inner
        self._times = times
        self._sock: socket.socket | None = inner.get_extra_info("socket") if stamped else None

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        until = self._times.read_until()
        if until is not None:
            remaining = until - time.perf_counter()
            if remaining <= 0:
                raise httpcore2.ReadTimeout("the time for this read is up (draining, or the request's bounds)")
            timeout = remaining if timeout is None else min(timeout, remaining)
        if self._sock is None:
            self._times.arrived_at = None
            return self._inner.read(max_bytes, timeout)
        try:
            self._sock.settimeout(timeout)
            data, ancillary, _, _ = self._sock.recvmsg(max_bytes, _ANCILLARY_SIZE)
        except TimeoutError as exc:  # the same exceptions httpcore's own stream raises
            raise httpcore2.ReadTimeout(exc) from exc
        except OSError as exc:
            raise httpcore2.ReadError(exc) from exc
        self._times.arrived_at = _arrival(ancillary)
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if buffer:
            self._times.mark_sent()
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore2.NetworkStream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, timeout), self._times, stamped=False)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class StampedBackend(httpcore2.SyncBackend):
    """httpcore's blocking backend, with its TCP connections wrapped to record wire times (with `stamp`:
    the kernel's receive stamps too) and to end reads at `times.read_until()`."""

    def __init__(self, times: WireTimes, *, stamp: bool = True) -> None:
        self.times = times
        self.stamp = stamp
        if stamp:
            _keep_stamping_on()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> httpcore2.NetworkStream:
        self.times.mark_sent()  # a new connection's set-up is part of the request's latency
        inner = super().connect_tcp(host, port, timeout, local_address, socket_options)
        stamped = self.stamp and _enable_stamps(inner.get_extra_info("socket"))
        return _Stream(inner, self.times, stamped=stamped)


def drain(response: httpx2.Response, times: WireTimes, *, seconds: float = 0.1, max_bytes: int = 1 << 16) -> None:
    """Read what is left of a response whose content has all been received (an event stream's closing
    bytes after ``[DONE]``), so its connection goes back to the pool instead of being closed: the next
    request then pays no new TCP (and TLS) handshake inside its time to first token. Gives up after
    ``seconds`` or ``max_bytes``; the connection is then closed as usual."""
    if response.is_closed or not isinstance(response.extensions.get("network_stream"), _Stream):
        return  # a connection of another transport (a proxy's) would not give up at the deadline
    times.drain_until = time.perf_counter() + seconds
    assert isinstance(response.stream, httpx2.SyncByteStream)  # a sync client's response
    try:
        received = 0
        for part in response.stream:
            received += len(part)
            if received > max_bytes:
                break
    except (httpx2.HTTPError, httpx2.StreamError):
        pass
    finally:
        times.drain_until = None


def _enable_stamps(sock: socket.socket | None) -> bool:
    if sock is None or not sys.platform.startswith("linux") or not _ANCILLARY_SIZE:
        return False
    try:
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        return bool(sock.getsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS))
    except OSError:
        return False


# process-wide on purpose: what it holds switched on is the kernel's, for every socket of the process
_stamping_switch: list[socket.socket] = []
_stamping_lock = threading.Lock()


def _keep_stamping_on() -> None:
    """Hold one stamped socket open for the life of the process, and wait until stamping is on. Linux
    stamps packets only while some socket asks for it, and switches stamping on a moment after the first
    one asks (deferred kernel work): a connection opened before that sees its first packets unstamped."""
    with _stamping_lock:
        if _stamping_switch:
            return
        sock = socket.socket()
        if not _enable_stamps(sock):
            sock.close()
            return
        _stamping_switch.append(sock)
        try:
            _wait_until_stamped()
        except OSError:  # no IPv4 loopback to try it on: the first packets may go unstamped
            pass


def _wait_until_stamped(timeout: float = 0.1) -> None:
    """Send single bytes over a loopback connection until one arrives stamped (or ``timeout`` passes)."""
    deadline = time.perf_counter() + timeout
    with socket.create_server(("127.0.0.1", 0)) as listener, \
            socket.create_connection(listener.getsockname(), timeout=timeout) as sender:
        receiver, _ = listener.accept()
        with receiver:
            _enable_stamps(receiver)
            receiver.settimeout(timeout)
            while time.perf_counter() < deadline:
                sender.sendall(b".")
                _, ancillary, _, _ = receiver.recvmsg(1, _ANCILLARY_SIZE)
                if _arrival(ancillary) is not None:
                    return
                time.sleep(0.0005)


def kernel_stamps_available() -> bool:
    """Whether this system stamps received TCP packets for us (Linux)."""
    with socket.socket() as sock:
        return _enable_stamps(sock)
