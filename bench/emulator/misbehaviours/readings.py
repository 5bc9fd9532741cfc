"""Another reading of an ambiguous clause than the submission declares."""

from __future__ import annotations

import dataclasses

from bench.emulator.misbehaviours.core import (LIGHTNING_DICE, SIC_BO, misbehaviour, Policy)


class _OtherReading(Policy):
    option = ""
    reading = ""

    def _rules(self, ctrl):
        return dataclasses.replace(ctrl.rules, options={**dict(ctrl.rules.options), self.option: self.reading})

    def settle(self, ctrl, round_, wagers):
        return {s.wager_id: s.returned for s in ctrl.game.settle(round_, wagers, self._rules(ctrl))}


@misbehaviour
class AnyDoubleLosesOnTriple(_OtherReading):
    name = "any-double-loses-on-triple"
    games = frozenset({LIGHTNING_DICE})
    option, reading = "any_double_on_triple", "loses"
    clause = "625b.2(f)"
    rare = True
    summary = "reads 625b.2(e)(3) as 'exactly two dice' (any double loses on a triple) against the submission's 'wins'"


@misbehaviour
class LowHighByLabel(_OtherReading):
    name = "low-high-by-label"
    games = frozenset({LIGHTNING_DICE})
    option, reading = "low_high", "paytable-label"
    clause = "625b.2(f)"
    clauses = {LIGHTNING_DICE: ("625b.2(e)(1)", "625b.2(e)(2)", "625b.2(f)")}
    summary = "settles low and high by (f)'s labels (3-9, 12-18) against the submission's small/big reading of (e)(1),(2)"


@misbehaviour
class NoRollOnlyIfAllCocked(Policy):
    name = "no-roll-only-if-all-cocked"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(d)(5)"
    rare = True
    summary = "reads (d)(5) 'all three dice fail to land flat' literally against the submission's 'any die'"

    def no_roll(self, ctrl, flat, lawful):
        return not any(flat)


@misbehaviour
class DoubleLosesOnTriple(_OtherReading):
    name = "double-loses-on-triple"
    games = frozenset({SIC_BO})
    option, reading = "double_on_triple", "loses"
    clause = "625a.6(a)"
    rare = True
    summary = "lets a double bet lose on a triple of its number, against the submission's reading of 625a.3(2)"

