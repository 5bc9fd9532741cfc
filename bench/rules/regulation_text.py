"""The regulations' own words, clause by clause, for reports that cite a clause.

Extracted verbatim (whitespace joined, tables kept line by line) from the
regulation texts the project is written from (``../shared/regulations/``,
see docs/rules.md), which are not installed with the package: a session
report quotes the clause a violation cites. Sections the seed texts do not
contain (e.g. § 625a.5, § 617a.5, cited by the oracle for the order of a
round) have no entry; ``clause_text`` says so rather than guess.
"""

from __future__ import annotations

import re
from types import MappingProxyType

# Where each section's text comes from (as printed at the end of each text).
SOURCES = MappingProxyType({
    '625b.2': '58 Pa. Code § 625b.2 (Lightning Dice), temporary provisions effective July 19, 2025, 55 Pa.B. 4794',
    '625a.6': '58 Pa. Code § 625a.6 (Sic Bo payout odds), effective August 31, 2019, 49 Pa.B. 4956',
    '617c.3': '58 Pa. Code § 617c.3 (Lightning Roulette)',
    '20:18:33:14': 'S.D. Admin. R. 20:18:33:14 (Dice-Ology), 49 SDR 101, effective May 25, 2023',
})

CLAUSE_TEXT = MappingProxyType({
    '625b.2(a)': (
        'A certificate holder may offer to players a variation of Super Sic Bo entitled Lightning Dice. '
        'Lightning Dice shall be played consistently with § 625b.1 (relating to Super Sic Bo), unless '
        'otherwise provided in this section.'),
    '625b.2(b)': (
        'In addition to the layout requirements of § 625a.1 (relating to Sic Bo table; Sic Bo shaker; '
        'physical characteristics), the layout must include all of the following:'),
    '625b.2(b)(1)': 'Specific areas designated for the placement of all wagers authorized under subsection (e).',
    '625b.2(b)(2)': (
        'A method of showing which wagers a multiplier is applied to, and the resulting payout odds of the '
        'wager, under subsection (g).'),
    '625b.2(b)(3)': 'A Lightning Dice tower, as outlined in subsection (c).',
    '625b.2(c)': (
        'Lightning Dice shall use a Lightning Dice tower, in lieu of an automated dice shaker, to determine '
        'dice outcomes in a randomized fashion. The Lightning Dice tower shall consist of the following:'),
    '625b.2(c)(1)': (
        'A compartment at the top, in which the dice are placed and shall remain until the dice are dropped.'),
    '625b.2(c)(2)': 'A lever, button or other means by which the dealer shall initiate the dice drop.',
    '625b.2(c)(3)': (
        'An enclosed, transparent tower body, which shall contain ramps, bumpers, rods or other obstacles '
        'against which the falling dice shall make contact and thereby deflect and tumble before coming to '
        'rest.'),
    '625b.2(c)(4)': 'A tray at the bottom of the tower, in which the dice shall come to rest.',
    '625b.2(d)': 'A round of Lightning Dice shall proceed according to the following:',
    '625b.2(d)(1)': (
        'Players may place any of the wagers authorized under subsection (e) prior to the time allotted for '
        'placing wagers having expired.'),
    '625b.2(d)(2)': (
        'The random number generator shall be activated to reveal between two and four Lucky Numbers, which '
        'shall indicate which bets have been selected for enhanced payout odds. The enhanced payout odds '
        'shall be displayed for the given betting positions.'),
    '625b.2(d)(3)': (
        'The dealer shall trigger the release of the dice through the top of the Lightning Dice tower, '
        'enabling the dice to tumble towards the bottom of the Lightning Dice tower.'),
    '625b.2(d)(4)': (
        'The dice shall come to rest in the tray at the bottom of the Lightning Dice tower, revealing the '
        'outcome.'),
    '625b.2(d)(5)': (
        'In the event that all three dice fail to land flat on the bottom, the dealer shall call ‘‘no roll’’ '
        'and all wagers placed shall be returned to the players.'),
    '625b.2(d)(6)': (
        'A player’s wagers shall be settled before the dice may be removed from the tray at the bottom of '
        'the tower and placed in the compartment at the top, ready for the next round of play.'),
    '625b.2(e)': 'Lightning Dice wagers shall include the following wager options:',
    '625b.2(e)(1)': 'A low bet, which is the small bet under § 625a.3(6) (relating to wagers).',
    '625b.2(e)(2)': 'A high bet, which is the big bet under § 625a.3(7).',
    '625b.2(e)(3)': 'Any double bet, which wins if the same number is showing on two of the three dice.',
    '625b.2(e)(4)': 'Any triple bet, which wins if the same number is showing on all three dice.',
    '625b.2(e)(5)': 'A total value bet under § 625a.3(4).',
    '625b.2(f)': (
        'The certificate holder shall pay out winning Super Sic Bo wagers at odds no lower than the '
        'following base paytable:\n| Wager | Payout |\n| Low (3—9) | 1 to 1 |\n| High (12—18) | 1 to 1 |\n| Any '
        'double | 1 to 1 |\n| Any triple | 24 to 1 |\n| Total value bet of 3 | 149 to 1 |\n| Total value bet of '
        '4 | 49 to 1 |\n| Total value bet of 5 | 24 to 1 |\n| Total value bet of 6 | 14 to 1 |\n| Total value '
        'bet of 7 | 9 to 1 |\n| Total value bet of 8 | 6 to 1 |\n| Total value bet of 9 | 5 to 1 |\n| Total '
        'value bet of 10 | 4 to 1 |\n| Total value bet of 11 | 4 to 1 |\n| Total value bet of 12 | 5 to 1 |\n| '
        'Total value bet of 13 | 6 to 1 |\n| Total value bet of 14 | 9 to 1 |\n| Total value bet of 15 | 14 to '
        '1 |\n| Total value bet of 16 | 24 to 1 |\n| Total value bet of 17 | 49 to 1 |\n| Total value bet of 18 '
        '| 149 to 1 |'),
    '625b.2(g)': 'Lightning Dice Lucky Numbers multipliers shall be handled in accordance with the following:',
    '625b.2(g)(1)': (
        'After ‘‘no more bets’’ is announced under § 625a.5(c) (relating to procedures for opening and '
        'dealing the game), but before the winning wager is established, a randomly generated multiplier may '
        'be applied between two and four of the betting positions.'),
    '625b.2(g)(2)': (
        'If no Lucky Numbers multiplier is applied to a given betting position, the payout for a winning '
        'wager shall be paid according to the paytable in subsection (f).'),
    '625b.2(g)(3)': (
        'If a Lucky Numbers multiplier is applied, the payout odds shall fall within the following ranges:\n| '
        'Wager | Payout |\n| Low (3—9) | 1—9 to 1 |\n| High (12—18) | 1—9 to 1 |\n| Any double | 1—3 to 1 |\n| '
        'Any triple | 24—249 to 1 |\n| Total value bet of 3 | 149—999 to 1 |\n| Total value bet of 4 | 49—499 '
        'to 1 |\n| Total value bet of 5 | 24—249 to 1 |\n| Total value bet of 6 | 14—99 to 1 |\n| Total value '
        'bet of 7 | 9—99 to 1 |\n| Total value bet of 8 | 6—49 to 1 |\n| Total value bet of 9 | 5—49 to 1 |\n| '
        'Total value bet of 10 | 4—49 to 1 |\n| Total value bet of 11 | 4—49 to 1 |\n| Total value bet of 12 | '
        '5—49 to 1 |\n| Total value bet of 13 | 6—49 to 1 |\n| Total value bet of 14 | 9—99 to 1 |\n| Total '
        'value bet of 15 | 14—99 to 1 |\n| Total value bet of 16 | 24—249 to 1 |\n| Total value bet of 17 | '
        '49—499 to 1 |\n| Total value bet of 18 | 149—999 to 1 |'),
    '617c.3(a)': (
        'A certificate holder may, if specified in its Rules Submission under § 601a.2 (relating to table '
        'games Rules Submissions), offer to players a game variation entitled Lightning Roulette, where each '
        'player who placed and wins a straight wager in Roulette accordance with § 617a.3 (relating to '
        'placement of wagers) has the ability to win an increased payout based upon the results of a random '
        'number generator. If the certificate holder is offering Lightning Roulette, it must be played on a '
        'single zero Roulette wheel as described in § 617a.1(c) (relating to Roulette ball; Roulette wheel '
        'and table; physical characteristics; double zero Roulette wheel used as a single zero Roulette '
        'wheel).'),
    '617c.3(b)': (
        'The layout for a Lightning Roulette table shall be submitted to the Bureau of Gaming Operations for '
        'approval in accordance with § 601a.10(a) (relating to approval of table game layouts, signage and '
        'equipment). A Lightning Roulette table shall have in place a board-approved Roulette random number '
        'generator that determines the Lucky Numbers and also determines the specific payout that will be '
        'paid for a winning straight wager placed on a Lucky Number.'),
    '617c.3(c)': (
        'A player may place a straight wager before each Roulette spin at any time before the croupier '
        'calls, "no more bets" in accordance with § 617a.5 (relating to rotation of wheel and ball).'),
    '617c.3(d)': (
        'After all wagers have been placed, the random number generator shall be initiated and will select '
        'between 1 and 5 numbers on the layout that are the Lucky Numbers. The Lucky Numbers will be '
        'illuminated and will also indicate what the increased payout will be for a winning straight wager '
        'placed on that Lucky Number.'),
    '617c.3(e)': (
        'If the Roulette ball comes to rest in one of the Lucky Numbers and a player has placed a straight '
        "wager on that number, the player's straight wager shall win and be paid based upon the increased "
        'payout displayed on the layout and listed in subsection (g).'),
    '617c.3(f)': (
        "Notwithstanding the provisions of § 617a.4 (relating to payout odds), if a player's straight wager "
        'wins but the number the player wagered on is not selected as a Lucky Number by the random number '
        'generator, the player shall be paid 29 to 1.'),
    '617c.3(g)': (
        "The possible payouts, all of which shall be included in the certificate holder's Rules Submission "
        'filed in accordance with § 601a.2, that may be selected by the random number generator are as '
        'follows: (1) 499 to 1; (2) 399 to 1; (3) 349 to 1; (4) 299 to 1; (5) 249 to 1; (6) 199 to 1; (7) '
        '149 to 1; (8) 99 to 1; (9) 49 to 1'),
    '625a.6(a)': (
        'The certificate holder shall pay out winning Sic Bo wagers at the odds in one of the following '
        'paytables selected by the certificate holder in its Rules Submission filed in accordance with § '
        '601a.2 (relating to table games Rules Submissions):\nWager Paytable A Paytable B\nThree of a Kind 150 '
        'to 1 180 to 1\nTwo of a Kind 8 to 1 11 to 1\nAny Three of a Kind 24 to 1 31 to 1\nTotal Value Bet of 4 '
        '50 to 1 62 to 1\nTotal Value Bet of 5 18 to 1 31 to 1\nTotal Value Bet of 6 14 to 1 18 to 1\nTotal '
        'Value Bet of 7 12 to 1 12 to 1\nTotal Value Bet of 8 8 to 1 8 to 1\nTotal Value Bet of 9 6 to 1 7 to '
        '1\nTotal Value Bet of 10 6 to 1 6 to 1\nTotal Value Bet of 11 6 to 1 6 to 1\nTotal Value Bet of 12 6 '
        'to 1 7 to 1\nTotal Value of Bet 13 8 to 1 8 to 1\nTotal Value of Bet 14 12 to 1 12 to 1\nTotal Value '
        'of Bet 15 14 to 1 18 to 1\nTotal Value Bet of 16 18 to 1 31 to 1\nTotal Value Bet of 17 50 to 1 62 to '
        '1\nAny Two Dice Combination 5 to 1 6 to 1\nSmall Bet 1 to 1 1 to 1\nBig Bet 1 to 1 1 to 1'),
    '625a.6(b)': 'For purposes of a One of a Kind Wager:',
    '625a.6(b)(1)': (
        'If only one of the dice show the numeric value upon which the wager was placed, the One of a Kind '
        'Wager shall be paid at 1 to 1.'),
    '625a.6(b)(2)': (
        'If two of the dice show the numeric value upon which the wager was placed, the One of a Kind Wager '
        'shall be paid at 2 to 1.'),
    '625a.6(b)(3)': (
        'If all three dice show the same numeric value upon which the wager was placed and if the '
        'certificate holder selected:'),
    '625a.6(b)(3)(i)': 'Paytable A in subsection (a), the One of a Kind Wager shall be paid at 3 to 1.',
    '625a.6(b)(3)(ii)': 'Paytable B in subsection (a), the One of a Kind Wager shall be paid at 12 to 1.',
    '625a.6(c)': (
        'A certificate holder may list its payouts odds in subsections (a) and (b) as either ‘‘to 1’’ or ‘‘1 '
        'wins.’’'),
    '20:18:33:14': (
        'Dice-Ology is a variation of craps. The game offers the player a group of side bets during the game '
        'of craps. Bonus craps may be played on an existing craps table. None of the existing features of '
        'the craps table may be eliminated. There are three side bets: Little Ones, Big Ones, and Boom or '
        'Bust.'),
    '20:18:33:14(1)': 'Little Ones side bets are conducted in the following manner:',
    '20:18:33:14(1)(a)': (
        'This feature consists of a side bet in which all of the little numbers two, three, four, five, and '
        'six, must be rolled before a seven;'),
    '20:18:33:14(1)(b)': 'The bet loses on any seven, including a seven on the come out roll;',
    '20:18:33:14(1)(c)': (
        'If all of the littler numbers are rolled, the side bet pays according to the pay table and is taken '
        'down;'),
    '20:18:33:14(1)(d)': 'A player may bet this feature at the beginning of the roll only;',
    '20:18:33:14(1)(e)': 'The dealer shall mark a number with a lammer after a number has been rolled; and',
    '20:18:33:14(1)(f)': (
        'After all of the little numbers are lammered up, the dealer shall pay the bettor and take the '
        "better's little bet down."),
    '20:18:33:14(2)': 'Big Ones side bets are conducted in the following manner:',
    '20:18:33:14(2)(a)': 'This is the same feature and side bet as Little Ones;',
    '20:18:33:14(2)(b)': 'The big numbers, eight, nine, ten, eleven, and twelve, must be rolled before a seven;',
    '20:18:33:14(2)(c)': 'The bet loses on any seven, including a seven on the come out roll;',
    '20:18:33:14(2)(d)': (
        'If all of the big numbers are rolled, the side bet pays according to the pay table and is taken '
        'down;'),
    '20:18:33:14(2)(e)': 'A player may bet this feature at the beginning of the roll only;',
    '20:18:33:14(2)(f)': 'The dealer shall mark a number with a lammer after a number has been rolled; and',
    '20:18:33:14(2)(g)': (
        "After all of the big numbers are lammered up, the dealer shall pay the bettor and take the bettor's "
        'big bet down; and'),
    '20:18:33:14(3)': 'Boom or Bust side bets are conducted in the following manner:',
    '20:18:33:14(3)(a)': (
        'This feature consists of all of the numbers, two, three, four, five, six, eight, nine, ten, eleven, '
        'and twelve, being rolled before any seven;'),
    '20:18:33:14(3)(b)': 'This bet loses whenever a seven is rolled; and',
    '20:18:33:14(3)(c)': (
        "After all of the numbers are lammered up, the dealer shall pay the bettor and take the bettor's bet "
        'down.'),
    '20:18:33:14 pay tables': (
        '| Side Bet | Pay Table 1 | Pay Table 2 |\n| Little Ones | 34 to 1 | 30 to 1 |\n| Big Ones | 34 to 1 | '
        '30 to 1 |\n| Boom or Bust | 175 to 1 | 150 to 1 |'),
})

_CITATION = re.compile(r"\s*(\d{3}[a-z]\.\d+|20:18:33:14)((?:\((?:[0-9]+|[a-z]+)\))*)")


def clause_text(citation: str) -> list[tuple[str, str]]:
    """The regulation's words for a citation: (clause, text) for each clause
    it names, the nearest enclosing clause when the exact one has no words of
    its own (a range "617c.3(e)-(g)" is quoted from its first clause). Empty
    when no section it names is among the texts (say "protocol", or § 625a.5)."""
    found: list[tuple[str, str]] = []
    for part in citation.split(";"):
        match = _CITATION.match(part)
        if not match:
            continue
        section, groups = match.group(1), re.findall(r"\([0-9a-z]+\)", match.group(2))
        while True:
            clause = section + "".join(groups)
            if clause in CLAUSE_TEXT:
                if (clause, CLAUSE_TEXT[clause]) not in found:
                    found.append((clause, CLAUSE_TEXT[clause]))
                break
            if not groups:
                break
            groups.pop()
    return found


def source_of(clause: str) -> str | None:
    """Where the text of ``clause`` comes from, for a citation under a quotation."""
    match = _CITATION.match(clause)
    return SOURCES.get(match.group(1)) if match else None
