"""The bench's own protocol (docs/protocol.md) as an adapter: the default,
``--adapter tablebench``. Its session is ``bench.protocol.Session`` (both
versions, the window of version 2) and its stream decoder
``bench.protocol.StreamDecoder``; nothing is translated, for its frames are
the bench's messages."""

from __future__ import annotations

import time

import bench
from bench.adapters.api import Adapter, Observer
from bench.adapters.tap import Agreement, InOrderListener
from bench.protocol import Codec, Session, StreamDecoder, Timeouts, make
from bench.protocol import frame as framing
from bench.protocol.frame import MAX_FRAME, SEQ_MODULUS
from bench.protocol.messages import BENCH, CONTROLLER, PROTOCOL_VERSIONS


class NativeCodec(Codec):
    seq_modulus = SEQ_MODULUS
    max_frame = MAX_FRAME

    def ack(self, seq: int) -> bytes:
        return framing.build(seq, "ACK", [])

    def nak(self, reason: str, seq: int) -> bytes:
        return self.encode(make("NAK", reason=reason), seq)


class NativeSession(Session):
    protocol_versions: tuple[int, ...] = PROTOCOL_VERSIONS


class Native(Adapter):
    name = "tablebench"
    version = bench.__version__
    summary = "the bench's own protocol, versions 1 and 2: $SSSS TYPE name=value ...*CRC16 lines (the default)"
    timeouts = Timeouts()
    document = "docs/protocol.md"

    def codec(self, game: str, role: str) -> NativeCodec:
        return NativeCodec(game)

    def stream_decoder(self, game: str, sender: str | None, timeouts: Timeouts | None = None) -> StreamDecoder:
        t = timeouts or self.timeouts
        return StreamDecoder(Codec(game), sender=sender, byte_timeout=t.byte, frame_timeout=t.frame)

    def listeners(self, game: str, timeouts: Timeouts | None = None) -> tuple:
        """Version 1 takes messages as stop-and-wait does, version 2 only in
        order: the two listeners share what the HELLOs agreed."""
        agreement = Agreement()
        return tuple(InOrderListener(self.stream_decoder(game, sender, timeouts), sender=sender, agreement=agreement,
                                     modulus=SEQ_MODULUS) for sender in (BENCH, CONTROLLER))

    def open(self, port, game: str, *, role: str, observer: Observer | None = None,
             timeouts: Timeouts | None = None, clock=time.monotonic, wall=time.time) -> NativeSession:
        return NativeSession(port, game, role=role, timeouts=timeouts or self.timeouts, observer=observer,
                             clock=clock, wall=wall)
