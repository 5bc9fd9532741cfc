"""``bench rng --collect N --controller URL --out DIR``: N raw words and N
scaled values of the controller's Lucky RNG, asked for outside play in
batches of at most 16 (docs/protocol.md, "Raw RNG output"), into a journal
like any session's (``DIR/collection.jsonl``: the hash chain of
``bench.journal.chain``, every frame of the exchange in a ``batch`` record's
``wire``, as a round record carries them). Run again with the same DIR it
resumes: it counts what the journal holds and asks for the rest.

A controller that does not offer the exchange (ERROR ``unexpected`` or an
unknown-message NAK, as docs/protocol.md has a controller answer a message it
does not know) is told apart from one that answers wrongly (a reply of the
wrong kind, count or range, a value out of range): the first is exit 2
(nothing to judge: the lab asks the supplier for another way to collect),
the second exit 1 (the exchange's rule broken, the field named).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from bench.errors import BenchError
from bench.journal.chain import JournalWriter, raw_text
from bench.protocol import LinkError, Session, Timeouts, make
from bench.protocol.link import open_link
from bench.protocol.session import BENCH, WINDOW
from bench.rules.submission import default_rules
from tablebench_io import progress
from tablebench_io.commandline import Exit
from tablebench_io.json_lines import JsonLines

BATCH = 16
REPLY_S = 5.0
JOURNAL = "collection.jsonl"
NOT_OFFERED = {"unexpected", "unknown", "unknown-type", "unsupported"}


class WrongAnswer(BenchError):
    """The controller answered the exchange against its rules."""


class NotOffered(BenchError):
    """The controller does not offer the exchange."""


def run_collect(args) -> int:
    lines = JsonLines("rng") if args.json else None

    def fail(status: Exit, text: str) -> int:
        print(f"bench rng: {text}", file=sys.stderr)
        if lines is not None:
            lines.verdict(passed=False, status=status, error=text)
        return status

    if not args.controller or not args.out:
        return fail(Exit.BAD_INPUT, "--collect needs --controller URL and --out DIR")
    if args.collect < 1 or args.collect > 10_000_000:
        return fail(Exit.BAD_INPUT, f"--collect {args.collect}: from 1 to 10,000,000 values")
    try:
        rules = default_rules(args.game)
    except BenchError as err:
        return fail(Exit.BAD_INPUT, f"--game: {err}")
    if rules.lucky is None:
        return fail(Exit.BAD_INPUT, f"--game {args.game}: the game draws no Lucky Numbers")
    size = len(rules.lucky.positions)
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        return fail(Exit.BAD_INPUT, f"--out {out}: {err.strerror}")
    path = out / JOURNAL
    have = {"raw": 0, "scaled": 0}
    if path.exists() and path.stat().st_size:
        from bench.rng.sources import SourceError, read
        try:
            before = read(str(path))
        except SourceError as err:
            return fail(Exit.BAD_INPUT, str(err))
        if before.kind != "rng-collection" or before.game != args.game:
            return fail(Exit.BAD_INPUT, f"{path}: field kind/game: not a collection of {args.game} to resume")
        have = {"raw": len(before.raw), "scaled": len(before.scaled)}
    try:
        status = _collect(args, path, have, size, lines)
    except NotOffered as err:
        return fail(Exit.BAD_INPUT, f"{args.controller}: {err}")
    except WrongAnswer as err:
        return fail(Exit.VIOLATION, f"{args.controller}: {err} (docs/protocol.md, Raw RNG output)")
    except LinkError as err:
        kept = f"; what was collected is in {path}" if path.exists() and path.stat().st_size else ""
        return fail(Exit.LINK, f"{args.controller}: {err}{kept}")
    return status


def _collect(args, path: Path, have: dict[str, int], size: int, lines: JsonLines | None) -> int:
    events: list[Any] = []
    link = open_link(args.controller)
    session = Session(link, args.game, role=BENCH, timeouts=Timeouts(), observer=events.append)
    journal: JournalWriter | None = None
    try:
        session.send(make("HELLO", proto=2, role="bench", sw="tablebench-rng/1", game=args.game,
                          seed=args.seed, window=WINDOW))
        theirs = session.receive(REPLY_S, expect=("HELLO", "ERROR"))
        if theirs.type == "ERROR":
            raise NotOffered(f"refused the HELLO: {theirs['code']} {theirs.get('detail') or ''}".rstrip())
        session.use_protocol(theirs["proto"], peer_window=theirs.get("window"))
        journal = JournalWriter(path)
        if journal.seq == 0:
            journal.append("rng-collection", game=args.game, controller=args.controller, seed=theirs.get("seed"),
                           software=theirs.get("sw"), range=size, batch=BATCH)
        _record(journal, events)
        wanted = args.collect
        total = max(0, wanted - have["raw"]) + max(0, wanted - have["scaled"])
        first = True
        with progress.bar(total=total, unit="value", desc="collecting", disable=total < 1000) as bar:
            while have["raw"] < wanted or have["scaled"] < wanted:
                kind = "raw" if have["raw"] <= have["scaled"] and have["raw"] < wanted else "scaled"
                if have[kind] >= wanted:
                    kind = "scaled" if kind == "raw" else "raw"
                count = min(BATCH, wanted - have[kind])
                fields: dict[str, Any] = {"range": size} if kind == "scaled" else {}
                session.send(make("RNGREQ", kind=kind, count=count, **fields))
                reply = _reply(session, first, events)
                first = False
                _check(reply, kind, count, size)
                _record(journal, events)
                have[kind] += count
                bar.update(count)
        session.flush()
        _record(journal, events)
    finally:
        if journal is not None:
            journal.close()
        link.close()
    if lines is not None:
        for kind in ("raw", "scaled"):
            lines.write("collected", kind=kind, count=have[kind])
        lines.verdict(passed=True, status=Exit.OK, verdict="collected", journal=str(path))
    else:
        print(f"collected {have['raw']} raw words and {have['scaled']} values scaled onto 0..{size - 1} "
              f"into {path}; judge them with: bench rng {path}")
    return Exit.OK


def _reply(session: Session, first: bool, events: list[Any]):
    try:
        reply = session.receive(REPLY_S, expect=("RNGDATA", "ERROR"))
    except LinkError as err:
        if first and any(e.direction == "rx" and e.kind == "nak" for e in events):
            raise NotOffered("NAKs RNGREQ: it does not offer the raw RNG exchange") from None
        raise err
    if reply.type == "ERROR":
        code = reply["code"]
        if code in NOT_OFFERED:
            raise NotOffered(f"answers RNGREQ with ERROR {code}: it does not offer the raw RNG exchange")
        raise WrongAnswer(f"answers RNGREQ with ERROR {code} {reply.get('detail') or ''}".rstrip())
    return reply


def _check(reply, kind: str, count: int, size: int) -> None:
    values = reply["values"]
    if reply["kind"] != kind:
        raise WrongAnswer(f"RNGDATA field kind: {reply['kind']}, asked for {kind}")
    if reply["count"] != count or len(values) != count:
        raise WrongAnswer(f"RNGDATA field count: {reply['count']} with {len(values)} values, asked for {count}")
    if kind == "scaled" and reply.get("range") != size:
        raise WrongAnswer(f"RNGDATA field range: {reply.get('range')}, asked for {size}")
    high = size if kind == "scaled" else 1 << 32
    bad = next((v for v in values if not 0 <= v < high), None)
    if bad is not None:
        raise WrongAnswer(f"RNGDATA field values: {bad} is outside 0..{high - 1}")


def _record(journal: JournalWriter, events: list[Any]) -> None:
    if not events:
        return
    now = time.time()
    wire = [[e.direction, e.kind, round(e.mono, 6), round(getattr(e, "wall", now), 6), 0.0, raw_text(e.raw),
             e.message.as_dict() if e.message is not None else None, e.note] for e in events]
    events.clear()
    journal.append("batch", wire=wire)
