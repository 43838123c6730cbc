"""Table controller: the pure core (cards, rules engine, dealing monitor) and the daemon
around it."""

__version__ = "0.1.0"
