"""Errors raised by the rules engine.

Every illegal action names the rule it breaks (rules.md section, seed, TDA number) so that the
floor can trace the decision; the engine state is left unchanged whenever one is raised.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class IllegalAction(EngineError):
    """An action or event that the rules forbid in the current state.

    ``rule`` cites the source, e.g. ``"TDA 43 [002 #37]"``; ``str(err)`` is
    ``"<rule>: <message>"`` so a log line is self-explaining.
    """

    def __init__(self, message: str, *, rule: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.message = message
        self.rule = rule


class ConfigError(EngineError, ValueError):
    """A game configuration that cannot be played (e.g. a big blind of zero)."""


class TableError(EngineError):
    """A table operation that is not possible (seat taken, hand in progress, no button...)."""
