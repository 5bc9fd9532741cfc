"""The bench's side of a session's start, shared by every bench-side driver
(``bench run``'s round cycle and the pytest controller table): HELLO both
ways, and a refusal when the controller does not run what the bench judges
it by (docs/protocol.md, HELLO). Also the one wait every driver needs for the
replies to its own wagers."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

from bench.protocol import PROTOCOL_VERSIONS, Message, Session, make
from bench.protocol.errors import LinkTimeout, ProtocolViolation, ResponseTimeout
from bench.protocol.session import DEFAULT_WINDOW, WINDOW
from bench.protocol.timeouts import Deadline


def rules_digest(rules) -> str:
    """What a controller's HELLO says of its rules: the first 16 hex digits of
    the submission file's SHA-256, or ``default`` for the regulation's defaults."""
    source = getattr(rules, "source", None)
    if not source:
        return "default"
    return hashlib.sha256(Path(source).read_bytes()).hexdigest()[:16]


def greet(session: Session, *, game: str, rules, software: str, reply_s: float,
          seed: int | None = None, description: str = "the controller", window: int = WINDOW) -> Message:
    """Send the bench's HELLO and check the controller's: protocol version,
    game, paytable and rules digest. Raises ProtocolViolation naming every
    mismatch (or the controller's own refusal).

    The bench offers the highest version it speaks; a controller that answers
    ``ERROR code=version`` (or that cannot even decode the offer: a strict
    version-1 decoder refuses HELLO's ``window`` field with NAKs) is greeted
    again in version 1. Every greeting is sent stop-and-wait; once the
    controller's HELLO agrees, the session speaks the agreed version.

    ``window`` (version 2) is what a slow line allows in flight each way
    (``bench.protocol.line_speed``): announced to the controller, and the most
    the bench itself keeps in flight whatever the controller announces."""
    session.use_protocol(1)
    # An adapter's session carries version 1 of the bench's messages only
    # (its own wire format has its own versions): it is offered that.
    proto = first_offer = max(getattr(session, "protocol_versions", PROTOCOL_VERSIONS))
    while True:
        fields = dict(proto=proto, role="bench", sw=software, game=game)
        if seed is not None:
            fields["seed"] = seed
        if proto >= 2:
            fields["window"] = window
        naks = session.stats["naks_received"]
        try:
            session.send(make("HELLO", **fields))
        except LinkTimeout:
            if proto == 1 or session.stats["naks_received"] == naks:
                raise           # silence: no older version will do better
            proto = 1           # heard, but refused frame by frame: a version-1 decoder
            continue
        hello = _answer(session, reply_s)
        if hello.type == "ERROR" and hello["code"] == "version" and proto > 1:
            proto = 1
            continue
        break
    if hello.type == "ERROR":
        raise ProtocolViolation(f"{description} refused the bench's HELLO ({hello['code']}): "
                                f"{hello.get('detail') or 'no detail'}")
    problems = []
    if hello["proto"] != proto:
        offered = "" if proto == first_offer else f" (after falling back from {first_offer})"
        problems.append(f"it speaks protocol {hello['proto']}, the bench offered {proto}{offered}")
    problems += mismatches(hello, game=game, rules=rules)
    if problems:
        raise ProtocolViolation(f"{description} does not run what the bench judges: " + "; ".join(problems))
    session.use_protocol(proto, peer_window=min(hello.get("window") or DEFAULT_WINDOW, window))
    return hello


def mismatches(hello: Message, *, game: str, rules) -> list[str]:
    """What in a controller's HELLO says it does not run what the bench
    judges it by: its game, paytable or rules digest (``bench monitor``
    hears the same HELLO and asks the same)."""
    problems = []
    if hello["game"] != game:
        problems.append(f"it plays {hello['game']}, not {game}")
    paytable = getattr(rules, "paytable", None)
    if paytable is not None and hello.get("paytable") is not None and str(hello["paytable"]) != str(paytable):
        problems.append(f"its paytable is {hello['paytable']}, the bench judges by {paytable}")
    digest = rules_digest(rules)
    if hello.get("rules") is not None and hello["rules"] != digest:
        problems.append(f"its rules digest is {hello['rules']}, the bench's submission gives {digest} "
                        f"(give the bench the controller's submission)")
    return problems


def _answer(session: Session, reply_s: float) -> Message:
    """The controller's HELLO (or ERROR) answering ours. What it still had
    in flight from before (an earlier session's frames on a line whose
    controller stays on, or this session's before a resynchronisation) comes
    first and is dropped: the oracle has seen it on its way in (it belongs
    to no round of this session, docs/protocol.md section 5), and a driver
    that took its OPEN or SETTLED would play a round the controller has
    left. One deadline bounds the whole wait."""
    deadline = Deadline(reply_s)
    while True:
        message = session.poll(deadline.remaining())
        if message is None:
            raise ResponseTimeout(f"no HELLO from the controller within {reply_s} s")
        if message.type in ("HELLO", "ERROR"):
            return message


def replies_to(session: Session, wager_ids, reply_s: float) -> dict[str, Message]:
    """The controller's ACCEPT or REFUSE of each of these wagers, in whatever
    order they come (others stay judged and are passed over); each wait is
    bounded by ``reply_s``."""
    waiting = Counter(wager_ids)   # an id placed twice (a probe) is answered twice
    replies: dict[str, Message] = {}
    while waiting:
        reply = session.receive(reply_s, expect=("ACCEPT", "REFUSE"))
        left = waiting.get(reply["id"], 0)
        if left > 0:
            if left == 1:
                del waiting[reply["id"]]     # (not ``+waiting``: a copy per reply made 20,000 wagers quadratic)
            else:
                waiting[reply["id"]] = left - 1
            replies.setdefault(reply["id"], reply)
    return replies


def reply_to(session: Session, wager_id: str, reply_s: float) -> Message:
    """The controller's ACCEPT or REFUSE of this one wager (``replies_to``)."""
    return replies_to(session, (wager_id,), reply_s)[wager_id]
