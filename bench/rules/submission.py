"""A rules submission (58 Pa. Code § 601a.2): the game, the paytable the
certificate holder selected, its reading of each ambiguous clause
(``options``) and, for the lightning games, the Lucky Number distribution.

Loading validates everything against the regulation; an error names the file,
the field and the clause. File format (YAML)::

    game: sic-bo            # lightning-dice | sic-bo | lightning-roulette | dice-ology
    paytable: A             # sic-bo: A or B (625a.6(a)); dice-ology: 1 or 2; lightning: omit
    description: free text  # optional
    options:                # optional; see docs/rules.md for each choice and its default
      double_on_triple: wins
    lucky:                  # lightning games only: see bench.rules.lucky
      count: {2: 0.5, 3: 0.3, 4: 0.2}
      positions: all        # or a list of bets
      odds: {all: {49: 0.5, 99: 0.5}}
    limits:                 # optional: the table's stake limits, minor units (default 1 and 1,000,000)
      min_stake: 1
      max_stake: 1000000
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import tablebench_fixtures

from bench.rules.errors import RulesError
from bench.rules.lucky import LuckyDistribution, parse_lucky
from bench.rules.registry import game_names, get_game
from tablebench_io.fields import refuse_unknown, suggestion
from tablebench_io.yamlfile import read_yaml

_FIELDS = {"game", "paytable", "description", "options", "lucky", "limits"}
# The table's stake limits are the certificate holder's, stated in its Rules
# Submission (601a.2); without them the bench assumes these. A wager outside
# them must be refused (protocol REFUSE reason bad-stake).
LIMITS_CLAUSE = "601a.2"
DEFAULT_MIN_STAKE = 1
DEFAULT_MAX_STAKE = 1_000_000


@dataclass(frozen=True)
class Rules:
    game: str
    paytable: str | None = None          # "A"/"B" sic-bo, "1"/"2" dice-ology, None otherwise
    options: Mapping[str, str] = field(default_factory=dict)   # every option, defaults filled in
    lucky: LuckyDistribution | None = None                     # lightning games
    source: str | None = None                                   # the submission file, if any
    description: str | None = None
    min_stake: int = DEFAULT_MIN_STAKE                          # minor units, the smallest wager taken
    max_stake: int = DEFAULT_MAX_STAKE                          # minor units, the largest wager taken

    def stake_problem(self, stake: object) -> RulesError | None:
        """Why a wager of ``stake`` must be refused, or None."""
        if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
            return RulesError(f"stake {stake!r} is not a positive amount", field="stake")
        if not self.min_stake <= stake <= self.max_stake:
            return RulesError(f"stake {stake} is outside the table's limits {self.min_stake}-{self.max_stake}",
                              field="stake", clause=LIMITS_CLAUSE)
        return None

    def option(self, name: str) -> str:
        """The chosen reading of an ambiguous clause (the game's default if unset)."""
        if name in self.options:
            return self.options[name]
        return get_game(self.game).option_choices[name][0]


def normalize_paytable(game, value: object, *, file: str | None = None,
                       field: str = "paytable") -> str | None:
    """The paytable as the game names it ("A", "1"...), or a RulesError."""
    if not game.paytables:
        if value is not None:
            raise RulesError(f"{game.name} pays by its regulation's paytable; omit 'paytable'",
                             file=file, field=field, clause=game.paytable_clause)
        return None
    if value is None:
        raise RulesError(f"{game.name} needs a paytable: one of {', '.join(game.paytables)}",
                         file=file, field=field, clause=game.paytable_clause)
    text = str(value) if not isinstance(value, bool) and isinstance(value, (int, str)) else None
    if text not in game.paytables:
        raise RulesError(f"unknown paytable {value!r}; {game.name} has {', '.join(game.paytables)}",
                         file=file, field=field, clause=game.paytable_clause)
    return text


def _options(game, raw: object, *, file: str | None) -> dict[str, str]:
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise RulesError("expected a mapping of option name to choice", file=file, field="options")
    chosen = {}
    for name, value in raw.items():
        if name not in game.option_choices:
            known = ", ".join(game.option_choices) or "none"
            raise RulesError(f"unknown option {name!r} for {game.name}; known options: {known}"
                             f"{suggestion(name, game.option_choices)}", file=file, field=f"options.{name}")
        choices = game.option_choices[name]
        if value not in choices:
            raise RulesError(f"unknown choice {value!r}; choose one of {', '.join(choices)}",
                             file=file, field=f"options.{name}", clause=game.option_clauses[name])
        chosen[name] = value
    return {name: chosen.get(name, choices[0]) for name, choices in game.option_choices.items()}


def _limits(raw: object, *, file: str | None) -> dict[str, int]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise RulesError("expected a mapping with min_stake and/or max_stake", file=file, field="limits")
    limits = {}
    for name, value in raw.items():
        if name not in ("min_stake", "max_stake"):
            raise RulesError(f"unknown limit {name!r}; expected min_stake, max_stake", file=file,
                             field=f"limits.{name}")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise RulesError(f"expected a positive whole number of minor units, got {value!r}", file=file,
                             field=f"limits.{name}", clause=LIMITS_CLAUSE)
        limits[name] = value
    if limits.get("min_stake", DEFAULT_MIN_STAKE) > limits.get("max_stake", DEFAULT_MAX_STAKE):
        raise RulesError("min_stake is above max_stake", file=file, field="limits", clause=LIMITS_CLAUSE)
    return limits


def parse_rules(raw: object, *, file: str | None = None) -> Rules:
    """Rules from an already parsed submission mapping (``file`` names it in errors)."""
    if not isinstance(raw, Mapping):
        raise RulesError("a rules submission is a YAML mapping with at least 'game'", file=file)
    refuse_unknown(raw, _FIELDS, error=RulesError, file=file)
    name = raw.get("game")
    if name not in game_names():
        raise RulesError(f"unknown game {name!r}; known games: {', '.join(game_names())}",
                         file=file, field="game")
    game = get_game(name)
    paytable = normalize_paytable(game, raw.get("paytable"), file=file)
    options = _options(game, raw.get("options"), file=file)
    description = raw.get("description")
    if description is not None and not isinstance(description, str):
        raise RulesError("expected text", file=file, field="description")
    lucky = None
    if game.lucky_count_range:
        if "lucky" not in raw:
            raise RulesError(f"{name} needs the Lucky Number distribution", file=file, field="lucky",
                             clause=game.lucky_count_clause)
        lucky = parse_lucky(raw["lucky"], game, options, file=file)
    elif "lucky" in raw:
        raise RulesError(f"{name} has no Lucky Numbers; remove 'lucky'", file=file, field="lucky")
    return Rules(game=name, paytable=paytable, options=options, lucky=lucky, source=file,
                 description=description, **_limits(raw.get("limits"), file=file))


def load_submission(path) -> Rules:
    """Read and validate a YAML rules submission: a file, or a shipped one by
    name (``sic-bo-B``; ``bench rtp --list``)."""
    path = tablebench_fixtures.resolve(str(path), "submission")
    return parse_rules(read_yaml(path, RulesError), file=str(path))


def default_rules(game: str, paytable: object = None) -> Rules:
    """The rules with every option at its default reading (see docs/rules.md);
    for the lightning games, the Lucky distribution shipped as the game's default
    (the same as fixtures/submissions/<game>.yaml)."""
    spec = get_game(game)
    raw: dict[str, object] = {"game": game}
    if paytable is not None:
        raw["paytable"] = paytable
    if spec.lucky_count_range:
        raw["lucky"] = spec.DEFAULT_LUCKY
    return parse_rules(raw)
