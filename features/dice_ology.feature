# Written from S.D. Admin. R. 20:18:33:14 (Variations of the play —
# Dice-Ology), 49 SDR 101, effective 5/25/2023; text in
# ../shared/regulations/sd-20.18.33.14-dice-ology.txt.
#
# Tags: one per clause, "sd." and the rule number with its colons and
# brackets turned into dots: 20:18:33:14(1)(b) is @sd.20.18.33.14.1.b. The
# unnumbered opening paragraph is @sd.20.18.33.14 and the unnumbered "Pay
# Tables" at the end are @sd.20.18.33.14.pay-tables (docs/features.md).
# A roll is written as its two dice, 3-4; stakes and amounts are integer
# minor units; "N to 1" hands back the stake and N times the stake.
#
# Not testable here, and why:
#   Opening paragraph, "Bonus craps may be played on an existing craps
#     table. None of the existing features of the craps table may be
#     eliminated": the craps table and its other wagers are outside the
#     three side bets this engine settles.
#   (1)(d), (2)(e) "A player may bet this feature at the beginning of the roll
#     only": the engine settles bets placed before a given sequence of rolls;
#     refusing a bet placed later is the game controller's job: tested on
#     the controller by features/round_order.feature.
#   (1)(e), (2)(f) the lammer, and (1)(f), (2)(g), (3)(c) "the dealer shall
#     pay ... and take ... down": the dealer's acts. What they decide is
#     tested: a number rolled twice counts once, an unfinished bet stays up,
#     a finished bet is paid and no later seven takes it back.

