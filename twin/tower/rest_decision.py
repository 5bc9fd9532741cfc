"""Whether a rest with a die not flat stands: the engine's tilt trial
(``twin.tower.resting.try_rest``) and the whole-group static check
(``twin.tower.statics``), each where it is the better judge (issue 39.2).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from twin.physics_engine import pybullet as pb

from twin.tower.design import TowerDesign
from twin.tower.resting import TILT_DEG, TILT_DIRECTIONS, try_rest
from twin.tower.world import World

TRIAL_BAND_DEG = 0.5                 # outside the trial's tilt give or take this, the check decides a rest
# A rest the check cannot hold, which the engine held at 2 deg, is tried at
# these, watching only the dice not flat: all below the ~11.3 deg at which a
# flat die slides on the felt (friction 0.4 x 0.5), so a knock never counts a
# flat die's slide as the rest giving way.
KNOCK_TILTS_DEG = (4.0, 8.0, 11.0)


def trial_verdict(design: TowerDesign, poses, dice: Sequence[int]) -> str:
    """What the check says of a rest the drop is about to try (issue 39.2):
    ``"holds"`` when every group of dice touching one of ``dice`` (0-based,
    the dice not flat) stands gravity tilted ``TILT_DEG + TRIAL_BAND_DEG``
    towards each of the eight directions, ``"fails"`` when one of them is not
    held under ``TILT_DEG - TRIAL_BAND_DEG`` towards one of them (or under
    level gravity), ``"either"`` otherwise: within half a degree of the
    trial's own tilt, where the engine's trial decides. Up to 17 linear
    programs a group, no bisection."""
    # SciPy's linear programs are imported only by a drop that has a rest to decide.
    from twin.tower.statics import Scene, can_hold, contacts_and_groups, group_contacts, group_with, tilted_gravity
    scene = Scene(design, poses)
    own, pairs, group_of = contacts_and_groups(scene)
    groups = {group_with(group_of, i) for i in dice}
    verdict = "holds"
    for group in sorted(groups):
        contacts = group_contacts(group, own, pairs)
        if not can_hold(scene, group, contacts, np.array([0.0, 0.0, -1.0])):
            return "fails"
        if not all(can_hold(scene, group, contacts, tilted_gravity(k, TILT_DEG - TRIAL_BAND_DEG))
                   for k in range(TILT_DIRECTIONS)):
            return "fails"
        if verdict == "holds" and not all(can_hold(scene, group, contacts, tilted_gravity(k, TILT_DEG + TRIAL_BAND_DEG))
                                          for k in range(TILT_DIRECTIONS)):
            verdict = "either"
    return verdict


def decide_rest(world: World, design: TowerDesign, timestep_s: float, is_flat: Callable[[tuple], bool],
                keep_rest: bool = False) -> tuple[list[bool] | None, int]:
    """Whether a rest with a die not flat stands (``(None, 0)``, the world as
    it lay) or gives way (per die whether it moved, and the steps the world
    went on for: ``try_rest``'s answer).

    ``is_flat`` of a pose says whether a die lies flat. The engine's trial
    alone disagreed with the whole-group static check (``twin.tower.statics``)
    on rests far from its 2 deg: it knocked over rests the check holds
    against 2.5-8.75 deg (the engine's persistent contact points against the
    geometry's, or a cocked die's creep of just over 3 mm), and kept one the
    check cannot hold even level. So the check decides where it is clear,
    half a degree or more either side of the trial's tilt: a rest it holds
    at 2.5 deg every way is kept as it lay, untried; one it cannot hold at
    1.5 deg is tried, and if the engine still holds it, tried under steeper
    tilts (``KNOCK_TILTS_DEG``, only the dice not flat watched) until it
    gives way. In the band between, the engine's trial decides, as before. A
    rest the engine holds under every steeper tilt too is kept (none in 1,000
    narrow drops, docs/tower.md)."""
    poses = [pb.getBasePositionAndOrientation(die, physicsClientId=world.client) for die in world.dice]
    not_flat = [i for i, pose in enumerate(poses) if not is_flat(pose)]
    verdict = trial_verdict(design, poses, not_flat)
    if verdict == "holds":
        return None, 0
    gave, steps = try_rest(world, timestep_s, is_flat, keep_rest=keep_rest)
    if verdict == "fails":
        for tilt in KNOCK_TILTS_DEG:
            if gave is not None:
                break
            gave, steps = try_rest(world, timestep_s, is_flat, keep_rest=keep_rest, tilt_deg=tilt, watched=not_flat)
    return gave, steps
