"""Benchmarks: ``python -m benchmarks`` runs them all, ``python -m benchmarks NAME...`` some."""