Feature: Dice-Ology side bets (S.D. Admin. R. 20:18:33:14)
  Dice-Ology is a variation of craps. The game offers the player a group of
  side bets during the game of craps: Little Ones, Big Ones, and Boom or Bust.

  @sd.20.18.33.14 @off-controller.layout
  Scenario: There are three side bets: Little Ones, Big Ones, and Boom or Bust
    Given a Dice-Ology table using pay table 1
    Then the layout offers exactly the wagers "little-ones", "big-ones" and "boom-or-bust"

  @sd.20.18.33.14
  Scenario Outline: Dice-Ology is a variation of craps: each roll is two dice showing 1 to 6 (<why>)
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "little-ones"
    When the shooter rolls <rolls>
    Then the round is refused as impossible

    Examples:
      | why             | rolls    |
      | a face of 7     | 1-1, 7-1 |
      | a face of 0     | 0-2      |

  @sd.20.18.33.14.1.a @sd.20.18.33.14.1.c @sd.20.18.33.14.1.f
  Scenario Outline: Little Ones wins when all of the little numbers two, three, four, five, and six are rolled before a seven
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "little-ones"
    When the shooter rolls <rolls>
    Then the wager on "little-ones" wins and is paid 34 to 1

    Examples:
      | rolls                                                    |
      | 1-1, 1-2, 2-2, 1-4, 3-3                                  |
      | 3-3, 2-3, 1-3, 2-1, 1-1                                  |
      | 4-4, 1-1, 5-6, 1-2, 6-6, 2-2, 1-1, 4-1, 5-5, 2-4          |

  @sd.20.18.33.14.1.b
  Scenario Outline: The Little Ones bet loses on any seven, including a seven on the come out roll
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "little-ones"
    When the shooter rolls <rolls>
    Then the wager on "little-ones" loses

    Examples:
      | why                               | rolls                         |
      | a seven on the come out roll      | 3-4                           |
      | a seven on the come out roll      | 6-1                           |
      | a seven before the six            | 1-1, 1-2, 2-2, 1-4, 2-5, 3-3  |
      | a seven after big numbers only    | 6-6, 5-5, 4-3                 |

  @sd.20.18.33.14.1.c @sd.20.18.33.14.1.f
  Scenario: Once all of the little numbers are rolled the bet is paid and taken down: a later seven does not take it back
    Given a Dice-Ology table using pay table 2
    And the player places 100 on "little-ones"
    When the shooter rolls 1-1, 1-2, 2-2, 1-4, 3-3, 3-4
    Then the wager on "little-ones" wins and is paid 30 to 1

  @sd.20.18.33.14.1.e
  Scenario: A number is marked once: rolling a little number again does not complete the bet
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "little-ones"
    When the shooter rolls 1-1, 1-1, 1-2, 2-1, 2-2, 1-4
    Then the wager on "little-ones" stays up, unresolved

  @sd.20.18.33.14.1.a @sd.20.18.33.14.1.e
  Scenario Outline: Until all of the little numbers are rolled and while no seven comes, the Little Ones bet stays up (<rolls>)
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "little-ones"
    When the shooter rolls <rolls>
    Then the wager on "little-ones" stays up, unresolved

    Examples:
      | rolls                              |
      | 1-1                                |
      | 1-1, 1-2, 2-2, 1-4                 |
      | 6-6, 5-5, 4-6, 3-6, 2-6            |

  @sd.20.18.33.14.2.a @sd.20.18.33.14.2.b @sd.20.18.33.14.2.d @sd.20.18.33.14.2.g
  Scenario Outline: Big Ones wins when the big numbers eight, nine, ten, eleven, and twelve are rolled before a seven
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "big-ones"
    When the shooter rolls <rolls>
    Then the wager on "big-ones" wins and is paid 34 to 1

    Examples:
      | rolls                                            |
      | 2-6, 3-6, 4-6, 5-6, 6-6                          |
      | 6-6, 5-6, 5-5, 4-5, 4-4                          |
      | 1-1, 4-4, 2-2, 6-3, 1-2, 6-4, 3-3, 5-6, 2-1, 6-6  |

  @sd.20.18.33.14.2.c
  Scenario Outline: The Big Ones bet loses on any seven, including a seven on the come out roll
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "big-ones"
    When the shooter rolls <rolls>
    Then the wager on "big-ones" loses

    Examples:
      | why                          | rolls                        |
      | a seven on the come out roll | 5-2                          |
      | a seven before the twelve    | 2-6, 3-6, 4-6, 5-6, 1-6, 6-6 |

  @sd.20.18.33.14.2.d @sd.20.18.33.14.2.g
  Scenario: Once all of the big numbers are rolled the bet is paid and taken down: a later seven does not take it back
    Given a Dice-Ology table using pay table 2
    And the player places 100 on "big-ones"
    When the shooter rolls 2-6, 3-6, 4-6, 5-6, 6-6, 2-5
    Then the wager on "big-ones" wins and is paid 30 to 1

  @sd.20.18.33.14.2.a @sd.20.18.33.14.2.f
  Scenario: Big Ones is the same feature as Little Ones over the big numbers: little numbers do not count for it
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "big-ones"
    And the player places 100 on "little-ones"
    When the shooter rolls 1-1, 1-2, 2-2, 1-4, 3-3, 2-6, 3-6
    Then the wager on "little-ones" wins and is paid 34 to 1
    And the wager on "big-ones" stays up, unresolved

  @sd.20.18.33.14.3.a @sd.20.18.33.14.3.c
  Scenario: Boom or Bust wins when all of the numbers two, three, four, five, six, eight, nine, ten, eleven, and twelve are rolled before any seven
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "boom-or-bust"
    When the shooter rolls 1-1, 1-2, 2-2, 1-4, 3-3, 2-6, 3-6, 4-6, 5-6, 6-6
    Then the wager on "boom-or-bust" wins and is paid 175 to 1

  @sd.20.18.33.14.3.b
  Scenario Outline: The Boom or Bust bet loses whenever a seven is rolled
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "boom-or-bust"
    When the shooter rolls <rolls>
    Then the wager on "boom-or-bust" loses

    Examples:
      | why                              | rolls                                                  |
      | a seven on the come out roll     | 1-6                                                    |
      | a seven with one number missing  | 1-1, 1-2, 2-2, 1-4, 3-3, 2-6, 3-6, 4-6, 5-6, 4-3, 6-6  |

  @sd.20.18.33.14.3.a @sd.20.18.33.14.3.c
  Scenario: Boom or Bust stays up while any of its ten numbers is missing
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "boom-or-bust"
    When the shooter rolls 1-1, 1-2, 2-2, 1-4, 3-3, 2-6, 3-6, 4-6, 5-6
    Then the wager on "boom-or-bust" stays up, unresolved

  @sd.20.18.33.14.1.b @sd.20.18.33.14.2.c @sd.20.18.33.14.3.b
  Scenario: A seven settles every side bet still up at once
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "little-ones"
    And the player places 100 on "big-ones"
    And the player places 100 on "boom-or-bust"
    When the shooter rolls 1-1, 2-6, 1-2, 3-4, 6-6
    Then the wager on "little-ones" loses
    And the wager on "big-ones" loses
    And the wager on "boom-or-bust" loses

  @sd.20.18.33.14.pay-tables
  Scenario Outline: Pay Table <pay table>: a winning <side bet> is paid <odds> to 1
    Given a Dice-Ology table using pay table <pay table>
    And the player places 100 on "<bet>"
    When the shooter rolls <rolls>
    Then the wager on "<bet>" wins and is paid <odds> to 1

    Examples:
      | side bet     | bet          | pay table | odds | rolls                                                   |
      | Little Ones  | little-ones  | 1         | 34   | 1-1, 1-2, 2-2, 1-4, 3-3                                 |
      | Big Ones     | big-ones     | 1         | 34   | 2-6, 3-6, 4-6, 5-6, 6-6                                 |
      | Boom or Bust | boom-or-bust | 1         | 175  | 1-1, 1-2, 2-2, 1-4, 3-3, 2-6, 3-6, 4-6, 5-6, 6-6        |
      | Little Ones  | little-ones  | 2         | 30   | 1-1, 1-2, 2-2, 1-4, 3-3                                 |
      | Big Ones     | big-ones     | 2         | 30   | 2-6, 3-6, 4-6, 5-6, 6-6                                 |
      | Boom or Bust | boom-or-bust | 2         | 150  | 1-1, 1-2, 2-2, 1-4, 3-3, 2-6, 3-6, 4-6, 5-6, 6-6        |

  @sd.20.18.33.14.pay-tables @off-controller.submission
  Scenario Outline: A rules submission selecting Pay Table <pay table> is accepted and the table pays by it
    When the certificate holder files this rules submission:
      """
      game: dice-ology
      paytable: <pay table>
      """
    Then the rules submission is accepted
    When the player places 100 on "boom-or-bust"
    And the shooter rolls 1-1, 1-2, 2-2, 1-4, 3-3, 2-6, 3-6, 4-6, 5-6, 6-6
    Then the wager on "boom-or-bust" wins and is paid <odds> to 1

    Examples:
      | pay table | odds |
      | 1         | 175  |
      | 2         | 150  |

  @sd.20.18.33.14.pay-tables @off-controller.submission
  Scenario Outline: A rules submission selecting a pay table the rule does not have is refused (<pay table>)
    When the certificate holder files this rules submission:
      """
      game: dice-ology
      paytable: <pay table>
      """
    Then the rules submission is refused, naming the file and the field "paytable"

    Examples:
      | pay table |
      | 3         |
      | A         |

  # The chance of winning follows from the text alone: every number of the bet
  # rolled before a seven, whatever else is rolled; the step computes it
  # from the 36 two-dice outcomes, independently of the rules engine.
  @sd.20.18.33.14.1.a @sd.20.18.33.14.2.b @sd.20.18.33.14.3.a @sd.20.18.33.14.pay-tables @off-controller.exact-figures
  Scenario Outline: The chance of winning <side bet> is the chance that all of <numbers> are rolled before a seven
    Given a Dice-Ology table using pay table <pay table>
    Then the chance of winning "<bet>" is the chance that all of <numbers> are rolled before a seven
    And the return to player of "<bet>" is its chance of winning times <odds> + 1

    Examples:
      | side bet     | bet          | numbers                                                 | pay table | odds |
      | Little Ones  | little-ones  | two, three, four, five and six                          | 1         | 34   |
      | Big Ones     | big-ones     | eight, nine, ten, eleven and twelve                     | 2         | 30   |
      | Boom or Bust | boom-or-bust | two, three, four, five, six, eight, nine, ten, eleven and twelve | 1 | 175 |
