"""``bench archive ingest``: each journal examined (``bench.archive.examine``,
in this process or as Ray tasks) and then, in the order given, added,
skipped as already there, quarantined or refused by this process alone, so
that the archive's files do not depend on the engine or on which task ended
first: the same journals make the same Parquet files either way (the time
of ingest aside)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from bench.archive.examine import INGEST, QUARANTINE, Examined, examine
from bench.archive.store import Archive
from bench.errors import BenchError

ALREADY = "already"     # an action of the outcome only: the archive had these bytes


@dataclass
class Ingested:
    path: str
    action: str           # ingest, already, quarantine, refuse
    reason: str = ""
    digest: str | None = None
    table: str | None = None
    rounds: int = 0
    days: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    kept: str | None = None      # where a quarantined journal was kept

    def to_json(self) -> dict[str, Any]:
        return {"file": self.path, "action": self.action, "reason": self.reason or None, "journal": self.digest,
                "table": self.table, "rounds": self.rounds, "days": self.days, "notes": self.notes,
                "kept": self.kept}


def _examine_task(path: str, given: dict[str, str], trusted: tuple[str, ...], require_anchor: bool) -> Examined:
    return examine(path, given, trusted, require_anchor=require_anchor)


def _local(paths: list[str], args: tuple) -> Iterator[Examined]:
    for path in paths:
        yield _examine_task(path, *args)


def _on_ray(paths: list[str], args: tuple, address: str | None, workers: int) -> Iterator[Examined]:
    """Each journal a Ray task (the journals must be readable where the tasks
    run: this machine, or a filesystem every node shares), a few per CPU in
    flight, the results taken back in the order given."""
    try:
        import ray
    except ImportError:
        raise BenchError("--engine ray needs Ray: pip install 'tablebench[ray]'") from None
    started = False
    if not ray.is_initialized():
        try:
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        except Exception as err:   # noqa: BLE001 — Ray raises many kinds; the user needs the message
            raise BenchError(f"cannot start Ray{f' at {address}' if address else ''}: {err}") from None
        started = True
    try:
        task = ray.remote(num_cpus=1, max_retries=1)(_examine_task)
        window = 4 * max(1, int(ray.cluster_resources().get("CPU", workers)))
        todo = iter(paths)
        pending = [task.remote(p, *args) for p in itertools.islice(todo, window)]
        while pending:
            yield ray.get(pending.pop(0))         # in order: the archive is written as given
            pending += [task.remote(p, *args) for p in itertools.islice(todo, 1)]
    finally:
        if started:
            ray.shutdown()


def ingest(archive: Archive, paths: Iterable[str], given: dict[str, str], trusted: tuple[str, ...] = (), *,
           require_anchor: bool = False, engine: str = "local", ray_address: str | None = None, workers: int = 2,
           on_each: Callable[[Ingested], None] = lambda _: None) -> list[Ingested]:
    """Every journal of ``paths``, each examined and then acted on; ``on_each``
    is told of each as it is done (a line printed, a bar moved on)."""
    paths = list(paths)
    args = (given, trusted, require_anchor)
    examined = _on_ray(paths, args, ray_address, workers) if engine == "ray" else _local(paths, args)
    done: list[Ingested] = []
    seen: set[str] = set()
    for found in examined:
        outcome = Ingested(found.path, found.action, found.reason, found.digest, found.table, found.rounds,
                           found.days, found.notes)
        if found.digest is not None and (found.digest in seen or archive.has(found.digest)):
            outcome.action, outcome.reason = ALREADY, "these bytes are in the archive already"
            outcome.rounds, outcome.days = 0, []
        elif found.action == INGEST:
            archive.add(found)
        elif found.action == QUARANTINE:
            outcome.kept = str(archive.quarantine(found))
        if found.digest is not None:
            seen.add(found.digest)
        done.append(outcome)
        on_each(outcome)
    return done
