"""What a controller may still say for the round it had in flight when a
session starts or starts again: docs/protocol.md section 5, "A session
against a controller in any state".

A controller that stays powered between sessions (on a serial line) meets
each new session's HELLO with a round open from the last one; a bench that
resynchronises, or either side's RESET, does the same mid-session. From the
bench's HELLO (or a RESET, either way) until the controller's first OPEN
after its own HELLO:

- before the controller's answer (its RESET or its HELLO): what it still had
  in flight, sent before the bench's HELLO or RESET reached it. Only a
  message naming a round this session never saw opened belongs to the
  earlier session: every message at a session's first HELLO, and later one
  naming a round before the first this session opened. Those are journalled,
  counted, and not judged; every other message is this session's, judged as
  the round it names (a SETTLE of the round in flight is held to that
  round's settlement, an OPEN of the next round opens it);
- between the controller's RESET and its HELLO: nothing naming a round;
- after its HELLO: the void of the round N it had in flight and nothing else
  naming a round, in this order: a SETTLE for each accepted wager not yet
  settled, SETTLED round=N ... void=1, CLEARED round=N;
- then OPEN of a round after N, and after every round the earlier session's
  frames named: round numbers are never reused.

A void of a round this session played is held to its wagers (each SETTLE
returns the stake of a wager accepted and not yet settled, or of one the
bench placed whose reply never reached it: a link lost mid-betting loses
ACCEPTs on the way), and its SETTLED counts every SETTLE of the round, those
before the void included. When the controller's numbering shows that
messages were lost on the link (its answer's number is past the one after
the last message that crossed: a device unplugged takes what was on the
line), the wagers settled in none of the SETTLEs that crossed are the
link's: not judged, and SETTLED is held only to what crossed. The void of
an earlier session's round can only be held to its order and its totals.
"""

from __future__ import annotations

from bench.oracle.records import RoundState
from tablebench_io.commandline import doc_ref

SECTION = doc_ref("protocol", 5)
_VOID_ORDER = ("SETTLE", "SETTLED", "CLEARED")


class SessionStart:
    """The controller's messages from a HELLO or RESET to its first OPEN.
    ``first_round``: the first round this session saw opened (None: none
    yet). ``known`` (set when the controller answers) is the round of this
    session that the HELLO or RESET voids."""

    def __init__(self, first_round: int | None = None):
        self.first_round = first_round
        self.answered = False               # the controller's RESET or HELLO has come
        self.hello_seen = False
        self.known: RoundState | None = None
        self.unanswered: dict[str, int] = {}    # wager id -> stake: placed in ``known``, no reply seen
        self.last_round: int | None = None  # the highest round this session has seen opened
        self.lost = 0                       # the controller's messages the link lost (its numbering's gap)
        self.void_round: int | None = None
        self.void_step = -1                 # index in _VOID_ORDER of the last void message taken
        self.settles: dict[str, int] = {}
        self.earlier_frames = 0             # messages before the controller's answer, the earlier session's
        self.earlier_max: int | None = None     # the highest round those named
        self.earlier_settles: dict[tuple[object, str], int] = {}   # (round, wager id) -> returned, among them
        self.lost_wagers: list[str] = []    # wagers of ``known`` whose settlement the link lost

    def earlier(self, m) -> bool:
        """Whether ``m``, before the controller's answer, is the earlier
        session's: it names a round this session never saw opened."""
        if self.first_round is not None:
            number = m.get("round")
            if not (isinstance(number, int) and not isinstance(number, bool) and number < self.first_round):
                return False
        self.earlier_frames += 1
        number = m.get("round")
        if isinstance(number, int) and not isinstance(number, bool):
            self.earlier_max = number if self.earlier_max is None else max(self.earlier_max, number)
        if m.type == "SETTLE":
            self.earlier_settles[number, m.get("id")] = m.get("returned")
        return True

    def take(self, m) -> str | None:
        """A controller message (not HELLO, RESET, ERROR or OPEN) after its
        answer: None when section 5 allows it, else what is wrong with it."""
        number = m.get("round")
        if not self.hello_seen:
            return (f"{m.type} for round {number} after the controller's RESET and before its HELLO: nothing "
                    f"naming a round may come there ({SECTION})")
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

    def _ours(self) -> RoundState | None:
        """The round of this session being voided, if the void is of one."""
        r = self.known
        return r if r is not None and r.number == self.void_round else None

    def _settle(self, m) -> str | None:
        wager_id, returned = m["id"], m["returned"]
        if wager_id in self.settles:
            return f"wager {wager_id} settled twice in the void of round {self.void_round} ({SECTION})"
        self.settles[wager_id] = returned
        r = self._ours()
        if r is None:
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
        """SETTLED counts every SETTLE of the round (section 4), those before
        the void included: for this session's round, exactly those that
        crossed, unless the link lost some; for an earlier session's, at
        least those seen."""
        problems = []
        if m.get("void") is not True:
            problems.append("without void=1")
        said, total = m["wagers"], m["returned"]
        r = self._ours()
        if r is not None:
            seen = {**r.settled, **self.settles}
            missing = [w for w in r.accepted if w not in seen]
            if self.lost and missing:
                # Settled, perhaps, in what the link lost: those wagers are not judged.
                self.lost_wagers = missing
                low, high = len(seen), len(seen) + len(missing)
                if not low <= said <= high or total < sum(seen.values()):
                    problems.append(f"saying {said} wager(s) returning {total}; the SETTLE frames that crossed "
                                    f"say {len(seen)} returning {sum(seen.values())}, and at most "
                                    f"{len(missing)} more may have been lost with the link ({self.lost} "
                                    f"message(s) lost)")
            else:
                if said != len(seen) or total != sum(seen.values()):
                    problems.append(f"saying {said} wager(s) returning {total}, the round's SETTLE frames "
                                    f"say {len(seen)} returning {sum(seen.values())}")
                if missing:
                    problems.append(f"with wager(s) {', '.join(missing)} never returned")
        else:
            seen = {wager_id: returned for (number, wager_id), returned in self.earlier_settles.items()
                    if number == self.void_round}
            seen.update(self.settles)
            if said < len(seen) or total < sum(seen.values()):
                problems.append(f"saying {said} wager(s) returning {total}; the round's SETTLE frames seen "
                                f"say {len(seen)} returning {sum(seen.values())}")
        if problems:
            return f"SETTLED of the void of round {self.void_round} {'; '.join(problems)} ({SECTION})"
        return None

    def opened(self, m) -> str | None:
        """The controller's OPEN that ends the start: a round after every round seen."""
        number = m.get("round")
        if not self.hello_seen:
            return (f"OPEN round={number} after the controller's RESET and before its HELLO ({SECTION})")
        before = [n for n in (self.void_round, self.last_round, self.known and self.known.number, self.earlier_max)
                  if isinstance(n, int)]
        if before and isinstance(number, int) and number <= max(before):
            return (f"OPEN round={number} after round {max(before)}: round numbers are never reused ({SECTION})")
        if self.void_round is not None and self.void_step != len(_VOID_ORDER) - 1:
            return f"OPEN round={number} before the void of round {self.void_round} was cleared ({SECTION})"
        return None
