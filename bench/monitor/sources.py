"""Where a monitor's bytes come from, without it ever writing one of its own:

* ``TwoLines``: two read-only lines of a Y-cable (or any two links), one
  carrying what the host sends, the other what the controller sends. Nothing
  is ever written to either.
* ``Relay``: a relay between the host and the controller that copies both
  directions: it listens for the host (``HOST:PORT`` or a fresh ``pty``),
  opens the controller's link (any pyserial URL) for each connection, and
  forwards every byte unchanged, adding none.

Each direction is read by its own thread (``_Tap``), which timestamps what
it reads, hands a copy to the monitor and only then forwards it (relay), so
that the monitor sees a reply after what caused it, as the endpoints did.
The hand-over never blocks the thread: at most ``max_pending`` bytes wait for
the monitor (everything handed over and not yet judged), and what would pass
that is dropped from the copy (never from the link), counted for each side,
and said as a gap: one ``gap`` event where the dropping starts and one
``gap-end`` with its totals where it ends, once the monitor has caught up to
half the bound (so a monitor that stays behind drops in runs, not one chunk
in two). A slow monitor costs the live link nothing and costs the monitor
bounded memory; what it loses is said, never silent.

Nothing the monitor does to its own files reaches the link: the relay's
threads forward whatever happens to the judge, and the relay stops only
when the host's connection ends or the monitor closes it (``Relay.close``).
"""

from __future__ import annotations

import logging
import os
import select
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import NamedTuple

from bench.emulator.server import parse_host_port
from bench.protocol import LinkError
from bench.protocol.link import Link, open_link, open_pty_pair

log = logging.getLogger(__name__)

HOST, CONTROLLER = "host", "controller"      # who sent the bytes
READ_S = 0.05          # each read waits at most this long, so a stop is seen at once
MAX_PENDING = 8 << 20  # bytes handed over and not yet taken by the monitor


class Chunk(NamedTuple):
    sender: str          # HOST or CONTROLLER
    data: bytes
    mono: float
    wall: float


@dataclass
class Event:
    """Something that happened to the tap other than bytes: a connection
    opened or closed, a line lost, bytes dropped from the copy."""
    what: str            # "connected", "closed", "lost", "gap"
    detail: str
    mono: float


class Handover:
    """The bounded queue between the tap threads and the monitor."""

    def __init__(self, max_pending: int = MAX_PENDING):
        self.max_pending = max_pending
        self._items: deque = deque()
        self._pending = 0
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self.dropped = {HOST: 0, CONTROLLER: 0}       # bytes dropped from the copy, since the start
        self._run: dict[str, int] | None = None       # bytes dropped in the current run, by sender
        self._run_started = 0.0

    @property
    def pending(self) -> int:
        """Bytes handed over and not yet taken."""
        return self._pending

    def put_chunk(self, chunk: Chunk) -> None:
        size = len(chunk.data)
        with self._lock:
            run = self._run
            if run is None and self._pending + size > self.max_pending:
                run = self._run = {HOST: 0, CONTROLLER: 0}
                self._run_started = chunk.mono
                self._items.append(Event("gap", f"the monitor fell {self._pending} bytes behind the link: what the "
                                                "link carries is dropped from its copy until it catches up",
                                         chunk.mono))
            if run is not None and self._pending + size > self.max_pending // 2:
                run[chunk.sender] += size
                self.dropped[chunk.sender] += size
            else:
                if run is not None:
                    self._run = None
                    self._items.append(Event("gap-end", f"{run[HOST]} bytes of the host's and {run[CONTROLLER]} of "
                                                        f"the controller's dropped from the copy in "
                                                        f"{chunk.mono - self._run_started:.3f} s", chunk.mono))
                self._pending += size
                self._items.append(chunk)
        self._ready.set()

    def put_event(self, event: Event) -> None:
        with self._lock:
            self._items.append(event)
        self._ready.set()

    def take(self, timeout: float, most: int | None = None) -> list:
        """What was handed over, in order (at most ``most`` items); waits at
        most ``timeout`` for something. The bound counts what is not yet
        taken, so a monitor that takes a little at a time stays inside it."""
        self._ready.wait(timeout)
        with self._lock:
            items = self._items
            if most is None or len(items) <= most:
                taken, self._items = list(items), deque()
                self._pending = 0
                self._ready.clear()
            else:
                taken = [items.popleft() for _ in range(most)]
                self._pending -= sum(len(item.data) for item in taken if isinstance(item, Chunk))
        return taken


class _Tap(threading.Thread):
    """Reads one direction: each read is timestamped, handed over, then
    written to ``sink`` (relay) if there is one. When its side fails it
    keeps the error and calls ``on_close``; with ``report`` it also hands
    the monitor a ``lost`` event."""

    def __init__(self, source, sender: str, handover: Handover, stop: threading.Event, sink=None,
                 on_close=None, report: bool = True):
        super().__init__(daemon=True, name=f"tap-{sender}")
        self.source, self.sender, self.handover, self.stop, self.sink = source, sender, handover, stop, sink
        self.on_close = on_close
        self.report = report
        self.error: LinkError | None = None

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                data = self.source.read_some(READ_S)
                if not data:
                    continue
                self.handover.put_chunk(Chunk(self.sender, data, time.monotonic(), time.time()))
                if self.sink is not None:
                    self.sink.write(data)
        except LinkError as err:
            self.error = err
            if self.report and not self.stop.is_set():
                self.handover.put_event(Event("lost", f"the {self.sender}'s line: {err}", time.monotonic()))
        finally:
            if self.on_close is not None:
                self.on_close()


