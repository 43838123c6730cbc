"""Frozen, slotted dataclasses built without their ``__init__``, for the records a hand makes
at its end (:func:`.records.pot_awarded`, :func:`.results.pot_award`, :func:`.results.hand_result`).

A frozen dataclass's ``__init__`` takes keyword arguments and sets each field with a frozen
assignment (``object.__setattr__``); ``object.__new__(cls)`` with each field set through its
slot's descriptor is the same object (equal, frozen, the same ``repr``) for a fraction of the
cost. The builder must set every field: :func:`slot_setters` takes them all, in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

Setter = Callable[[Any, Any], None]


def slot_setters(cls: type, *names: str) -> tuple[Setter, ...]:
    """The setters of ``cls``'s slots ``names``: every field of the dataclass, in the order it
    declares them (ValueError otherwise, so a field added later cannot be left unset)."""
    declared = tuple(f.name for f in fields(cls))
    if names != declared:
        raise ValueError(f"{cls.__name__}: slots {names} are not its fields {declared}")
    setters: tuple[Setter, ...] = tuple(cls.__dict__[name].__set__ for name in names)
    return setters
