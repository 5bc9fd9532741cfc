"""Probe wagers: placed every round beside the players' wagers, each one a
wager a compliant controller must refuse (docs/protocol.md, REFUSE):

- a bet the game does not offer (``unknown-bet``, the rules' clause);
- a stake of zero (``bad-stake``);
- a stake over the submission's maximum (``bad-stake``, 601a.2);
- a stake under its minimum, where the minimum is above 1 (``bad-stake``,
  601a.2; under a minimum of 1 that stake is 0, the probe above);
- a wager id already used in the round (``duplicate-id``).

The oracle judges the replies (``bench.oracle``): accepting any of them is a
violation naming the clause. A negative stake is not among them: the protocol's
integers are unsigned, so no frame can carry one (a decoder NAKs it as
malformed, which is the link's business, docs/protocol.md section 3).
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.rules import Wager
from bench.rules.cover import not_offered, stake_limits


@dataclass(frozen=True)
class ProbeWager:
    wager: Wager
    breaks: str            # what makes it unlawful, for the journal and the log


def probe_wagers(game: str, rules, round_no: int, placed: list[Wager]) -> list[ProbeWager]:
    """The round's probe wagers; ``placed`` are the players' wagers (one of
    their ids is used again). Offered bets are taken from them, so each probe
    breaks one thing only."""
    if not placed:
        return []
    first = placed[0]
    low, high = stake_limits(rules)
    probes = [
        ProbeWager(Wager(f"r{round_no}x1", not_offered(game), max(low, 100)), "a bet the game does not offer"),
        ProbeWager(Wager(f"r{round_no}x2", first.bet, 0), "a stake of zero"),
    ]
    if high is not None:
        probes.append(ProbeWager(Wager(f"r{round_no}x3", first.bet, high + 1), "a stake over the table's maximum"))
    if low > 1:
        probes.append(ProbeWager(Wager(f"r{round_no}x4", first.bet, low - 1), "a stake under the table's minimum"))
    probes.append(ProbeWager(Wager(first.id, first.bet, first.stake), "a wager id already used in the round"))
    return probes
