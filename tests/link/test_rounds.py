"""Whole rounds of each game against `bench emulate` in its own process,
over a TCP socket on 127.0.0.1 and over a real pty; every settlement checked
against bench.rules, and the SETTLED totals against the SETTLE frames."""

from __future__ import annotations

import re

import pytest

from bench.rules import Round, Wager, get_game
from bench.rules.submission import default_rules
from bench.protocol import make
from tests.link.conftest import connect, hello, of, play_round

FLAT3 = (True, True, True)

ROUNDS = {
    "lightning-dice": ([("w1", "total:11", 100), ("w2", "low", 250), ("w3", "any-double", 40)],
                       [dict(dice=(5, 5, 1), flat=FLAT3)], None),
    "sic-bo": ([("w1", "small", 100), ("w2", "single:4", 300), ("w3", "combo:1-4", 50)],
               # a cocked die first: Sic Bo shakes again and keeps the wagers
               [dict(dice=(1, 4, 6), flat=(True, False, True)), dict(dice=(4, 4, 1), flat=FLAT3)], "A"),
    "lightning-roulette": ([("w1", "straight:17", 100), ("w2", "red", 200), ("w3", "dozen:2", 30)],
                           [dict(pocket=17)], None),
    "dice-ology": ([("w1", "little-ones", 100), ("w2", "big-ones", 100), ("w3", "boom-or-bust", 10)],
                   [dict(roll=1, dice=(1, 1), flat=(True, True)), dict(roll=2, dice=(6, 6), flat=(True, True)),
                    dict(roll=3, dice=(3, 4), flat=(True, True))], "1"),
}


def expected_returns(game: str, paytable, said, wagers) -> dict[str, int]:
    """What bench.rules says each wager returns, given what the controller announced."""
    rules = default_rules(game, paytable)
    lucky = tuple(x for m in of(said, "LUCKY") for x in m["lucky"])
    results = of(said, "RESULT")
    if game == "dice-ology":
        round_ = Round(game, rolls=tuple(tuple(m["dice"]) for m in results), paytable=paytable)
    elif game == "lightning-roulette":
        round_ = Round(game, pocket=results[0]["pocket"], lucky=lucky)
    else:
        round_ = Round(game, dice=results[0]["dice"], lucky=lucky, paytable=paytable)
    settlements = get_game(game).settle(round_, [Wager(*w) for w in wagers], rules)
    return {s.wager_id: s.returned for s in settlements}


def check_round(game: str, said, wagers, paytable) -> None:
    types = [m.type for m in said]
    assert [m["id"] for m in of(said, "ACCEPT")] == [w[0] for w in wagers]
    assert types.index("NOMORE") < types.index("RESULT")
    settled = {m["id"]: m["returned"] for m in of(said, "SETTLE")}
    assert settled == expected_returns(game, paytable, said, wagers)
    (total,) = of(said, "SETTLED")
    assert (total["wagers"], total["returned"]) == (len(wagers), sum(settled.values()))
    assert types.index("SETTLED") < types.index("CLEARED")   # 625b.2(d)(6)


@pytest.mark.parametrize("game", sorted(ROUNDS))
def test_a_whole_round_over_tcp(emulator, game):
    wagers, readings, paytable = ROUNDS[game]
    args = ["--game", game, "--seed", "11"] + (["--paytable", paytable] if paytable else [])
    with emulator(*args) as url:
        assert url.startswith("socket://127.0.0.1:")
        session = connect(url, game)
        try:
            their_hello, opened = hello(session, game)
            assert their_hello["game"] == game and their_hello["seed"] == 11
            said = play_round(session, game, opened["round"], wagers, readings)
        finally:
            session.port.close()
    check_round(game, said, wagers, paytable)
    if game == "sic-bo":
        assert [m.type for m in said].count("RELEASE") == 2 and of(said, "NOROLL")
    if game == "dice-ology":
        assert [m["open"] for m in of(said, "RESULT")] == [3, 3, 0]
    if game in ("lightning-dice", "lightning-roulette"):
        (lucky,) = of(said, "LUCKY")
        get_game(game).check_lucky(lucky["lucky"], default_rules(game))


def test_lightning_dice_over_a_pty_with_a_wire_tap(emulator, tmp_path):
    """The emulator makes a pty; the bench opens its slave path through
    spy:// so the whole conversation is also written to a tap file."""
    game = "lightning-dice"
    wagers, readings, _ = ROUNDS[game]
    tap = tmp_path / "tap.txt"
    wire = {"rx": bytearray(), "tx": bytearray()}
    with emulator("--game", game, "--seed", "5", listen="pty") as path:
        assert path.startswith("/dev/")
        session = connect(f"spy://{path}?file={tap}", game,
                          observer=lambda event: wire[event.direction].extend(event.raw))
        try:
            _, opened = hello(session, game)
            said = play_round(session, game, opened["round"], wagers, readings)
            # A second round on the same link: the controller opened it by itself.
            nxt = session.receive(3.0, expect="OPEN")
            assert nxt["round"] == opened["round"] + 1
            said2 = play_round(session, game, nxt["round"], wagers[:1], [dict(dice=(1, 2, 2), flat=(True, False, True))])
            session.flush(3.0)     # version 2: the last ACK is queued until the session next reads
        finally:
            session.port.close()
    check_round(game, said, wagers, None)
    # A die not flat is a no roll: every wager returned (625b.2(d)(5)).
    assert of(said2, "NOROLL") and [m["returned"] for m in of(said2, "SETTLE")] == [100]
    # The tap saw exactly the bytes the session sent and received.
    tapped = tapped_bytes(tap.read_text())
    assert tapped["tx"] == wire["tx"] and tapped["rx"] == wire["rx"] and b"SETTLED" in tapped["rx"]


def tapped_bytes(hexdump: str) -> dict[str, bytes]:
    """The bytes in pyserial spy's hex dump, per direction."""
    out = {"rx": bytearray(), "tx": bytearray()}
    for line in hexdump.splitlines():
        row = re.match(r"\S+ (RX|TX)\s+[0-9A-F]{4}  (.{1,49})", line)
        if row:
            out[row.group(1).lower()] += bytes.fromhex(" ".join(re.findall(r"\b[0-9A-F]{2}\b", row.group(2))))
    return out


def test_a_bench_that_reconnects_to_the_pty_voids_the_round_in_flight(emulator):
    """The pty outlives a bench: a new bench's HELLO voids the round the old
    one left half-played (its wager returned) and a new round opens."""
    game = "lightning-dice"
    with emulator("--game", game, "--seed", "5", listen="pty") as path:
        first = connect(path, game)
        try:
            _, opened = hello(first, game)
            first.send(make("WAGER", round=opened["round"], id="w1", bet="low", stake=300))
            assert first.receive(3.0, expect=("ACCEPT", "REFUSE")).type == "ACCEPT"
        finally:
            first.port.close()
        second = connect(path, game)
        try:
            second.send(make("HELLO", proto=1, role="bench", sw="tests/1", game=game))
            said = [second.receive(3.0) for _ in range(5)]
        finally:
            second.port.close()
    assert [m.type for m in said] == ["HELLO", "SETTLE", "SETTLED", "CLEARED", "OPEN"]
    assert (said[1]["id"], said[1]["returned"]) == ("w1", 300) and said[2]["void"] is True
    assert said[4]["round"] == opened["round"] + 1
