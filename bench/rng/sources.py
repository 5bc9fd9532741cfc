"""What the battery judges, read from files: the Lucky draws of any journal
(bench run's sessions, pytest runs, the monitor's: every LUCKY the controller
sent), the physical outcomes beside them (dice faces, wheel pockets; staged
probe rounds left out), and the raw and scaled values of a collection
(``bench rng --collect``: RNGDATA frames, docs/protocol.md "Raw RNG output").

Both journal schemas are read: version 2's round records carry their frames
in ``wire``, version 1 has a record per frame. A file that is not a journal
is bad input (``SourceError``: file, line, field); a torn last line is left
out with a note, what came before it is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from bench.errors import BenchError, RulesError
from bench.journal.chain import iter_records
from bench.journal.replay import session_file
from bench.rules import Lucky, Round, Wager, describe, get_game
from bench.rules.submission import default_rules, load_submission

MAX_VALUES = 50_000_000     # a bound on what one file may hand the battery (memory)


class SourceError(BenchError):
    """A file the battery cannot read: one line naming the file, line and field."""


@dataclass
class Draws:
    path: str
    game: str | None = None
    seed: int | None = None
    kind: str = ""
    positions: tuple[str, ...] = ()
    lucky_first: list[int] = field(default_factory=list)      # the first Lucky position of each round, as an index
    lucky_rate: float = 0.0                                   # a position's chance to be Lucky in a round
    again: list[bool] = field(default_factory=list)           # after a Lucky win: that number Lucky again?
    physical: list[int] = field(default_factory=list)         # faces - 1, or pockets
    physical_size: int = 0
    physical_what: str = ""
    raw: list[int] = field(default_factory=list)
    scaled: list[int] = field(default_factory=list)
    scaled_size: int = 0
    notes: list[str] = field(default_factory=list)


def lucky_bets_won(game: str, rules, round_: Round) -> list[str]:
    """The round's Lucky Numbers its outcome made win: a notional unit on each,
    settled by the rules (none after a no roll)."""
    if round_.no_roll or not round_.lucky:
        return []
    notional = [Wager(f"lucky-{i}", x.bet, 1) for i, x in enumerate(round_.lucky)]
    settled = {s.wager_id: s.returned for s in get_game(game).settle(round_, notional, rules)}
    return [w.bet for w in notional if settled.get(w.id, 0) > 0]


def _rules(header: dict[str, Any], draws: Draws):
    try:
        with session_file(header, "submission") as path:
            if path is not None:
                return load_submission(path)
    except BenchError as err:
        draws.notes.append(f"{err}: judged against the regulation's default submission")
    return default_rules(header["game"], header.get("paytable"))


def _messages(path: str, draws: Draws) -> Iterator[tuple[int, dict[str, Any], dict[str, Any]]]:
    """(line, message the controller sent, the record holding it); the header first as (1, {}, header)."""
    lines = list(iter_records(path))
    for index, (number, record, raw) in enumerate(lines):
        if record is None:
            if index == len(lines) - 1 and not raw.endswith(b"\n"):
                draws.notes.append(f"line {number}: a torn last line, left out (what came before is judged)")
                return
            raise SourceError(f"{path}: line {number}: not a JSON object (not a tablebench journal?)")
        if index == 0:
            if "kind" not in record or "game" not in record:
                raise SourceError(f"{path}: line 1: field kind/game: not a journal header")
            yield number, {}, record
            continue
        wire = record.get("wire")
        if isinstance(wire, list):
            for entry in wire:
                if (isinstance(entry, list) and len(entry) > 6 and entry[0] == "rx" and entry[1] == "message"
                        and isinstance(entry[6], dict)):
                    yield number, entry[6], record
        elif record.get("kind") == "frame" and record.get("dir") == "rx" and record.get("frame") == "message":
            message = record.get("message")
            if isinstance(message, dict):
                yield number, message, record


def _staged(record: dict[str, Any]) -> bool:
    if record.get("probe"):
        return True
    plants = record.get("plants")
    return isinstance(plants, list) and any(isinstance(p, dict) and isinstance(p.get("detail"), dict)
                                            and p["detail"].get("staged") for p in plants)


def read(path: str) -> Draws:
    """Everything the battery can judge in one journal or collection."""
    if not Path(path).is_file():
        raise SourceError(f"{path}: no such file")
    draws = Draws(path)
    rules = descriptor = None
    lucky_of: dict[int, tuple[Lucky, ...]] = {}
    won_of: dict[int, list[str]] = {}
    order: list[int] = []
    for number, message, record in _messages(path, draws):
        if not message:
            draws.kind, draws.game, draws.seed = str(record.get("kind")), str(record["game"]), record.get("seed")
            try:
                descriptor = describe(draws.game)
                rules = _rules(record, draws)
            except RulesError as err:
                raise SourceError(f"{path}: line 1: field game: {err}") from None
            if rules.lucky is not None:
                draws.positions = tuple(rules.lucky.positions)
                draws.lucky_rate = float(rules.lucky.lucky_probability(draws.positions[0]))
            kind = descriptor.outcome
            draws.physical_size = 6 if kind.dice_count else getattr(kind, "POCKETS", 0)
            draws.physical_what = "dice faces" if kind.dice_count else "wheel pockets"
            continue
        assert descriptor is not None and rules is not None and draws.game is not None
        where = f"{path}: line {number}"
        type_ = message.get("type")
        round_no = message.get("round")
        if type_ == "LUCKY" and isinstance(round_no, int) and round_no not in lucky_of:
            try:
                lucky = tuple(Lucky(x["bet"], x["pays"]) for x in message["lucky"])
                first = draws.positions.index(lucky[0].bet)
            except (KeyError, TypeError, IndexError, ValueError):
                raise SourceError(f"{where}: field lucky: {message.get('lucky')!r} is not a Lucky draw on the "
                                  f"submission's positions") from None
            lucky_of[round_no] = lucky
            order.append(round_no)
            draws.lucky_first.append(first)
        elif type_ in ("RESULT", "NOROLL") and isinstance(round_no, int) and round_no not in won_of:
            no_roll = type_ == "NOROLL"
            if not no_roll and not _staged(record) and draws.physical_size:
                _physical(draws, descriptor.outcome, message, where)
            if descriptor.lightning and round_no in lucky_of and not descriptor.outcome.throws_until_bets_resolve():
                try:
                    fields = {} if no_roll else descriptor.outcome.round_fields(
                        descriptor.outcome.settled_outcome(message))
                    round_ = Round(draws.game, **fields, no_roll=no_roll, lucky=lucky_of[round_no],
                                   paytable=None if rules.paytable is None else str(rules.paytable))
                    won_of[round_no] = lucky_bets_won(draws.game, rules, round_)
                except (KeyError, TypeError, ValueError, RulesError):
                    won_of[round_no] = []
        elif type_ == "RNGDATA":
            _collected(draws, message, where)
        if len(draws.raw) + len(draws.scaled) + len(draws.physical) > MAX_VALUES:
            raise SourceError(f"{where}: more than {MAX_VALUES:,} values in one file")
    if draws.game is None:
        raise SourceError(f"{path}: line 1: field kind/game: no journal header (an empty or torn file)")
    for previous, current in zip(order, order[1:]):
        won = won_of.get(previous) or []
        if won and current == previous + 1:
            draws.again.append(any(x.bet == won[0] for x in lucky_of[current]))
    return draws


def _physical(draws: Draws, kind, message: dict[str, Any], where: str) -> None:
    value = message.get("dice") if kind.dice_count else message.get(kind.field)
    values = value if isinstance(value, list) else [value]
    offset = 1 if kind.dice_count else 0
    for v in values:
        if not isinstance(v, int) or not 0 <= v - offset < draws.physical_size:
            raise SourceError(f"{where}: field {kind.field}: {v!r} is not one of the {draws.physical_what}")
        draws.physical.append(v - offset)


def _collected(draws: Draws, message: dict[str, Any], where: str) -> None:
    values = message.get("values")
    if not isinstance(values, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise SourceError(f"{where}: field values: not a list of integers")
    if message.get("kind") == "raw":
        if any(not 0 <= v < 1 << 32 for v in values):
            raise SourceError(f"{where}: field values: a raw word outside 0..2^32-1 (810a.5(c))")
        draws.raw.extend(values)
    elif message.get("kind") == "scaled":
        size = message.get("range")
        if not isinstance(size, int) or size < 2 or (draws.scaled_size and size != draws.scaled_size):
            raise SourceError(f"{where}: field range: {size!r} (one range of at least 2 for a collection)")
        if any(not 0 <= v < size for v in values):
            raise SourceError(f"{where}: field values: a scaled value outside 0..{size - 1} (810a.5(d))")
        draws.scaled_size = size
        draws.scaled.extend(values)
    else:
        raise SourceError(f"{where}: field kind: {message.get('kind')!r}, expected raw or scaled")
