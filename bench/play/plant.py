"""The plant: the physical part of the game the bench stands in for. When the
controller commands a release (a spin, a throw), the bench asks its plant for a
reading and sends it back as the sensor would.

Plants, found by name (``PLANTS``):
- ``tower``: the PyBullet tower twin (Lightning Dice, Sic Bo's three dice);
- ``wheel``: the PyBullet wheel twin (Lightning Roulette); an invalid spin is
  spun again, as a dealer would;
- ``dice``: two or three fair dice from a seeded RNG (Dice-Ology's shooter:
  there is no physics twin of a craps throw yet), flat unless a staged round
  cocks one; for Lightning Roulette, a fair wheel. Staged outcomes are taken
  as asked: no physics to search;
- ``recorded``: pre-simulated outcomes, JSON lines from ``twin drop --json`` or
  ``twin spin --json``, replayed in order, for speed.

Every reading carries the seed that produced it, so that the journal alone is
enough to simulate the same drop again (``bench replay --round N``); a physics
plant's ``fingerprint`` (``twin.fingerprint``) goes into the journal's header,
so that replay says whether the twin simulating it again is the one that drew it.

A staged round (``bench.play.coverage``) asks for a ``Throw`` per command: the
faces of three dice, a die cocked, a pocket. The physics plants take it from
their catalogue of swept seeds (``bench.play.staging``); a physics plant's
work, searches included, runs on a thread of its own
(``bench.play.plant_worker``) so that the link is serviced meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from bench.errors import BenchError
from bench.play.staging import Catalogue, SeedMemo, variant_start
from bench.rules.coverage import MULTISETS, NO_ROLLS_STAGED
from bench.rules.outcome_classes import Throw

NOT_FOUND = "not found in the staging sweep"   # what a reading's "staged" adds for a throw it could not stage


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


class PhysicsPlant:
    """A plant backed by a twin and its design file."""
    name = "physics"
    threaded = True          # its work runs on the plant's own thread (bench.play.plant_worker)

    def __init__(self, design_path: str, session_seed: int, memo: SeedMemo | None = None):
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
        self.staging(session_seed, self.digest, memo)

    def staging(self, session_seed: int, digest: str, memo: SeedMemo | None = None) -> None:
        """Where the plant's staged seeds come from: the session seed picks the
        sweep's start point; the catalogue is kept by the design's digest."""
        self.session_seed, self.digest = session_seed, digest
        self.memo = memo or SeedMemo()
        self._catalogue: Catalogue | None = None
        self._cancelled = threading.Event()
        self.stale: list[str] = []           # keys whose catalogued seed no longer showed its outcome
        self._tell: Callable[[str], None] = lambda text: None

    def on_note(self, tell: Callable[[str], None]) -> None:
        """Who hears what the plant has to say while the session runs (a stale catalogue swept again)."""
        self._tell = tell

    def fingerprint(self) -> dict:
        """The twin behind the plant (``twin.fingerprint``), for the journal's header."""
        from twin.fingerprint import fingerprint
        return fingerprint()

    def twin_canary(self) -> str | None:
        """This twin's canary of the plant's kind: the catalogue records which twin swept it."""
        from twin.fingerprint import canary_of
        return canary_of(self.name)

    @staticmethod
    def load_design(path: str):
        raise NotImplementedError

    # -- a recorded round, again (bench replay --round) and drawn (the report) --
    @staticmethod
    def simulate_again(design, record: dict, gif: str | None, png: str | None) -> tuple[bool, str]:
        """The recorded reading's seed simulated again: (the same as recorded?,
        what was simulated and what recorded), with its animation and picture."""
        raise NotImplementedError

    @staticmethod
    def picture(design, reading: dict) -> tuple[bytes, str]:
        """(PNG, what it shows) of a recorded reading, nothing simulated again."""
        raise NotImplementedError

    # -- staged outcomes -----------------------------------------------------
    wanted: tuple[str, ...] = ()

    def shows(self, result) -> list[str]:
        """The catalogue keys a twin result shows."""
        raise NotImplementedError

    def simulate(self, seed: int):
        raise NotImplementedError

    @property
    def catalogue(self) -> Catalogue:
        if self._catalogue is None:
            variant, start = variant_start(self.session_seed)
            self._catalogue = catalogue = Catalogue(
                f"{self.name}:{self.digest}:sweep:{variant}", start, self.wanted,
                lambda seed: self.shows(self.simulate(seed)), self.memo, twin=self.twin_canary())
            catalogue.cancelled = self._cancelled.is_set
            if catalogue.other_twin is not None:
                self._tell(f"staging: the {self.name}'s catalogue of staged seeds was swept by another twin (canary "
                           f"{catalogue.other_twin}, this twin's {catalogue.twin}): it is swept again")
        return self._catalogue

    def cancel(self) -> None:
        """The session is ending: a sweep in progress stops (a staged throw then falls back to an ordinary one)."""
        self._cancelled.set()

    def staged_seed(self, key: str) -> tuple[int, Any] | None:      # the result as ``simulate`` gives it
        """A seed that shows ``key`` and its result, from the catalogue (swept
        on as far as needed, on this thread), simulated again before use;
        None when the sweep's budget runs out without it."""
        for _ in range(2):
            seed = self.catalogue.seed_for(key)
            if seed is None:
                return None
            result = self.simulate(seed)
            shown = self.shows(result)
            if key in shown or (key.rsplit(":", 1)[0] + ":*") in shown:
                return seed, result
            # The twin no longer shows what was catalogued (another twin swept it): never staged
            # as if it did; the catalogue is swept again, and the session says so.
            if key not in self.stale:
                self.stale.append(key)
            self._tell(f"staging: catalogued seed {seed} no longer shows {key} on this twin "
                       f"(it shows {', '.join(shown) or 'no outcome it catalogues'}): the catalogue is swept again")
            self.catalogue.forget()
        return None

    def staging_report(self) -> dict | None:
        """What the session's staging found of its catalogue, for summary.json;
        None if the session staged nothing on this plant."""
        catalogue = self._catalogue
        if catalogue is None:
            return None
        return {"catalogue_stale": list(self.stale),
                "swept_again": bool(self.stale) or catalogue.other_twin is not None,
                "swept_by_another_twin": catalogue.other_twin, "twin": catalogue.twin}

    def close(self) -> None:
        if self._catalogue is not None:
            self._catalogue.save()


