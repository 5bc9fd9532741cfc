"""A serial line between an emulated controller and the bench, as a real
one behaves: two pseudo-terminals joined by a relay that carries bytes each
way at once, no faster than the line's baud rate (10 bits a byte: 8N1,
docs/protocol.md section 1); and that can be unplugged, as a USB-serial
adapter is pulled out: the bench's device disappears from under it, and may
come back under the same name.

The controller's end is a pty slave path (``bench emulate --listen PATH``
opens it); the bench's end is ``device``, a symbolic link to the current pty
slave, like the stable names a system gives its serial adapters
(``/dev/serial/by-id/...``). The relay is a thread of the process that made
the line; POSIX only (ptys).
"""

from __future__ import annotations

import errno
import os
import select
import threading
import time
from pathlib import Path

from bench.protocol.link import open_pty_pair

BITS_PER_BYTE = 10            # start bit, 8 data bits, stop bit (8N1)
_TICK_S = 0.002               # the relay delivers what is due at least this often
_CHUNK = 4096


class _Direction:
    """One way along the line: bytes wait here until the line has carried them."""

    def __init__(self, rate: float | None):
        self.rate = rate               # bytes a second; None: as fast as they come
        self.waiting = bytearray()
        self.busy_until = 0.0          # when the line finishes the bytes already delivered

    def take(self, data: bytes, now: float) -> None:
        if not self.waiting:
            self.busy_until = max(self.busy_until, now)
        self.waiting += data

    def due(self, now: float) -> bytes:
        if not self.waiting:
            return b""
        if self.rate is None:
            count = len(self.waiting)
        else:
            count = min(len(self.waiting), int((now - self.busy_until) * self.rate))
            if count <= 0:
                return b""
            self.busy_until += count / self.rate
        out = bytes(self.waiting[:count])
        del self.waiting[:count]
        return out

    def next_due(self, now: float) -> float | None:
        """Seconds until the next byte is due (None: nothing waits)."""
        if not self.waiting:
            return None
        if self.rate is None:
            return 0.0
        return max(0.0, self.busy_until + 1 / self.rate - now)


class SerialLine:
    """``SerialLine(device, baud)``: a line at ``baud`` (None: unpaced), the
    bench's end at the path ``device``. Use as a context manager, or
    ``close()`` it."""

    def __init__(self, device: str | os.PathLike[str], baud: int | None = None):
        self.device = Path(device)
        self.baud = baud
        rate = baud / BITS_PER_BYTE if baud else None
        self._to_bench, self._to_controller = _Direction(rate), _Direction(rate)
        self._controller_master, self._controller_slave, self.controller_path = open_pty_pair()
        os.set_blocking(self._controller_master, False)   # a reader that falls behind never stops the relay
        self._lock = threading.Lock()
        self._bench_master: int | None = None
        self._bench_slave: int | None = None
        self.plugs = 0                 # how many times the bench's end was plugged in
        self.carried = {"to_bench": 0, "to_controller": 0}
        self._plug()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._relay, name=f"serial line {self.device}", daemon=True)
        self._thread.start()

    # -- the bench's end ------------------------------------------------------------
    def _plug(self) -> None:
        master, slave, path = open_pty_pair()
        os.set_blocking(master, False)
        with self._lock:
            self._bench_master, self._bench_slave = master, slave
        tmp = self.device.with_name(self.device.name + ".new")
        if tmp.is_symlink():
            tmp.unlink()
        tmp.symlink_to(path)
        tmp.replace(self.device)       # the name points at the new pty at once, never at nothing
        self.plugs += 1

    def unplug(self) -> None:
        """The adapter is pulled out: the bench's device disappears, its open
        descriptor reads end of file or EIO, and what was on the line is lost."""
        with self._lock:
            master, slave = self._bench_master, self._bench_slave
            self._bench_master = self._bench_slave = None
            self._to_bench.waiting.clear()
            self._to_controller.waiting.clear()
        if self.device.is_symlink():
            self.device.unlink()
        for fd in (master, slave):
            if fd is not None:
                _close(fd)

    def replug(self) -> None:
        """The adapter is plugged in again: the same name, a new device."""
        if self._bench_master is None:
            self._plug()

    @property
    def plugged(self) -> bool:
        return self._bench_master is not None

    # -- the relay ---------------------------------------------------------------------
    def _relay(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                bench = self._bench_master
            now = time.monotonic()
            waits = [w for w in (self._to_bench.next_due(now), self._to_controller.next_due(now)) if w is not None]
            timeout = min([_TICK_S * 25, *[max(w, _TICK_S) for w in waits]])
            readable = [self._controller_master] + ([bench] if bench is not None else [])
            try:
                ready = select.select(readable, [], [], timeout)[0]
            except (OSError, ValueError):       # the bench's end closed under us (unplugged)
                continue
            now = time.monotonic()
            with self._lock:
                plugged = self._bench_master          # (plugged in again while we waited: the new one)
            for fd in ready:
                data = _read(fd)
                if data is None:
                    continue
                if fd == self._controller_master:
                    if plugged is not None:    # nobody at the other end: the bytes fall on the floor
                        self._to_bench.take(data, now)
                elif fd == plugged:
                    self._to_controller.take(data, now)
            self._deliver(self._to_controller, self._controller_master, "to_controller", now)
            with self._lock:
                bench = self._bench_master
                if bench is not None:
                    self._deliver(self._to_bench, bench, "to_bench", now)

    def _deliver(self, direction: _Direction, fd: int, name: str, now: float) -> None:
        data = direction.due(now)
        while data:
            try:
                written = os.write(fd, data)
            except BlockingIOError:
                direction.waiting[:0] = data      # the reader is behind: keep the rest for later
                return
            except OSError:
                return
            self.carried[name] += written
            data = data[written:]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.unplug()
        for fd in (self._controller_master, self._controller_slave):
            _close(fd)

    def __enter__(self) -> "SerialLine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _read(fd: int) -> bytes | None:
    try:
        return os.read(fd, _CHUNK) or None
    except BlockingIOError:
        return None
    except OSError as err:
        if err.errno in (errno.EIO, errno.EBADF):
            return None
        raise


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
