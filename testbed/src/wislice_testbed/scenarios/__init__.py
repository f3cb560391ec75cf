"""Scenarios replayed on the one-machine testbed (``run(tb, log) -> results``)."""