class TowerPlant(PhysicsPlant):
    name = "tower"
    wanted = (tuple("faces:" + "-".join(map(str, m)) for m in MULTISETS)
              + tuple(f"cocked:{i}" for i in range(NO_ROLLS_STAGED)))

    def __init__(self, design_path: str, session_seed: int, memo: SeedMemo | None = None):
        super().__init__(design_path, session_seed, memo)
        self.loaded: tuple[int, ...] | None = None   # the dealer reloads the last faces, 625b.2(d)(6)
        self._cocked_used: list[int] = []            # the catalogue's cocked drops this session staged, oldest first

    def _cocked_drop(self, pick: int) -> str:
        """The catalogue's drop for a cocked throw: its pick's own, or if this
        session staged that one already, the next one it has not, so that each
        no roll of a session is a drop of its own (the plan may draw one pick
        twice); only once all ``NO_ROLLS_STAGED`` are used, the one staged
        longest ago again."""
        order = [(pick + k) % NO_ROLLS_STAGED for k in range(NO_ROLLS_STAGED)]
        index = next((i for i in order if i not in self._cocked_used), None)
        if index is None:
            index = self._cocked_used.pop(0)
        self._cocked_used.append(index)
        return f"cocked:{index}"

    @staticmethod
    def load_design(path: str):
        from twin.tower import load_design
        return load_design(path)

    def simulate(self, seed: int):
        from twin.tower import drop
        return drop(self.design, seed)     # a staged drop uses the design's own loading

    @staticmethod
    def simulate_again(design, record: dict, gif: str | None, png: str | None) -> tuple[bool, str]:
        from twin.tower import drop_traced
        seed, loaded = record["seed"], (record.get("detail") or {}).get("loaded")
        result, trace = drop_traced(design, seed, loaded=loaded)
        same = list(result.faces) == record["dice"] and [d.flat for d in result.dice] == record["flat"]
        told = (f"seed {seed}, loaded {loaded}: simulated faces {list(result.faces)} "
                f"flat {[d.flat for d in result.dice]}; recorded {record['dice']} flat {record['flat']}")
        if gif:
            from twin.tower.picture import drop_gif
            drop_gif(design, result, trace, gif)
        if png:
            from twin.tower.picture import tray_png
            tray_png(design, result, png)
        return same, told

    @staticmethod
    def picture(design, reading: dict) -> tuple[bytes, str]:
        """The tray from above, from the drop's recorded result (``DropResult.to_dict``)."""
        import tempfile

        from twin.tower import DropResult
        from twin.tower.picture import tray_png
        detail = reading.get("detail") or {}
        what = ("NO ROLL: " + ", ".join(f"die {k + 1} {d.get('reason')}" for k, d in
                                          enumerate(detail.get("dice", ())) if not d.get("flat"))
                if detail.get("no_roll") else "faces " + " ".join(map(str, detail.get("faces", ()))))
        with tempfile.TemporaryDirectory() as folder:
            png = tray_png(design, DropResult.from_dict(detail), Path(folder) / "tray.png").read_bytes()
        return png, f"the tray from above, drop seed {reading.get('seed')}: {what}"

    def shows(self, result) -> list[str]:
        from twin.tower.staging import shows_cocked
        if not result.settled:
            return []
        if shows_cocked(result):           # a die truly held, never one the solver props up
            return ["cocked:*"]
        return [] if result.no_roll else ["faces:" + "-".join(map(str, sorted(result.faces)))]

    def read(self, round_no: int, attempt: int, dice_count: int = 3, throw: Throw | None = None) -> Reading:
        from twin.tower import drop
        staged = None
        if throw is not None:
            if throw.cocked:
                key = self._cocked_drop(throw.pick)
            elif throw.faces is None:       # a staged flat throw always names its faces (bench.rules.coverage)
                raise TypeError("a staged flat throw without its faces")
            else:
                key = "faces:" + "-".join(map(str, throw.faces))
            found = self.staged_seed(key)
            staged = throw.describe() if found else f"{throw.describe()}: {NOT_FOUND}"
        if throw is not None and found:
            seed, result = found
        else:
            seed = draw_seed(self.session_seed, round_no, attempt)
            result = drop(self.design, seed, loaded=self.loaded)
        self.loaded = tuple(result.faces)
        return Reading(dice=tuple(result.faces), flat=tuple(d.flat for d in result.dice), seed=seed,
                       duration_s=float(result.settle_time_s),
                       detail={**json.loads(result.to_json()), "staged": staged})


