"""A tablebench adapter for JSON lines: the template a vendor copies to write
an adapter for its own controller (README.md; tablebench's docs/adapters.md).

An adapter maps the vendor's frames onto the bench's messages, both ways. The
bench's messages are those of tablebench's docs/protocol.md section 4 (HELLO,
OPEN, WAGER, ACCEPT, ... CLEARED), with their fields; here each has a vendor
event name (``EVENTS``) and its fields vendor names (``FIELDS``). Framing:
one JSON object a line; check value: CRC-32 of the object without it;
delivery: tablebench's stop-and-wait, with this format's ``TIMEOUTS``.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from bench.adapters.api import Adapter
from bench.adapters.fields import checked, plain
from bench.protocol import BENCH, CONTROLLER, Message, Timeouts
from bench.protocol.frame import FrameError

# The bench's message types by the vendor's event names.
EVENTS = {"HELLO": "hello", "ERROR": "error", "RESET": "reset", "OPEN": "bettingOpen", "WAGER": "placeBet",
          "ACCEPT": "betAccepted", "REFUSE": "betRejected", "CLOSE": "closeBetting", "NOMORE": "bettingClosed",
          "LUCKY": "luckyNumbers", "TRIGGER": "trigger", "RELEASE": "release", "SPIN": "spin", "ROLL": "throw",
          "SENSOR": "sensor", "RESULT": "result", "NOROLL": "noRoll", "SETTLE": "payout",
          "SETTLED": "roundSettled", "CLEARED": "roundCleared", "ACK": "ack", "NAK": "nak"}
TYPES = {event: type_ for type_, event in EVENTS.items()}
# The bench's field names by the vendor's (fields not listed keep the bench's name).
FIELDS = {"round": "gameId", "id": "betId", "stake": "amount", "returned": "payout", "lucky": "luckyNumbers"}
BENCH_NAMES = {vendor: bench for bench, vendor in FIELDS.items()}
SENDERS = {BENCH: "host", CONTROLLER: "table"}
ROLES = {who: role for role, who in SENDERS.items()}

MAX_LINE = 1024
SEQ_MODULUS = 65536
TIMEOUTS = Timeouts(byte=0.5, frame=1.0, response=1.0, retries=2)


def _crc(frame: dict) -> str:
    body = json.dumps(frame, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return f"{zlib.crc32(body):08x}"


class JsonLinesCodec:
    seq_modulus = SEQ_MODULUS
    max_frame = MAX_LINE

    def __init__(self, game: str, role: str):
        self.game = game
        self.role = role

    def _line(self, seq: int, event: str, data: dict) -> bytes:
        frame = {"seq": seq, "from": SENDERS[self.role], "event": event, "data": data}
        frame["crc32"] = _crc(frame)
        line = json.dumps(frame, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"
        if len(line) > MAX_LINE:
            raise ValueError(f"{event} would be {len(line)} bytes, over the {MAX_LINE}-byte limit")
        return line

    def encode(self, message: Message, seq: int) -> bytes:
        event = EVENTS.get(message.type)
        if event is None:
            raise ValueError(f"unknown message type {message.type!r}")
        # Check the message as the bench's own decoder would (ValueError if it is not one).
        try:
            checked(message.type, self.game, plain(message), seq, self.role)
        except FrameError as err:
            raise ValueError(str(err)) from None
        data = {FIELDS.get(name, name): value for name, value in plain(message).items()}
        return self._line(seq % SEQ_MODULUS, event, data)

    def ack(self, seq: int) -> bytes:
        return self._line(seq, "ack", {})

    def nak(self, reason: str, seq: int) -> bytes:
        return self._line(seq, "nak", {"reason": reason})

    def decode_line(self, line: bytes, sender: str | None = None) -> tuple[Message, int]:
        if len(line) + 1 > MAX_LINE:
            raise FrameError("too-long", f"line of {len(line) + 1} bytes is over the {MAX_LINE}-byte limit")
        if not line.startswith(b"{"):
            raise FrameError("garbage", "not a JSON object")
        try:
            frame = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as err:
            raise FrameError("bad-syntax", f"not JSON: {err}") from None
        if not isinstance(frame, dict) or set(frame) != {"seq", "from", "event", "data", "crc32"}:
            raise FrameError("bad-syntax", "expected the members seq, from, event, data, crc32")
        said = frame.pop("crc32")
        if said != _crc(frame):
            raise FrameError("bad-crc", f"bad CRC-32: the frame says {said!r}, its content gives {_crc(frame)}")
        seq, role, type_ = frame["seq"], ROLES.get(frame["from"]), TYPES.get(frame["event"])
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < SEQ_MODULUS:
            raise FrameError("bad-seq", f"seq must be a number from 0 to {SEQ_MODULUS - 1}, got {seq!r}")
        if role is None:
            raise FrameError("bad-syntax", f"from must be 'host' or 'table', got {frame['from']!r}")
        if sender is not None and role != sender:
            raise FrameError("wrong-sender", f"a frame from the {role} on the {sender}'s side")
        if type_ is None:
            raise FrameError("unknown-type", f"unknown event {frame['event']!r}")
        if not isinstance(frame["data"], dict):
            raise FrameError("bad-syntax", "data must be an object")
        data: dict[str, Any] = frame["data"]         # a JSON object: its names are strings
        values = {BENCH_NAMES.get(name, name): value for name, value in data.items()}
        return checked(type_, self.game, values, seq, role), int(said, 16)


class JsonLines(Adapter):
    name = "json-lines"
    version = "0.1.0"
    summary = "JSON lines over TCP, CRC-32, stop-and-wait (the template adapter: bench adapters --template)"
    timeouts = TIMEOUTS
    document = "README.md of tablebench-json-lines"

    def codec(self, game: str, role: str) -> JsonLinesCodec:
        return JsonLinesCodec(game, role)
