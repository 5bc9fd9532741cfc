"""What the bench needs to know about a game besides its settlement rules:
how its outcome comes about, what the controller commands on the wire, which
clause orders each phase of a round, which plant plays it, which classes of
outcome decide its payouts (each session stages those it has not seen,
``bench.play.coverage``), which clause governs each part of its Lucky draw
and what the simulated players bet.

Each game module in ``bench/rules`` builds one ``GameDescriptor`` and hangs it
on its game object (``game.descriptor``); everything outside ``bench/rules``
asks ``describe(name)`` instead of keeping its own per-game table. The fields
are plain data (no code), so a game file can change them without a patch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from bench.rules.outcome_classes import OutcomeClass
# Kinds of outcome and what a no roll does: one object per kind, reached as
# ``GameDescriptor.outcome`` (the names stay importable from here).
from bench.rules.outcome_kind import (CRAPS, DICE3, KINDS, NO_ROLL_AGAIN, NO_ROLL_VOIDS, WHEEL, OutcomeKind,
                                      outcome_kind)

def frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


# Where an order-of-events finding cites no regulation (docs/protocol.md).
PROTOCOL = "protocol"


@dataclass(frozen=True)
class GameDescriptor:
    name: str
    kind: str                                   # DICE3, WHEEL or CRAPS
    command: str                                # what the controller sends the plant: RELEASE, SPIN, ROLL
    plant: str                                  # the physics plant that plays it (bench.play.plant)
    phase_clauses: Mapping[str, str]            # phase -> the clause ordering it (see PHASES)
    late_bet: str                               # a lawful bet to place after no more bets
    quiet_outcome: Mapping[str, object]         # an outcome no default wager cares about much
    players: tuple[tuple[str, int], ...]        # the default player mix: (bet, weight)
    lightning: bool = False                     # Lucky Numbers revealed each round
    lucky_win_clause: str | None = None         # a winning wager on a Lucky Number
    amount_clauses: tuple[str, ...] = ()        # the clauses that set a win's amount (a wrong one cites one of them)
    title: str = ""                             # the game's name for people ("Lightning Dice")
    default_paytable: str | None = None         # when the game has several
    no_roll: str | None = None                  # NO_ROLL_VOIDS, NO_ROLL_AGAIN or None (a wheel)
    # The classes of outcome that decide a payout (bench.rules.outcome_classes): a
    # session stages each one it has not seen yet (bench.play.coverage).
    outcome_classes: tuple[OutcomeClass, ...] = ()
    # The lightning games: the clause each part of the Lucky draw answers to, as
    # the oracle judges the draws over a session (bench.oracle.lucky_draw); see LUCKY_DRAW.
    lucky_draw_clauses: Mapping[str, str] = field(default_factory=lambda: frozen({}))
    phases: Mapping[str, float] = field(default_factory=lambda: frozen({}))   # phase lengths a game file sets (betting, lucky, result, clear)
    base: str | None = None                     # a game file's variant: the built-in game it varies
    source: str | None = None                   # the game file a variant came from
    source_text: str | None = None              # its text, as read (the journal keeps it)
    # How the covering players cover the layout (a key of bench.rules.cover.COVERS);
    # None: every bet the game offers.
    cover: object | None = None
    # A bet the game does not offer, placed every round by the probe wagers
    # (bench.play.probe_wagers): a controller must refuse it.
    not_offered: str = "no-such-bet"

    @property
    def display_name(self) -> str:
        """The title, and a game file's variant by its own name too."""
        if self.base and self.title:
            return f"{self.title} ({self.name})"
        return self.title or self.name

    @property
    def built_in(self) -> str:
        """The built-in game this one is (itself, or the game a game file varies)."""
        return self.base or self.name

    @property
    def outcome(self) -> OutcomeKind:
        """The kind of outcome as an object, with this game's no-roll rule:
        its wire fields, reading checks, quiet reading and display."""
        return outcome_kind(self.kind, self.no_roll)

    # The flags below are the outcome kind's (kept for callers inside bench/rules);
    # outside bench/rules ask ``outcome`` what to do rather than branch on them.
    @property
    def dice_count(self) -> int:
        """Dice read per throw: 0 for a wheel."""
        return self.outcome.dice_count

    @property
    def pocket(self) -> bool:
        """The outcome is a pocket, not dice."""
        return self.kind == WHEEL

    @property
    def rolls(self) -> bool:
        """A round is a sequence of numbered rolls, each settling what it resolves."""
        return self.outcome.throws_until_bets_resolve()

    @property
    def betting_clause(self) -> str:
        """The clause that closes betting: cited when a late wager is refused."""
        return self.phase_clause("betting")

    def phase_clause(self, phase: str) -> str:
        """The clause ordering ``phase``; ``PROTOCOL`` when no regulation orders it."""
        return self.phase_clauses.get(phase, PROTOCOL)


# Phase names of ``phase_clauses``:
#   betting      wagers only while betting is open; refusing a lawful one is a finding too
#   lucky        when the Lucky Numbers may be revealed
#   lucky_count  how many must be revealed (missing Lucky Numbers)
#   trigger      the drop / spin / throw only on the dealer's trigger, after no more bets
#   result       the outcome announced is the one the plant showed
#   no_roll      a no roll called exactly when a die did not land flat
#   settlement   every wager settled once, before the table is cleared
PHASES = ("betting", "lucky", "lucky_count", "trigger", "result", "no_roll", "settlement")


# Parts of ``lucky_draw_clauses``:
#   count      how many Lucky Numbers a round reveals, against the submission's distribution
#   positions  which betting positions they fall on
#   odds       the enhanced odds each gets
#   repeat     a round's Lucky Numbers drawn again right after a no roll or a void
LUCKY_DRAW = ("count", "positions", "odds", "repeat")


def lucky_draw_clauses(**by_part: str) -> Mapping[str, str]:
    unknown = set(by_part) - set(LUCKY_DRAW)
    if unknown or set(by_part) != set(LUCKY_DRAW):
        raise ValueError(f"give a clause for each of {', '.join(LUCKY_DRAW)}; got {sorted(by_part)}")
    return MappingProxyType(dict(by_part))


def clauses(**by_phase: str) -> Mapping[str, str]:
    """A read-only phase -> clause mapping, refusing a phase name not in PHASES."""
    unknown = set(by_phase) - set(PHASES)
    if unknown:
        raise ValueError(f"unknown phase(s) {sorted(unknown)}; phases: {', '.join(PHASES)}")
    return MappingProxyType(dict(by_phase))




__all__ = ["CRAPS", "DICE3", "GameDescriptor", "KINDS", "LUCKY_DRAW", "NO_ROLL_AGAIN", "NO_ROLL_VOIDS", "PHASES",
           "PROTOCOL", "WHEEL", "clauses", "frozen", "lucky_draw_clauses"]
