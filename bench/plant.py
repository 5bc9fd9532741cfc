"""The plant: the physical part of the game the bench stands in for. When the
controller commands a release (a spin, a throw), the bench asks its plant for a
reading and sends it back as the sensor would.

Plants, found by name (``PLANTS``):
- ``tower``: the PyBullet tower twin (Lightning Dice, Sic Bo's three dice);
- ``wheel``: the PyBullet wheel twin (Lightning Roulette); an invalid spin is
  spun again, as a dealer would;
- ``dice``: two or three fair dice from a seeded RNG (Dice-Ology's shooter:
  there is no physics twin of a craps throw yet), always flat;
- ``recorded``: pre-simulated outcomes, JSON lines from ``twin drop --json`` or
  ``twin spin --json``, replayed in order, for speed.

Every reading carries the seed that produced it, so that the journal alone is
enough to simulate the same drop again (``bench replay --round N``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.errors import BenchError


@dataclass(frozen=True)
class Reading:
    """What the plant's sensor reports, and how it came about."""
    dice: tuple[int, ...] | None = None       # faces, for the dice games
    flat: tuple[bool, ...] | None = None      # per die
    pocket: int | None = None                 # roulette
    seed: int | None = None                   # the draw that produced it
    duration_s: float = 0.0                   # simulated seconds from release to rest
    detail: dict[str, Any] = field(default_factory=dict)   # the twin's full result, for the journal


def draw_seed(session_seed: int, round_no: int, attempt: int) -> int:
    """A plant seed per (session, round, attempt): a round's drop does not
    depend on how many drops came before it, so any round can be re-simulated
    alone from the journal."""
    digest = hashlib.sha256(f"{session_seed}:plant:{round_no}:{attempt}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def file_digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class TowerPlant:
    name = "tower"

    def __init__(self, design_path: str, session_seed: int):
        from twin.tower import load_design
        self.design_path = design_path
        self.design = load_design(design_path)
        self.session_seed = session_seed
        self.loaded: tuple[int, ...] | None = None   # the dealer reloads the last faces, 625b.2(d)(6)

    def read(self, round_no: int, attempt: int, dice_count: int = 3) -> Reading:
        from twin.tower import drop
        seed = draw_seed(self.session_seed, round_no, attempt)
        result = drop(self.design, seed, loaded=self.loaded)
        self.loaded = tuple(result.faces)
        return Reading(dice=tuple(result.faces), flat=tuple(d.flat for d in result.dice), seed=seed,
                       duration_s=float(result.settle_time_s), detail=json.loads(result.to_json()))


class WheelPlant:
    name = "wheel"
    MAX_SPINS = 10   # a dealer spins again after an invalid spin; ten in a row means the wheel is broken

    def __init__(self, design_path: str, session_seed: int):
        from twin.wheel import load_design
        self.design_path = design_path
        self.design = load_design(design_path)
        self.session_seed = session_seed

    def read(self, round_no: int, attempt: int, dice_count: int = 0) -> Reading:
        from twin.wheel import spin
        spent = 0.0
        for respin in range(self.MAX_SPINS):
            seed = draw_seed(self.session_seed, round_no, attempt * self.MAX_SPINS + respin)
            result = spin(self.design, seed)
            spent += result.spin_time_s
            if result.valid:
                return Reading(pocket=result.number, seed=seed, duration_s=spent,
                               detail={**json.loads(result.to_json()), "respins": respin})
        raise BenchError(f"{self.design_path}: {self.MAX_SPINS} invalid spins in a row in round {round_no}")


class FairDicePlant:
    name = "dice"
    design_path = None

    def __init__(self, session_seed: int):
        self.session_seed = session_seed

    def read(self, round_no: int, attempt: int, dice_count: int = 2) -> Reading:
        import random
        seed = draw_seed(self.session_seed, round_no, attempt)
        rng = random.Random(seed)
        dice = tuple(rng.randint(1, 6) for _ in range(dice_count))
        return Reading(dice=dice, flat=(True,) * dice_count, seed=seed, duration_s=2.0,
                       detail={"seed": seed, "faces": list(dice)})


class RecordedPlant:
    """Outcomes simulated beforehand (``twin drop --count N --json > FILE``),
    taken in order and cycled when the file runs out."""
    name = "recorded"

    def __init__(self, path: str):
        self.design_path = path
        self.records = []
        for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
            if not line.strip():
                continue
            try:
                self.records.append(json.loads(line))
            except ValueError as err:
                raise BenchError(f"{path}: line {number}: not a JSON object: {err}") from None
        if not self.records:
            raise BenchError(f"{path}: no recorded outcomes")
        self.next = 0

    def read(self, round_no: int, attempt: int, dice_count: int = 3) -> Reading:
        record = self.records[self.next % len(self.records)]
        self.next += 1
        if "number" in record:
            return Reading(pocket=record["number"], seed=record.get("seed"),
                           duration_s=float(record.get("spin_time_s", 0.0)), detail=record)
        try:
            dice = tuple(int(f) for f in record["faces"])
            flat = tuple(bool(d["flat"]) for d in record["dice"])
        except (KeyError, TypeError, ValueError) as err:
            raise BenchError(f"{self.design_path}: record {self.next}: missing field {err}") from None
        return Reading(dice=dice[:dice_count], flat=flat[:dice_count], seed=record.get("seed"),
                       duration_s=float(record.get("settle_time_s", 0.0)), detail=record)


DEFAULT_DESIGNS = {"tower": "fixtures/towers/standard.yaml", "wheel": "fixtures/wheels/standard.yaml"}
# Which physics plant a game uses by default.
GAME_PLANT = {"lightning-dice": "tower", "sic-bo": "tower", "lightning-roulette": "wheel", "dice-ology": "dice"}


def make_plant(kind: str, *, game: str, session_seed: int, design: str | None = None):
    """The plant a session uses: ``kind`` is "physics" (the game's twin),
    "recorded" (with ``design`` naming the outcomes file) or a plant name."""
    if kind == "physics":
        kind = GAME_PLANT[game]
    if kind == "tower":
        return TowerPlant(design or DEFAULT_DESIGNS["tower"], session_seed)
    if kind == "wheel":
        return WheelPlant(design or DEFAULT_DESIGNS["wheel"], session_seed)
    if kind == "dice":
        return FairDicePlant(session_seed)
    if kind == "recorded":
        if not design:
            raise BenchError("--plant recorded needs --design FILE: outcomes from 'twin drop --json' or 'twin spin --json'")
        return RecordedPlant(design)
    raise BenchError(f"unknown plant {kind!r}: physics, tower, wheel, dice or recorded")
