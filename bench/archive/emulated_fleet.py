"""A fleet of emulated tables, for the archive's tests and benchmark: each
table-day one ``bench run`` session in this process against the emulated
controller on a thread behind a pty (``bench.emulator.threaded``: the bench
still talks to it over a real link), with the fair-dice plant, in simulated
time at the game's phases (a studio's round rate: about a round every 30 s of
table time). One table may run a misbehaving controller (a Lucky draw
skewed, ``bench.emulator.rng_misbehaviours``). Every seed is derived from
``seed``, the table and the day, so that the same call makes the same fleet."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Callable, Iterator

GAME = "lightning-dice"


def derived_seed(seed: int, *parts: object) -> int:
    """A 31-bit seed from ``seed`` and the parts (table, day), the same on any machine."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") >> 1


def table_names(count: int) -> list[str]:
    return [f"T{n:04d}" for n in range(1, count + 1)]


def play_table_day(out: Path, table: str, day: int, rounds: int, seed: int, *, misbehave: str | None = None,
                   game: str = GAME) -> Path:
    """One table-day's session in ``out``; returns its journal."""
    import bench.emulator.rng_misbehaviours  # noqa: F401 — registers the Lucky RNG's misbehaviours
    from bench.emulator.threaded import threaded_controller
    from bench.session.runner import SessionConfig, run_session, session_rules
    config = SessionConfig(game=game, rounds=rounds, plant="dice", out=str(out), seed=derived_seed(seed, table, day),
                           probes=False, probe_wagers=False, progress=False, labels={"table": table})
    with threaded_controller(game, session_rules(config), seed=derived_seed(seed, table, day, "controller"),
                             misbehave=misbehave) as url:
        config.controller = url
        outcome = run_session(config)
    # A violation is data (a fair table's session fails its own Lucky draw test at 99% about once in a
    # hundred: what the fleet judgement is for); a session that did not play to its end is not a table-day.
    if outcome.ending not in ("completed", "violation"):
        raise RuntimeError(f"{table} day {day}: the session ended {outcome.ending}: {outcome.reason}")
    return Path(outcome.journal)


def play_fleet(root: Path, tables: int, days: int, rounds: int, seed: int, *, skewed: str | None = None,
               misbehave: str = "lucky-favours-a-number",
               on_each: Callable[[Path], None] = lambda _: None) -> Iterator[Path]:
    """Every table-day of the fleet (``root/<table>/day-NN/session.jsonl``);
    the table named ``skewed`` runs ``misbehave``."""
    for day in range(1, days + 1):
        for table in table_names(tables):
            journal = play_table_day(root / table / f"day-{day:02d}", table, day, rounds, seed,
                                     misbehave=misbehave if table == skewed else None)
            on_each(journal)
            yield journal
