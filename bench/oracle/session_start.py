"""What a controller may still say for the round it had in flight when a
session starts or starts again: docs/protocol.md section 5, "A session
against a controller in any state".

A controller that stays powered between sessions (on a serial line) meets
each new session's HELLO with a round open from the last one; a bench that
resynchronises, or either side's RESET, does the same mid-session. From the
bench's HELLO (or a RESET, either way) until the controller's first OPEN
after its own HELLO, the controller's messages belong to no round of this
session:

- before its HELLO: what it still had in flight (frames sent before the
  HELLO reached it, sent again until acknowledged). They are journalled and
  counted as the earlier session's, and not judged;
- after its HELLO: the void of the round N it had in flight and nothing else
  naming a round, in this order: a SETTLE for each accepted wager not yet
  settled, SETTLED round=N ... void=1, CLEARED round=N;
- then OPEN of a round after N: round numbers are never reused.

A void of a round this session played is held to its wagers (each SETTLE
returns the stake of a wager accepted and not yet settled, or of one the
bench placed whose reply never reached it: a link lost mid-betting loses
ACCEPTs on the way); the void of an earlier session's round can only be held
to its order and its totals.
"""

from __future__ import annotations

from bench.oracle.records import RoundState
from tablebench_io.commandline import doc_ref

SECTION = doc_ref("protocol", 5)
_VOID_ORDER = ("SETTLE", "SETTLED", "CLEARED")


class SessionStart:
    """The controller's messages from a HELLO or RESET to its first OPEN.
    ``known`` is the round of this session that the HELLO or RESET voids."""

    def __init__(self, known: RoundState | None = None, last_round: int | None = None,
                 unanswered: dict[str, int] | None = None):
        self.known = known
        self.unanswered = dict(unanswered or {})   # wager id -> stake: placed in ``known``, no reply seen
        self.last_round = last_round        # the highest round this session has seen opened
        self.hello_seen = False
        self.void_round: int | None = None
        self.void_step = -1                 # index in _VOID_ORDER of the last void message taken
        self.settles: dict[str, int] = {}
        self.earlier_frames = 0             # messages before the controller's HELLO

    def take(self, m) -> str | None:
        """A controller message (not HELLO, RESET, ERROR or OPEN) during the
        start: None when section 5 allows it, else what is wrong with it."""
        if not self.hello_seen:
            self.earlier_frames += 1
            return None
        number = m.get("round")
        if m.type not in _VOID_ORDER:
            return (f"{m.type} for round {number} after the controller's HELLO and before its OPEN: only the "
                    f"void of the round in flight may come there ({SECTION})")
        if self.void_round is None:
            self.void_round = number
        elif number != self.void_round:
            return f"{m.type} for round {number} in the void of round {self.void_round} ({SECTION})"
        step = _VOID_ORDER.index(m.type)
        if step < self.void_step or (step == self.void_step and m.type != "SETTLE"):
            return f"{m.type} for round {number} out of the void's order SETTLE..., SETTLED, CLEARED ({SECTION})"
        self.void_step = step
        if m.type == "SETTLE":
            return self._settle(m)
        if m.type == "SETTLED":
            return self._settled(m)
        return None

    def _settle(self, m) -> str | None:
        wager_id, returned = m["id"], m["returned"]
        if wager_id in self.settles:
            return f"wager {wager_id} settled twice in the void of round {self.void_round} ({SECTION})"
        self.settles[wager_id] = returned
        r = self.known
        if r is None or r.number != self.void_round:
            return None            # an earlier session's round: its wagers are not known here
        wager = r.accepted.get(wager_id)
        stake = wager.stake if wager is not None else self.unanswered.get(wager_id)
        if stake is None or wager_id in r.settled:
            what = "was never placed" if stake is None else "was already settled"
            return f"the void of round {r.number} settles wager {wager_id}, which {what} ({SECTION})"
        if returned != stake:
            return (f"the void of round {r.number} returns {returned} for wager {wager_id}; its stake "
                    f"{stake} is due ({SECTION})")
        return None

    def _settled(self, m) -> str | None:
        problems = []
        if m.get("void") is not True:
            problems.append("without void=1")
        if m["wagers"] != len(self.settles) or m["returned"] != sum(self.settles.values()):
            problems.append(f"saying {m['wagers']} wager(s) returning {m['returned']}, the void's SETTLE "
                            f"frames say {len(self.settles)} returning {sum(self.settles.values())}")
        r = self.known
        if r is not None and r.number == self.void_round:
            unsettled = [w for w in r.accepted if w not in r.settled and w not in self.settles]
            if unsettled:
                problems.append(f"with wager(s) {', '.join(unsettled)} never returned")
        if problems:
            return f"SETTLED of the void of round {self.void_round} {'; '.join(problems)} ({SECTION})"
        return None

    def opened(self, m) -> str | None:
        """The controller's OPEN that ends the start: a round after every round seen."""
        number = m.get("round")
        before = [n for n in (self.void_round, self.last_round, self.known and self.known.number) if n is not None]
        if before and isinstance(number, int) and number <= max(before):
            return (f"OPEN round={number} after round {max(before)}: round numbers are never reused ({SECTION})")
        if self.void_round is not None and self.void_step != len(_VOID_ORDER) - 1:
            return f"OPEN round={number} before the void of round {self.void_round} was cleared ({SECTION})"
        return None
