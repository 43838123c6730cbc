"""One antenna: its PN5180, the inventory strategy, and the tags it currently reads.

Strategy per scan (the field is on only for the scan, so one antenna radiates at a time):

- an antenna that read at most one tag last time starts with a 1-slot request (an empty
  antenna costs one request; a lone tag answers it);
- one that read two or more goes straight to the 16-slot round (two hole cards always collide
  in a single slot);
- one that read more than :data:`ROLLING_ABOVE` tags (the muck late in a hand, the shuffler
  tray holding the stub) in :data:`SUSPECT_MISSES` full inventories in a row, none of which
  found a tag the others before it had not, is then inventoried *rolling*: each scan asks one
  sixteenth of the UID space (a 4-bit mask, 0 to 15 in turn, with its own sub-rounds on
  collisions), and the tags of the other fifteen sixteenths are carried over from their last
  scan. A full stub then costs about
  as much per scan as a seat, and every tag is checked at least every 16 scans. A tag carried
  over but read on another antenna is dropped by the scan schedule at once (it has moved).
  A tag its sixteenth's scan misses is not dropped at once: a flicker would then last until
  that sixteenth comes round again (16 scans), far longer than the Pi's hold time. It becomes a
  *suspect*, asked for by its full UID at every scan, and is dropped only when it has been
  missed :data:`SUSPECT_MISSES` times in a row (once more than the longest flicker burst the
  simulator models); a suspect that answers is kept, and nothing is reported.
  A tag that a rolling scan finds and did not know (cards thrown into the muck, the stub
  gathered into the tray) sends the antenna back to full inventories until they agree again
  (:data:`SUSPECT_MISSES` in a row with no newcomer),
  so a newcomer missed once (a flicker) is read at the next scan, not 16 scans later.
  Below :data:`ROLLING_BELOW` tags the antenna goes back to full inventories.
  A tag that left another antenna and is read nowhere is *expected* (:meth:`Antenna.expect`):
  a rolling antenna asks for it by UID at its next scans, and one that answers is a newcomer.
  Why several full inventories: a tag in a flicker burst misses every inventory of it, and a
  rolling antenna asks for a tag it does not know only when its sixteenth comes round (up to 16
  scans, 1.6 s, later). Going rolling after two agreeing inventories lost a tag that flickered
  through both (a stub just gathered into the tray: its tag not reported for up to 1.6 s, and
  one reported gone longer than the Pi's hold time), and the deck check at the green button saw
  a card missing (DECK_INCOMPLETE, false). A burst lasts at most ``SUSPECT_MISSES - 1`` scans,
  so a tag on the antenna answers at least one of ``SUSPECT_MISSES`` inventories in a row:
  the union of those is every tag there. A tag of the union that the last inventory missed is a
  suspect from the start; one the Pi was not told of last is told only once it answers.
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
        self._expected: dict[bytes, int] = {}   # uid -> scans it is still asked for
        self._known: set[bytes] = set()    # every tag the full inventories since the last
        self._agreeing = 0                 # newcomer read, and how many they are
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
            tags = self._rolling_scan() if self._rolling else self._full_scan()
        finally:
            chip.rf_off()
        self._tags = tags
        if len(tags) < ROLLING_BELOW:
            self._rolling = False
        return {uid: -128 for uid in tags}

    def _full_scan(self) -> set[bytes]:
        """A full inventory; after :data:`SUSPECT_MISSES` of them with no newcomer, a large
        pile goes rolling with every tag any of them read (module docstring)."""
        found = self.inventory.run(one_slot_first=len(self._tags) <= 1)
        self._expected = {}             # a full inventory hears every tag that answers
        self._covered = -1
        self._fresh = found
        self._suspects = {}
        # the union of the inventories since the last newcomer and their count, kept as they
        # come (a list of them grew by one a scan on an antenna that never sees a newcomer,
        # an empty one: out of memory on the Pico, and a union slower at every scan)
        known = self._known
        if found - known:
            self._known = set(found)    # newcomers: the count starts again
            self._agreeing = 1
        else:
            self._agreeing += 1
        if len(found) <= ROLLING_ABOVE or self._agreeing < SUSPECT_MISSES:
            return found
        # every tag on the antenna answered one of these inventories: go rolling; those the
        # last one missed (a flicker) are suspects, kept until confirmed gone
        self._rolling = True
        self._known, self._agreeing = set(), 0
        self._suspects = {uid: 1 for uid in known - found}
        return found | (known & self._tags)

    def _rolling_scan(self) -> set[bytes]:
        nibble = self._nibble
        self._nibble = (nibble + 1) & 0xF
        suspects = self._suspects
        for uid in list(suspects):
            if self.inventory.answers(uid):
                del suspects[uid]
                self._tags.add(uid)     # a suspect the Pi was not told of is told now
            else:
                suspects[uid] += 1
                if suspects[uid] >= SUSPECT_MISSES:
                    del suspects[uid]
                    self._tags.discard(uid)
        found = self.inventory.run(nibble, 4) | self._ask_expected()
        if found - self._tags:
            self._rolling = False       # newcomers: full inventories until they agree again
            self._known, self._agreeing = set(), 0
        for uid in self._tags:
            if uid[-1] & 0xF == nibble and uid not in found and uid not in suspects:
                suspects[uid] = 1
        self._covered = nibble
        self._fresh = found
        return ({uid for uid in self._tags if uid[-1] & 0xF != nibble} | found
                | (set(suspects) & self._tags))

    def _ask_expected(self) -> set[bytes]:
        """The expected tags asked for by UID; the first that answers is a newcomer (the
        full inventories it brings find the others), each is asked for at most
        :data:`SUSPECT_MISSES` scans (a flicker outlasts none of them)."""
        expected = self._expected
        for uid in list(expected):
            if self.inventory.answers(uid):
                expected.clear()
                return {uid}
            expected[uid] -= 1
            if expected[uid] <= 0:
                del expected[uid]
        return set()

    def expect(self, uid: bytes) -> None:
        """A tag that left another antenna and is read nowhere: a rolling antenna asks for it
        by UID at its next scans, since it may have landed here (a card gathered into the
        shuffler tray) and its sixteenth may not come round before the Pi's hold runs out."""
        if self._rolling and uid not in self._tags:
            self._expected[uid] = SUSPECT_MISSES

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
