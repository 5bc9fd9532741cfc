"""The overhead docs/protocol.md states is the one measured on the wire: a
Lightning Dice round with 10 wagers against bench emulate."""

from __future__ import annotations

import re
from pathlib import Path

from tests.link.conftest import REPO, connect, hello, play_round

BETS = ["total:11", "total:10", "low", "high", "any-double", "any-triple", "total:4", "total:17", "total:9", "total:12"]


def test_the_documented_overhead_is_measured(emulator):
    doc = Path(REPO, "docs", "protocol.md").read_text()
    section = doc[doc.index("## 8. Overhead"):]
    claimed_bytes = int(re.search(r"\*\*(\d+) bytes\*\* on the wire", section).group(1))
    claimed_seconds = float(re.search(r"\*\*([\d.]+) s of wire time per round\*\*", section).group(1))

    events = []
    with emulator("--game", "lightning-dice", "--seed", "7") as url:
        session = connect(url, "lightning-dice", observer=events.append)
        try:
            _, opened = hello(session, "lightning-dice")
            first = next(i for i, e in enumerate(events) if e.message and e.message.type == "OPEN")
            wagers = [(f"w{i}", bet, 100 * i) for i, bet in enumerate(BETS, 1)]
            play_round(session, "lightning-dice", opened["round"], wagers, [dict(dice=(6, 4, 1), flat=(True,) * 3)])
        finally:
            session.port.close()
    # From the round's OPEN to the ACK of its CLEARED, both directions.
    last = next(i for i, e in enumerate(events) if e.message and e.message.type == "CLEARED") + 1
    round_events = events[first:last + 1]
    assert round_events[-1].message.type == "ACK" and round_events[-1].direction == "tx"
    assert sum(1 for e in round_events if e.kind in ("send", "message")) == 40   # 10 wagers, 40 messages
    measured = sum(len(e.raw) for e in round_events)
    assert measured == claimed_bytes
    assert round(measured * 10 / 115200, 2) == claimed_seconds          # 8N1: 10 bits a byte
