"""Mirrored directories: candidates from replicated index pages, coordinate sampling and probes,
confirmed rules widened to the replica boundary, and their persistent records. ``detector`` is the
one object the façade talks to."""
