"""The ASCII sentence protocol's link-level misbehaviours: the emulated
controller breaking one rule of docs/adapters.md section 5 on purpose
(``bench emulate --adapter ascii-sentence --misbehave-link NAME``), each a
mutant that one of ``bench.adapters.sentence.checks`` must catch:

    ignores-check        takes sentences whatever their check value
    never-naks           sends no NAK for a damaged sentence
    never-retransmits    sends each sentence once, never again
    delivers-duplicates  takes a sentence sent twice as a new message
"""

from __future__ import annotations

import re

from bench.adapters.sentence.frame import SEQ_MODULUS, crc16_modbus
from bench.emulator.link_misbehaviours import PortWrapper

_SENTENCE = re.compile(rb"([A-Z]{2}\|[0-9]{3}\|[A-Z]{3}(?:\|[^|\r\n]*)*\|)([0-9A-Fa-f]{4})\|END\r?\n")


def _with_check(covered: bytes) -> bytes:
    return covered + b"%04X|END\r\n" % crc16_modbus(covered)


def _control(sentence: bytes) -> bool:
    return sentence[6:10] in (b"|ACK", b"|NAK")


class IgnoresCheck(PortWrapper):
    name, section = "ignores-check", "§2, §5"
    summary = "takes sentences whatever their check value"

    def incoming(self, data: bytes) -> bytes:
        return _SENTENCE.sub(lambda m: _with_check(m.group(1)), data)


class NeverNaks(PortWrapper):
    name, section = "never-naks", "§5"
    summary = "sends no NAK for a damaged sentence"

    def outgoing(self, sentence: bytes) -> bytes:
        return b"" if sentence[6:10] == b"|NAK" else sentence


class NeverRetransmits(PortWrapper):
    name, section = "never-retransmits", "§5"
    summary = "sends each sentence once, never again"

    def __init__(self, port):
        super().__init__(port)
        self.sent: set[bytes] = set()

    def outgoing(self, sentence: bytes) -> bytes:
        if _control(sentence):
            return sentence
        if sentence in self.sent:
            return b""
        self.sent.add(sentence)
        return sentence


class DeliversDuplicates(PortWrapper):
    name, section = "delivers-duplicates", "§5"
    summary = "takes a sentence sent twice as a new message"

    def __init__(self, port):
        super().__init__(port)
        self.last = b""
        self.extra = 0

    def incoming(self, data: bytes) -> bytes:
        def renumber(match):
            sentence, covered = match.group(0), match.group(1)
            if _control(sentence):
                return sentence
            if sentence == self.last:
                self.extra += 1          # the same sentence again: numbered as the next, so it is taken
                seq = (int(covered[3:6]) + self.extra) % SEQ_MODULUS
                return _with_check(covered[:3] + b"%03d" % seq + covered[6:])
            self.last, self.extra = sentence, 0
            return sentence
        return _SENTENCE.sub(renumber, data)


MISBEHAVIOURS = {cls.name: cls for cls in (IgnoresCheck, NeverNaks, NeverRetransmits, DeliversDuplicates)}