class WheelPlant(PhysicsPlant):
    name = "wheel"
    MAX_SPINS = 10   # a dealer spins again after an invalid spin; ten in a row means the wheel is broken
    wanted = tuple(f"pocket:{n}" for n in range(37))

    @staticmethod
    def load_design(path: str):
        from twin.wheel import load_design
        return load_design(path)

    def simulate(self, seed: int):
        from twin.wheel import spin
        return spin(self.design, seed)

    @staticmethod
    def simulate_again(design, record: dict, gif: str | None, png: str | None) -> tuple[bool, str]:
        from twin.wheel import trace as spin_trace
        seed = record["seed"]
        traced = spin_trace(design, seed)
        same = traced.result.number == record["pocket"]
        told = f"seed {seed}: simulated pocket {traced.result.number}; recorded {record['pocket']}"
        if gif:
            from twin.wheel.picture import save_gif
            save_gif(design, traced, gif)
        if png:
            from twin.wheel.picture import save_png
            save_png(design, traced, png)
        return same, told

    @staticmethod
    def picture(design, reading: dict) -> tuple[bytes, str]:
        """The wheel at rest with the ball in the recorded pocket (the rotor's
        angle from the recorded seed's launch and the recorded spin time)."""
        import io
        import math

        from twin.wheel.picture import draw_wheel
        from twin.wheel.spin import draw_launch, rotor_at
        from twin.wheel.world import pocket_angle
        detail = reading.get("detail") or {}
        seed, pocket = int(reading["seed"]), reading.get("pocket")
        rotor_angle = rotor_at(design, draw_launch(design, seed), float(detail.get("spin_time_s", 0.0)))[0]
        index = ball = None
        if pocket is not None and pocket in design.pockets:
            index = design.pockets.index(pocket)
            angle = rotor_angle + pocket_angle(index)
            radius = (design.rotor.pocket_inner_radius_m + design.rotor.pocket_outer_radius_m) / 2
            ball = (radius * math.cos(angle), radius * math.sin(angle), 0.0)
        image = draw_wheel(design, rotor_angle, ball, index, 420, f"seed {seed}: pocket {pocket}")
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return buffer.getvalue(), f"the wheel at rest, spin seed {seed}: pocket {pocket}"

    def shows(self, result) -> list[str]:
        return [f"pocket:{result.number}"] if result.valid else []

    def read(self, round_no: int, attempt: int, dice_count: int = 0, throw: Throw | None = None) -> Reading:
        from twin.wheel import spin
        if throw is not None and throw.pocket is not None:
            found = self.staged_seed(f"pocket:{throw.pocket}")
            if found:
                seed, result = found
                return Reading(pocket=result.number, seed=seed, duration_s=result.spin_time_s,
                               detail={**json.loads(result.to_json()), "respins": 0, "staged": throw.describe()})
        spent = 0.0
        for respin in range(self.MAX_SPINS):
            seed = draw_seed(self.session_seed, round_no, attempt * self.MAX_SPINS + respin)
            result = spin(self.design, seed)
            spent += result.spin_time_s
            if result.valid:
                return Reading(pocket=result.number, seed=seed, duration_s=spent,
                               detail={**json.loads(result.to_json()), "respins": respin,
                                       "staged": None if throw is None else
                                       f"{throw.describe()}: {NOT_FOUND}"})
        raise BenchError(f"{self.design_path}: {self.MAX_SPINS} invalid spins in a row in round {round_no}")


