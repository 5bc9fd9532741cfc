"""The rows a verified journal gives the archive's tables (bench.archive.tables).

Two sources, each what it is best at: the replayed oracle (``bench.journal.replay``)
gives each round's outcome, no roll, Lucky Numbers, stakes, returns and the
settlement the rules call for, judged afresh from the bytes rather than taken
from the controller; one more pass over the journal's records gives where each
thing is (its line), the wagers, SETTLE frames, plant readings and journalled
verdicts, through the oracle's own feed (``bench.oracle.feed``), so that the
archive sees exactly the frames the oracle judges. Days are UTC days of each
round's OPEN, as the bench's wall clock recorded it."""

from __future__ import annotations

import datetime as dt
import json
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator

from bench.journal.chain import iter_records
from bench.oracle.feed import judged_record, judged_rows

Rows = dict[str, list[dict[str, Any]]]


def utc_day(wall: object) -> str | None:
    """YYYY-MM-DD of a Unix time, or None for what is not one."""
    if isinstance(wall, bool) or not isinstance(wall, (int, float)) or not 0 <= wall < 32503680000:
        return None
    return dt.datetime.fromtimestamp(wall, dt.timezone.utc).strftime("%Y-%m-%d")


def _messages(record: dict[str, Any]) -> Iterator[tuple[Any, Any, dict[str, Any]]]:
    """(direction, wall time, decoded message) of each frame of a record the oracle judges."""
    wire = record.get("wire")
    if isinstance(wire, list):
        for row in judged_rows(wire):
            if row.problem is None and isinstance(row.recorded, dict):
                yield row.direction, row.wall, row.recorded
    elif record.get("kind") == "frame":                # schema 1: a record a frame
        frame = judged_record(record)
        if frame is not None and frame.problem is None and isinstance(frame.recorded, dict):
            yield frame.direction, frame.wall, frame.recorded


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def symbols_of(outcome: object) -> list[int]:
    """The faces (or the pocket) of an outcome as the oracle keeps it: a dice
    tuple, a pocket, or a series of rolls, flattened to the numbers shown."""
    if isinstance(outcome, bool):
        return []
    if isinstance(outcome, int):
        return [outcome]
    if isinstance(outcome, (tuple, list)):
        return [n for part in outcome for n in symbols_of(part)]
    return []


def _outcome_json(outcome: object) -> str | None:
    if outcome is None:
        return None
    return json.dumps(outcome, separators=(",", ":"), default=str)


