"""The game as the bench plays it: the round script both drivers follow, the plant, the players, probe rounds and probe wagers."""
