"""One ``bench settle`` input line (a parsed JSON object) settled to its output
object. The format, for every game::

    {"game": "sic-bo", "paytable": "A", "dice": [2, 2, 5],
     "wagers": [{"id": "w1", "bet": "single:2", "stake": 100}]}

lightning-dice adds ``"lucky": [{"bet": "total:11", "pays": 49}, ...]`` and
``"no_roll": true`` when a die did not land flat (or ``"flat": [true, false,
true]``, which the game turns into a no roll by the submission's reading of
625b.2(d)(5)); lightning-roulette gives ``"pocket": 17`` and ``"lucky"``;
dice-ology gives ``"rolls": [[1, 2], [3, 3]]`` (1 or 2 as ``"paytable"``). An
optional ``"round"`` (any JSON value) is echoed back to pair output with input.

Output: ``{"settlements": [{"id": "w1", "returned": 300, "clause": "625a.6(b)(2)"}]}``
(``"open": true`` added for a Dice-Ology bet still unresolved).
"""

from __future__ import annotations

from typing import Mapping

from bench.rules.errors import RulesError
from bench.rules.base import Lucky, Round, Wager
from bench.rules.registry import game_names, get_game
from bench.rules.submission import Rules, default_rules, normalize_paytable

# Every line has these; each game adds its ``line_fields`` (dice, pocket, rolls, lucky...).
COMMON_FIELDS = {"game", "paytable", "wagers", "round"}
WAGER_FIELDS = {"id", "bet", "stake"}
LUCKY_FIELDS = {"bet", "pays"}


def _mapping(value: object, field: str, allowed: set[str]) -> Mapping:
    if not isinstance(value, Mapping):
        raise RulesError(f"expected an object with {', '.join(sorted(allowed))}", field=field)
    unknown = set(value) - allowed
    if unknown:
        raise RulesError(f"unknown field(s) {sorted(unknown)}; expected {sorted(allowed)}",
                         field=f"{field}.{sorted(unknown)[0]}" if field else sorted(unknown)[0])
    return value


def _wagers(raw: object) -> list[Wager]:
    if not isinstance(raw, list):
        raise RulesError("expected a list of wagers such as [{\"id\": \"w1\", \"bet\": \"small\", "
                         "\"stake\": 100}]", field="wagers")
    wagers = []
    for i, item in enumerate(raw):
        item = _mapping(item, f"wagers[{i}]", WAGER_FIELDS)
        for name in sorted(WAGER_FIELDS - set(item)):
            raise RulesError("missing", field=f"wagers[{i}].{name}")
        wagers.append(Wager(id=item["id"], bet=item["bet"], stake=item["stake"]))
    return wagers


def _lucky(raw: object, game) -> tuple[Lucky, ...]:
    if not isinstance(raw, list):
        raise RulesError("expected a list such as [{\"bet\": \"total:11\", \"pays\": 49}]",
                         field="lucky", clause=game.lucky_count_clause)
    lucky = []
    for i, item in enumerate(raw):
        item = _mapping(item, f"lucky[{i}]", LUCKY_FIELDS)
        for name in sorted(LUCKY_FIELDS - set(item)):
            raise RulesError("missing", field=f"lucky[{i}].{name}")
        lucky.append(Lucky(bet=item["bet"], pays=item["pays"]))
    return tuple(lucky)


def _bool(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"expected true or false, got {value!r}", field=field)
    return value


def _no_roll(obj: Mapping, game, rules: Rules) -> bool:
    no_roll = _bool(obj.get("no_roll", False), "no_roll")
    if "flat" in obj:
        flat = obj["flat"]
        if not isinstance(flat, list) or not all(isinstance(f, bool) for f in flat):
            raise RulesError(f"expected three true/false flags, got {flat!r}", field="flat",
                             clause="625b.2(d)(5)")
        by_flat = game.is_no_roll(flat, rules)
        if "no_roll" in obj and by_flat != no_roll:
            raise RulesError(f"no_roll is {str(no_roll).lower()} but the flat flags {flat} give "
                             f"{str(by_flat).lower()} under the reading {rules.option('no_roll')!r}",
                             field="no_roll", clause="625b.2(d)(5)")
        no_roll = by_flat
    return no_roll


def line_rules(obj: Mapping, rules: Rules | None) -> Rules:
    """The rules a line is settled by: the submission's, or the line's own paytable."""
    name = obj["game"]
    if rules is None:
        return default_rules(name, obj.get("paytable"))
    if rules.game != name:
        raise RulesError(f"the submission is for {rules.game}, this line is {name}", field="game")
    if obj.get("paytable") is not None:
        given = normalize_paytable(get_game(name), obj["paytable"])
        if given != rules.paytable:
            raise RulesError(f"the line says paytable {given} but the submission selected "
                             f"{rules.paytable}", field="paytable", clause=get_game(name).paytable_clause)
    return rules


def settle_line(obj: dict, rules: Rules | None = None) -> dict:
    """Settle one input line; a RulesError (naming the field) for bad input."""
    if not isinstance(obj, Mapping):
        raise RulesError("expected a JSON object for one round")
    if "game" not in obj:
        raise RulesError("missing", field="game")
    name = obj["game"]
    if name not in game_names():
        raise RulesError(f"unknown game {name!r}; known games: {', '.join(game_names())}", field="game")
    game = get_game(name)
    _mapping(obj, "", COMMON_FIELDS | game.line_fields)
    if "wagers" not in obj:
        raise RulesError("missing", field="wagers")
    rules = line_rules(obj, rules)
    wagers = _wagers(obj["wagers"])

    lucky: tuple[Lucky, ...] = ()
    if "lucky" in game.line_fields:
        if "lucky" not in obj:
            low, high = game.lucky_count_range
            raise RulesError(f"missing: a round reveals between {low} and {high} Lucky Numbers",
                             field="lucky", clause=game.lucky_count_clause)
        lucky = _lucky(obj["lucky"], game)
    no_roll = _no_roll(obj, game, rules) if "no_roll" in game.line_fields else False
    if game.outcome_field not in obj and not no_roll:
        raise RulesError("missing", field=game.outcome_field)

    dice = obj.get("dice")
    round_ = Round(
        game=name,
        dice=tuple(dice) if isinstance(dice, list) else dice,
        pocket=obj.get("pocket"),
        rolls=obj.get("rolls"),
        no_roll=no_roll,
        lucky=lucky,
        paytable=rules.paytable,
    )
    settlements = []
    for s in game.settle(round_, wagers, rules):
        out = {"id": s.wager_id, "returned": s.returned, "clause": s.clause}
        if s.open:
            out["open"] = True
        settlements.append(out)
    result: dict = {"settlements": settlements}
    if "round" in obj:
        result = {"round": obj["round"], **result}
    return result
