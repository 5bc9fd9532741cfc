"""The parts the reports share: one way to write a p-value, histogram bins
that follow the data's resolution, the regulation's words by clause, the
return interval, and a clause tag in citation form."""

import math
import random

import pytest

from bench.oracle.records import RoundSummary
from bench.scenarios.clause_tags import clause_of_tag
from bench.report.summary import return_interval
from bench.rules.regulation_text import clause_text
from tablebench_io.charts import bin_edges, counts_small_multiples
from twin.pvalue import format_p, p_equals


@pytest.mark.parametrize("p, text", [(0.0, "< 1e-300"), (5e-320, "< 1e-300"), (2.4e-110, "2.4e-110"),
                                     (0.012345, "0.0123"), (0.5, "0.5"), (1.0, "1"), (math.nan, "n/a"),
                                     (None, "n/a")])
def test_a_p_value_is_written_one_way(p, text):
    assert format_p(p) == text


def test_p_equals_keeps_the_relation_of_a_floor():
    assert p_equals(0.0) == "p < 1e-300" and p_equals(0.25) == "p = 0.25"


def test_histogram_bins_hold_whole_steps_of_the_data():
    step = 1 / 240                      # a physics time step: settle times are whole steps
    rng = random.Random(3)
    values = [round(rng.randint(100, 400) * step, 4) for _ in range(2000)]
    edges = bin_edges(values, step)
    counts = [sum(lo <= v < hi for v in values) for lo, hi in zip(edges, edges[1:])]
    width = edges[1] - edges[0]
    assert abs(width / step - round(width / step)) < 1e-9          # a whole number of steps a bin
    inner = counts[1:-1]                 # (the end bins may hold only a few steps of the data's range)
    assert min(inner) > 0.5 * max(inner)                            # no bin empty because no value fits
    assert edges[0] < min(values) and edges[-1] > max(values)
    assert bin_edges(values) == pytest.approx(edges)                # the step found from the data alone


def test_clause_text_quotes_the_clause_or_its_parent_and_nothing_it_does_not_have():
    [(clause, text)] = clause_text("625b.2(d)(5)")
    assert clause == "625b.2(d)(5)" and "all wagers placed shall be returned" in text
    assert [c for c, _ in clause_text("625a.6(b)(3)(ii)")] == ["625a.6(b)(3)(ii)"]
    assert [c for c, _ in clause_text("617c.3(e)-(g)")] == ["617c.3(e)"]
    assert [c for c, _ in clause_text("20:18:33:14(1)(d)")] == ["20:18:33:14(1)(d)"]
    assert clause_text("625a.5(c)") == [] and clause_text("protocol") == []


def test_every_clause_the_oracle_cites_for_a_game_with_its_text_is_quoted():
    from bench.oracle import PHASE_CLAUSES
    for game in ("lightning-dice", "lightning-roulette", "dice-ology"):
        quoted = [c for c in PHASE_CLAUSES[game].values() if not c.startswith(("617a", "625a.5"))]
        assert all(clause_text(c) for c in quoted), game


@pytest.mark.parametrize("tag, clause", [("625b.2.d.5", "625b.2(d)(5)"), ("625a.6.b.3.ii", "625a.6(b)(3)(ii)"),
                                         ("617a.4", "617a.4"), ("sd.20.18.33.14.1.b", "20:18:33:14(1)(b)"),
                                         ("sd.20.18.33.14", "20:18:33:14"), ("slow", "slow")])
def test_a_clause_tag_in_citation_form(tag, clause):
    assert clause_of_tag(tag) == clause


def test_the_return_interval_covers_the_true_return_about_as_often_as_it_says():
    # Rounds of ten even-money wagers on a fair coin: the true return is 100%.
    rng = random.Random(11)
    covered = 0
    for _ in range(300):
        rounds = []
        for number in range(40):
            won = rng.random() < 0.5          # the wagers of one round share its outcome
            rounds.append(RoundSummary(number, None, False, (), 1000, 2000 if won else 0, 0, 10, 0))
        low, high = return_interval(rounds, 0.95)
        covered += low <= 1.0 <= high
    assert 0.91 <= covered / 300 <= 0.99        # 95% nominal; Student t on 39 degrees of freedom
    assert return_interval(rounds[:1]) is None


def test_the_return_interval_of_two_rounds_is_the_printed_t_tables():
    # One won and one lost even-money round of 1,000: the return 100%, its standard error 1 (in returns),
    # on 1 degree of freedom; the 95% t quantile is 12.706 (the printed table), so the interval is 0 to 1,371%.
    low, high = return_interval([RoundSummary(1, None, False, (), 1000, 2000, 0, 1, 0),
                                 RoundSummary(2, None, False, (), 1000, 0, 0, 1, 0)], 0.95)
    assert low == 0.0 and round(high - 1, 3) == 12.706


@pytest.mark.parametrize("dice", [1, 3])
def test_the_faces_chart_draws_one_panel_a_die_one_die_included(dice):
    """A design of one die has one panel (fig.subplots gave a bare Axes, not a row: a TypeError)."""
    panels = [(f"die {n + 1}", [10, 12, 9, 11, 8, 10], 10.0, n == 0) for n in range(dice)]
    svg = counts_small_multiples(panels, list("123456"), xlabel="face", ylabel="drops")
    assert svg.count("die ") >= dice and "<svg" in svg
