"""One antenna: its PN5180, the inventory strategy, and the tags it currently reads.

Strategy per scan (the field is on only for the scan, so one antenna radiates at a time):

- an antenna that read at most one tag last time starts with a 1-slot request (an empty
  antenna costs one request; a lone tag answers it);
- one that read two or more goes straight to the 16-slot round (two hole cards always collide
  in a single slot);
- one that read more than :data:`ROLLING_ABOVE` tags (the muck late in a hand, the shuffler
  tray holding the stub) in a full inventory that found no tag the previous one had not, is
  then inventoried *rolling*: each scan asks one sixteenth of the UID space
  (a 4-bit mask, 0 to 15 in turn, with its own sub-rounds on collisions), and the tags of the
  other fifteen sixteenths are carried over from their last scan. A full stub then costs about
  as much per scan as a seat, and every tag is checked at least every 16 scans. A tag carried
  over but read on another antenna is dropped by the scan schedule at once (it has moved).
  A tag its sixteenth's scan misses is not dropped at once: a flicker would then last until
  that sixteenth comes round again (16 scans), far longer than the Pi's hold time. It becomes a
  *suspect*, asked for by its full UID at every scan, and is dropped only when it has been
  missed :data:`SUSPECT_MISSES` times in a row (once more than the longest flicker burst the
  simulator models); a suspect that answers is kept, and nothing is reported.
  A tag that a rolling scan finds and did not know (cards thrown into the muck, the stub
  gathered into the tray) sends the antenna back to full inventories until they agree again,
  so a newcomer missed once (a flicker) is read at the next scan, not 16 scans later.
  Below :data:`ROLLING_BELOW` tags the antenna goes back to full inventories.
"""

from firmware.iso15693 import Inventory
from firmware.pn5180 import Pn5180

ROLLING_ABOVE = 8
ROLLING_BELOW = 4
SUSPECT_MISSES = 4


class Antenna:
    """Implements the scan schedule's reader interface (:class:`firmware.hal.Reader`)."""

    def __init__(self, chip: Pn5180) -> None:
        self.chip = chip
        self.inventory = Inventory(chip)
        self._tags: set[bytes] = set()
        self._fresh: set[bytes] = set()
        self._suspects: dict[bytes, int] = {}   # uid -> consecutive misses
        self._last_full: set[bytes] | None = None
        self._rolling = False
        self._nibble = 0
        self._covered = -1     # the nibble the last rolling scan asked; -1: a full scan
        self.ready = False

    @property
    def rolling(self) -> bool:
        """Whether the last scan asked only part of the UID space."""
        return self._covered >= 0

    def recover(self) -> None:
        """Reset the chip and set it up again (raises :class:`~firmware.pn5180.ChipError`)."""
        self.ready = False
        self.chip.reset()
        self.ready = True

    def scan(self) -> dict[bytes, int]:
        """The tags this antenna reads now (rolling: with those carried over), each with
        :data:`firmware.messages.RSSI_UNKNOWN` (figures come from :meth:`measure`)."""
        if not self.ready:
            self.recover()
        chip = self.chip
        chip.rf_on()
        try:
            if self._rolling:
                tags = self._rolling_scan()
            else:
                found = self.inventory.run(one_slot_first=len(self._tags) <= 1)
                self._covered = -1
                self._fresh = found
                self._suspects = {}
                tags = found
                last = self._last_full
                if len(found) > ROLLING_ABOVE and last is not None and not found - last:
                    # no newcomers since the last full inventory: go rolling; the tags this
                    # one missed (a flicker) are suspects, kept until confirmed gone
                    self._rolling = True
                    self._suspects = {uid: 1 for uid in last - found}
                    tags = found | last
                self._last_full = found
        finally:
            chip.rf_off()
        self._tags = tags
        if len(tags) < ROLLING_BELOW:
            self._rolling = False
        return {uid: -128 for uid in tags}

    def _rolling_scan(self) -> set[bytes]:
        nibble = self._nibble
        self._nibble = (nibble + 1) & 0xF
        suspects = self._suspects
        for uid in list(suspects):
            if self.inventory.answers(uid):
                del suspects[uid]
            else:
                suspects[uid] += 1
                if suspects[uid] >= SUSPECT_MISSES:
                    del suspects[uid]
                    self._tags.discard(uid)
        found = self.inventory.run(nibble, 4)
        if found - self._tags:
            self._rolling = False       # newcomers: full inventories until they agree again
            self._last_full = None
        for uid in self._tags:
            if uid[-1] & 0xF == nibble and uid not in found and uid not in suspects:
                suspects[uid] = 1
        self._covered = nibble
        self._fresh = found
        return {uid for uid in self._tags if uid[-1] & 0xF != nibble} | found | set(suspects)

    def fresh(self, uid: bytes) -> bool:
        """Whether the last scan read ``uid`` itself (not carried over)."""
        return uid in self._fresh

    def forget(self, uid: bytes) -> None:
        """Drop a carried-over tag (it was read elsewhere)."""
        self._tags.discard(uid)
        self._suspects.pop(uid, None)

    def measure(self, uid: bytes) -> int | None:
        """The tag's signal figure on this antenna, None if it does not answer here."""
        if not self.ready:
            self.recover()
        chip = self.chip
        chip.rf_on()
        try:
            return self.inventory.measure(uid)
        finally:
            chip.rf_off()
