"""A multi-host test web built from real text (pydoc HTML of the standard library).

Mirrors, near-duplicates and traps, for tests, benchmarks and the demo.
"""
