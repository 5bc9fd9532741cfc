"""The plant on a thread of its own, so that the link never waits on physics.

A drop takes the twin tens of milliseconds, a spin a tenth of a second, a
staged outcome the plant has not catalogued yet seconds (a sweep of the
twin's seeds, ``bench.play.staging``). The controller meanwhile expects every
frame it sends acknowledged within its response timeout (docs/protocol.md:
0.5 s, and it gives up after 2 s); a bench that computed on the link's thread
left it unacknowledged. So the bench hands the plant's reading to this
thread and keeps the link serviced while it waits (``read_while``).

One thread owns the twin for the whole session: the twin's physics engine
keeps one connection per process and must not be driven from two threads at
once.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Future
from typing import Callable

# While the plant works the waiting thread sleeps on the reading (waking the
# moment it is ready) and services the link every SERVICE_S: what the controller
# sent meanwhile is acknowledged well inside its 0.5 s response timeout. Polling
# in short slices instead cost up to a slice per reading and the GIL a wake-up
# each time (10-30% slower, measured side by side).
SERVICE_S = 0.1
PUMP_S = 0.001         # one servicing: what has arrived is read and acknowledged, queued frames go out


class PlantWorker:
    def __init__(self, plant) -> None:
        self.plant = plant
        self._jobs: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=f"plant-{plant.name}", daemon=True)
        self._thread.start()

    def read(self, *args, **kwargs) -> Future:
        future: Future = Future()
        self._jobs.put((future, args, kwargs))
        return future

    def read_while(self, keep_serviced: Callable[[float], None], *args, **kwargs):
        """The plant's reading; until it is ready, ``keep_serviced(seconds)``
        (``Session.linger``) every SERVICE_S. The plant's exception, if any,
        is raised here."""
        future = self.read(*args, **kwargs)
        keep_serviced(PUMP_S)          # the ACK of the command that asked for the reading leaves now
        while True:
            try:
                return future.result(timeout=SERVICE_S)
            except TimeoutError:
                keep_serviced(PUMP_S)

    def close(self, timeout: float = 30.0) -> None:
        """Stop the thread after the reading in hand; a sweep in progress stops
        (the plant's owner closes the plant, which saves it where it got to)."""
        cancel = getattr(self.plant, "cancel", None)
        if cancel is not None:
            cancel()
        self._jobs.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            future, args, kwargs = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(self.plant.read(*args, **kwargs))
            except BaseException as err:       # handed to the waiting thread, which raises it
                future.set_exception(err)


__all__ = ["PlantWorker", "SERVICE_S"]
