"""Dice at true size, and rests decided by physics.

True size: every part of the tower collides where the design puts it (a die
2 mm from a part is 2 mm from it in the engine), flat dice rest at half an
edge above the felt and stacked dice an edge apart. Rests: a die not flat is
kept exactly as it lay when the static check holds it clearly or it stands
gravity tilted 2 deg every way, and is let fall when it does not; what holds
it is read from the engine's contacts, and an independent check (``twin.tower.statics``: contacts from the dice's
geometry, forces from a linear program) agrees that it is held."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from twin.physics_engine import pybullet as pb

from twin.tower import drop, load_design
from twin.tower import dropping
from twin.tower.dropping import _Engine, _flat
from twin.tower.resting import try_rest
from twin.tower.statics import check_poses, check_rest
from twin.tower.world import die_core, layout, place_dice

TOWERS = Path(__file__).resolve().parents[2] / "fixtures" / "towers"
MM = 0.001


@pytest.fixture(scope="module")
def standard():
    return load_design(TOWERS / "standard.yaml")


@pytest.fixture(scope="module")
def narrow():
    return load_design(TOWERS / "narrow-tray.yaml")


def world_with(design, poses):
    """A new world of ``design`` with dice at ``poses`` (the door parked)."""
    engine = _Engine(design)
    place_dice(engine.world, design, poses)
    pb.resetBasePositionAndOrientation(engine.world.door, dropping.DOOR_PARKED, (0, 0, 0, 1),
                                       physicsClientId=engine.client)
    return engine.world


def settle(world, seconds: float = 1.5):
    for _ in range(round(seconds * 240)):
        pb.stepSimulation(physicsClientId=world.client)
    return [pb.getBasePositionAndOrientation(d, physicsClientId=world.client) for d in world.dice]


def turned(axis, degrees):
    return pb.getQuaternionFromAxisAngle(axis, math.radians(degrees))


# --- true size -------------------------------------------------------------------------------------

def test_every_part_of_the_tower_collides_at_its_design_size(standard):
    # A die 2 mm outside each face of each part (turned so that a face looks
    # at it) is 2 mm from it in the engine: no margin pads a die or a part.
    world = world_with(standard, [((0, 0, 1.0), (0, 0, 0, 1))])
    die, half = world.dice[0], standard.dice.edge_m / 2
    bodies = sorted(world.walls | world.obstacles | {world.floor})
    parts = [p for p in layout(standard) if p.role != "door"]
    assert len(bodies) == len(parts)
    checked = 0
    for body, part in zip(bodies, parts):
        rot = np.array(pb.getMatrixFromQuaternion(part.orientation)).reshape(3, 3)
        if part.shape == "cylinder":        # a rod: its round side, across its axis
            faces = [(rot[:, a] * s, part.size[0]) for a in (0, 1) for s in (1, -1)]
        else:
            faces = [(rot[:, a] * s, part.size[a]) for a in range(3) for s in (1, -1)]
        for normal, reach in faces:
            # The die turned as the part is, so that a face of it looks at the part's face.
            centre = np.array(part.position) + normal * (reach + 2 * MM + half)
            pb.resetBasePositionAndOrientation(die, centre.tolist(), part.orientation, physicsClientId=world.client)
            gaps = [c[8] for c in pb.getClosestPoints(die, body, 0.01, physicsClientId=world.client)]
            assert min(gaps) == pytest.approx(2 * MM, abs=0.02 * MM), (part, normal)
            checked += 1
    assert checked == 6 * sum(p.shape == "box" for p in parts) + 4 * sum(p.shape == "cylinder" for p in parts)


def test_flat_dice_rest_half_an_edge_above_the_felt_and_stack_an_edge_apart(standard):
    edge = standard.dice.edge_m
    world = world_with(standard, [((0.0, 0.0, edge / 2 + MM), (0, 0, 0, 1)),
                                  ((0.0, 0.0, 1.5 * edge + 3 * MM), turned((0, 0, 1), 20))])
    (low, _), (high, _) = settle(world)
    assert low[2] == pytest.approx(edge / 2, abs=0.1 * MM)
    assert high[2] - low[2] == pytest.approx(edge, abs=0.1 * MM)


def test_dropped_dice_that_lie_flat_rest_at_half_an_edge(standard):
    heights = [d.position_m[2] for seed in range(40) for d in drop(standard, seed).dice if d.flat]
    assert len(heights) >= 100
    assert max(abs(h - standard.dice.edge_m / 2) for h in heights) <= 0.1 * MM
    # Before the dice had their true size, they rested 13.4-13.5 mm high.
    assert np.median(heights) == pytest.approx(0.0125, abs=0.03 * MM)


def test_a_die_against_a_wall_rests_half_an_edge_from_it(narrow):
    edge, wall = narrow.dice.edge_m, narrow.tray.width_m / 2
    world = world_with(narrow, [((wall - edge / 2 - 2 * MM, 0.0, edge / 2 + MM), (0, 0, 0, 1))])
    pb.setGravity(3.0, 0, -9.81, physicsClientId=world.client)       # the tray tilted towards the wall
    (pos, _), = settle(world, 1.0)
    assert wall - pos[0] == pytest.approx(edge / 2, abs=0.1 * MM)


# --- rests decided by physics ------------------------------------------------------------------------

def leaning(design, degrees: float, against: str):
    """A die turned ``degrees`` about y resting on its edge with its top
    against the tray's right wall (``against="wall"``) or on a flat die
    beside it (``"die"``), settled under gravity."""
    edge, wall, r = design.dice.edge_m, design.tray.width_m / 2, design.dice.corner_radius_m
    orn = turned((0, 1, 0), -degrees)
    inner = np.array(die_core(edge, r)) @ np.array(pb.getMatrixFromQuaternion(orn)).reshape(3, 3).T
    below, right = r - inner[:, 2].min(), inner[:, 0].max() + r
    if against == "wall":
        poses = [((wall - right, 0.0, below), orn)]
    else:
        poses = [((wall - edge / 2, 0.0, edge / 2), (0, 0, 0, 1)),
                 ((wall - edge - right, 0.0, below), orn)]
    world = world_with(design, poses)
    settle(world)
    return world


def is_flat(design):
    return lambda pose: _flat(design, *pose)


@pytest.mark.parametrize("degrees,against", [(36, "wall"), (36, "die"), (40, "die")])
def test_a_die_that_leans_where_a_real_die_would_is_kept_exactly_as_it_lies(narrow, degrees, against):
    # The seed 72748: a die leaning 36 deg on another, which holds
    # under a 4 deg tilt, was nudged flat by the old rest check.
    world = leaning(narrow, degrees, against)
    before = [pb.getBasePositionAndOrientation(d, physicsClientId=world.client) for d in world.dice]
    cocked = before[-1]
    assert not _flat(narrow, *cocked) and cocked[0][2] < narrow.dice.edge_m     # on the felt, leaning
    gave, steps = try_rest(world, narrow.physics.timestep_s, is_flat(narrow))
    assert gave is None and steps == 0
    after = [pb.getBasePositionAndOrientation(d, physicsClientId=world.client) for d in world.dice]
    assert after == before                                  # put back bit for bit: nothing changed
    verdicts = check_poses(narrow, before, [len(before) - 1])
    assert verdicts[0].stands_tilts and (against in verdicts[0].touching[0]), verdicts[0].describe()


def test_a_die_balanced_on_its_edge_in_the_open_gives_way(narrow):
    edge = narrow.dice.edge_m
    lift = edge / 2 * math.sqrt(2) - (math.sqrt(2) - 1) * narrow.dice.corner_radius_m
    world = world_with(narrow, [((0.0, 0.0, lift), turned((0, 1, 0), 45))])
    for _ in range(20):                                     # contacts made, still balanced
        pb.stepSimulation(physicsClientId=world.client)
    pose = pb.getBasePositionAndOrientation(world.dice[0], physicsClientId=world.client)
    assert not _flat(narrow, *pose)
    gave, steps = try_rest(world, narrow.physics.timestep_s, is_flat(narrow))
    assert gave == [True] and steps > 0
    balanced = check_poses(narrow, [pose], [0])[0]
    assert not balanced.stands_tilts                         # the check agrees: a 2 deg tilt tips it


# Narrow-tray drops (seed 93000 on) whose dice rest not flat: lying on or
# leaning against another die, leaning on a wall (picked again when the rest
# came to be solved in substeps, issue 39); 93061 first rested with a die
# that gave way under the tilts and fell flat.
HELD = [93029, 93114, 93137, 93169, 93173, 93194]
FELL = 93061


@pytest.fixture(scope="module")
def held_drops(narrow):
    return {seed: drop(narrow, seed) for seed in HELD + [FELL]}


def test_every_die_not_flat_is_held_by_contacts_the_twin_reports_and_the_check_agrees(narrow, held_drops):
    weight = narrow.dice.mass_kg * 9.81
    holders = set()
    for seed in HELD:
        result = held_drops[seed]
        assert result.settled and result.no_roll
        verdicts = iter(check_rest(narrow, result))
        for die in (d for d in result.dice if not d.flat):
            verdict = next(verdicts)
            assert die.supported and die.reason in ("wall", "die"), (seed, die)
            beside = [h for h in die.held_by if h.kind != "floor"]
            assert beside and die.held_at_m == beside[0].at_m
            # The engine's own forces carry the die: their sum is its weight, upwards.
            total = np.sum([h.force_n for h in die.held_by], axis=0)
            assert total == pytest.approx([0.0, 0.0, weight], abs=0.05 * weight), (seed, total)
            # The check, from the geometry alone, finds it held and touching what the twin names.
            assert verdict.stands_tilts, (seed, verdict.describe())
            named = {f"die {h.die + 1}" if h.kind == "die" else h.kind for h in die.held_by if h.push_n > 0.02 * weight}
            assert named <= set(verdict.touching), (seed, named, verdict.touching)
            holders.add(die.reason)
        assert json.loads(result.to_json())["dice"] is not None
    assert holders == {"wall", "die"}


def test_a_rest_that_stands_is_reported_as_the_physics_left_it(narrow, held_drops, monkeypatch):
    # The judgement changes nothing that is stable: the check keeps these rests untried, and the
    # engine's trial, made to run on them, puts the world back exactly as it lay: the same drop.
    from twin.tower import rest_decision
    monkeypatch.setattr(rest_decision, "trial_verdict", lambda *args: "either")
    tried = {seed: drop(narrow, seed) for seed in HELD[:3]}
    monkeypatch.setattr(dropping, "MAX_TRIALS", 0)
    for seed in HELD[:3]:
        assert drop(narrow, seed) == held_drops[seed] == tried[seed]


def test_a_rest_that_gives_way_falls_on(narrow, held_drops, monkeypatch):
    fell = held_drops[FELL]
    assert fell.gave_way == 1 and not fell.no_roll and fell.settled
    monkeypatch.setattr(dropping, "MAX_TRIALS", 0)
    first = drop(narrow, FELL)
    assert first.no_roll and first.settle_time_s < fell.settle_time_s   # it had come to rest cocked first


# Narrow-tray drop 423 (4 substeps at rest): the engine's trial alone knocked
# over its cocked rest, which the static check holds against 8.75 deg
# (docs/tower.md, the third round).
CHECK_HOLDS = 423


def _holding_tilt(design, result) -> float:
    return min((v.holding_tilt_deg or 0.0) if v.held else 0.0 for v in check_rest(design, result, holding_tilt=True))


def test_a_rest_the_static_check_holds_clearly_is_kept_though_the_engine_trial_would_knock_it_over(narrow, monkeypatch):
    # Issue 39.2: a rest the check holds against 2.5 deg every way is kept as it lay ...
    kept = drop(narrow, CHECK_HOLDS)
    assert kept.no_roll and kept.gave_way == 0
    assert _holding_tilt(narrow, kept) >= 2.5
    # ... where the engine's trial alone (the check's verdict taken away) knocks it over.
    from twin.tower import rest_decision
    monkeypatch.setattr(rest_decision, "trial_verdict", lambda *args: "either")
    assert drop(narrow, CHECK_HOLDS).gave_way >= 1


def test_a_rest_the_static_check_cannot_hold_gives_way_though_the_engine_holds_it_at_2_degrees(narrow, monkeypatch):
    # No drop of seeds 0-999 has such a rest now; the check's verdict is stood in for on a rest
    # the engine holds at 2 deg (HELD[1], a die leaning on a wall): it is tried again at 4, 8
    # and 11 deg, its cocked die watched (a flat die's slide does not count), until it gives way.
    from twin.tower import rest_decision
    monkeypatch.setattr(rest_decision, "trial_verdict", lambda *args: "either")
    held = drop(narrow, HELD[1])
    assert held.gave_way == 0 and held.no_roll
    monkeypatch.setattr(rest_decision, "trial_verdict", lambda *args: "fails")
    knocked = drop(narrow, HELD[1])
    assert knocked.gave_way >= 1 and knocked.settled


REPLAY = """
import sys
from twin.tower import drop, load_design
design = load_design(sys.argv[1])
for seed in sys.argv[2:]:
    print(drop(design, int(seed)).to_json())
