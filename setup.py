"""Which packages the wheel holds. Everything else is in pyproject.toml.

Kept in code because the list is computed: ``bench``, ``twin`` and ``tablebench_io`` (the input
reader both share) with their subpackages (not ``benchmarks``), plus the shipped data, which lives in the
repository's top-level ``fixtures/`` and ``features/`` folders and is installed
under names of its own (``tablebench_fixtures``, ``tablebench_features``) so
that ``importlib.resources`` finds it in an installed wheel and in an editable
install alike.
"""

from setuptools import find_packages, setup

SHIPPED = {"tablebench_fixtures": "fixtures", "tablebench_features": "features"}

setup(
    packages=find_packages(include=["bench", "bench.*", "twin", "twin.*", "tablebench_io", "tablebench_io.*"]) + sorted(SHIPPED),
    package_dir=SHIPPED,
    package_data={
        "bench.adapters": ["template/*"],          # bench adapters --template writes it out
        "tablebench_fixtures": ["towers/*.yaml", "wheels/*.yaml", "submissions/*.yaml", "games/*.yaml",
                                "staged-seeds.json"],
        "tablebench_features": ["*.feature"],
    },
)
