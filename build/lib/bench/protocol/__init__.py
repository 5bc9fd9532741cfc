"""The reference controller protocol (docs/protocol.md): frames, messages,
codec, and the ACK/NAK session both ends of a link use."""

from bench.protocol.codec import Codec, Decoded, Rejected, StreamDecoder
from bench.protocol.errors import LinkClosed, LinkError, LinkTimeout, ProtocolViolation, ResponseTimeout
from bench.protocol.frame import FrameError, MAX_FRAME
from bench.protocol.messages import BENCH, CONTROLLER, PROTOCOL_VERSION, PROTOCOL_VERSIONS, Message, make
from bench.protocol.session import FrameEvent, Session
from bench.protocol.timeouts import Deadline, Timeouts

__all__ = ["BENCH", "CONTROLLER", "Codec", "Deadline", "Decoded", "FrameError", "FrameEvent", "LinkClosed",
           "LinkError", "LinkTimeout", "MAX_FRAME", "Message", "PROTOCOL_VERSION", "PROTOCOL_VERSIONS",
           "ProtocolViolation",
           "Rejected", "ResponseTimeout", "Session", "StreamDecoder", "Timeouts", "make"]