class TwoLines:
    """Two read-only lines: ``host_url`` carries the host's bytes,
    ``controller_url`` the controller's. Each line is read on its own, so
    their arrival times are not the order the frames were on the wire
    (``bench.monitor.merge``), and either line can fall silent or behind
    while the link goes on (``bench.monitor.faults``)."""

    ordered = False            # the arrival times are not the link's order
    relaying = False           # nothing is forwarded: the monitor may stop at any moment

    def __init__(self, host_url: str, controller_url: str, *, handover: Handover | None = None):
        self.handover = handover or Handover()
        self.description = f"lines {host_url} (host) and {controller_url} (controller)"
        self.stop_event = threading.Event()
        self._links = [open_link(host_url)]
        try:
            self._links.append(open_link(controller_url))
        except LinkError:
            self._links[0].close()
            raise
        self._threads = [_Tap(link, sender, self.handover, self.stop_event)
                         for link, sender in zip(self._links, (HOST, CONTROLLER))]
        self.handover.put_event(Event("connected", self.description, time.monotonic()))

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def close(self) -> None:
        self.stop_event.set()
        for thread in self._threads:
            if thread.is_alive():
                thread.join(timeout=2)
        for link in self._links:
            link.close()


class Relay:
    """Listens for the host at ``listen`` (``HOST:PORT``, port 0 for any, or
    ``pty``) and relays each connection to ``controller_url``, one at a time.
    ``address`` is where the host connects (``socket://...`` or a pty path).
    The copies are handed over before they are forwarded, so their order is
    the link's; ``relaying`` says whether a host connection is being relayed
    (a monitor whose judge failed waits for it to end)."""

    ordered = True

    def __init__(self, listen: str, controller_url: str, *, handover: Handover | None = None):
        self.handover = handover or Handover()
        self.controller_url = controller_url
        self.stop_event = threading.Event()
        self.connections = 0
        self.relaying = False
        self._server = None
        self._pty = None
        host_port = parse_host_port(listen)
        if listen == "pty":
            master, slave, path = open_pty_pair()
            self._pty = (master, slave)
            self.address = path
        elif host_port is not None:
            self._server = socket.create_server(host_port)
            host, port = self._server.getsockname()[:2]
            self.address = f"socket://{host}:{port}"
        else:
            raise LinkError(f"--relay {listen}: expected HOST:PORT or 'pty'")
        self.description = f"relay {self.address} -> {controller_url}"
        self._thread = threading.Thread(target=self._serve, daemon=True, name="relay")

    def start(self) -> None:
        self._thread.start()

    def _serve(self) -> None:
        try:
            if self._pty is not None:
                master, _ = self._pty
                self._relay(Link.from_fd(os.dup(master), f"pty {self.address}"), self.address)
                return
            server = self._server
            assert server is not None       # __init__ opened a pty or a server, or raised
            while not self.stop_event.is_set():
                if not select.select([server], [], [], READ_S)[0]:
                    continue
                conn, peer = server.accept()
                self._relay(Link.from_socket(conn, f"host {peer[0]}:{peer[1]}"), f"{peer[0]}:{peer[1]}")
        except OSError as err:
            if not self.stop_event.is_set():
                self.handover.put_event(Event("lost", f"the relay stopped: {err}", time.monotonic()))

    def _relay(self, host: Link, peer: str) -> None:
        """Relay one host connection until either side closes it."""
        try:
            controller = open_link(self.controller_url)
        except LinkError as err:
            host.close()
            self.handover.put_event(Event("lost", f"host {peer} connected; the controller: {err}", time.monotonic()))
            return
        self.connections += 1
        self.relaying = True
        self.handover.put_event(Event("connected", f"host {peer} <-> {self.controller_url}", time.monotonic()))
        ended = threading.Event()
        taps = [_Tap(host, HOST, self.handover, ended, sink=controller, on_close=ended.set, report=False),
                _Tap(controller, CONTROLLER, self.handover, ended, sink=host, on_close=ended.set, report=False)]
        for tap in taps:
            tap.start()
        while not ended.wait(READ_S):
            if self.stop_event.is_set():
                ended.set()
        for tap in taps:
            tap.join(timeout=2)
        host.close()
        controller.close()
        self.relaying = False
        why = next((f"the {tap.sender}'s side: {tap.error}" for tap in taps if tap.error is not None), "the relay stopped")
        self.handover.put_event(Event("closed", f"host {peer}: connection ended ({why})", time.monotonic()))

    def close(self) -> None:
        self.stop_event.set()
        if self._thread.is_alive():
            self._thread.join(timeout=3)
        if self._server is not None:
            self._server.close()
        if self._pty is not None:
            for fd in self._pty:
                try:
                    os.close(fd)
                except OSError:
                    pass
