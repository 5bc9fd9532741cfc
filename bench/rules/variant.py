"""Game files: a game described as a variant of a built-in one, in YAML, so
that a jurisdiction or a studio that changes a number of a game writes a
file, not a patch. Format::

    name: lightning-dice-1to3     # the variant's name on the wire (HELLO game=...)
    base: lightning-dice          # the built-in game it varies
    description: free text        # optional
    bets: [low, high, total:10]   # optional: the bets offered (default: every bet of the base)
    paytable: {total:10: 5}       # optional: rows of the base paytable, "N to 1"
                                  #   (sic-bo: rows of paytable A, which becomes the only one;
                                  #    keys triple, double, any-triple, combo, small, big,
                                  #    total:N, single:N with N the dice showing the number)
    options: {no_roll: all-dice}  # optional: the default reading of each ambiguous clause
    phases: {betting: 10}         # optional: phase lengths in seconds (betting, lucky, result, clear)
    # lightning-dice only:
    lucky_count: [1, 3]           # how many Lucky Numbers a round reveals
    enhanced_ranges: {total:10: [4, 99]}   # rows of the (g)(3) ranges, "N to 1"
    lucky: {count: ..., positions: ..., odds: ...}   # the default Lucky distribution
                                  #   (a submission's ``lucky``); needed when the base's no longer fits

Loading registers the variant under its name, so that everything that looks
a game up by name (the emulator, the oracle, the codec) plays it. An error
names the file, the field and, where the base's regulation sets the value
being varied, its clause.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from bench.rules.base import Game
from bench.rules.errors import RulesError
from bench.rules.registry import game_names, get_game, register, unregister
from tablebench_io.fields import Fields, suggestion
from tablebench_io.paytables import Table, changed_rows, checked_odds
from tablebench_io.yamlfile import parse_yaml, read_yaml

_NAME = re.compile(r"[a-z0-9][a-z0-9.+-]{0,47}")
PHASE_NAMES = ("betting", "lucky", "result", "clear")
MAX_PHASE_S = 3600.0
# What a game file may change, by base game (the rest of a base stays as its regulation has it).
VARIES = {
    "lightning-dice": ("bets", "paytable", "options", "phases", "lucky_count", "enhanced_ranges", "lucky"),
    "sic-bo": ("bets", "paytable", "options", "phases"),
}
_SIC_BO_ROWS = ("triple", "double", "any-triple", "combo", "small", "big")
_VARIANTS: dict[str, str] = {}     # variant name -> the digest of the text it was loaded from


class VariantGame(Game, Protocol):
    """A game a game file made: its base's, with what ``_Offered`` adds."""
    offered: frozenset[str] | None
    description: str | None


def is_game_file(value: str) -> bool:
    """Whether a ``--game`` value names a file rather than a built-in game."""
    return value.endswith((".yaml", ".yml")) or "/" in value


def resolve_game(value: str) -> str:
    """The game name for a ``--game`` value: a built-in name, or a game file,
    which is loaded (and registered) to give its variant's name."""
    if is_game_file(value):
        return load_game_file(value).name
    if value not in game_names():
        raise RulesError(f"unknown game {value!r}; known games: {', '.join(game_names())}, "
                         f"or a game file (YAML)", field="--game")
    return value


def load_game_file(path) -> VariantGame:
    """Read, validate and register the game file at ``path``; the variant game."""
    file = str(path)
    raw = read_yaml(path, RulesError)         # refuses a missing, large or hostile file first
    return parse_game_file(raw, text=Path(path).read_text(encoding="utf-8"), file=file)


def game_from_text(text: str, file: str) -> VariantGame:
    """The variant a journal recorded (its game file's text), registered."""
    return parse_game_file(parse_yaml(text, file, RulesError), text=text, file=file)