class FairDicePlant:
    name = "dice"
    design_path = None
    threaded = False         # instant: read on the link's thread

    def __init__(self, session_seed: int):
        self.session_seed = session_seed

    def read(self, round_no: int, attempt: int, dice_count: int = 2, throw: Throw | None = None) -> Reading:
        import random
        seed = draw_seed(self.session_seed, round_no, attempt)
        rng = random.Random(seed)
        staged = None if throw is None else throw.describe()
        if dice_count == 0:
            pocket = rng.randrange(37) if throw is None or throw.pocket is None else throw.pocket
            return Reading(pocket=pocket, seed=seed, duration_s=20.0,
                           detail={"seed": seed, "number": pocket, "staged": staged})
        dice = tuple(rng.randint(1, 6) for _ in range(dice_count))
        flat = (True,) * dice_count
        if throw is not None and throw.cocked:
            flat = tuple(i != throw.pick % dice_count for i in range(dice_count))
        elif throw is not None and throw.faces:
            dice = tuple(rng.sample(throw.faces, len(throw.faces)))
        return Reading(dice=dice, flat=flat, seed=seed, duration_s=2.0,
                       detail={"seed": seed, "faces": list(dice), "flat": list(flat), "staged": staged})

    def close(self) -> None:
        pass

    def fingerprint(self) -> None:
        return None              # no twin behind fair dice: nothing to simulate again


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
                record = json.loads(line)
            except ValueError as err:
                raise BenchError(f"{path}: line {number}: not a JSON object: {err}") from None
            if isinstance(record, dict) and record.get("record") == "verdict":
                continue        # the closing line of twin drop/spin --json (docs/json.md): totals, not an outcome
            self.records.append(record)
        if not self.records:
            raise BenchError(f"{path}: no recorded outcomes")
        self.next = 0

    threaded = False

    def close(self) -> None:
        pass

    def fingerprint(self) -> None:
        return None              # the outcomes were drawn elsewhere, by a twin the file does not name

    def read(self, round_no: int, attempt: int, dice_count: int = 3, throw: Throw | None = None) -> Reading:
        # Recorded outcomes cannot be staged: a staged plan needs a physics plant (or the fair one).
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


DEFAULT_DESIGNS = {"tower": "standard", "wheel": "standard"}     # shipped designs (tablebench_fixtures)

# The plants with a twin behind them, by the name a journal's header records:
# what replay simulates again and what a report draws asks here, not the name.
PHYSICS_PLANTS: dict[str, type[PhysicsPlant]] = {"tower": TowerPlant, "wheel": WheelPlant}


def physics_plant(name: str | None) -> type[PhysicsPlant] | None:
    """The physics plant of that name, or None (the fair dice, recorded outcomes)."""
    return PHYSICS_PLANTS.get(name or "")


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
