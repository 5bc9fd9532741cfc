"""Which scenario of the shipped regulation features tests which clause, for
which game, and why one cannot be played on a controller: read from the
feature files' tags (docs/features.md), so that the clause matrix can say of
a clause that its scenarios exist but no controller can play them, and why.

Only the tags are read (a tag line, a ``Scenario``, ``Scenario Outline`` or
``Examples:`` line, and the ``Given a ... table`` step that names the game);
pytest-bdd does the real parsing when the scenarios run.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources

from bench.errors import RulesError
from bench.rules import game_titled
from bench.scenarios.clause_tags import clause_of_tag
from bench.scenarios.controller_scope import OFF_CONTROLLER, REASONS

FEATURES_PACKAGE = "tablebench_features"
# "a Dice-Ology table using pay table <pay table>": the game by its title; an
# outline's placeholder paytable is the controller's to decide.
TABLE = re.compile(r"^an? (?P<title>[A-Z][\w-]*(?: [A-Z][\w-]*)*) table\b")
# The one tag outside the citation scheme's brackets (docs/features.md), as
# bench.rules.regulation_text names the unnumbered "Pay Tables" of 20:18:33:14.
NAMED_TAGS = {"sd.20.18.33.14.pay-tables": "20:18:33:14 pay tables"}


@dataclass(frozen=True)
class Scenario:
    feature: str                    # the file's name
    title: str
    clauses: tuple[str, ...]        # in citation form: 625b.2(d)(5)
    off_controller: str | None      # a key of REASONS, or None: playable on a controller
    game: str | None                # the game its table is, when it opens one

    @property
    def why_not(self) -> str | None:
        return REASONS.get(self.off_controller, self.off_controller) if self.off_controller else None


def _clauses_and_reason(tags: list[str]) -> tuple[tuple[str, ...], str | None]:
    reason = next((t[len(OFF_CONTROLLER):] for t in tags if t.startswith(OFF_CONTROLLER)), None)
    return tuple(dict.fromkeys(NAMED_TAGS.get(t) or clause_of_tag(t) for t in tags if not t.startswith(OFF_CONTROLLER))), reason


def read_feature(name: str, text: str) -> list[Scenario]:
    """The scenarios of one feature file; an outline's Examples blocks each
    count as one scenario (a block can carry tags of its own)."""
    found: list[Scenario] = []
    feature_tags: list[str] = []
    pending: list[str] = []
    title: str = ""
    scenario_tags: list[str] = []
    game: str | None = None
    blocks: list[list[str]] = []

    def close() -> None:
        if not title:
            return
        for block in blocks or [[]]:
            clauses, reason = _clauses_and_reason(feature_tags + scenario_tags + block)
            found.append(Scenario(name, title, clauses, reason, game))

    for line in text.splitlines():
        words = line.split("#", 1)[0].strip()
        if not words:
            continue
        if words.startswith("@"):
            pending += [w[1:] for w in words.split() if w.startswith("@")]
        elif words.startswith("Feature:"):
            feature_tags, pending = pending, []
        elif words.startswith(("Scenario:", "Scenario Outline:", "Scenario Template:")):
            close()
            title, scenario_tags, game, blocks, pending = words.split(":", 1)[1].strip(), pending, None, [], []
        elif words.startswith(("Examples:", "Scenarios:")):
            blocks.append(pending)
            pending = []
        elif title and game is None and words.split(" ", 1)[0] in ("Given", "And"):
            match = TABLE.match(words.split(" ", 1)[1] if " " in words else "")
            if match:
                try:
                    game = game_titled(match["title"])
                except RulesError:
                    pass
    close()
    return found


@functools.lru_cache(maxsize=1)
def shipped_scenarios() -> tuple[Scenario, ...]:
    """Every scenario of every shipped feature file (read once)."""
    shipped = resources.files(FEATURES_PACKAGE)
    scenarios: list[Scenario] = []
    for entry in sorted(shipped.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".feature"):
            scenarios += read_feature(entry.name, entry.read_text(encoding="utf-8"))
    return tuple(scenarios)


def game_sections(game: str) -> set[str]:
    """The sections a game answers to: those its descriptor cites and those its scenarios are tagged with."""
    from bench.certify.plan import _sections_of_game, section_of
    return _sections_of_game(game) | {section for s in shipped_scenarios() if s.game == game
                                      for c in s.clauses if (section := section_of(c))}