def parse_game_file(raw: object, *, text: str, file: str) -> VariantGame:
    f = Fields(raw, "", file, error=RulesError)
    base_name = f.raw("base")
    if base_name not in VARIES:
        known = ", ".join(VARIES)
        raise f.error("base", f"a game file varies one of {known}, not {base_name!r}"
                              f"{suggestion(base_name, VARIES) if isinstance(base_name, str) else ''}")
    base = get_game(base_name)
    name = f.raw("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise f.error("name", "must be a lower-case name of letters, digits, '.', '+' or '-' "
                              f"(at most 48), got {name!r}")
    digest = hashlib.sha256(text.encode()).hexdigest()
    if name in _VARIANTS:
        if _VARIANTS[name] == digest:
            return get_game(name)
        raise f.error("name", f"a different game file already named {name!r} was loaded")
    if name in game_names():
        raise f.error("name", f"{name!r} is a built-in game; a variant needs a name of its own")
    description = f.text("description", None)
    for key in f.data:          # ``raw`` as Fields checked it: a mapping
        if key not in VARIES[base_name] and key not in ("name", "base", "description"):
            allowed = ", ".join(("name", "base", "description") + VARIES[base_name])
            raise f.error(str(key), f"is not a field a {base_name} game file may set ({allowed})"
                                    f"{suggestion(key, VARIES[base_name])}")

    variant = _variant_object(base)
    variant.name = name
    variant.description = description
    if f.has("bets"):
        variant.offered = _bets(f, base)
    if f.has("paytable"):
        _paytable(f, base, variant)
    if f.has("lucky_count"):
        variant.lucky_count_range = _count_range(f, base)
    if f.has("enhanced_ranges"):
        variant.enhanced_ranges = _enhanced_ranges(f, base)
    if f.has("options"):
        variant.option_choices = _options(f, base)
    phases = _phases(f) if f.has("phases") else {}
    if base.lucky_count_range:
        variant.DEFAULT_LUCKY = f.raw("lucky", base.DEFAULT_LUCKY)
    f.done()
    variant.descriptor = _descriptor(base.descriptor, variant, phases, file, text)
    register(variant)
    try:
        _check_defaults(variant, f)
    except RulesError:
        unregister(name)
        raise
    _VARIANTS[name] = digest
    return variant


# The mixin is only ever put before a DiceGame (every base in VARIES is one): said
# so to the type checker, so that its ``super()`` calls and attributes resolve.
if TYPE_CHECKING:
    from bench.rules.dice_game import DiceGame as _OfferedBase
else:
    _OfferedBase = object


class _Offered(_OfferedBase):
    """A variant's bets: the base's, less those the game file does not offer."""
    offered: frozenset[str] | None = None
    description: str | None = None

    def bet_names(self, rules=None) -> list[str]:
        names = super().bet_names(rules)
        return names if self.offered is None else [b for b in names if b in self.offered]

    def check_bet(self, bet: str, rules=None) -> None:
        super().check_bet(bet, rules)
        if self.offered is not None and bet not in self.offered:
            raise RulesError(f"{self.name} does not offer {bet!r}; it offers {', '.join(sorted(self.offered))}",
                             field="bet", clause=self.descriptor.source)

    def lucky_positions(self, options):
        positions = super().lucky_positions(options)
        return positions if self.offered is None else tuple(p for p in positions if p in self.offered)


def _variant_object(base):
    cls = type(f"{type(base).__name__}Variant", (_Offered, type(base)), {})
    return cls()


def _bets(f: Fields, base) -> frozenset[str]:
    value = f.raw("bets")
    if not isinstance(value, list) or not value:
        raise f.error("bets", f"must be a non-empty list of bets of {base.name}")
    for i, bet in enumerate(value):
        try:
            base.check_bet(bet)
        except RulesError as err:
            raise RulesError(err.message, file=f.file, field=f"bets[{i}]", clause=err.clause) from None
    return frozenset(value)


def _odds(f: Fields, where: str, value: object, clause: str) -> int:
    return checked_odds(value, file=f.file, field=where, clause=clause, error=RulesError)


def _paytable(f: Fields, base, variant) -> None:
    rows = f.raw("paytable")
    if not isinstance(rows, dict) or not rows:
        raise f.error("paytable", "must be a mapping of bet to 'N to 1' odds", base.paytable_clause)
    if base.lucky_count_range:             # Lightning Dice: the base paytable of (f), as twin edge reads it too
        changed = changed_rows(Table(base.paytable_clause, base.base_paytable), rows, game=base.name, file=f.file,
                               error=RulesError)
        variant.base_paytable = changed.rows
        return
    # Sic Bo: rows of paytable A, the variant's only paytable.
    a = base.paytable_tables["A"]
    table = {key: (dict(v) if isinstance(v, dict) else v) for key, v in a.items()}
    keys = list(_SIC_BO_ROWS) + [f"total:{t}" for t in table["total"]] + [f"single:{n}" for n in table["single"]]
    for bet, odds in rows.items():
        where = f"paytable.{bet}"
        if bet not in keys:
            raise RulesError(f"Sic Bo's paytable has no row {bet!r}{suggestion(bet, keys)}", file=f.file,
                             field=where, clause=base.paytable_clause)
        kind, _, arg = str(bet).partition(":")
        if kind == "total":
            table["total"][int(arg)] = _odds(f, where, odds, base.paytable_clause)
        elif kind == "single":
            count = int(arg)
            table["single"][count] = (_odds(f, where, odds, "625a.6(b)"), table["single"][count][1])
        else:
            table[kind] = _odds(f, where, odds, base.paytable_clause)
    variant.paytable_tables = MappingProxyType({"A": table})
    variant.paytables = ("A",)


