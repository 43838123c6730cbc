"""Alert ids (alerts.md, "Lifecycle"): one integer per dealer error, unique within the table's
journal and increasing, also across restarts.

The monitor names an error by ``Alert.ref`` (its own count, restarting with the monitor); the
publisher maps each ref to an id here the first time the alert is published, and an update
(same ref) gets the same id. The first id of a run follows the largest id in the journal.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class AlertIds:
    """``last``: the largest id given so far (or found in the journal at start)."""

    last: int = 0
    _by_ref: dict[int, int] = field(default_factory=dict)

    def new(self, ref: int | None) -> int:
        """The id of a newly raised alert (``ref`` None: an alert with no identity)."""
        self.last += 1
        if ref is not None:
            self._by_ref[ref] = self.last
        return self.last

    def of(self, ref: int | None) -> int:
        """The id of an update of the alert ``ref`` (a new id if it was never published)."""
        if ref is not None and ref in self._by_ref:
            return self._by_ref[ref]
        return self.new(ref)

    def get(self, ref: int | None) -> int | None:
        """The id the alert ``ref`` was published under; None if it never was."""
        return None if ref is None else self._by_ref.get(ref)
