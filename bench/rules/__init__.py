"""The four games' rules as data and code, every regulated number citing its clause."""

from bench.rules.base import Game, Lucky, Round, Settlement, Wager
from bench.rules.descriptor import GameDescriptor
from bench.rules.outcome_classes import OutcomeClass, Throw
from bench.rules.registry import DEFAULT_GAME, describe, game_names, game_titled, get_game, register

__all__ = ["DEFAULT_GAME", "Game", "GameDescriptor", "OutcomeClass", "Throw", "describe", "Lucky", "Round", "Settlement", "Wager", "game_names", "game_titled", "get_game", "register"]
