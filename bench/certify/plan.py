"""The certification plan (YAML) and the jurisdiction profile it names, read
and checked before anything runs: a bad value is one line naming the file,
the field and, where a regulation limits it, the clause (exit status 2).

Relative paths in a plan are read from the plan's own folder, so that a lab
keeps a plan beside its submission and key. Shipped plans and profiles go by
name (``bench certify lightning-dice-standard``, ``jurisdiction: pennsylvania``).
"""

from __future__ import annotations

import hashlib
import importlib
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from bench.errors import BenchError
from tablebench_io.fields import Fields
from tablebench_io.located import LocatedError
from tablebench_io.yamlfile import read_yaml

PLAN_PACKAGE = "tablebench_fixtures.plans"
PROFILE_PACKAGE = "tablebench_fixtures.plans.profiles"
EXAMPLE_PLAN = "lightning-dice-standard"
SUFFIX = ".yaml"
# Bounds that keep a plan a certification and not a soak: beyond them a lab runs
# the commands themselves (bench run, twin validate) with their own resumption.
MAX_SESSIONS, MAX_ROUNDS, MAX_RUNS, MAX_FRAMES = 64, 100_000, 1_000_000, 10_000
CONFIDENCE_CLAUSE = "810a.5(c)"      # "the desired confidence level of 95%"
_CLAUSE = re.compile(r"^(\d{3}[a-z]\.\d+|20:18:33:14)((?:\([0-9a-z]+\))*)$")
_SECTION = re.compile(r"^(\d{3}[a-z]\.\d+|20:18:33:14)")


class PlanError(BenchError, LocatedError):
    """A plan or profile that cannot be run: names the file, the field and the clause."""


@dataclass(frozen=True)
class Profile:
    """A jurisdiction as data: the regulations whose clauses the matrix lists,
    the confidence levels its tests are read at, and why a clause no step can
    exercise is not exercised."""
    name: str
    title: str
    path: str
    digest: str
    sections: tuple[str, ...]                  # "625b.2", "20:18:33:14"
    fairness_confidence: float                 # twin validate, twin edge
    rng_confidence: float                      # the RNG battery, 810a.5(c)
    extra_clauses: dict[str, str]              # clauses not in bench.rules.regulation_text: clause -> words
    reasons: dict[str, str]                    # clause -> why nothing exercises it (administrative, layout)


@dataclass(frozen=True)
class Controller:
    url: str                                   # a device, a pyserial URL or "emulated"
    misbehave: str | None = None               # emulated only
    adapter: str | None = None
    baud: int | None = None

    @property
    def emulated(self) -> bool:
        return self.url == "emulated"


@dataclass(frozen=True)
class Plan:
    path: str
    digest: str                                # SHA-256 of the plan's bytes
    lab: str
    controller: Controller
    game: str
    submission: str                            # a path (a shipped one resolved)
    designs: tuple[str, ...]
    profile: Profile
    key: str | None
    conformance: bool
    scenarios: bool
    scenario_seed: int
    sessions: int
    rounds: int
    first_seed: int
    runs: int                                  # drops or spins of each design's fairness campaign
    campaign_seed: int
    edge_runs: int
    frames: int
    engine: str
    workers: int
    ray_address: str | None
    rng: bool
    rng_collect: int = 0                       # raw and scaled RNG values collected from a device (bench rng --collect)
    protocols: tuple[int, ...] = ()            # the link versions conformance checks (none named: every one)
    extra: dict[str, Any] = field(default_factory=dict)


def shipped(package: str, name: str) -> Path | None:
    """A shipped plan or profile by name (no ``.yaml``), or None."""
    if not name or "/" in name or "\\" in name or name.endswith(SUFFIX):
        return None
    entry = resources.files(package) / f"{name}{SUFFIX}"
    return Path(str(entry)) if entry.is_file() else None


def shipped_names(package: str) -> list[str]:
    return sorted(e.name[:-len(SUFFIX)] for e in resources.files(package).iterdir()
                  if e.is_file() and e.name.endswith(SUFFIX))


def _digest(path: str | Path) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as err:
        raise PlanError(f"cannot read: {err.strerror}", file=str(path)) from None


def _local(given: str, base: Path) -> str:
    """A plan's path, read from the plan's folder when relative."""
    path = Path(given).expanduser()
    return str(path if path.is_absolute() else base / path)


