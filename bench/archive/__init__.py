"""A regulator's archive (docs/archive.md): many tables' journals verified on
arrival and kept as Parquet, queried with SQL, exported and judged as a fleet.
The submodules import pyarrow and DuckDB; this package itself imports nothing,
so that ``bench.archive.labels`` stays light for ``bench run``."""
