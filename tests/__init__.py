"""The test suite (a package, so that ``tests.contract_game`` wins over a ``tests`` package
another distribution may install, as pgx 2.6 does)."""