def load_profile(given: str, base: Path | None = None, *, file: str | None = None) -> Profile:
    path = shipped(PROFILE_PACKAGE, given)
    if path is None:
        path = Path(_local(given, base or Path.cwd()))
        if not path.is_file():
            raise PlanError(f"{given!r} is neither a shipped profile ({', '.join(shipped_names(PROFILE_PACKAGE))}) "
                            "nor a file", file=file, field="jurisdiction")
    name = str(path)
    data = Fields(read_yaml(path, PlanError), file=name, error=PlanError)
    data.integer("profile", low=1, high=1)
    title = data.text("title")
    sections = data.raw("regulations")
    if not isinstance(sections, list) or not sections or not all(isinstance(s, str) for s in sections):
        raise data.error("regulations", "must be a list of sections (\"625b.2\", \"20:18:33:14\")")
    for number, section in enumerate(sections):
        if not _CLAUSE.match(section) or "(" in section:
            raise data.error(f"regulations[{number}]", f"{section!r} is not a section (\"625b.2\")")
    confidence = data.sub("confidence")
    fairness = confidence.number("fairness", low=0.5, high=0.9999)
    rng = confidence.number("rng", low=0.5, high=0.9999)
    confidence.done()
    extra = _clause_map(data, "clauses")
    reasons = _clause_map(data, "reasons")
    data.done()
    return Profile(path.stem, title or path.stem, name, _digest(path), tuple(sections), fairness, rng, extra, reasons)


def _clause_map(data: Fields, key: str) -> dict[str, str]:
    raw = data.raw(key, {}) or {}
    if not isinstance(raw, dict):
        raise data.error(key, "must be a mapping of clause to text")
    for clause, text in raw.items():
        if not isinstance(clause, str) or not (_CLAUSE.match(clause) or clause == "protocol"):
            raise data.error(f"{key}.{clause}", "is not a clause (\"625b.2(d)(5)\")")
        if not isinstance(text, str) or not text.strip():
            raise data.error(f"{key}.{clause}", "must be a sentence")
    return {str(k): str(v) for k, v in raw.items()}


def find_plan(given: str) -> Path:
    path = Path(given)
    if path.is_file():
        return path
    if path.is_dir():
        raise PlanError("is a folder, not a plan file (bench certify --init PATH writes one)", file=given)
    found = shipped(PLAN_PACKAGE, given)
    if found is None:
        raise PlanError(f"no such file, nor a shipped plan ({', '.join(shipped_names(PLAN_PACKAGE))})", file=given)
    return found


def load_plan(given: str) -> Plan:
    """The plan at ``given`` (a file, or a shipped plan by name), every field checked."""
    from bench.rules import describe, game_names
    from bench.rules.submission import load_submission

    path = find_plan(given)
    name, base = str(path), path.resolve().parent
    data = Fields(read_yaml(path, PlanError), file=name, error=PlanError)
    data.integer("plan", low=1, high=1)
    lab = data.text("lab", "") or ""

    ctl = data.sub("controller")
    controller = Controller(ctl.text("url") or "", ctl.text("misbehave", None), ctl.text("adapter", None),
                            int(ctl.integer("baud", None, low=300, high=4_000_000)) if ctl.raw("baud", None) is not None
                            else None)
    ctl.done()
    if not controller.url:
        raise data.error("controller.url", "say which controller: a device path, a pyserial URL or 'emulated'")
    if controller.misbehave and not controller.emulated:
        raise data.error("controller.misbehave", "only the emulated controller can be told to misbehave")
    if controller.misbehave:
        _check_misbehaviour(data, controller.misbehave)
    url = controller.url if controller.emulated or "://" in controller.url else _local(controller.url, base)
    controller = Controller(url, controller.misbehave, controller.adapter, controller.baud)

    game = data.text("game")
    if game not in game_names():
        raise data.error("game", f"must be one of {', '.join(game_names())}, got {game!r}")
    submission = _local(_required(data, "submission"), base)
    if not Path(submission).is_file():
        submission = data.raw("submission")
    try:
        rules = load_submission(submission)
    except LocatedError as err:
        raise PlanError(f"submission: {err}", file=name) from None
    except (BenchError, ValueError) as err:
        raise data.error("submission", str(err)) from None
    if rules.game != game:
        raise data.error("submission", f"the submission is for {rules.game}, not {game}")
    import tablebench_fixtures
    submission = tablebench_fixtures.resolve(str(submission), "submission")

    designs = _designs(data, base, describe(game).plant)
    profile = load_profile(_required(data, "jurisdiction"), base, file=name)
    game_sections = _sections_of_game(game)
    if not game_sections & set(profile.sections):
        raise data.error("jurisdiction", f"profile {profile.name} regulates {', '.join(profile.sections)}; "
                                         f"none of them is {describe(game).title}'s ({', '.join(sorted(game_sections))})")
    key = data.text("key", None)
    key = _local(key, base) if key else None

    conf = data.sub("conformance", {})
    conformance = bool(conf.raw("run", True))
    protocols = _protocols(conf)
    conf.done()
    scen = data.sub("scenarios", {})
    scenarios = bool(scen.raw("run", True))
    scenario_seed = scen.integer("seed", 7, low=0, high=2**31 - 1)
    scen.done()
    sess = data.sub("sessions", {})
    sessions = sess.integer("count", 2, low=0, high=MAX_SESSIONS)
    rounds = sess.integer("rounds", 30, low=1, high=MAX_ROUNDS)
    first_seed = sess.integer("first_seed", 1, low=0, high=2**31 - 1)
    sess.done()
    fair = data.sub("validate", {})
    runs = fair.integer("runs", 2000, low=0, high=MAX_RUNS)
    campaign_seed = fair.integer("first_seed", 0, low=0, high=2**31 - 1)
    fair.done()
    edge = data.sub("edge", {})
    edge_runs = edge.integer("runs", 500, low=0, high=MAX_RUNS)
    edge.done()
    rec = data.sub("recognize", {})
    frames = rec.integer("frames", 20, low=0, high=MAX_FRAMES)
    rec.done()
    rng = data.sub("rng", {})
    rng_run = bool(rng.raw("run", True))
    rng_collect = rng.integer("collect", 20_000, low=0, high=10_000_000)
    rng.done()
    camp = data.sub("campaigns", {})
    engine = camp.choice("engine", ("local", "ray"), "local")
    workers = camp.integer("workers", 2, low=1, high=1024)
    ray_address = camp.text("ray_address", None)
    camp.done()
    data.done()
    return Plan(name, _digest(path), lab, controller, game, submission, designs, profile, key, conformance,
                scenarios, scenario_seed, sessions, rounds, first_seed, runs, campaign_seed, edge_runs, frames,
                engine, workers, ray_address, rng_run, rng_collect, protocols)


