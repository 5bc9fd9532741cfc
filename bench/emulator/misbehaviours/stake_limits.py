"""Stakes at the limits (bench.rules.cover.boundary_stakes) refused."""

from __future__ import annotations

from bench.emulator.misbehaviours.core import (ALL_GAMES, misbehaviour, Policy)


@misbehaviour
class RefuseMaxStake(Policy):
    name = "refuse-max-stake"
    games = ALL_GAMES
    clause = "601a.2"
    summary = "refuses a stake of exactly the submission's maximum (a limit taken as 'below the maximum')"

    def refuse_lawful_stake(self, ctrl, stake):
        return stake == ctrl.rules.max_stake


@misbehaviour
class RefuseMinStake(Policy):
    name = "refuse-min-stake"
    games = ALL_GAMES
    clause = "601a.2"
    summary = "refuses a stake of exactly the submission's minimum (a limit taken as 'above the minimum')"

    def refuse_lawful_stake(self, ctrl, stake):
        return stake == ctrl.rules.min_stake

