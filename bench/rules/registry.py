"""Games are found by name. A game module registers itself on import; adding a
game means adding a module to ``GAME_MODULES``, never editing an if/elif chain."""

from __future__ import annotations

import importlib

from bench.rules.base import Game
from bench.rules.errors import RulesError

# Modules imported on first lookup; each calls ``register`` at import time.
GAME_MODULES = (
    "bench.rules.lightning_dice",
    "bench.rules.sic_bo",
    "bench.rules.lightning_roulette",
    "bench.rules.dice_ology",
)

_GAMES: dict[str, Game] = {}

# The game a session plays when none is named (the bench's command-line default).
DEFAULT_GAME = "lightning-dice"


def register(game):
    """Register a game object (or class instance) under ``game.name``."""
    _GAMES[game.name] = game
    return game


def unregister(name: str) -> None:
    """Forget a game (a game file's variant that failed its last check)."""
    _GAMES.pop(name, None)


def _load_all() -> None:
    for module in GAME_MODULES:
        importlib.import_module(module)


def game_names() -> list[str]:
    _load_all()
    return sorted(_GAMES)


def get_game(name: str):
    _load_all()
    try:
        return _GAMES[name]
    except KeyError:
        raise RulesError(f"unknown game {name!r}; known games: {', '.join(sorted(_GAMES))}",
                         field="game") from None


def game_titled(title: str) -> str:
    """The built-in game a scenario calls by its title ("Lightning Dice")."""
    _load_all()
    for name, game in _GAMES.items():
        if game.descriptor.title == title and game.descriptor.base is None:
            return name
    raise RulesError(f"no game is titled {title!r}; titles: "
                     f"{', '.join(sorted(g.descriptor.title for g in _GAMES.values() if g.descriptor.title))}",
                     field="game")


def describe(name: str):
    """The game's ``GameDescriptor``: everything the bench knows about it besides settlement."""
    return get_game(name).descriptor
