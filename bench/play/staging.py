"""Staged outcomes on a physics plant: a catalogue of the twin's seeds that
show each outcome a staged round may ask for.

A staged outcome is still physics: a seed whose drop (or spin) shows it,
recorded in the journal and replayable. Rather than search afresh for each
outcome, the plant sweeps consecutive seeds once and keeps, for every outcome
it may be asked for (``wanted``: each way three dice can rest, a few drops
with a die cocked, each pocket), the first seed that shows it. The sweep
starts at one of ``VARIANTS`` points chosen by the session seed, so sessions
with different seeds stage different drops of the same outcome (a different
die cocked, the same triple from another drop); it is deterministic, so the
same session seed always finds the same seeds.

The catalogue is kept between sessions (``SeedMemo``, by the design's
digest), and nothing is taken on trust: the plant simulates a catalogued
seed again when it uses it and sweeps afresh if it no longer shows its
outcome (a changed twin), never staging it as if it did; the session says
so (its summary's ``staging``). Each catalogue records the canary of the
twin that swept it (``twin.fingerprint``), in the entry rather than the
key, so that a catalogue swept by another twin is known for one and swept
afresh, while one from before catalogues said so is still used, seed by
seed checked. The shipped designs come with their catalogues
already swept (``fixtures/staged-seeds.json``, written by
``benchmarks/staging_bench.py --sweeps --write``), so that a first session
on them stages at once; a test checks they still hold. The sweep runs on
the plant's own thread (``bench.play.plant_worker``), never on the link's.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Callable, Iterable

import tablebench_fixtures

STAGING_START_SEED = 1_000_000   # staged sweeps start here, apart from the session's own draws
VARIANTS = 3                     # sweep start points: a session uses variant (session seed mod VARIANTS)
VARIANT_SPAN = 1_000_000         # seeds between two start points
SWEEP_BUDGET = 20_000            # seeds a sweep tries before it gives up on what it has not found
SAVE_EVERY = 200                 # seeds swept between two writes of the memo


class SeedMemo:
    """The catalogues kept between sessions, one JSON file
    (``$XDG_CACHE_HOME/tablebench/staged-seeds.json``), over those shipped
    for the shipped designs (read only). Two sessions may write it at once:
    each write replaces the file whole, and of two sweeps of one catalogue
    the longer is kept, unless the shorter starts afresh (``replace``)."""

    def __init__(self, path: str | Path | None = None, shipped: Path | None | bool = True):
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        self.path = Path(path) if path else Path(base) / "tablebench" / "staged-seeds.json"
        found = tablebench_fixtures.staged_seeds() if shipped is True else shipped
        self.shipped = found or None

    @staticmethod
    def _read(path: Path | None) -> dict:
        try:
            data = json.loads(path.read_text()) if path else {}
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _load(self) -> dict:
        return self._read(self.path)

    def get(self, key: str, twin: str | None = None) -> dict | None:
        """The catalogue kept under ``key`` (this machine's memo first, then
        the shipped one): one this twin (its canary, ``twin``) swept, else one
        that names no twin (swept before catalogues said), else another
        twin's."""
        kept = []
        for data in (self._load(), self._read(self.shipped)):
            value = data.get(key)
            if (isinstance(value, dict) and isinstance(value.get("next"), int)
                    and isinstance(value.get("found"), dict)
                    and all(isinstance(s, int) for s in value["found"].values())):
                kept.append(value)

        def rank(value: dict) -> int:
            return 0 if twin is not None and value.get("twin") == twin else 1 if value.get("twin") is None else 2
        return min(kept, key=rank) if kept else None

    def put(self, key: str, state: dict, *, replace: bool = False) -> None:
        data = self._load()
        kept = data.get(key)
        if (not replace and isinstance(kept, dict) and isinstance(kept.get("next"), int)
                and kept["next"] > state["next"] and not _other_twins(kept, state)):
            return            # another session swept further: its catalogue holds ours
        data[key] = state
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=self.path.parent, prefix=".staged-", suffix=".tmp",
                                             delete=False) as tmp:
                json.dump(data, tmp, sort_keys=True)
            os.replace(tmp.name, self.path)
        except OSError:
            pass    # a memo only saves time; without it the sweep runs again


