"""A controller that holds its Lucky Numbers back until after the result
(``lucky-after-result``) never gets the dealer's TRIGGER: the bench waits
for the Lucky Numbers first and gives the round up after the reply deadline
(docs/protocol.md 11). Issue 45: 30 rounds failed naming 625b.2(d)(2) while
the summary's ``violations_by_clause`` was empty, so a report by clause
showed nothing. The oracle now counts the overdue Lucky Numbers under their
clause, live and in replay alike."""

from __future__ import annotations

from bench.emulator.threaded import threaded_controller
from bench.journal.replay import replay
from bench.session.cycle import Phases
from bench.session.runner import SessionConfig, run_session, session_rules

REPLY_S = 1.0        # the reply deadline, short: the round waits it out once


def test_lucky_numbers_held_back_are_counted_under_their_clause_live_and_in_replay(tmp_path):
    config = SessionConfig(game="lightning-dice", rounds=1, seed=3, out=str(tmp_path / "S"), plant="dice",
                           phases=Phases(reply_s=REPLY_S), progress=False)
    with threaded_controller("lightning-dice", session_rules(config), seed=3, misbehave="lucky-after-result") as url:
        config.controller = url
        outcome = run_session(config)
    assert "[625b.2(d)(2)]" in outcome.round_failures[1]
    assert dict(outcome.summary.violations_by_clause) == {"625b.2(d)(2)": 1}
    [found] = outcome.oracle.violations
    assert found.round == 1 and "no Lucky Numbers within 1 s of no more bets" in found.message
    replayed = replay(outcome.journal, outcome.head)
    assert dict(replayed.oracle.violations_by_clause) == {"625b.2(d)(2)": 1} and not replayed.structure_problems
