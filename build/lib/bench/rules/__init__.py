"""The four games' rules as data and code, every regulated number citing its clause."""

from bench.rules.base import Game, Lucky, Round, Settlement, Wager
from bench.rules.registry import game_names, get_game, register

__all__ = ["Game", "Lucky", "Round", "Settlement", "Wager", "game_names", "get_game", "register"]
