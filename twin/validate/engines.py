"""Who runs the chunks of a campaign: this process, a local process pool, or Ray.

Every engine has one method, ``run(kind, path, text, chunks)``, yielding each
chunk's records as soon as that chunk is done (in any order: the campaign
file does not care, and the records carry their seeds). The runs themselves
are pure functions of their seeds (``twin.validate.runs``), so any engine and
any number of workers give the same records.

Ray is optional (``pip install 'tablebench[ray]'``) and imported only when
asked for. On a cluster, the nodes need this package installed; the design
file travels with the tasks as text, so it need not exist on the nodes.
"""

from __future__ import annotations

import itertools
import socket
import multiprocessing as mp
import os
import signal
from typing import TYPE_CHECKING, Iterable, Iterator, Protocol

from twin.errors import TwinError
from twin.validate.runs import run_chunk

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

ENGINES = ("local", "ray")


class EngineError(TwinError):
    """An engine that cannot start (Ray missing, a cluster not reachable)."""


class Engine(Protocol):
    workers: int

    def run(self, kind: str, path: str, text: str, chunks: Iterable[list[int]]) -> Iterator[list[dict]]: ...

    def close(self) -> None: ...


def worker_start() -> None:
    """A worker's stdout is the user's: PyBullet's C library prints its build
    banner there on import, which would break ``--json``. Workers report
    through their return values only, so their fd 1 goes to stderr. Ctrl-C
    is the parent's to handle (it terminates the pool); a worker's own
    traceback for it would only bury the message."""
    os.dup2(2, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _pool_task(job: tuple[str, str, str | None, list[int]]) -> list[dict]:
    kind, path, text, seeds = job
    return run_chunk(kind, path, seeds, text)


class LocalEngine:
    """One worker runs in this process; more run in spawned processes (spawn,
    not fork: a forked PyBullet or tqdm thread is asking for trouble, and the
    workers then start the same way on every platform)."""

    def __init__(self, workers: int = 1):
        if workers < 1:
            raise EngineError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self._pool: Pool | None = None

    def run(self, kind: str, path: str, text: str, chunks: Iterable[list[int]]) -> Iterator[list[dict]]:
        jobs = [(kind, path, None, list(c)) for c in chunks]   # same machine: the file itself
        if self.workers == 1:
            for job in jobs:
                yield _pool_task(job)
            return
        if self._pool is None:
            self._pool = mp.get_context("spawn").Pool(self.workers, initializer=worker_start)
        yield from self._pool.imap_unordered(_pool_task, jobs)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


class RayEngine:
    """Chunks as Ray tasks of one CPU each. ``address`` joins a running
    cluster (``ray://host:10001`` or ``auto``); without it a local Ray
    instance with ``workers`` CPUs is started for the campaign and stopped
    after it."""

    def __init__(self, workers: int = 1, address: str | None = None):
        try:
            import ray
        except ImportError:
            raise EngineError("the Ray engine needs Ray: pip install 'tablebench[ray]'") from None
        self._ray = ray
        self._started_here = False
        if address:
            _reachable(address)
        if not ray.is_initialized():
            try:
                if address:
                    ray.init(address=address, log_to_driver=False)
                else:
                    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
            except Exception as err:   # Ray raises many kinds; the user needs the message
                raise EngineError(f"cannot start Ray{f' at {address}' if address else ''}: {err}") from err
            self._started_here = True
        self.workers = int(ray.cluster_resources().get("CPU", workers))
        self._task = ray.remote(num_cpus=1, max_retries=2)(run_chunk)

    def run(self, kind: str, path: str, text: str, chunks: Iterable[list[int]]) -> Iterator[list[dict]]:
        # At most a few tasks per CPU in flight: a million-drop campaign must
        # not queue forty thousand tasks (and their results) at once.
        todo = iter(chunks)
        window = 4 * self.workers
        pending = [self._task.remote(kind, path, list(c), text) for c in itertools.islice(todo, window)]
        while pending:
            done, pending = self._ray.wait(pending, num_returns=1)
            pending += [self._task.remote(kind, path, list(c), text) for c in itertools.islice(todo, 1)]
            yield self._ray.get(done[0])

    def close(self) -> None:
        if self._started_here:
            self._ray.shutdown()
            self._started_here = False


RAY_CONNECT_TIMEOUT_S = 10.0


def _reachable(address: str, timeout_s: float = RAY_CONNECT_TIMEOUT_S) -> None:
    """Fail fast on a cluster address nothing answers at: ``ray.init`` itself
    retries an unreachable head for minutes. ``auto`` (a cluster on this
    machine, found by Ray) is left to Ray."""
    if address == "auto":
        return
    target = address.split("://", 1)[-1]
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        raise EngineError(f"--ray-address {address}: expected HOST:PORT, ray://HOST:PORT or auto")
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout_s).close()
    except OSError as err:
        raise EngineError(f"cannot reach Ray at {address}: {err.strerror or err} "
                          f"(no answer within {timeout_s:g} s)") from None


def make_engine(name: str, workers: int, address: str | None = None) -> Engine:
    if name == "local":
        if address:
            raise EngineError("--ray-address needs --engine ray")
        return LocalEngine(workers)
    if name == "ray":
        return RayEngine(workers, address)
    raise EngineError(f"unknown engine {name!r}; expected one of {', '.join(ENGINES)}")
