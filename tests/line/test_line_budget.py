"""The line budget (bench.protocol.line_speed, bench.session.line_budget):
before a round the bench knows the bytes it will send and receive, sizes
what it sends to fit the phases and the link's timeouts at the line's
speed, or refuses at once naming the budget."""

from __future__ import annotations

import pytest

from bench.play.players import CoveringPlayers, PlayerMix
from bench.protocol import Codec, Timeouts, make
from bench.protocol.line_speed import ACK_BYTES, Line, LineError, line_baud, split_url
from bench.protocol.session import WINDOW
from bench.rules import describe
from bench.rules.submission import default_rules
from bench.session.cycle import Phases
from bench.session.line_budget import SAFETY, SlicedPlayers, plan


def budget(game: str, baud: int, version: int = 2, phases: Phases = Phases(), **kw):
    rules = default_rules(game, describe(game).default_paytable)
    return plan(Line(baud), game=game, rules=rules, players=kw.pop("players", CoveringPlayers(game, rules)),
                phases=phases, version=version, **kw)


def test_the_baud_rate_comes_from_the_url_or_the_device_default():
    assert split_url("/dev/ttyUSB0?baud=9600") == ("/dev/ttyUSB0", 9600)
    assert split_url("rfc2217://10.0.0.5:4000?baud=19200&logging=debug") == ("rfc2217://10.0.0.5:4000?logging=debug", 19200)
    assert split_url("socket://10.0.0.5:7001") == ("socket://10.0.0.5:7001", None)
    assert line_baud("/dev/ttyUSB0", None) == 115200 and line_baud("socket://h:1", None) is None
    with pytest.raises(LineError, match="outside"):
        split_url("/dev/ttyS0?baud=12")


def test_at_115200_baud_nothing_is_cut_and_the_full_window_is_kept():
    b = budget("lightning-roulette", 115200)
    assert not b.sized and b.window == WINDOW
    assert b.betting.margin > 0.9 and b.settlement.margin > 0.9


def test_the_bytes_are_the_frames_the_codec_writes():
    """Betting at 115200 baud: each of the players' WAGERs and the probe
    wagers, an ACK for each reply, and the ACCEPTs and REFUSEs back."""
    game = "lightning-dice"
    only = PlayerMix((("total:11", 1),), wagers_per_round=1, stakes=(100,))
    b = budget(game, 115200, players=only, probe_wagers_on=False)
    codec = Codec(game)
    wager = len(codec.encode(make("WAGER", round=999999, id="r1w1", bet="total:11", stake=100), 9999))
    assert b.betting.to_controller == wager + ACK_BYTES
    assert b.betting.to_bench == len(codec.encode(make("ACCEPT", round=999999, id="r1w1"), 9999)) + ACK_BYTES + \
        len(codec.encode(make("REFUSE", round=999999, id="r999999late", reason="betting-closed",
                              clause="20:18:33:14(1)(d)"), 9999))


def test_at_9600_baud_the_cover_is_sliced_to_fit_and_the_window_shrinks():
    b = budget("lightning-roulette", 9600)
    assert b.sized and 0 < b.wagers_per_round < b.wagers_wanted
    assert b.betting.seconds <= b.betting.phase_s * SAFETY and b.settlement.seconds <= b.settlement.phase_s * SAFETY
    assert 1 <= b.window < WINDOW
    # What the line drains within the response timeout holds a window of the largest frames and an ACK.
    assert (b.window * b.largest_frame + ACK_BYTES) / 960 <= Timeouts().response
    # Version 1 waits for each ACK: both directions count, so fewer wagers fit.
    assert budget("lightning-roulette", 9600, version=1).wagers_per_round < b.wagers_per_round


def test_a_sliced_cover_turns_so_that_every_wager_is_placed_within_a_few_rounds():
    game = "sic-bo"
    rules = default_rules(game, "A")
    players = CoveringPlayers(game, rules)
    sliced = SlicedPlayers(players, 7)
    full = {w.bet for w in players.wagers(0, 1)}
    seen = set()
    for round_no in range(1, len(full) // 7 + 2):
        wagers = sliced.wagers(0, round_no)
        assert len(wagers) == 7
        seen |= {w.bet for w in wagers}
    assert seen == full and sliced.covers_layout is False


def test_a_line_too_slow_for_the_timeouts_or_the_phases_is_refused_naming_the_budget():
    with pytest.raises(LineError, match=r"at 2400 baud .*response timeout \(bench docs protocol 17\)"):
        budget("lightning-roulette", 2400)
    short = Phases(betting_s=0.2, result_s=0.1, clear_s=0.1)
    with pytest.raises(LineError, match=r"a round with one wager and the probe wagers needs .* phase of"):
        budget("lightning-dice", 9600, phases=short)
