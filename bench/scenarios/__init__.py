"""The regulation scenarios: the pytest plugin, clause tags, the step library, and the two tables a scenario plays on (the rules engine, a controller over its link)."""
