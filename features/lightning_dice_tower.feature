# Written from 58 Pa. Code § 625b.2(c) and (d)(3)-(5): the Lightning Dice
# tower and how the dice travel through it; text in
# ../shared/regulations/pa-58-625b.2-lightning-dice.txt.
#
# These scenarios run against the physics twin of the tower (twin.tower):
# each drop is a PyBullet simulation of the design file, and a staged outcome
# ("a drop that leaves die 2 against the tray wall") is a real drop found by
# searching seeds, which anyone can replay. Tags follow docs/features.md:
# § 625b.2(c)(3) is @625b.2.c.3.

Feature: The Lightning Dice tower (58 Pa. Code § 625b.2(c), (d)(3)-(5))
  The dice wait in a compartment at the top until the dealer releases them,
  tumble against the obstacles of an enclosed, transparent body and come to
  rest in the tray at the bottom; unless all three land flat on the bottom
  the dealer calls "no roll".

  @625b.2.c.1
  Scenario: The dice stay in the compartment until they are dropped
    Given the tower design "standard.yaml"
    When the dealer drops the dice with seed 11, watched at every step
    Then until the release every die stayed in the compartment, on its closed door

  @625b.2.c.2 @625b.2.d.3
  Scenario: The dealer's trigger releases the dice through the top of the tower
    Given the tower design "standard.yaml"
    When the dealer drops the dice with seed 11, watched at every step
    Then within 0.3 seconds of the release every die has fallen out of the compartment
    And every die then comes to rest below the tower body, in the tray

  @625b.2.c.3
  Scenario: The falling dice strike the obstacles and tumble
    Given the tower design "standard.yaml"
    When the dealer drops the dice loaded 6 6 6 with seeds 0 to 19
    Then in every drop every die struck the obstacles at least 2 times
    And the loaded top face stayed up on no more than a third of the dice

  @625b.2.c.3
  Scenario: A tower body without obstacles does not tumble the dice
    Given the tower design "straight-chute.yaml"
    Then the design has no obstacles
    When the dealer drops the dice loaded 6 6 6 with seeds 0 to 19
    Then no die struck an obstacle
    And the loaded top face stayed up on more than 60% of the dice

  @625b.2.c.4 @625b.2.d.4
  Scenario: The dice come to rest in the tray at the bottom, revealing the outcome
    Given the tower design "standard.yaml"
    When the dealer drops the dice with seed 3, watched at every step
    Then the drop settles within 8 seconds of simulated time
    And every die is at rest inside the tray
    And the outcome is the three faces showing up

  @625b.2.d.5
  Scenario: Three dice flat on the bottom are a valid roll
    Given the tower design "standard.yaml"
    When a drop shows the faces 2 4 6
    Then every die lies flat on the bottom of the tray
    And the drop is not a no roll

  @625b.2.d.5
  Scenario: A die leaning against the tray wall makes a no roll
    Given the tower design "narrow-tray.yaml"
    When a drop from seed 93000 on leaves die 2 against the tray wall
    Then die 2 is not flat, tilted more than 3 degrees
    And the drop is a no roll
    And replaying the drop's seed and load gives the same no roll

  @625b.2.d.5
  Scenario: A die lying on another die makes a no roll
    Given the tower design "narrow-tray.yaml"
    When a drop from seed 93000 on leaves die 1 lying on another die
    Then die 1 is not flat
    And the drop is a no roll