def _protocols(conf: Fields) -> tuple[int, ...]:
    """``conformance.protocol``: the link versions a controller speaks (docs/protocol.md, section 9),
    checked each; a device that speaks only version 2 need not be failed on version 1's HELLO."""
    from bench.protocol.messages import PROTOCOL_VERSIONS
    named = conf.raw("protocol", None)
    if named is None:
        return ()
    versions = named if isinstance(named, list) else [named]
    if not versions or not all(type(v) is int and v in PROTOCOL_VERSIONS for v in versions):
        raise conf.error("protocol", f"must be a version or a list of versions of {list(PROTOCOL_VERSIONS)}, "
                                     f"got {named!r}")
    return tuple(sorted(set(versions)))


def _required(data: Fields, key: str) -> str:
    value = data.text(key)
    if not value:
        raise data.error(key, "missing")
    return value


def _check_misbehaviour(data: Fields, name: str) -> None:
    from bench.emulator.link_misbehaviours import LINK_MISBEHAVIOURS
    from bench.emulator.misbehaviours import every_misbehaviour
    known = sorted(set(every_misbehaviour()) | set(LINK_MISBEHAVIOURS))      # the Lucky RNG's (810a.5) among them
    if name not in known:
        from tablebench_io.fields import suggestion
        raise data.error("controller.misbehave", f"no misbehaviour is called {name!r}{suggestion(name, known)} "
                                                 "(bench emulate --help lists them)")


def _designs(data: Fields, base: Path, plant: str) -> tuple[str, ...]:
    import tablebench_fixtures
    from twin.errors import TwinError
    from twin.kinds import design_kind, plant_kind

    given = data.raw("designs")
    if isinstance(given, str):
        given = [given]
    if not isinstance(given, list) or not given or not all(isinstance(d, str) for d in given):
        raise data.error("designs", "must be a design or a list of designs (files, or shipped names: standard)")
    designs = []
    for number, design in enumerate(given):
        where = f"designs[{number}]"
        local = _local(design, base)
        try:
            path = local if Path(local).is_file() else tablebench_fixtures.resolve(
                design if "/" in design else f"{plant}s/{design}", "tower", "wheel")
            kind = design_kind(path)
            module, _, function = plant_kind(kind).loader.partition(":")
            getattr(importlib.import_module(module), function)(path)      # every field checked now, not mid-run
        except LocatedError as err:
            raise PlanError(f"{where}: {err}", file=data.file) from None
        except (TwinError, ValueError, OSError) as err:
            raise data.error(where, str(err)) from None
        if kind != plant:
            raise data.error(where, f"{design} is a {kind}; the game is played on a {plant}")
        designs.append(str(path))
    return tuple(designs)


def _sections_of_game(game: str) -> set[str]:
    """The sections a game's clauses are in, as its descriptor cites them."""
    from bench.rules import describe
    game_descriptor = describe(game)
    cited = [*game_descriptor.phase_clauses.values(), *game_descriptor.amount_clauses,
             *game_descriptor.lucky_draw_clauses.values(), game_descriptor.lucky_win_clause or ""]
    return {m.group(1) for c in cited if (m := _CLAUSE.match(c))}


def section_of(clause: str) -> str | None:
    """The section a clause is in: ``625b.2(d)(5)`` -> ``625b.2``; ``20:18:33:14 pay tables`` -> ``20:18:33:14``."""
    match = _SECTION.match(clause)
    return match.group(1) if match else None
