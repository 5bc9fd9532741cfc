"""Violations grouped into findings, so that a report reads at a glance.

A misbehaving controller breaks a clause the same way for every wager of a
round: pay-on-no-roll gives twenty violations in one round, each "wager r2cN
(bet, stake S) returned X; the rules give Y". They are one finding. A
finding is the violations of one clause in one round whose messages differ
only in what names a wager or counts money: the wager's id and its
parenthesised (bet, stake), and the numbers. Each finding is shown once, with
its first violation in full and a count, the rest a click away.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# What varies between the violations of one finding: a wager named with its
# (bet, stake), a wager's or frame's id, a quoted id, and every number.
_WAGER = re.compile(r"\bwagers?(?:\(s\))? (?:'[^']*'|[\w:.-]+)(?: \([^)]*\))?")
_QUOTED = re.compile(r"'[^']*'")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# A citation inside a message keeps its numbers: (625b.2(d)(5)) is the clause, not a count.
_CLAUSE = re.compile(r"\b\d{3}[a-z]?\.\d+(?:\([a-z0-9]+\))+")


def shape_of(message: str) -> str:
    """The message with what names a wager or counts money taken out: the
    same for every violation of one finding."""
    clauses: list[str] = []

    def keep(match: re.Match) -> str:
        clauses.append(match.group(0))
        return chr(0xE000 + len(clauses) - 1)      # a private-use character: no pattern below touches it
    text = _CLAUSE.sub(keep, message)
    text = _WAGER.sub("wager …", text)
    text = _QUOTED.sub("'…'", text)
    text = _NUMBER.sub("#", text)
    return re.sub("[\ue000-\ue0ff]", lambda m: clauses[ord(m.group(0)) - 0xE000], text)


@dataclass
class Finding:
    clause: str
    round: int | None
    shape: str
    violations: list = field(default_factory=list)     # the oracle's Violations, in journal order

    @property
    def first(self):
        return self.violations[0]

    @property
    def count(self) -> int:
        return len(self.violations)


def findings(violations) -> list[Finding]:
    """The violations grouped by (clause, round, shape of the message), in
    the order each finding first appears."""
    grouped: dict[tuple, Finding] = {}
    for v in violations:
        key = (v.clause, v.round, shape_of(v.message))
        if key not in grouped:
            grouped[key] = Finding(v.clause, v.round, key[2])
        grouped[key].violations.append(v)
    return list(grouped.values())
