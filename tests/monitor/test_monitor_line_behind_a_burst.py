"""A Y-cable's host line that falls behind while the controller settles a
round of many wagers (CI's failure of the Y-cable test, twice: the host's
tap delivered its ACKs of a round's 108 SETTLEs after the controller's line
had delivered all of them; the merge remembered only the last 64 messages
released, so the ACKs of the first SETTLEs named messages it had forgotten,
waited out the hold for them, and declared them unheard: round 3 went
unjudged). The host's ACKs arrive late but after their messages, as a line
behind does; nothing was lost, and the monitor must say nothing was."""

from __future__ import annotations

import pytest

from bench.monitor.sources import HOST
from bench.session.runner import SessionConfig, run_session
from tests.monitor.conftest import records
from tests.monitor.recorded import chunks, watch

GAME = "lightning-roulette"


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    run = run_session(SessionConfig(game=GAME, rounds=3, plant="dice", seed=6, progress=False,
                                    out=str(tmp_path_factory.mktemp("roulette"))))
    assert run.status == 0
    return run


def test_a_host_line_behind_a_settlement_burst_loses_nothing_to_the_judge(tmp_path, session):
    rows = chunks(session.journal)
    messages = [row[6] for record in records([session.journal]) for row in record.get("wire") or ()]
    settles = [i for i, m in enumerate(messages) if m and m["type"] == "SETTLE" and m.get("round") == 2]
    first, last = settles[0], settles[-1]
    assert last - first > 100, "the round needs a burst of more SETTLEs than the merge used to remember"
    caught_up = rows[last].mono + 0.001
    # The host's line carries nothing during the burst, then everything it held at once, in its order.
    behind = [c._replace(mono=caught_up) if c.sender == HOST and rows[first].mono <= c.mono <= caught_up else c
              for c in rows]
    behind.sort(key=lambda c: c.mono)
    outcome, said = watch(tmp_path, behind, game=GAME)
    assert outcome.faults.get("unheard", 0) == 0, [line for line in said if "unheard" in line][:3]
    assert outcome.unjudged_rounds == 0 and (outcome.status, outcome.violations) == (0, {}), said