"""


def test_drops_whose_rests_are_tried_are_the_same_in_another_process(narrow, held_drops):
    seeds = [FELL, HELD[2], HELD[4]]
    out = subprocess.run([sys.executable, "-c", REPLAY, str(TOWERS / "narrow-tray.yaml"), *map(str, seeds)],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert [json.loads(line) for line in out.splitlines()] == [held_drops[s].to_dict() for s in seeds]


# --- the independent check on poses it is given ---------------------------------------------------------

def test_the_check_finds_a_die_held_only_when_something_touches_it_on_its_falling_side(standard):
    edge, r = standard.dice.edge_m, standard.dice.corner_radius_m
    wall = standard.tray.width_m / 2
    orn = turned((0, 1, 0), -40)
    rot = np.array(pb.getMatrixFromQuaternion(orn)).reshape(3, 3)
    inner = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * (edge / 2 - r) @ rot.T
    z = -inner[:, 2].min() + r
    right = inner[:, 0].max() + r

    def verdict(x):
        return check_poses(standard, [((x, 0.0, z), orn)], [0])[0]

    against = verdict(wall - right)
    assert against.stands_tilts and against.touching == ("wall", "floor"), against.describe()
    assert not verdict(0.0).held                        # in the open: nothing stops the fall
    gap = verdict(wall - right - 1 * MM)                # 1 mm short of the wall, as a 27 mm die would look
    assert not gap.held and gap.touching == ("floor",)
