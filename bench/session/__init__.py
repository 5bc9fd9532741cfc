"""``bench run``: the runner, the simpy round cycle, the out folder, and the mutation score of the emulated controller's misbehaviours."""
