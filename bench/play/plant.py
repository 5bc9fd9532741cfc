"""The plant: the physical part of the game the bench stands in for. When the
controller commands a release (a spin, a throw), the bench asks its plant for a
reading and sends it back as the sensor would.

Plants, found by name (``PLANTS``):
- ``tower``: the PyBullet tower twin (Lightning Dice, Sic Bo's three dice);
- ``wheel``: the PyBullet wheel twin (Lightning Roulette); an invalid spin is
  spun again, as a dealer would;
- ``dice``: two or three fair dice from a seeded RNG (Dice-Ology's shooter:
  there is no physics twin of a craps throw yet), flat unless a probe stages a
  cocked die; for Lightning Roulette, a fair wheel. Staged outcomes are taken
  as asked: no physics to search;
- ``recorded``: pre-simulated outcomes, JSON lines from ``twin drop --json`` or
  ``twin spin --json``, replayed in order, for speed.

Every reading carries the seed that produced it, so that the journal alone is
enough to simulate the same drop again (``bench replay --round N``).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from bench.errors import BenchError
from bench.rules.descriptor import Stage


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


STAGING_START_SEED = 1_000_000   # staged searches start here, apart from the session's own draws


class StagedSeeds:
    """A memo of staged seed searches, keyed by the design's digest and the
    request: a search is deterministic, so its answer can be kept. Nothing is
    taken on trust: the caller simulates the remembered seed again and
    searches afresh if it does not show what was asked."""

    def __init__(self, path: str | Path | None = None):
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        self.path = Path(path) if path else Path(base) / "tablebench" / "staged-seeds.json"

    def _load(self) -> dict:
        try:
            data = json.loads(self.path.read_text())
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def get(self, key: str) -> int | None:
        value = self._load().get(key)
        return value if isinstance(value, int) else None

    def put(self, key: str, seed: int) -> None:
        data = self._load()
        data[key] = seed
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, sort_keys=True))
            tmp.replace(self.path)
        except OSError:
            pass    # a memo only saves time; without it the search runs again


def staged_seed(memo: StagedSeeds, key: str, shows: Callable[[int], bool], search: Callable[[], int]) -> int:
    """The remembered seed for ``key`` if simulating it shows what was asked, else a fresh search."""
    seed = memo.get(key)
    if seed is not None and shows(seed):
        return seed
    seed = search()
    memo.put(key, seed)
    return seed


class PhysicsPlant:
    """A plant backed by a twin and its design file."""
    name = "physics"

    def __init__(self, design_path: str, session_seed: int, memo: StagedSeeds | None = None):
        try:
            import twin.physics_engine  # noqa: F401  (PyBullet, without its banner; said before the session starts)
        except ImportError as err:
            from tablebench_io.extras import missing_extra
            raise BenchError(f"the {self.name} plant {missing_extra(err)}; --plant dice plays fair dice "
                             "without the physics") from None
        from twin.errors import TwinError
        from twin.shipped import shipped_design
        try:
            design_path = shipped_design(design_path, self.name)   # a shipped design by name: standard
            self.design = self.load_design(design_path)
            self.digest = file_digest(design_path)
        except TwinError as err:       # names the file and the field already
            raise BenchError(str(err)) from None
        except OSError as err:
            raise BenchError(f"{design_path}: cannot read the design: {err.strerror}") from None
        self.design_path = design_path
        self.session_seed = session_seed
        self.memo = memo or StagedSeeds()

    @staticmethod
    def load_design(path: str):
        raise NotImplementedError


class TowerPlant(PhysicsPlant):
    name = "tower"

    def __init__(self, design_path: str, session_seed: int, memo: StagedSeeds | None = None):
        super().__init__(design_path, session_seed, memo)
        self.loaded: tuple[int, ...] | None = None   # the dealer reloads the last faces, 625b.2(d)(6)

    @staticmethod
    def load_design(path: str):
        from twin.tower import load_design
        return load_design(path)

    def read(self, round_no: int, attempt: int, dice_count: int = 3, stage: Stage | None = None,
             lucky_bets: tuple[str, ...] = ()) -> Reading:
        from twin.tower import drop
        if stage is not None and attempt == 0:
            seed, loaded = self._staged(stage), None   # staged drops use the design's own loading
        else:
            seed, loaded = draw_seed(self.session_seed, round_no, attempt), self.loaded
        result = drop(self.design, seed, loaded=loaded)
        self.loaded = tuple(result.faces)
        return Reading(dice=tuple(result.faces), flat=tuple(d.flat for d in result.dice), seed=seed,
                       duration_s=float(result.settle_time_s),
                       detail={**json.loads(result.to_json()), "staged": _describe(stage) if stage and attempt == 0 else None})

    def _staged(self, stage: Stage) -> int:
        from twin.tower import drop
        from twin.tower.staging import StagingError, shows_cocked, stage as search, stage_no_roll

        def shows(seed: int) -> bool:
            result = drop(self.design, seed)
            if not result.settled:
                return False
            if stage.cocked:
                return shows_cocked(result)      # a die truly held, never one the solver props up
            return not result.no_roll and sorted(result.faces) == sorted(stage.faces)

        def find() -> int:
            if stage.cocked:
                try:
                    return stage_no_roll(self.design, start_seed=STAGING_START_SEED)[0]
                except StagingError as err:
                    raise BenchError(f"{self.design_path}: no cocked die found to stage a no roll") from err
            return search(self.design, faces=stage.faces, start_seed=STAGING_START_SEED)[0]

        return staged_seed(self.memo, f"tower:{self.digest}:{_describe(stage)}", shows, find)


class WheelPlant(PhysicsPlant):
    name = "wheel"
    MAX_SPINS = 10   # a dealer spins again after an invalid spin; ten in a row means the wheel is broken

    @staticmethod
    def load_design(path: str):
        from twin.wheel import load_design
        return load_design(path)

    def read(self, round_no: int, attempt: int, dice_count: int = 0, stage: Stage | None = None,
             lucky_bets: tuple[str, ...] = ()) -> Reading:
        from twin.wheel import spin
        if stage is not None and stage.pockets and attempt == 0:
            numbers = [n for n in stage.pockets if f"straight:{n}" not in lucky_bets] or list(stage.pockets)
            seed = self._staged(numbers[0])
            result = spin(self.design, seed)
            return Reading(pocket=result.number, seed=seed, duration_s=result.spin_time_s,
                           detail={**json.loads(result.to_json()), "respins": 0, "staged": f"pocket {numbers[0]}"})
        spent = 0.0
        for respin in range(self.MAX_SPINS):
            seed = draw_seed(self.session_seed, round_no, attempt * self.MAX_SPINS + respin)
            result = spin(self.design, seed)
            spent += result.spin_time_s
            if result.valid:
                return Reading(pocket=result.number, seed=seed, duration_s=spent,
                               detail={**json.loads(result.to_json()), "respins": respin})
        raise BenchError(f"{self.design_path}: {self.MAX_SPINS} invalid spins in a row in round {round_no}")

    def _staged(self, number: int) -> int:
        from twin.wheel import spin
        from twin.wheel.staging import stage_pocket

        def shows(seed: int) -> bool:
            result = spin(self.design, seed)
            return result.valid and result.number == number

        return staged_seed(self.memo, f"wheel:{self.digest}:pocket {number}", shows,
                           lambda: stage_pocket(self.design, [number], start_seed=STAGING_START_SEED)[0])


class FairDicePlant:
    name = "dice"
    design_path = None

    def __init__(self, session_seed: int):
        self.session_seed = session_seed

    def read(self, round_no: int, attempt: int, dice_count: int = 2, stage: Stage | None = None,
             lucky_bets: tuple[str, ...] = ()) -> Reading:
        import random
        seed = draw_seed(self.session_seed, round_no, attempt)
        rng = random.Random(seed)
        staged = _describe(stage) if stage is not None and (attempt == 0 or stage.rolls) else None
        if dice_count == 0:
            pocket = rng.randrange(37)
            if staged and stage.pockets:
                pocket = ([n for n in stage.pockets if f"straight:{n}" not in lucky_bets] or list(stage.pockets))[0]
            return Reading(pocket=pocket, seed=seed, duration_s=20.0,
                           detail={"seed": seed, "number": pocket, "staged": staged})
        dice = tuple(rng.randint(1, 6) for _ in range(dice_count))
        flat = (True,) * dice_count
        if staged and stage.faces:
            dice = tuple(rng.sample(stage.faces, len(stage.faces)))
        elif staged and stage.cocked:
            flat = (False,) + (True,) * (dice_count - 1)
        elif stage is not None and stage.rolls and attempt < len(stage.rolls):
            dice = tuple(stage.rolls[attempt])
        return Reading(dice=dice, flat=flat, seed=seed, duration_s=2.0,
                       detail={"seed": seed, "faces": list(dice), "flat": list(flat), "staged": staged})


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

    def read(self, round_no: int, attempt: int, dice_count: int = 3, stage: Stage | None = None,
             lucky_bets: tuple[str, ...] = ()) -> Reading:
        # Recorded outcomes cannot be staged: probes need a physics plant.
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


def _describe(stage: Stage | None) -> str | None:
    if stage is None:
        return None
    if stage.cocked:
        return "a die cocked"
    if stage.faces:
        return "faces " + "-".join(map(str, sorted(stage.faces)))
    if stage.rolls:
        return "rolls " + ",".join(f"{a}-{b}" for a, b in stage.rolls)
    return "pockets " + ",".join(map(str, stage.pockets))


DEFAULT_DESIGNS = {"tower": "standard", "wheel": "standard"}     # shipped designs (tablebench_fixtures)


def _recorded(design: str | None, session_seed: int):
    if not design:
        raise BenchError("--plant recorded needs --design FILE: outcomes from 'twin drop --json' or 'twin spin --json'")
    return RecordedPlant(design)


# Plants by name: each makes a plant from (design or None, session seed). A
# game names its physics plant in its descriptor (``GameDescriptor.plant``).
PLANTS: dict[str, Callable[[str | None, int], object]] = {
    "tower": lambda design, seed: TowerPlant(design or DEFAULT_DESIGNS["tower"], seed),
    "wheel": lambda design, seed: WheelPlant(design or DEFAULT_DESIGNS["wheel"], seed),
    "dice": lambda design, seed: FairDicePlant(seed),
    "recorded": _recorded,
}


def make_plant(kind: str, *, game: str, session_seed: int, design: str | None = None):
    """The plant a session uses: ``kind`` is "physics" (the game's own plant,
    from its descriptor), "recorded" (with ``design`` naming the outcomes
    file) or a plant name of ``PLANTS``."""
    from bench.rules import describe
    if kind == "physics":
        kind = describe(game).plant
    try:
        maker = PLANTS[kind]
    except KeyError:
        raise BenchError(f"unknown plant {kind!r}: physics, {', '.join(PLANTS)}") from None
    return maker(design, session_seed)
