"""Where every frame goes as it passes: into the journal, and past the oracle.

The same ``oracle_input`` decides, live and in replay, which frames the oracle
judges, so a journal is judged exactly as the link was (ANCHORS lesson 5:
replay is a source of frames, not a monkeypatch).
"""

from __future__ import annotations

from typing import Any

from bench.journal import JournalWriter, raw_text
from bench.plant import Reading
from bench.protocol import FrameEvent, Message

# Frames that carry a message the peer acted on: what we sent the first time,
# and what we received and accepted. Retransmissions, duplicates, ACK/NAK and
# rejected bytes are journalled but are not new messages.
ORACLE_FRAMES = {("tx", "send"), ("rx", "message")}


def oracle_input(direction: str, frame_kind: str, message: Message | None) -> bool:
    return message is not None and (direction, frame_kind) in ORACLE_FRAMES


class Recorder:
    def __init__(self, journal: JournalWriter, oracle, clock_now=lambda: 0.0):
        self.journal = journal
        self.oracle = oracle
        self.sim_now = clock_now
        self.frame_records: list[int] = []   # journal seq of each frame the oracle judged, by oracle index
        self._offered: dict[str, tuple[str, int]] = {}
        self.stakes_by_bet: dict[str, int] = {}   # accepted stakes, for the exact RTP of what was played

    def on_frame(self, event: FrameEvent) -> None:
        data: dict[str, Any] = {"dir": event.direction, "frame": event.kind, "raw": raw_text(event.raw),
                                "mono": round(event.mono, 6), "wall": round(event.wall, 6),
                                "sim": round(float(self.sim_now()), 6)}
        # Only messages that name their round are grouped by round; an ACK
        # belongs to the frame it acknowledges, whichever round that was.
        round_no = event.message.round if event.message is not None else None
        if round_no is not None:
            data["round"] = round_no
        if event.message is not None:
            data["message"] = event.message.as_dict()
        if event.note:
            data["note"] = event.note
        record = self.journal.append("frame", **data)
        if oracle_input(event.direction, event.kind, event.message):
            self._count_stake(event.message)
            self.frame_records.append(record["seq"])
            self.verdicts(self.oracle.observe(event.direction, event.message, event.mono))

    def _count_stake(self, message: Message) -> None:
        if message.type == "WAGER":
            self._offered[message["id"]] = (message["bet"], message["stake"])
        elif message.type == "ACCEPT" and message["id"] in self._offered:
            bet, stake = self._offered.pop(message["id"])
            self.stakes_by_bet[bet] = self.stakes_by_bet.get(bet, 0) + stake

    def verdicts(self, violations) -> None:
        for violation in violations:
            record = self.frame_records[violation.frame] if violation.frame is not None and \
                violation.frame < len(self.frame_records) else None
            fields = {"clause": violation.clause, "message": violation.message, "frame_record": record}
            if violation.round is not None:
                fields["round"] = violation.round
            self.journal.append("verdict", **fields)

    def on_plant(self, round_no: int, attempt: int, reading: Reading) -> None:
        self.journal.append("plant", round=round_no, attempt=attempt, seed=reading.seed,
                            dice=list(reading.dice) if reading.dice else None,
                            flat=list(reading.flat) if reading.flat else None,
                            pocket=reading.pocket, duration_s=round(reading.duration_s, 6),
                            detail=reading.detail)

    def on_round_end(self, round_no: int, failure: str | None) -> None:
        fields = {"failure": failure} if failure else {}
        self.journal.end_round(round_no, **fields)