def journal_rows(path: str | Path, replayed: Any, digest: str, labels: dict[str, str]) -> Rows:
    """Every table's rows from the journal at ``path``, which ``replayed``
    (its ``ReplayOutcome``) found intact. ``labels``: its table, dealer, dice
    set and wheel (the header's, or those ingest was given)."""
    from bench.rules import get_game
    header, oracle = replayed.header, replayed.oracle
    game = str(header["game"])
    rules = oracle.rules
    game_rules = get_game(game)
    rtp_of: dict[str, float | None] = {}

    def rtp(bet: str) -> float | None:
        if bet not in rtp_of:
            try:
                game_rules.check_bet(bet, rules)
                rtp_of[bet] = float(Fraction(game_rules.rtp(bet, rules)))
            except Exception:      # noqa: BLE001 — a bet the game does not offer: no return to expect
                rtp_of[bet] = None
        return rtp_of[bet]

    where = {"journal": digest}
    round_line: dict[int, int] = {}
    opened: dict[int, float] = {}
    staged: dict[int, str] = {}
    failures: dict[int, str] = {}
    wagers: dict[tuple[int, str], dict[str, Any]] = {}
    rows: Rows = {name: [] for name in ("wagers", "settlements", "readings", "lucky", "violations")}
    first_wall: float | None = None
    for line, record, _ in iter_records(path):
        if record is None or record.get("kind") == "session":
            continue
        kind, round_no = record.get("kind"), _int(record.get("round"))
        if kind in ("round", "round-end") and round_no is not None:
            round_line.setdefault(round_no, line)
            if isinstance(record.get("probe"), str):
                staged[round_no] = record["probe"]
            if record.get("failure"):
                failures[round_no] = str(record["failure"])
        for plant in record.get("plants") or ():
            if isinstance(plant, dict):
                reading = {k: plant.get(k) for k in ("dice", "flat", "pocket", "rolls") if plant.get(k) is not None}
                detail: dict[str, Any] = plant["detail"] if isinstance(plant.get("detail"), dict) else {}
                rows["readings"].append(dict(where, line=line, round=_int(plant.get("round")),
                                             attempt=_int(plant.get("attempt")), seed=_int(plant.get("seed")),
                                             reading=json.dumps(reading, separators=(",", ":")),
                                             staged=None if detail.get("staged") is None else str(detail["staged"])))
        for verdict in record.get("verdicts") or ():
            if isinstance(verdict, dict):
                rows["violations"].append(dict(where, line=line, round=_int(verdict.get("round")),
                                               clause=str(verdict.get("clause")), message=str(verdict.get("message"))))
        for direction, wall, m in _messages(record):
            kind_of, r = m.get("type"), _int(m.get("round"))
            if isinstance(wall, (int, float)) and first_wall is None:
                first_wall = float(wall)
            if r is None:
                continue
            if kind_of == "OPEN" and isinstance(wall, (int, float)):
                opened.setdefault(r, float(wall))
            elif kind_of == "WAGER" and direction == "tx":
                wagers.setdefault((r, str(m.get("id"))), dict(where, line=line, round=r, wager_id=str(m.get("id")),
                                                              bet=str(m.get("bet")), stake=_int(m.get("stake")),
                                                              accepted=None, reason=None, clause=None))
            elif kind_of in ("ACCEPT", "REFUSE") and direction == "rx":
                wager = wagers.get((r, str(m.get("id"))))
                if wager is not None and wager["accepted"] is None:
                    wager["accepted"] = kind_of == "ACCEPT"
                    wager["reason"] = None if m.get("reason") is None else str(m.get("reason"))
                    wager["clause"] = None if m.get("clause") is None else str(m.get("clause"))
            elif kind_of == "SETTLE" and direction == "rx":
                rows["settlements"].append(dict(where, line=line, round=r, wager_id=str(m.get("id")),
                                                returned=_int(m.get("returned"))))
            elif kind_of == "LUCKY" and direction == "rx" and isinstance(m.get("lucky"), list):
                rows["lucky"] += [dict(where, line=line, round=r, position=i, bet=str(x.get("bet")),
                                       pays=_int(x.get("pays")))
                                  for i, x in enumerate(m["lucky"], 1) if isinstance(x, dict)]
    rows["wagers"] = list(wagers.values())
    exact: dict[int, float] = {}
    for wager in rows["wagers"]:
        share = rtp(wager["bet"]) if wager["accepted"] else None
        if share is not None and wager["stake"]:
            exact[wager["round"]] = exact.get(wager["round"], 0.0) + wager["stake"] * share
    labelled = {k: labels.get(k) for k in ("dealer", "dice_set", "wheel_id")}
    rows["rounds"] = [dict(where, line=round_line.get(r.round), round=r.round, opened_at=opened.get(r.round),
                           game=game, **labelled, outcome=_outcome_json(r.outcome), symbols=symbols_of(r.outcome),
                           no_roll=bool(r.no_roll), staged=staged.get(r.round),
                           lucky=",".join(f"{x.bet}@{x.pays}" for x in r.lucky) or None, staked=r.staked,
                           returned=r.returned, expected=r.expected, exact_return=exact.get(r.round, 0.0),
                           wagers=r.wagers, violations=r.violations, failure=failures.get(r.round))
                      for r in oracle.rounds]
    # Each row's day: its round's OPEN; else the journal's first frame (a frame before any round).
    fallback = utc_day(first_wall) or utc_day(header.get("wall")) or "0000-00-00"
    day_of: dict[Any, str] = {r: utc_day(wall) or fallback for r, wall in opened.items()}
    for found in rows.values():
        for row in found:
            row["day"] = day_of.get(row.get("round"), fallback)
    return rows
