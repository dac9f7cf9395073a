"""A multi-host test web built from real text (pydoc HTML of the standard library): mirrors, near-duplicates and traps, for tests, benchmarks and the demo."""