def _other_twins(kept: dict, state: dict) -> bool:
    """Two catalogues swept by twins known to differ (their canaries)."""
    return None not in (kept.get("twin"), state.get("twin")) and kept.get("twin") != state.get("twin")


class Catalogue:
    """Seeds from ``start`` on, each simulated once by ``shows(seed)`` (the
    outcome keys that seed shows), until every key of ``wanted`` has one.

    ``twin``: the canary of the twin that simulates (``twin.fingerprint.canary_of``;
    None: not known). A catalogue records the twin that swept it; one kept
    from another twin is not used: its seeds are that twin's, so the sweep
    starts afresh (``other_twin`` names it). One kept from a twin not named
    (swept before catalogues said) is used, each seed simulated again before
    use as ever (``bench.play.plant``)."""

    def __init__(self, memo_key: str, start: int, wanted: Iterable[str], shows: Callable[[int], Iterable[str]],
                 memo: SeedMemo | None = None, budget: int = SWEEP_BUDGET, twin: str | None = None):
        self.memo_key, self.start, self.budget = memo_key, start, budget
        self.wanted = frozenset(wanted)
        self.shows = shows
        self.memo = memo or SeedMemo()
        self.twin = twin
        kept = self.memo.get(memo_key, twin)
        self.other_twin: str | None = None     # the canary of another twin that swept the kept catalogue
        if kept and _other_twins(kept, {"twin": twin}):
            self.other_twin, kept = kept["twin"], None
        self.swept_by = kept.get("twin") if kept else twin     # the twin of the seeds found (None: not known)
        self.next = kept["next"] if kept else start
        self.found: dict[str, int] = dict(kept["found"]) if kept else {}
        self._unsaved = 0
        self.cancelled: Callable[[], bool] = lambda: False     # the session is over: stop sweeping

    @property
    def exhausted(self) -> bool:
        return self.next >= self.start + self.budget

    @property
    def complete(self) -> bool:
        return self.wanted <= set(self.found) or self.exhausted

    def step(self) -> None:
        """Simulate the next seed of the sweep. A key ``name:*`` that a seed
        shows fills the first of ``name:0``, ``name:1``... still wanted (the
        catalogue keeps several drops of one outcome: a die cocked)."""
        seed = self.next
        for shown in self.shows(seed):
            key: str | None = shown
            if shown.endswith(":*"):
                key = next((k for k in (f"{shown[:-1]}{i}" for i in range(len(self.wanted)))
                            if k in self.wanted and k not in self.found), None)
            if key is not None and key in self.wanted:
                self.found.setdefault(key, seed)
        self.next += 1
        self._unsaved += 1
        if self._unsaved >= SAVE_EVERY or self.complete:
            self.save()

    def seed_for(self, key: str) -> int | None:
        """The first seed that shows ``key``, sweeping on (in the caller's
        thread) until it is found; None if the budget runs out first, or the
        sweep is cancelled."""
        while key not in self.found and not self.exhausted and not self.cancelled():
            self.step()
        return self.found.get(key)

    def forget(self) -> None:
        """A catalogued seed no longer shows its outcome (the twin changed):
        sweep again from the start."""
        self.next, self.found, self.swept_by = self.start, {}, self.twin
        self.memo.put(self.memo_key, self.state(), replace=True)
        self._unsaved = 0

    def state(self) -> dict:
        """What the memo keeps: where the sweep got to, the seeds found, and
        the canary of the twin that found them (when known)."""
        state: dict = {"next": self.next, "found": dict(sorted(self.found.items()))}
        if self.swept_by is not None:
            state["twin"] = self.swept_by
        return state

    def save(self) -> None:
        if self._unsaved:
            self.memo.put(self.memo_key, self.state())
        self._unsaved = 0


def variant_start(session_seed: int) -> tuple[int, int]:
    """(variant, first seed) of the sweep a session uses."""
    variant = session_seed % VARIANTS
    return variant, STAGING_START_SEED + variant * VARIANT_SPAN


__all__ = ["Catalogue", "SWEEP_BUDGET", "STAGING_START_SEED", "SeedMemo", "VARIANTS", "variant_start"]
