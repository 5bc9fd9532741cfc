# Written from 58 Pa. Code § 625a.6 (Sic Bo payout odds), as amended
# effective August 31, 2019 (49 Pa.B. 4956); text in
# ../shared/regulations/pa-58-625a.6-sic-bo-payout-odds.txt.
#
# The wagers themselves are defined in § 625a.3, whose text is NOT among the
# seed regulations. § 625b.2(e) cites § 625a.3(4) as the total value bet,
# (6) as the small bet and (7) as the big bet; the issue lists the wagers of
# § 625a.3 in this order: three of a kind, two of a kind, any three of a
# kind, total value, two dice combination, small, big, one of a kind. That
# order agrees with the three cited numbers, so those scenarios are tagged
# @625a.3.1 ... @625a.3.8 and their wording is the issue's, not the Code's.
#
# Tags: one per clause, the citation with its brackets turned into dots:
# § 625a.6(b)(3)(ii) is @625a.6.b.3.ii (docs/features.md).
# Stakes and amounts are integer minor units. "N to 1" hands back the stake
# and N times the stake.
#
# Not testable here, and why:
#   (c) "may list its payouts odds ... as either 'to 1' or '1 wins'": how the
#     odds are written on the layout and signage; the amount paid is the same
#     either way, and the rules engine has no signage to inspect.

