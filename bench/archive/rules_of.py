"""The rules a journal in the archive was judged by, made again from its
header as ``bench replay`` makes them (the submission's text the header
carries, else the regulation's defaults; a game file's variant registered
from its text), for the fleet's Lucky-draw test; one per journal, kept."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from bench.archive.store import Archive


@lru_cache(maxsize=256)
def _rules(original: Path) -> Any:
    from bench.journal.replay import session_file
    from bench.rules.submission import default_rules, load_submission
    with original.open("rb") as handle:
        header = json.loads(handle.readline())
    if header.get("game_file_text") is not None:
        from bench.rules.variant import game_from_text
        game_from_text(str(header["game_file_text"]), str(header.get("game_file") or "<journal game file>"))
    with session_file(header, "submission") as path:
        if path is not None:
            return load_submission(path)
    return default_rules(header["game"], header.get("paytable"))


def lucky_judge(archive: Archive, journal: str, draws: list[list[tuple[str, int]]]) -> tuple[float, str, str] | None:
    """The fleet's ``lucky`` test of a group's draws (each round's (bet, pays)),
    by the rules of ``journal`` (one of the group's): each position an exact
    binomial test, the count and each odds distribution one test each (the
    smallest of its values' exact p-values times their number;
    ``bench.archive.lucky_exact``: the oracle's chi-squares are too rough in a
    fleet's far tail), Holm within the family, its smallest adjusted p-value,
    with what it found and its clause.
    None where the game has no Lucky draw."""
    return lucky_test(_rules(archive.root / "originals" / f"{journal}.jsonl"), draws)


def lucky_test(rules: Any, draws: list[list[tuple[str, int]]]) -> tuple[float, str, str] | None:
    """``lucky_judge``'s test by these rules: (p, what it found, clause), or None."""
    from bench.archive.lucky_exact import exact_family
    from bench.rules import Lucky, describe
    clauses = dict(describe(rules.game).lucky_draw_clauses)
    if getattr(rules, "lucky", None) is None or not clauses:
        return None
    tests = exact_family(rules.lucky, clauses, [tuple(Lucky(bet, pays) for bet, pays in d) for d in draws])
    if not tests:
        return None
    worst = min(tests, key=lambda t: t.adjusted)
    return (float(worst.adjusted), f"{len(draws)} draws; smallest of {len(tests)} exact tests (Holm): {worst.detail}",
            worst.clause)
