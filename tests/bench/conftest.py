"""Shared set-up for the bench session tests: staged-seed searches are
memoised in a directory of this test session, not in the user's cache."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def staged_seed_cache(tmp_path_factory):
    path = tmp_path_factory.mktemp("xdg-cache")
    patcher = pytest.MonkeyPatch()
    patcher.setenv("XDG_CACHE_HOME", str(path))
    yield path
    patcher.undo()