Feature: Sic Bo payout odds (58 Pa. Code § 625a.6)
  The certificate holder shall pay out winning Sic Bo wagers at the odds in
  one of the paytables A and B selected in its Rules Submission; a One of a
  Kind Wager is paid by how many dice show its number.

  @625a.6.a
  Scenario Outline: Paytable <paytable>: a winning <wager> is paid <odds> to 1
    Given a Sic Bo table using paytable <paytable>
    And the player places 100 on "<bet>"
    When the dice come to rest showing <dice>
    Then the wager on "<bet>" wins and is paid <odds> to 1

    Examples: Paytable A
      | paytable | wager                      | bet        | dice       | odds |
      | A        | Three of a Kind            | triple:4   | 4, 4 and 4 | 150  |
      | A        | Two of a Kind              | double:2   | 2, 2 and 5 | 8    |
      | A        | Any Three of a Kind        | any-triple | 6, 6 and 6 | 24   |
      | A        | Total Value Bet of 4       | total:4    | 1, 1 and 2 | 50   |
      | A        | Total Value Bet of 5       | total:5    | 1, 2 and 2 | 18   |
      | A        | Total Value Bet of 6       | total:6    | 1, 2 and 3 | 14   |
      | A        | Total Value Bet of 7       | total:7    | 1, 2 and 4 | 12   |
      | A        | Total Value Bet of 8       | total:8    | 2, 3 and 3 | 8    |
      | A        | Total Value Bet of 9       | total:9    | 2, 3 and 4 | 6    |
      | A        | Total Value Bet of 10      | total:10   | 1, 4 and 5 | 6    |
      | A        | Total Value Bet of 11      | total:11   | 2, 4 and 5 | 6    |
      | A        | Total Value Bet of 12      | total:12   | 3, 4 and 5 | 6    |
      | A        | Total Value of Bet 13      | total:13   | 3, 4 and 6 | 8    |
      | A        | Total Value of Bet 14      | total:14   | 3, 5 and 6 | 12   |
      | A        | Total Value of Bet 15      | total:15   | 4, 5 and 6 | 14   |
      | A        | Total Value Bet of 16      | total:16   | 4, 6 and 6 | 18   |
      | A        | Total Value Bet of 17      | total:17   | 5, 6 and 6 | 50   |
      | A        | Any Two Dice Combination   | combo:1-3  | 1, 3 and 5 | 5    |
      | A        | Small Bet                  | small      | 1, 2 and 4 | 1    |
      | A        | Big Bet                    | big        | 3, 5 and 6 | 1    |

    Examples: Paytable B
      | paytable | wager                      | bet        | dice       | odds |
      | B        | Three of a Kind            | triple:4   | 4, 4 and 4 | 180  |
      | B        | Two of a Kind              | double:2   | 2, 2 and 5 | 11   |
      | B        | Any Three of a Kind        | any-triple | 6, 6 and 6 | 31   |
      | B        | Total Value Bet of 4       | total:4    | 1, 1 and 2 | 62   |
      | B        | Total Value Bet of 5       | total:5    | 1, 2 and 2 | 31   |
      | B        | Total Value Bet of 6       | total:6    | 1, 2 and 3 | 18   |
      | B        | Total Value Bet of 7       | total:7    | 1, 2 and 4 | 12   |
      | B        | Total Value Bet of 8       | total:8    | 2, 3 and 3 | 8    |
      | B        | Total Value Bet of 9       | total:9    | 2, 3 and 4 | 7    |
      | B        | Total Value Bet of 10      | total:10   | 1, 4 and 5 | 6    |
      | B        | Total Value Bet of 11      | total:11   | 2, 4 and 5 | 6    |
      | B        | Total Value Bet of 12      | total:12   | 3, 4 and 5 | 7    |
      | B        | Total Value of Bet 13      | total:13   | 3, 4 and 6 | 8    |
      | B        | Total Value of Bet 14      | total:14   | 3, 5 and 6 | 12   |
      | B        | Total Value of Bet 15      | total:15   | 4, 5 and 6 | 18   |
      | B        | Total Value Bet of 16      | total:16   | 4, 6 and 6 | 31   |
      | B        | Total Value Bet of 17      | total:17   | 5, 6 and 6 | 62   |
      | B        | Any Two Dice Combination   | combo:1-3  | 1, 3 and 5 | 6    |
      | B        | Small Bet                  | small      | 1, 2 and 4 | 1    |
      | B        | Big Bet                    | big        | 3, 5 and 6 | 1    |

  @625a.6.a
  Scenario: The paytable's odds are paid in whole minor units, the stake included
    Given a Sic Bo table using paytable B
    And the player places 35 on "triple:4"
    And the player places 120 on "big"
    And the player places 15 on "total:12"
    When the dice come to rest showing 4, 4 and 4
    Then the player receives 6335 for the wager on "triple:4"
    And the player receives 0 for the wager on "big"
    And the player receives 120 for the wager on "total:12"

  @625a.6.a @off-controller.submission
  Scenario Outline: The certificate holder selects paytable <paytable> in its Rules Submission, and the table pays by it
    When the certificate holder files this rules submission:
      """
      game: sic-bo
      paytable: <paytable>
      """
    Then the rules submission is accepted
    When the player places 100 on "triple:4"
    And the dice come to rest showing 4, 4 and 4
    Then the wager on "triple:4" wins and is paid <odds> to 1

    Examples:
      | paytable | odds |
      | A        | 150  |
      | B        | 180  |

  @625a.6.a @off-controller.submission
  Scenario Outline: A Rules Submission selecting a paytable other than A or B is refused (<paytable>)
    When the certificate holder files this rules submission:
      """
      game: sic-bo
      paytable: <paytable>
      """
    Then the rules submission is refused, naming the file and the field "paytable"

    Examples:
      | paytable |
      | C        |
      | 1        |

  @625a.6.a @off-controller.layout
  Scenario Outline: The layout offers every wager of the paytables (<bet>)
    Given a Sic Bo table using paytable A
    Then the layout offers the wager "<bet>"
    And the player may place 100 on "<bet>"

    Examples:
      | wager                    | bet        |
      | Three of a Kind          | triple:1   |
      | Three of a Kind          | triple:6   |
      | Two of a Kind            | double:1   |
      | Two of a Kind            | double:6   |
      | Any Three of a Kind      | any-triple |
      | Total Value Bet of 4     | total:4    |
      | Total Value Bet of 10    | total:10   |
      | Total Value Bet of 17    | total:17   |
      | Any Two Dice Combination | combo:1-2  |
      | Any Two Dice Combination | combo:5-6  |
      | Small Bet                | small      |
      | Big Bet                  | big        |
      | One of a Kind            | single:1   |
      | One of a Kind            | single:6   |

  @625a.6.a @625a.3.4 @625a.3.5
  Scenario Outline: A wager the paytables do not price is refused (<bet>)
    Given a Sic Bo table using paytable A
    When the player tries to place 100 on "<bet>"
    Then the wager is refused

    Examples:
      | why                                     | bet       |
      | no total value bet of 3                 | total:3   |
      | no total value bet of 18                | total:18  |
      | a combination is two different numbers  | combo:3-3 |
      | there is no die face 7                  | single:7  |
      | the low bet is Lightning Dice's         | low       |

  @625a.6.b @625a.6.b.1 @625a.6.b.2 @625a.6.b.3.i @625a.6.b.3.ii @625a.3.8
  Scenario Outline: Paytable <paytable>: a One of a Kind Wager on 3 with <count> is paid <result>
    Given a Sic Bo table using paytable <paytable>
    And the player places 100 on "single:3"
    When the dice come to rest showing <dice>
    Then the wager on "single:3" <result>

    Examples: (b)(1) and (b)(2), either paytable
      | paytable | count                | dice       | result                  |
      | A        | only one of the dice | 3, 1 and 2 | wins and is paid 1 to 1 |
      | B        | only one of the dice | 6, 5 and 3 | wins and is paid 1 to 1 |
      | A        | two of the dice      | 3, 3 and 2 | wins and is paid 2 to 1 |
      | B        | two of the dice      | 3, 6 and 3 | wins and is paid 2 to 1 |
      | A        | none of the dice     | 1, 2 and 4 | loses                   |
      | B        | none of the dice     | 6, 6 and 6 | loses                   |

    Examples: (b)(3)(i) Paytable A and (b)(3)(ii) Paytable B
      | paytable | count                | dice       | result                   |
      | A        | all three dice       | 3, 3 and 3 | wins and is paid 3 to 1  |
      | B        | all three dice       | 3, 3 and 3 | wins and is paid 12 to 1 |

  @625a.3.1
  Scenario Outline: Three of a Kind wins only when its number is on all three dice (<dice>)
    Given a Sic Bo table using paytable A
    And the player places 100 on "triple:4"
    When the dice come to rest showing <dice>
    Then the wager on "triple:4" <result>

    Examples:
      | dice       | result                    |
      | 4, 4 and 4 | wins and is paid 150 to 1 |
      | 4, 4 and 1 | loses                     |
      | 5, 5 and 5 | loses                     |

  @625a.3.2
  Scenario Outline: Two of a Kind wins when its number is on two of the three dice (<dice>)
    Given a Sic Bo table using paytable A
    And the player places 100 on "double:2"
    When the dice come to rest showing <dice>
    Then the wager on "double:2" <result>

    Examples:
      | dice       | result                  |
      | 2, 5 and 2 | wins and is paid 8 to 1 |
      | 2, 5 and 6 | loses                   |
      | 5, 5 and 6 | loses                   |

  # AMBIGUITY, two of a kind (§ 625a.3, as the issue words it: "the chosen
  # number on two of the three dice") on a triple of its number, e.g. a Two
  # of a Kind on 2 when 2-2-2 is thrown.
  #   Reading 1: at least two dice show the number; the triple wins it.
  #   Reading 2: exactly two dice; the triple loses it (Three of a Kind and
  #   Any Three of a Kind pay triples).
  # Both readings are tested, each selected explicitly by the rules
  # submission (docs/rules.md names the option and the shipped default).
  @625a.3.2 @625a.6.a
  Scenario Outline: Two of a Kind on a triple of its number, read as "<reading>"
    Given a Sic Bo table using paytable <paytable>
    And the rules submission reads two of a kind on a triple as "<reading>"
    And the player places 100 on "double:2"
    When the dice come to rest showing 2, 2 and 2
    Then the wager on "double:2" <result>

    Examples:
      | paytable | reading                        | result                   |
      | A        | at least two of the three dice | wins and is paid 8 to 1  |
      | B        | at least two of the three dice | wins and is paid 11 to 1 |
      | A        | exactly two of the three dice  | loses                    |

  @625a.3.3
  Scenario Outline: Any Three of a Kind wins on any number showing on all three dice (<dice>)
    Given a Sic Bo table using paytable B
    And the player places 100 on "any-triple"
    When the dice come to rest showing <dice>
    Then the wager on "any-triple" <result>

    Examples:
      | dice       | result                   |
      | 1, 1 and 1 | wins and is paid 31 to 1 |
      | 5, 5 and 5 | wins and is paid 31 to 1 |
      | 1, 1 and 2 | loses                    |

  @625a.3.4
  Scenario Outline: A Total Value Bet wins when the dice add up to its total, a triple included (<dice>)
    Given a Sic Bo table using paytable A
    And the player places 100 on "total:9"
    When the dice come to rest showing <dice>
    Then the wager on "total:9" <result>

    Examples:
      | dice       | result                  |
      | 3, 3 and 3 | wins and is paid 6 to 1 |
      | 6, 2 and 1 | wins and is paid 6 to 1 |
      | 6, 2 and 2 | loses                   |

  @625a.3.5
  Scenario Outline: A Two Dice Combination wins once when both its numbers show (<dice>)
    Given a Sic Bo table using paytable A
    And the player places 100 on "combo:2-5"
    When the dice come to rest showing <dice>
    Then the wager on "combo:2-5" <result>

    Examples:
      | dice       | result                  |
      | 2, 5 and 1 | wins and is paid 5 to 1 |
      | 5, 2 and 5 | wins and is paid 5 to 1 |
      | 2, 2 and 3 | loses                   |
      | 5, 5 and 5 | loses                   |

  @625a.3.6 @625a.3.7
  Scenario Outline: Small wins on totals 4 to 10 and Big on totals 11 to 17, both losing on any three of a kind (<dice>)
    Given a Sic Bo table using paytable A
    And the player places 100 on "small"
    And the player places 100 on "big"
    When the dice come to rest showing <dice>
    Then the wager on "small" <small>
    And the wager on "big" <big>

    Examples:
      | dice       | total | small                   | big                     |
      | 1, 1 and 2 | 4     | wins and is paid 1 to 1 | loses                   |
      | 2, 4 and 4 | 10    | wins and is paid 1 to 1 | loses                   |
      | 5, 3 and 3 | 11    | loses                   | wins and is paid 1 to 1 |
      | 5, 6 and 6 | 17    | loses                   | wins and is paid 1 to 1 |
      | 1, 1 and 1 | 3     | loses                   | loses                   |
      | 2, 2 and 2 | 6     | loses                   | loses                   |
      | 3, 3 and 3 | 9     | loses                   | loses                   |
      | 4, 4 and 4 | 12    | loses                   | loses                   |
      | 6, 6 and 6 | 18    | loses                   | loses                   |

  @625a.3.6 @625a.3.7 @625a.6.a @off-controller.exact-figures
  Scenario Outline: Small and Big at 1 to 1 keep a house edge of 1/36 (<bet>)
    Given a Sic Bo table using paytable <paytable>
    Then the chance of winning "<bet>" is the chance of a total of <totals> that is not a triple
    And the return to player of "<bet>" is its chance of winning times 1 + 1
    And the house edge of "<bet>" is 1/36

    Examples:
      | paytable | bet   | totals   |
      | A        | small | 4 to 10  |
      | B        | big   | 11 to 17 |
