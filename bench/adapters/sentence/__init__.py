"""The example adapter: ``ascii-sentence``, a delimited-ASCII sentence
protocol of the kind automated wheel and shaker controllers speak over RS-232
(docs/adapters.md is its specification):

    GC|012|PAY|7|w3|2500|8A1F|END

Framing and check value: ``frame``; the commands and their fields:
``mapping``; the codes of bets, refusals, errors and NAKs: ``codes``; its own
link checks for ``bench conformance``: ``checks``; link-level misbehaviours
for ``bench emulate``: ``misbehaviours``. Delivery is the stop-and-wait of
``bench.adapters.stop_and_wait`` with this protocol's timeouts.
"""

from __future__ import annotations

from bench.adapters.api import Adapter
from bench.adapters.sentence import codes
from bench.adapters.sentence.frame import MAX_SENTENCE, SEQ_MODULUS, TALKER_OF, TALKERS, build, split
from bench.adapters.sentence.mapping import COMMANDS, TYPES, fields_of
from bench.protocol import Message, Timeouts
from bench.protocol.frame import FrameError
from bench.protocol.messages import BOTH, FieldError, spec_for

VERSION = "1.0"
TIMEOUTS = Timeouts(byte=0.2, frame=1.0, response=0.8, retries=2)


class SentenceCodec:
    """The sentences of one game as one side (``role``) writes them."""

    seq_modulus = SEQ_MODULUS
    max_frame = MAX_SENTENCE

    def __init__(self, game: str, role: str):
        self.game = game
        self.role = role
        self.talker = TALKER_OF[role]
        self._fields: dict[str, tuple] = {}

    def _fields_of(self, type_: str):
        found = self._fields.get(type_)
        if found is None:
            found = self._fields[type_] = fields_of(type_, self.game)
        return found

    # -- writing ------------------------------------------------------------
    def encode(self, message: Message, seq: int) -> bytes:
        type_ = message.type
        command = COMMANDS.get(type_)
        if command is None:
            raise ValueError(f"unknown message type {type_!r}")
        try:
            spec = spec_for(type_, self.game)
        except LookupError as err:
            raise ValueError(str(err)) from None
        if spec.sender not in (BOTH, self.role):
            raise ValueError(f"{type_} is sent by the {spec.sender}, not the {self.role}")
        fields = {name: value for name, value in message.fields.items() if value is not None}
        if type_ == "HELLO":
            role = fields.pop("role", None)
            if role != self.role:
                raise ValueError(f"HELLO role={role!r} from the {self.role}: the talker says who speaks")
        order = self._fields_of(type_)
        unknown = set(fields) - {f.name for f in order}
        if unknown:
            raise ValueError(f"{type_}: this protocol cannot carry {sorted(unknown)}")
        texts = []
        for field in order:
            value = fields.get(field.name)
            if value is None:
                if not field.optional:
                    raise ValueError(f"{type_}: missing {field.name!r}")
                texts.append("")
                continue
            try:
                texts.append(field.render(value))
            except (FieldError, TypeError) as err:
                raise ValueError(f"{type_}: field {field.name!r}: {err}") from None
        return build(self.talker, seq, command, texts)

    def ack(self, seq: int) -> bytes:
        return build(self.talker, seq, "ACK", [])

    def nak(self, reason: str, seq: int) -> bytes:
        return build(self.talker, seq, "NAK", [codes.nak_code(reason)])

    # -- reading ------------------------------------------------------------
    def decode_line(self, line: bytes, sender: str | None = None) -> tuple[Message, int]:
        sentence = split(line)
        talker_role = TALKERS[sentence.talker]
        type_ = TYPES.get(sentence.command)
        if type_ is None:
            raise FrameError("unknown-type", f"unknown command {sentence.command!r}")
        try:
            spec = spec_for(type_, self.game)
        except LookupError as err:
            raise FrameError("wrong-game", str(err)) from None
        if spec.sender not in (BOTH, talker_role):
            raise FrameError("wrong-sender", f"{sentence.command} is sent by the {spec.sender}, "
                                             f"not the {talker_role} ({sentence.talker})")
        if sender is not None and talker_role != sender:
            raise FrameError("wrong-sender", f"talker {sentence.talker} is the {talker_role}; this line carries "
                                             f"the {sender}'s sentences")
        order = self._fields_of(type_)
        if len(sentence.fields) < len(order):
            raise FrameError("missing-field", f"{sentence.command}: {len(sentence.fields)} fields, "
                                              f"expected {len(order)} ({', '.join(f.name for f in order)})")
        if len(sentence.fields) > len(order):
            raise FrameError("extra-field", f"{sentence.command}: {len(sentence.fields)} fields, "
                                            f"expected {len(order)} ({', '.join(f.name for f in order) or 'none'})")
        values = {}
        if type_ == "HELLO":
            values["role"] = talker_role
        for field, text in zip(order, sentence.fields):
            if text == "":
                if field.optional:
                    continue
                raise FrameError("missing-field", f"{sentence.command}: field {field.name!r} is empty")
            try:
                values[field.name] = field.parse(text)
            except FieldError as err:
                raise FrameError("bad-value", f"{sentence.command}: field {field.name!r}: {err}") from None
        return Message(type_, values, sentence.seq), sentence.crc


class AsciiSentence(Adapter):
    name = "ascii-sentence"
    version = VERSION
    summary = "delimited ASCII sentences TT|NNN|CMD|field|...|CRC16-MODBUS|END over RS-232 or TCP, stop-and-wait"
    timeouts = TIMEOUTS
    document = "docs/adapters.md"

    def codec(self, game: str, role: str) -> SentenceCodec:
        return SentenceCodec(game, role)

    def conformance_checks(self) -> list:
        from bench.adapters.sentence.checks import CHECKS
        return list(CHECKS)

    def link_misbehaviours(self) -> dict[str, type]:
        from bench.adapters.sentence.misbehaviours import MISBEHAVIOURS
        return dict(MISBEHAVIOURS)
