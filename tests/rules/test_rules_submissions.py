"""Rules submissions: the shipped ones load, the invalid ones are refused with
the file, the field and the clause, and the Lucky draw follows the submission."""

import random
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from bench.errors import RulesError
from bench.rules import get_game
from bench.rules.submission import default_rules, load_submission

ROOT = Path(__file__).resolve().parents[2]
VALID = sorted((ROOT / "fixtures/submissions").glob("*.yaml"))
INVALID = ROOT / "fixtures/submissions/invalid"


def test_one_valid_submission_per_game_and_paytable():
    loaded = {(r.game, r.paytable) for r in map(load_submission, VALID)}
    assert {("lightning-dice", None), ("lightning-roulette", None), ("sic-bo", "A"), ("sic-bo", "B"),
            ("dice-ology", "1"), ("dice-ology", "2")} <= loaded


INVALID_CASES = [
    ("lightning-dice-enhanced-odds-out-of-range", "lucky.odds.total:10.99", "625b.2(g)(3)"),
    ("lightning-dice-five-lucky-numbers", "lucky.count.5", "625b.2(d)(2)"),
    ("lightning-dice-unknown-reading", "options.no_roll", "625b.2(d)(5)"),
    ("lightning-dice-probability-not-a-number", "lucky.count.2", None),
    ("lightning-roulette-odds-not-in-list", "lucky.odds.all.500", "617c.3(g)"),
    ("lightning-roulette-six-lucky-numbers", "lucky.count.6", "617c.3(d)"),
    ("lightning-roulette-probabilities-do-not-sum-to-one", "lucky.odds.all", "617c.3(g)"),
    ("lightning-roulette-payouts-left-out", "lucky.odds", "617c.3(g)"),
    ("sic-bo-paytable-C", "paytable", "625a.6(a)"),
    ("sic-bo-misspelt-field", "paytabel", None),
    ("dice-ology-paytable-wrong-type", "paytable", "20:18:33:14 Pay Tables"),
    ("dice-ology-lucky-numbers", "lucky", None),
]


@pytest.mark.parametrize("name, field, clause", INVALID_CASES)
def test_invalid_submission_names_file_field_and_clause(name, field, clause):
    path = INVALID / f"{name}.yaml"
    with pytest.raises(RulesError) as caught:
        load_submission(path)
    err = caught.value
    assert (err.file, err.field, err.clause) == (str(path), field, clause)
    assert str(path) in str(err) and field in str(err)


def test_every_invalid_fixture_is_tested():
    assert {p.stem for p in INVALID.glob("*.yaml")} == {name for name, _, _ in INVALID_CASES}


def test_probabilities_are_exact_decimals(tmp_path):
    # 0.1 + 0.2 + 0.7 is not 1 in binary floating point; it is in the submission.
    # An unquoted 1/3 is YAML text, read as the fraction it spells.
    path = tmp_path / "s.yaml"
    path.write_text("game: lightning-dice\nlucky:\n  count: {2: 0.1, 3: 0.2, 4: 0.7}\n"
                    "  positions: [total:9, total:10, total:11, total:12]\n"
                    "  odds: {all: {9: 1/3, 19: \"2/3\"}}\n")
    rules = load_submission(path)
    assert rules.lucky.count == ((2, Fraction(1, 10)), (3, Fraction(1, 5)), (4, Fraction(7, 10)))
    assert rules.lucky.expected_pays("total:10") == Fraction(9, 3) + Fraction(38, 3)


def test_unreadable_and_non_mapping_files(tmp_path):
    with pytest.raises(RulesError) as caught:
        load_submission(tmp_path / "missing.yaml")
    assert caught.value.file.endswith("missing.yaml")
    bad = tmp_path / "list.yaml"
    bad.write_text("- game: sic-bo\n")
    with pytest.raises(RulesError):
        load_submission(bad)


@pytest.mark.parametrize("game", ["lightning-dice", "lightning-roulette"])
def test_default_rules_are_the_shipped_submission(game):
    assert default_rules(game).lucky == load_submission(ROOT / f"fixtures/submissions/{game}.yaml").lucky


@pytest.mark.parametrize("game", ["lightning-dice", "lightning-roulette"])
def test_lucky_draw_is_seeded_and_within_the_regulation(game):
    rules = default_rules(game)
    spec = get_game(game)
    first = [spec.draw_lucky(rules, random.Random(7)) for _ in range(3)]
    again = [spec.draw_lucky(rules, random.Random(7)) for _ in range(3)]
    assert first == again
    rng = random.Random(2026)
    counts = Counter()
    for _ in range(3000):
        lucky = spec.draw_lucky(rules, rng)
        spec.check_lucky(lucky, rules)   # count, positions and odds within the clause
        counts[len(lucky)] += 1
    # The drawn count follows the submission: each frequency within 4 standard errors.
    for k, p in rules.lucky.count:
        sd = (float(p) * (1 - float(p)) / 3000) ** 0.5
        assert abs(counts[k] / 3000 - float(p)) < 4 * sd


def test_sic_bo_needs_a_paytable():
    with pytest.raises(RulesError) as caught:
        default_rules("sic-bo")
    assert caught.value.field == "paytable" and caught.value.clause == "625a.6(a)"
