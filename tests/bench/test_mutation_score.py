"""A quick mutation score (the full one: benchmarks/mutation_bench.py, figures
in docs/mutation.md): with covering play, the boundary stakes, the probe
wagers, the staged outcome classes and the Lucky draw judged over the
session, every misbehaviour of the emulated controller is caught within a
session of 30 rounds (or the rounds the bench's report says it needs), by
the clause it breaks, and the compliant controller passes.

Each (misbehaviour, game) row is played at one of five session seeds, in turn,
so that the table as a whole sees five seeds; a controller on a thread behind a
pty and the fair plant keep it to seconds."""

from __future__ import annotations

import pytest

from bench.emulator.misbehaviours import MISBEHAVIOURS
from bench.session.mutation import GAMES, Trial, rows, trial, trial_rounds

SEEDS = 5
ROUNDS = 30
ROWS = rows()


def test_there_are_forty_misbehaviours_across_the_four_games_each_with_its_clause():
    assert len(MISBEHAVIOURS) >= 40
    assert {game for _, game in ROWS} == set(GAMES)
    for name, game in ROWS:
        expected = MISBEHAVIOURS[name].expected_clauses(game)
        assert expected and all(expected), name


def test_a_misbehaviour_found_only_over_many_rounds_is_played_as_long_as_the_report_says_it_needs():
    assert trial_rounds("total-18-never-lucky", "lightning-dice", ROUNDS) == 45      # the Lucky draw's "needs"
    assert trial_rounds("lucky-zero-at-29-to-1", "lightning-roulette", ROUNDS) > ROUNDS   # zero drawn Lucky
    assert trial_rounds("settle-twice", "sic-bo", ROUNDS) == ROUNDS


@pytest.mark.parametrize("index", range(len(ROWS)), ids=[f"{n}-{g}" for n, g in ROWS])
def test_every_misbehaviour_is_caught_by_its_clause(index):
    name, game = ROWS[index]
    rounds = trial_rounds(name, game, ROUNDS)
    result = trial(Trial(name, game, seed=1 + index % SEEDS, rounds=rounds, in_process=True))
    assert result.first_round is not None, f"{name} on {game} went unseen for {rounds} rounds"
    expected = MISBEHAVIOURS[name].expected_clauses(game)
    assert set(expected) & set(result.clauses), f"{name} on {game}: named {result.clauses}, expected {expected}"


@pytest.mark.parametrize("game", GAMES)
def test_the_compliant_controller_passes_the_covering_play_every_staged_class_and_the_lucky_draw(game):
    for seed in (1, 2):
        result = trial(Trial(None, game, seed=seed, rounds=ROUNDS, in_process=True))
        assert result.first_round is None, f"{game} seed {seed}: round {result.first_round} {result.clauses}"
