"""A quick mutation score (the full one: benchmarks/mutation_bench.py, figures
in docs/mutation.md): with covering play, the probe wagers and the staged
probe rounds, every misbehaviour of the emulated controller is caught within a
few rounds, by the clause it breaks, and the compliant controller passes.

Each (misbehaviour, game) row is played at one of five session seeds, in turn,
so that the table as a whole sees five seeds; a controller on a thread behind a
pty and the fair plant keep it to seconds."""

from __future__ import annotations

import pytest

from bench.emulator.misbehaviours import MISBEHAVIOURS
from bench.session.mutation import GAMES, Trial, rows, trial

SEEDS = 5
ROUNDS = 10          # the staged probe rounds are 2 to 5
ROWS = rows()


def test_there_are_thirty_misbehaviours_across_the_four_games_each_with_its_clause():
    assert len(MISBEHAVIOURS) >= 30
    assert {game for _, game in ROWS} == set(GAMES)
    for name, game in ROWS:
        expected = MISBEHAVIOURS[name].expected_clauses(game)
        assert expected and all(expected), name


@pytest.mark.parametrize("index", range(len(ROWS)), ids=[f"{n}-{g}" for n, g in ROWS])
def test_every_misbehaviour_is_caught_early_by_its_clause(index):
    name, game = ROWS[index]
    result = trial(Trial(name, game, seed=1 + index % SEEDS, rounds=ROUNDS, in_process=True))
    assert result.first_round is not None, f"{name} on {game} went unseen for {ROUNDS} rounds"
    assert result.first_round <= 5, f"{name} on {game} first seen in round {result.first_round}"
    expected = MISBEHAVIOURS[name].expected_clauses(game)
    assert set(expected) & set(result.clauses), f"{name} on {game}: named {result.clauses}, expected {expected}"


@pytest.mark.parametrize("game", GAMES)
def test_the_compliant_controller_passes_the_covering_play_and_every_probe(game):
    for seed in (1, 2):
        result = trial(Trial(None, game, seed=seed, rounds=ROUNDS, in_process=True))
        assert result.first_round is None, f"{game} seed {seed}: round {result.first_round} {result.clauses}"
