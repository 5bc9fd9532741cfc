# Written from 58 Pa. Code § 617c.3 (Lightning Roulette); text in
# ../shared/regulations/pa-58-617c.3-lightning-roulette.txt.
#
# Tags: one per clause, the citation with its brackets turned into dots:
# § 617c.3(g)(4) is @617c.3.g.4 (docs/features.md).
# Stakes and amounts are integer minor units. "N to 1" hands back the stake
# and N times the stake.
#
# Not testable here, and why:
#   (b) first sentence: the layout "shall be submitted to the Bureau of Gaming
#     Operations for approval" and the generator shall be "board-approved":
#     administrative acts, outside any game's behaviour.
#   (c) "at any time before the croupier calls 'no more bets'" and (d) "After
#     all wagers have been placed": the order of events belongs to the game
#     controller; the rules engine settles a finished round. A later issue
#     runs these scenarios against the controller over its serial link.
#   The wheel itself (§ 617a.1(c)): features/lightning_roulette_wheel.feature.
#
# The other wagers' odds come from § 617a.4 (relating to payout odds), which
# (f) overrides for straight wagers only; § 617a.4 is not among the seed
# texts, so those scenarios carry the standard single-zero odds the issue
# lists and the tag @617a.4.

Feature: Lightning Roulette (58 Pa. Code § 617c.3)
  Each player who placed and wins a straight wager has the ability to win an
  increased payout based upon the results of a random number generator. The
  game is played on a single zero Roulette wheel.

  @617c.3.a @off-controller.layout
  Scenario: Lightning Roulette is played on a single zero wheel: a straight wager on each number from 0 to 36
    Given a Lightning Roulette table
    Then the layout offers a straight wager on each number from 0 to 36 and on no other number

  @617c.3.a
  Scenario Outline: The ball cannot come to rest in a pocket a single zero wheel does not have (<pocket>)
    Given a Lightning Roulette table
    And the player places 100 on "straight:17"
    And the random number generator reveals the Lucky Numbers "straight:17" at 499 to 1
    When the ball comes to rest in <pocket>
    Then the round is refused as impossible

    Examples:
      | pocket |
      | 37     |

    @off-controller.unencodable
    Examples: a pocket the protocol cannot carry
      | pocket |
      | -1     |

  @617c.3.a @617c.3.c @off-controller.layout
  Scenario Outline: A player may place a straight wager on <number>
    Given a Lightning Roulette table
    Then the layout offers the wager "straight:<number>"
    And the player may place 100 on "straight:<number>"

    Examples:
      | number |
      | 0      |
      | 1      |
      | 17     |
      | 36     |

  @617c.3.a @617c.3.c
  Scenario Outline: A straight wager on a number a single zero wheel does not have is refused (<bet>)
    Given a Lightning Roulette table
    When the player tries to place 100 on "<bet>"
    Then the wager is refused

    Examples:
      | why                          | bet         |
      | no double zero               | straight:00 |
      | no 37                        | straight:37 |
      | not a number                 | straight:x  |

  @617c.3.b @617c.3.d @617c.3.g @off-controller.seeded-draws
  Scenario: The random number generator determines between 1 and 5 Lucky Numbers and the payout for each
    Given a Lightning Roulette table
    When the random number generator reveals the Lucky Numbers of 300 rounds, seeds 1 to 300
    Then every round reveals between 1 and 5 Lucky Numbers
    And no betting position is selected twice in a round
    And each Lucky Number is a straight wager on a number from 0 to 36
    And each Lucky Number's payout is one of 499, 399, 349, 299, 249, 199, 149, 99 or 49 to 1
    And the same seed reveals the same Lucky Numbers

  @617c.3.d @off-controller.dictated-announcement
  Scenario Outline: <count> Lucky Numbers <verdict>
    Given a Lightning Roulette table
    When the random number generator tries to reveal the Lucky Numbers <lucky>
    Then the Lucky Numbers are <verdict>

    Examples:
      | count | verdict                   | lucky |
      | No    | refused under § 617c.3(d) | none  |
      | One   | accepted                  | "straight:7" at 49 to 1 |
      | Five  | accepted                  | "straight:7" at 49 to 1, "straight:0" at 499 to 1, "straight:36" at 99 to 1, "straight:12" at 149 to 1 and "straight:25" at 349 to 1 |
      | Six   | refused under § 617c.3(d) | "straight:7" at 49 to 1, "straight:0" at 499 to 1, "straight:36" at 99 to 1, "straight:12" at 149 to 1, "straight:25" at 349 to 1 and "straight:3" at 199 to 1 |

  @617c.3.d @off-controller.dictated-announcement
  Scenario Outline: A Lucky Number is a number on the layout, selected once (<why>)
    Given a Lightning Roulette table
    When the random number generator tries to reveal the Lucky Numbers <lucky>
    Then the Lucky Numbers are refused

    Examples:
      | why                          | lucky                                             |
      | the same number twice        | "straight:7" at 49 to 1 and "straight:7" at 99 to 1 |
      | not on a single zero layout  | "straight:37" at 49 to 1                          |
      | not a straight wager         | "red" at 49 to 1                                  |
      | not a straight wager         | "split:17-18" at 49 to 1                          |

  @617c.3.e @off-controller.dictated-lucky-pays
  Scenario Outline: A straight wager on the Lucky Number where the ball comes to rest is paid the increased payout <odds> to 1
    Given a Lightning Roulette table
    And the player places 100 on "straight:17"
    And the random number generator reveals the Lucky Numbers "straight:17" at <odds> to 1 and "straight:5" at 49 to 1
    When the ball comes to rest in 17
    Then the wager on "straight:17" wins and is paid <odds> to 1

    @617c.3.g.1
    Examples: (g)(1)
      | odds |
      | 499  |

    @617c.3.g.2
    Examples: (g)(2)
      | odds |
      | 399  |

    @617c.3.g.3
    Examples: (g)(3)
      | odds |
      | 349  |

    @617c.3.g.4
    Examples: (g)(4)
      | odds |
      | 299  |

    @617c.3.g.5
    Examples: (g)(5)
      | odds |
      | 249  |

    @617c.3.g.6
    Examples: (g)(6)
      | odds |
      | 199  |

    @617c.3.g.7
    Examples: (g)(7)
      | odds |
      | 149  |

    @617c.3.g.8
    Examples: (g)(8)
      | odds |
      | 99   |

    @617c.3.g.9
    Examples: (g)(9)
      | odds |
      | 49   |

  @617c.3.e @off-controller.dictated-lucky-pays
  Scenario: A straight wager on zero as a Lucky Number is paid its increased payout
    Given a Lightning Roulette table
    And the player places 20 on "straight:0"
    And the random number generator reveals the Lucky Numbers "straight:0" at 349 to 1
    When the ball comes to rest in 0
    Then the player receives 7000 for the wager on "straight:0"

  @617c.3.g @off-controller.dictated-announcement
  Scenario Outline: A payout not listed in subsection (g) is refused (<odds> to 1)
    Given a Lightning Roulette table
    When the random number generator tries to reveal the Lucky Numbers "straight:17" at <odds> to 1
    Then the Lucky Numbers are refused under § 617c.3(g)

    Examples:
      | odds |
      | 29   |
      | 50   |
      | 98   |
      | 500  |
      | 999  |
      | 0    |

  # § 617c.3(g): "The possible payouts, all of which shall be included in the
  # certificate holder's Rules Submission filed in accordance with § 601a.2,
  # that may be selected by the random number generator are as follows".
  #   Reading 1 (chosen; the sentence's own grammar): all nine payouts are
  #   included in every Rules Submission, for the generator to select.
  #   Reading 2: a submission may include any of the nine; the list only
  #   bounds what the generator may select.
  # The rules engine follows reading 1, requiring each of the nine with a
  # positive probability; reading 2 has no option to select it.
  @617c.3.g @off-controller.submission
  Scenario: Every payout of (g) is included in the shipped rules submission and selected by the random number generator
    When the certificate holder files the rules submission "fixtures/submissions/lightning-roulette.yaml"
    And the random number generator reveals the Lucky Numbers of 2000 rounds, seeds 1 to 2000
    Then each of the payouts 499, 399, 349, 299, 249, 199, 149, 99 and 49 to 1 is selected in some round

  @617c.3.g @off-controller.submission
  Scenario: A rules submission that leaves payouts of (g) out is refused
    When the certificate holder files this rules submission:
      """
      game: lightning-roulette
      lucky:
        count: {1: 1}
        positions: all
        odds: {all: {49: 0.5, 99: 0.5}}
      """
    Then the rules submission is refused under § 617c.3(g)

  @617c.3.g @off-controller.submission
  Scenario Outline: A rules submission with a payout not listed in (g) is refused (<odds> to 1)
    When the certificate holder files this rules submission:
      """
      game: lightning-roulette
      lucky:
        count: {2: 1}
        positions: all
        odds: {all: {<odds>: 0.2, 49: 0.1, 99: 0.1, 149: 0.1, 199: 0.1, 249: 0.1, 299: 0.1, 349: 0.1, 399: 0.05, 499: 0.05}}
      """
    Then the rules submission is refused under § 617c.3(g)

    Examples:
      | odds |
      | 50   |
      | 29   |
      | 500  |

  @617c.3.d @off-controller.submission
  Scenario: A rules submission drawing six Lucky Numbers is refused
    When the certificate holder files this rules submission:
      """
      game: lightning-roulette
      lucky:
        count: {5: 0.5, 6: 0.5}
        positions: all
        odds: {all: {49: 0.2, 99: 0.1, 149: 0.1, 199: 0.1, 249: 0.1, 299: 0.1, 349: 0.1, 399: 0.1, 499: 0.1}}
      """
    Then the rules submission is refused under § 617c.3(d)

  @617c.3.f
  Scenario Outline: A winning straight wager on a number not selected as a Lucky Number is paid 29 to 1 (<number>)
    Given a Lightning Roulette table
    And the player places 100 on "straight:<number>"
    And the random number generator reveals the Lucky Numbers "straight:7" at 499 to 1 and "straight:8" at 49 to 1
    When the ball comes to rest in <number>
    Then the wager on "straight:<number>" wins and is paid 29 to 1

    Examples:
      | number |
      | 0      |
      | 17     |
      | 36     |

  @617c.3.e @617c.3.f
  Scenario: A straight wager on a Lucky Number loses when the ball comes to rest elsewhere
    Given a Lightning Roulette table
    And the player places 100 on "straight:7"
    And the random number generator reveals the Lucky Numbers "straight:7" at 499 to 1
    When the ball comes to rest in 8
    Then the wager on "straight:7" loses

  # (a) gives the increased payout to a player "who placed and wins a straight
  # wager"; a split, street or other wager covering a Lucky Number is paid at
  # its ordinary odds.
  @617c.3.a @617c.3.e @617a.4 @off-controller.dictated-lucky-pays
  Scenario: Only a straight wager wins the increased payout of a Lucky Number
    Given a Lightning Roulette table
    And the player places 100 on "straight:17"
    And the player places 100 on "split:17-18"
    And the player places 100 on "street:16"
    And the player places 100 on "black"
    And the random number generator reveals the Lucky Numbers "straight:17" at 499 to 1
    When the ball comes to rest in 17
    Then the wager on "straight:17" wins and is paid 499 to 1
    And the wager on "split:17-18" wins and is paid 17 to 1
    And the wager on "street:16" wins and is paid 11 to 1
    And the wager on "black" wins and is paid 1 to 1

  @617a.4
  Scenario Outline: The other single zero wagers are paid at their standard odds when the ball comes to rest in <pocket> (<bet>)
    Given a Lightning Roulette table
    And the player places 100 on "<bet>"
    And the random number generator reveals the Lucky Numbers "straight:7" at 499 to 1
    When the ball comes to rest in <pocket>
    Then the wager on "<bet>" <result>

    Examples: winning wagers
      | bet               | pocket | result                   |
      | split:17-18       | 18     | wins and is paid 17 to 1 |
      | split:14-17       | 14     | wins and is paid 17 to 1 |
      | split:0-1         | 0      | wins and is paid 17 to 1 |
      | street:16         | 18     | wins and is paid 11 to 1 |
      | corner:17-18-20-21| 20     | wins and is paid 8 to 1  |
      | six-line:16       | 21     | wins and is paid 5 to 1  |
      | dozen:1           | 12     | wins and is paid 2 to 1  |
      | dozen:2           | 17     | wins and is paid 2 to 1  |
      | dozen:3           | 36     | wins and is paid 2 to 1  |
      | column:1          | 34     | wins and is paid 2 to 1  |
      | column:2          | 17     | wins and is paid 2 to 1  |
      | column:3          | 3      | wins and is paid 2 to 1  |
      | red               | 19     | wins and is paid 1 to 1  |
      | black             | 17     | wins and is paid 1 to 1  |
      | odd               | 17     | wins and is paid 1 to 1  |
      | even              | 36     | wins and is paid 1 to 1  |
      | 1-18              | 18     | wins and is paid 1 to 1  |
      | 19-36             | 19     | wins and is paid 1 to 1  |

    Examples: losing wagers
      | bet               | pocket | result |
      | split:17-18       | 19     | loses  |
      | street:16         | 19     | loses  |
      | corner:17-18-20-21| 19     | loses  |
      | six-line:16       | 22     | loses  |
      | dozen:2           | 25     | loses  |
      | column:2          | 18     | loses  |
      | red               | 17     | loses  |
      | black             | 19     | loses  |
      | odd               | 18     | loses  |
      | even              | 17     | loses  |
      | 1-18              | 19     | loses  |
      | 19-36             | 18     | loses  |

    Examples: zero loses every outside wager
      | bet      | pocket | result |
      | red      | 0      | loses  |
      | black    | 0      | loses  |
      | odd      | 0      | loses  |
      | even     | 0      | loses  |
      | 1-18     | 0      | loses  |
      | 19-36    | 0      | loses  |
      | dozen:1  | 0      | loses  |
      | column:3 | 0      | loses  |
