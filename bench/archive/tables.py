"""The archive's tables: their columns, each with what it means (``bench
archive query --columns`` prints them; docs/archive.md lists them), and their
Arrow types, so that every file of a table has one schema whatever journal it
came from (an engine reading the folder as one dataset needs that).

Every row points back to where it came from: ``journal`` (the SHA-256 of the
journal's bytes, the ``journals`` table's key) and ``line`` (1-based, the line
of the journal that holds it). ``table`` and ``day`` are the partition keys:
in the folder names (``table=T12/day=2026-12-02``), read back as columns by
any engine that knows Hive partitioning (DuckDB, Spark, Trino, Ray Data).
Money is integer minor units; ``exact_return`` alone is a real number (an
expectation, not an amount paid)."""

from __future__ import annotations

from typing import Any

# table -> [(column, Arrow type name, meaning)]; the partition keys table and day come first in every table
_KEYS = [("table", "string", "the table's name (the journal's header, or ingest --table)"),
         ("day", "string", "the UTC day, YYYY-MM-DD, of the round's opening (a partition key)")]
_WHERE = [("journal", "string", "SHA-256 of the journal's bytes (journals.journal)"),
          ("line", "int64", "the line of the journal holding it (1-based)")]

COLUMNS: dict[str, list[tuple[str, str, str]]] = {
    "journals": _KEYS[:1] + [
        ("journal", "string", "SHA-256 of the journal's bytes: each journal is ingested once"),
        ("file", "string", "the journal's file name when ingested"),
        ("bytes", "int64", "its size"),
        ("records", "int64", "its records (lines)"),
        ("head", "string", "its head hash (the last record's hash)"),
        ("anchors", "string", "what vouched for it at ingest: 'head' (its .head matched), 'seal' (every seal "
                              "verified with a given key), comma-separated; '' when nothing did"),
        ("sealed", "bool", "its header names a sealing key"),
        ("seal_fingerprint", "string", "that key's fingerprint (sha256:...)"),
        ("runner", "string", "what wrote it: bench run, bench monitor, pytest features/ --controller"),
        ("game", "string", "the game (a built-in name)"),
        ("paytable", "string", "the paytable, if the game has several"),
        ("submission_sha256", "string", "the rules submission's digest, if one was given"),
        ("dealer", "string", "the dealer named in the header (or ingest --dealer)"),
        ("dice_set", "string", "the dice set named in the header (or ingest --dice-set)"),
        ("wheel_id", "string", "the wheel named in the header (or ingest --wheel-id)"),
        ("labelled_by", "string", "'header' or 'ingest' (an older journal labelled by ingest --table)"),
        ("controller", "string", "the controller's link as the header gives it"),
        ("software", "string", "the bench version that wrote it"),
        ("seed", "int64", "the session seed, when the header records one"),
        ("twin_same", "bool", "its header's twin fingerprint is this machine's twin (null: it names none)"),
        ("ending", "string", "how the session ended (completed, cut-off, interrupted, ...)"),
        ("status", "int64", "the exit status the session had, worked out again by replay"),
        ("rounds", "int64", "rounds the oracle judged on replay"),
        ("violations", "int64", "violations replay found"),
        ("first_day", "string", "the day of its first round"),
        ("last_day", "string", "the day of its last round"),
        ("ingested_at", "string", "when it was ingested (UTC, ISO 8601)"),
    ],
    "rounds": _KEYS + _WHERE + [
        ("round", "int64", "the round number"),
        ("opened_at", "double", "wall-clock time of the round's OPEN (Unix seconds, UTC)"),
        ("game", "string", "the game"),
        ("dealer", "string", "the dealer, if named"),
        ("dice_set", "string", "the dice set, if named"),
        ("wheel_id", "string", "the wheel, if named"),
        ("outcome", "string", "the outcome the oracle settled on, as JSON (dice, a pocket, rolls); null if none"),
        ("symbols", "list<int64>", "what the fairness test counts: each die's face of the settling throw, or the "
                                   "pocket"),
        ("no_roll", "bool", "the round ended in a no roll (a die not flat)"),
        ("staged", "string", "the outcome class bench run staged in it (a probe round), else null: staged rounds "
                             "are left out of every fleet statistic"),
        ("lucky", "string", "its Lucky Numbers, 'bet@pays' comma-separated"),
        ("staked", "int64", "stakes of the accepted wagers"),
        ("returned", "int64", "what the controller returned on them (its SETTLE frames)"),
        ("expected", "int64", "what the rules return on them for this outcome (the oracle's settlement)"),
        ("exact_return", "double", "sum of stake x exact RTP over the accepted wagers: the return expected before "
                                   "the outcome (bench/rules)"),
        ("wagers", "int64", "accepted wagers"),
        ("violations", "int64", "violations naming the round"),
        ("failure", "string", "why the round failed or was voided, if it did"),
    ],
    "wagers": _KEYS + _WHERE + [
        ("round", "int64", "the round"),
        ("wager_id", "string", "the wager's id on the wire"),
        ("bet", "string", "the bet (README, Bet names)"),
        ("stake", "int64", "the stake"),
        ("accepted", "bool", "the controller accepted it (null: no answer journalled)"),
        ("reason", "string", "the REFUSE's reason, if refused"),
        ("clause", "string", "the clause the REFUSE cites, if any"),
    ],
    "settlements": _KEYS + _WHERE + [
        ("round", "int64", "the round"),
        ("wager_id", "string", "the wager settled"),
        ("returned", "int64", "what the controller returned on it (stake included)"),
    ],
    "readings": _KEYS + _WHERE + [
        ("round", "int64", "the round"),
        ("attempt", "int64", "the throw within the round (0 first; again after a no roll)"),
        ("seed", "int64", "the plant's seed for it (replayable)"),
        ("reading", "string", "what the plant read, as JSON (dice and flat flags, or the pocket)"),
        ("staged", "string", "the outcome class staged in it, if any"),
    ],
    "lucky": _KEYS + _WHERE + [
        ("round", "int64", "the round"),
        ("position", "int64", "its place in the LUCKY frame (1-based)"),
        ("bet", "string", "the Lucky Number's bet"),
        ("pays", "int64", "its announced odds (N to 1)"),
    ],
    "violations": _KEYS + _WHERE + [
        ("round", "int64", "the round it names (null: none)"),
        ("clause", "string", "the clause broken"),
        ("message", "string", "what was expected and what was seen"),
    ],
}
TABLES = tuple(COLUMNS)


def arrow_schema(table: str) -> Any:
    """The Arrow schema of ``table``'s files (the partition keys left out: they are in the folder names)."""
    import pyarrow as pa
    types = {"string": pa.string(), "int64": pa.int64(), "double": pa.float64(), "bool": pa.bool_(),
             "list<int64>": pa.list_(pa.int64())}
    partition = {"table", "day"} if table != "journals" else {"table"}
    return pa.schema([(name, types[kind]) for name, kind, _ in COLUMNS[table] if name not in partition])


def columns_text() -> str:
    """Every table's columns, for ``bench archive query --columns`` and docs/archive.md."""
    lines = []
    for table, columns in COLUMNS.items():
        lines.append(f"{table}:")
        lines += [f"  {name:<18} {kind:<12} {meaning}" for name, kind, meaning in columns]
    return "\n".join(lines)
