"""`bench rtp` and `bench settle` as a user runs them."""

import json
import subprocess
import sys
from pathlib import Path
from tests.json_schemas import json_records

ROOT = Path(__file__).resolve().parents[2]
VALID = sorted(str(p) for p in (ROOT / "fixtures/submissions").glob("*.yaml"))


def bench(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "bench.cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=60)


def test_rtp_over_every_shipped_submission_reads_as_a_table():
    result = bench("rtp", *VALID)
    assert result.returncode == 0, result.stderr
    small = [line for line in result.stdout.splitlines() if line.strip().startswith("small ")]
    assert len(small) == 2                                  # paytables A and B
    assert all("2.778%" in line and "1/36" in line for line in small)
    assert "20049/760760" in result.stdout                  # Little Ones' chance to win


def test_rtp_json_gives_exact_fractions_per_bet():
    result = bench("rtp", "--json", str(ROOT / "fixtures/submissions/sic-bo-A.yaml"),
                   str(ROOT / "fixtures/submissions/dice-ology-1.yaml"))
    assert result.returncode == 0, result.stderr
    sic_bo, dice_ology = json_records(result.stdout, "rtp", "submission")
    bets = {row["bet"]: row for row in sic_bo["bets"]}
    assert bets["small"]["house_edge"] == "1/36"
    assert len(bets) == 50
    assert {row["bet"]: row["win_probability"] for row in dice_ology["bets"]}["little-ones"] == "20049/760760"


def test_rtp_refuses_an_invalid_submission_with_file_field_and_clause():
    bad = ROOT / "fixtures/submissions/invalid/lightning-dice-enhanced-odds-out-of-range.yaml"
    result = bench("rtp", str(bad), VALID[0])
    assert result.returncode == 2
    assert str(bad) in result.stderr and "lucky.odds.total:10.99" in result.stderr
    assert "625b.2(g)(3)" in result.stderr
    assert VALID[0] in result.stdout                         # the good one is still printed


def test_settle_writes_one_line_per_round_and_reports_bad_lines():
    lines = [
        {"game": "sic-bo", "paytable": "A", "dice": [2, 2, 5], "wagers": [{"id": "w1", "bet": "single:2", "stake": 100}]},
        {"game": "sic-bo", "paytable": "A", "dice": [2, 2, 9], "wagers": [{"id": "w1", "bet": "small", "stake": 100}]},
        {"game": "lightning-roulette", "pocket": 17, "lucky": [{"bet": "straight:17", "pays": 499}],
         "wagers": [{"id": "s", "bet": "straight:17", "stake": 2}]},
        {"game": "dice-ology", "paytable": 2, "rolls": [[1, 1]], "wagers": [{"id": "d", "bet": "little-ones", "stake": 5}]},
        {"game": "sic-bo", "paytable": "A", "dice": [1, 2, 3], "wagers": [{"id": "w1", "bet": "small", "stake": -1}]},
    ]
    stdin = "\n".join(json.dumps(line) for line in lines[:3]) + "\nnot json\n" + \
        "\n".join(json.dumps(line) for line in lines[3:]) + "\n"
    result = bench("settle", stdin=stdin)
    assert result.returncode == 2
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["line"] for o in out] == [1, 3, 5]
    assert out[0]["settlements"] == [{"id": "w1", "returned": 300, "clause": "625a.6(b)(2)"}]
    assert out[1]["settlements"] == [{"id": "s", "returned": 1000, "clause": "617c.3(e)"}]
    assert out[2]["settlements"] == [{"id": "d", "returned": 0, "clause": "20:18:33:14(1)(a)", "open": True}]
    errors = result.stderr.splitlines()
    assert len(errors) == 3
    assert "line 2" in errors[0] and "dice[2]" in errors[0]
    assert "line 4" in errors[1] and "JSON" in errors[1]
    assert "line 6" in errors[2] and "wagers[0].stake" in errors[2]


def test_settle_with_a_submission_uses_its_paytable():
    line = json.dumps({"game": "sic-bo", "dice": [3, 3, 3], "wagers": [{"id": "w", "bet": "single:3", "stake": 1}]})
    a = bench("settle", "--submission", str(ROOT / "fixtures/submissions/sic-bo-A.yaml"), stdin=line)
    b = bench("settle", "--submission", str(ROOT / "fixtures/submissions/sic-bo-B.yaml"), stdin=line)
    assert json.loads(a.stdout)["settlements"][0]["returned"] == 4     # 3 to 1, 625a.6(b)(3)(i)
    assert json.loads(b.stdout)["settlements"][0]["returned"] == 13    # 12 to 1, 625a.6(b)(3)(ii)
    other_game = bench("settle", "--submission", str(ROOT / "fixtures/submissions/dice-ology-1.yaml"), stdin=line)
    assert other_game.returncode == 2 and "line 1: game" in other_game.stderr


def test_settle_help_documents_every_bet_name():
    result = bench("settle", "--help")
    assert result.returncode == 0
    for name in ("small", "big", "low", "high", "any-double", "any-triple", "total:N", "triple:N",
                 "double:N", "combo:A-B", "single:N", "straight:N", "split:A-B", "street:N",
                 "corner:A-B-C-D", "six-line:N", "dozen:1|2|3", "column:1|2|3", "red", "black",
                 "odd", "even", "1-18", "19-36", "little-ones", "big-ones", "boom-or-bust"):
        assert name in result.stdout, name
