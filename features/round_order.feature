# The order of a round: clauses about *when* something happens, which only a
# game controller playing rounds can be tested on (the rules engine settles a
# finished round). Played by `pytest features/ --controller URL` only
# (features/test_round_order_on_controller.py); tags as docs/features.md.
# Texts: ../shared/regulations/pa-58-625b.2-lightning-dice.txt and
# sd-20.18.33.14-dice-ology.txt. Stakes are integer minor units.

Feature: The order of a round, on the game controller
  Wagers are settled before the dice are cleared for the next round, and the
  Dice-Ology side bets are taken at the beginning of the roll only.

  @625b.2.d.6
  Scenario: A player's wagers are settled before the dice are removed from the tray
    Given a Lightning Dice table
    And the player places 100 on "total:10"
    And the player places 100 on "low"
    And the player places 100 on "any-triple"
    When the dice come to rest showing 3, 3 and 4
    Then every wager is settled before the dice are removed from the tray

  @625b.2.d.5 @625b.2.d.6
  Scenario: After a no roll every wager is returned before the dice are removed from the tray
    Given a Lightning Dice table
    And the player places 100 on "total:10"
    And the player places 100 on "high"
    When the dice come to rest showing 3, 3 and 4 with die 2 not flat on the bottom
    Then every wager is settled before the dice are removed from the tray

  @sd.20.18.33.14.1.d
  Scenario: Little Ones may be bet at the beginning of the roll only
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "little-ones"
    When the shooter rolls 2-2, 1-2
    And the player tries to place 100 on "little-ones" after those rolls
    Then the wager is refused
    And the wager on "little-ones" stays up, unresolved

  @sd.20.18.33.14.2.e
  Scenario: Big Ones may be bet at the beginning of the roll only
    Given a Dice-Ology table using pay table 1
    And the player places 100 on "big-ones"
    When the shooter rolls 5-5
    And the player tries to place 100 on "big-ones" after those rolls
    Then the wager is refused
    And the wager on "big-ones" stays up, unresolved