def _count_range(f: Fields, base) -> tuple[int, int]:
    value = f.raw("lucky_count")
    clause = base.lucky_count_clause
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise f.error("lucky_count", f"must be [fewest, most], got {value!r}", clause)
    low, high = value
    most = len(base.lucky_positions({}))
    if not 1 <= low <= high <= most:
        raise f.error("lucky_count", f"must satisfy 1 <= fewest <= most <= {most}, got {value!r}", clause)
    return low, high


def _enhanced_ranges(f: Fields, base) -> dict[str, tuple[int, int]]:
    rows = f.raw("enhanced_ranges")
    clause = base.lucky_pays_clause
    if not isinstance(rows, dict) or not rows:
        raise f.error("enhanced_ranges", "must be a mapping of bet to [lowest, highest] 'N to 1' odds", clause)
    ranges = dict(base.enhanced_ranges)
    for bet, value in rows.items():
        where = f"enhanced_ranges.{bet}"
        if bet not in ranges:
            raise RulesError(f"no Lucky position {bet!r}{suggestion(bet, ranges)}", file=f.file, field=where,
                             clause=clause)
        if not isinstance(value, list) or len(value) != 2:
            raise RulesError(f"must be [lowest, highest], got {value!r}", file=f.file, field=where, clause=clause)
        low, high = (_odds(f, where, v, clause) for v in value)
        if low > high:
            raise RulesError(f"lowest {low} is above highest {high}", file=f.file, field=where, clause=clause)
        ranges[bet] = (low, high)
    return ranges


def _options(f: Fields, base) -> dict[str, tuple[str, ...]]:
    sub = f.sub("options")
    choices = {}
    for option, readings in base.option_choices.items():
        chosen = sub.choice(option, readings, readings[0], base.option_clauses[option])
        choices[option] = (chosen,) + tuple(r for r in readings if r != chosen)
    sub.done()
    return choices


def _phases(f: Fields) -> dict[str, float]:
    sub = f.sub("phases")
    phases = {name: sub.positive(name, None, MAX_PHASE_S) for name in PHASE_NAMES if sub.has(name)}
    sub.done()
    return phases


def _descriptor(base, variant, phases, file: str, text: str):
    offered = variant.offered
    players = base.players
    late_bet = base.late_bet
    if offered is not None:
        players = tuple((b, w) for b, w in players if b in offered) or tuple((b, 1) for b in sorted(offered))
        late_bet = late_bet if late_bet in offered else sorted(offered)[0]
    return dataclasses.replace(base, name=variant.name, players=players, late_bet=late_bet,
                               default_paytable=variant.paytables[0] if variant.paytables else None,
                               phases=MappingProxyType(phases), base=base.built_in, source=file,
                               source_text=text)


def _check_defaults(variant, f: Fields) -> None:
    """The variant's default rules must load: a Lucky distribution that fits
    the changed counts and ranges, and wagers its players can place."""
    from bench.rules.submission import default_rules
    try:
        default_rules(variant.name, variant.descriptor.default_paytable)
    except RulesError as err:
        field = err.field if (err.field or "").startswith("lucky") else f"lucky ({err.field})" if err.field else "lucky"
        hint = "" if f.has("lucky") else "; the base's Lucky distribution does not fit: give 'lucky'"
        raise RulesError(err.message + hint, file=f.file, field=field, clause=err.clause) from None


def load_rules_file(path):
    """The rules a YAML file gives: a rules submission's, or a game file's
    defaults (a game file names its ``base``)."""
    from bench.rules.submission import default_rules, load_submission
    raw = read_yaml(path, RulesError) if Path(path).is_file() else None   # else a shipped submission's name
    if isinstance(raw, dict) and "base" in raw:
        text = Path(path).read_text(encoding="utf-8")
        game = parse_game_file(raw, text=text, file=str(path))
        rules = default_rules(game.name, game.descriptor.default_paytable)
        return dataclasses.replace(rules, source=str(path), description=game.description)
    return load_submission(path)
