"""The edge of a player who sees the dice loaded into the tower before betting.

The dealer loads the dice into the compartment with some faces on top in
view of the players (625b.2(d)(6)); the loaded-face test of ``twin validate``
asks whether they tell anything of the result. Here the question is what
they are worth. On the *fit* drops (even seeds) the predictor learns, pooled
over the three dice, how often each loaded top face ends on each resting face
(a 6x6 table, one added to every cell so that no outcome is impossible).
For a *held-out* drop (odd seed) it takes the three dice as independent given
their loaded faces, gets the chance of each of the 216 outcomes, and bets one
unit on the bet of the base paytable (625b.2(f), or a game file's) with the
highest expected return: low, high, any triple or one of the totals offered. The edge is the
mean return of those bets on the held-out drops; "house edge" is what the same
bets return with fair dice. No rolls are left out (625b.2(d)(5): the dice
are thrown again).
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

import numpy as np

from twin.edge.estimate import Edge, mean_edge
from tablebench_io.paytables import DiceGame
from twin.edge.payouts import dice_game, tower_bet_wins, tower_bets, tower_odds

FACES = 6
OUTCOMES = list(itertools.product(range(1, 7), repeat=3))


@dataclass(frozen=True)
class TowerBets:
    """A game's bets as arrays: ``wins[b]`` is 6x6x6, 1 where bet b wins on faces
    (i+1, j+1, k+1); ``pays[b]`` what a winning unit returns; ``fair_return[b]``
    the bet's mean return on fair dice."""
    names: tuple[str, ...]
    wins: np.ndarray
    pays: np.ndarray
    fair_return: np.ndarray


def tower_bet_table(game: DiceGame) -> TowerBets:
    names = tower_bets(game)
    wins = np.array([[[[tower_bet_wins(b, (i + 1, j + 1, k + 1)) for k in range(6)] for j in range(6)]
                      for i in range(6)] for b in names], dtype=float)
    pays = np.array([1 + tower_odds(game, b) for b in names], dtype=float)
    return TowerBets(names, wins, pays, wins.reshape(len(names), -1).mean(axis=1) * pays - 1)


@dataclass(frozen=True)
class TowerEdge:
    edge: Edge
    bets: dict[str, int]          # how often each bet was the one chosen, held-out drops
    no_rolls: int

    def to_json(self) -> dict:
        return {"bets_chosen": dict(sorted(self.bets.items(), key=lambda kv: -kv[1])),
                "no_rolls_left_out": self.no_rolls, **self.edge.to_json()}


def face_table(records: list[dict]) -> np.ndarray:
    """P(resting face | loaded top face), rows loaded 1-6, pooled over dice, one added to every cell."""
    counts = np.ones((FACES, FACES))
    for r in records:
        for loaded, rest in zip(r["loaded"], r["faces"]):
            counts[loaded - 1, rest - 1] += 1
    return counts / counts.sum(axis=1, keepdims=True)


def best_bet(table: np.ndarray, loaded: list[int], bets: TowerBets) -> int:
    """Index in ``bets.names`` of the bet with the highest expected return given the loaded faces."""
    a, b, c = (table[f - 1] for f in loaded)
    chances = np.einsum("i,j,k->ijk", a, b, c)
    values = (bets.wins * chances).sum(axis=(1, 2, 3)) * bets.pays - 1
    return int(np.argmax(values))


def tower_edge(records: list[dict], confidence: float, game: DiceGame | None = None) -> TowerEdge:
    """The edge of the loaded faces, weighed by ``game``'s paytable (default: 625b.2(f))."""
    bets = tower_bet_table(game or dice_game())
    counted = [r for r in records if not r["no_roll"]]
    fit = [r for r in counted if r["seed"] % 2 == 0]
    held = [r for r in counted if r["seed"] % 2 == 1]
    table = face_table(fit)
    returns, house = [], []
    chosen: Counter[str] = Counter()
    for r in held:
        b = best_bet(table, r["loaded"], bets)
        wins = tower_bet_wins(bets.names[b], tuple(r["faces"]))
        returns.append(bets.pays[b] - 1 if wins else -1.0)
        house.append(bets.fair_return[b])
        chosen[bets.names[b]] += 1
    house_edge = float(np.mean(house)) if house else float("nan")
    edge = mean_edge([float(x) for x in returns], confidence, house_edge, len(fit))
    return TowerEdge(edge, dict(chosen), len(records) - len(counted))
