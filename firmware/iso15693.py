"""ISO/IEC 15693 inventory with anticollision, on a PN5180 (:mod:`firmware.pn5180`).

The request (ISO/IEC 15693-3 §10.3.1): flags ``0x06`` (inventory, high data rate, 16 slots) or
``0x26`` (1 slot), command ``0x01``, mask length in bits, mask bytes (least significant first).
A tag whose UID's lowest ``mask length`` bits equal the mask answers in the slot given by its
next 4 UID bits; the reader opens slots 1 to 15 with an EOF each. The answer is flags, DSFID and
the UID, least significant byte first (the chip checks and strips the CRC). Two tags in one slot
collide: that slot is asked again with a mask 4 bits longer (16 slots each), until every tag has
answered alone.

Timings (µs, fc = 13.56 MHz), ISO/IEC 15693-2 with the high data rate and one subcarrier, and
the NXP reader library's values for the PN5180 (``phpalSli15693``): a reader byte is 302.08
(1-out-of-4: four 75.52 pulse positions), its SOF 75.52 and EOF 37.76; a tag answers t1 = 324
after the reader's EOF; its SOF lasts 152 and a 12-byte inventory answer (with SOF, CRC, EOF)
3928; the reader waits t2 >= 310 after an answer before its next EOF. The driver does not poll
for an answer: after each EOF it waits t1 + the tag's SOF and reads the IRQ pin, which follows
RX_SOF_DET: low means an empty slot.

Signal figure: the PN5180 has no per-answer RSSI register. :meth:`Inventory.measure` finds the
highest receiver threshold (SIGPRO_RM_CONFIG MinLevel, 0-15) at which one tag, addressed by its
full UID, is still decoded, and reports ``-100 + 6 * level`` on the protocol's dBm-like scale:
comparable between two antennas of one controller, nothing more.
"""

from firmware.pn5180 import (
    IRQ_RX,
    RX_BYTES,
    RX_COLLISION,
    RX_DATA_INTEGRITY_ERROR,
    RX_PROTOCOL_ERROR,
    ChipError,
    Pn5180,
)

FLAGS_16_SLOTS = 0x06
FLAGS_1_SLOT = 0x26
CMD_INVENTORY = 0x01
ANSWER_BYTES = 10
UID_MSB = 0xE0
"""Every ISO 15693 UID starts (most significant byte) with 0xE0 (ISO/IEC 15693-3 §4.1)."""

BYTE_US = 302.08
SOF_US = 75.52
EOF_US = 37.76
T1_US = 324
TAG_SOF_US = 152
ANSWER_US = 3928
T2_US = 310
SLOT_MARGIN_US = 24
ANSWER_MARGIN_US = 40
ANSWER_POLL_US = 100
ANSWER_POLLS = 20
MAX_ROUNDS = 48
"""Inventory rounds (16 slots each) one scan may take before it gives up: a reader whose
answers never stop colliding is garbling them."""
MAX_MASK_BITS = 60


def request(mask: int, mask_len: int, one_slot: bool) -> bytes:
    """An inventory request for the tags whose lowest ``mask_len`` UID bits are ``mask``."""
    out = bytearray((FLAGS_1_SLOT if one_slot else FLAGS_16_SLOTS, CMD_INVENTORY, mask_len))
    for i in range((mask_len + 7) // 8):
        out.append((mask >> (8 * i)) & 0xFF)
    return bytes(out)


def request_us(frame: bytes) -> int:
    """Air time of a request frame: SOF, the bytes and their CRC (2 bytes), EOF."""
    return int(SOF_US + BYTE_US * (len(frame) + 2) + EOF_US)


def uid_of(answer: bytes) -> bytes:
    """The UID of an inventory answer, most significant byte first (as the protocol sends
    it)."""
    out = bytearray(8)
    for i in range(8):
        out[i] = answer[9 - i]
    return bytes(out)


def uid_value(uid: bytes) -> int:
    """The UID (most significant byte first) as the integer whose bits the masks select."""
    value = 0
    for b in uid:
        value = (value << 8) | b
    return value


EMPTY = 0
ONE = 1
COLLISION = 2


class Inventory:
    """Anticollision inventories on one PN5180 whose field is on."""

    def __init__(self, chip: Pn5180) -> None:
        self.chip = chip
        self.rounds = 0
        self.slots = 0
        self.garbled = 0
        """Answers rejected as garbled (wrong length, flags, UID prefix), read again."""

    def _slot(self, tx_us: int) -> tuple[int, bytes | None]:
        """Wait for the slot opened by a transmission of ``tx_us`` and read it."""
        chip = self.chip
        timer = chip.timer
        self.slots += 1
        timer.sleep_us(tx_us + T1_US + TAG_SOF_US + SLOT_MARGIN_US)
        if not chip.irq.value():
            return EMPTY, None
        timer.sleep_us(ANSWER_US - TAG_SOF_US + ANSWER_MARGIN_US)
        outcome, answer = self._answer()
        timer.sleep_us(T2_US)
        return outcome, answer

    def _answer(self) -> tuple[int, bytes | None]:
        """Read the answer whose SOF was seen: one tag's, or a collision (or a reply that
        cannot be an inventory answer, read again in a sub-round like a collision)."""
        chip = self.chip
        irq, rx = chip.receive_status()
        polls = 0
        while not irq & IRQ_RX:
            polls += 1
            if polls > ANSWER_POLLS:
                raise ChipError(f"{chip.name}: an answer began and never ended")
            chip.timer.sleep_us(ANSWER_POLL_US)
            irq, rx = chip.receive_status()
        if rx & (RX_COLLISION | RX_DATA_INTEGRITY_ERROR | RX_PROTOCOL_ERROR):
            return COLLISION, None
        if rx & RX_BYTES != ANSWER_BYTES:
            self.garbled += 1
            return COLLISION, None
        answer = chip.read_data(ANSWER_BYTES)
        if answer[0] != 0 or answer[9] != UID_MSB:
            self.garbled += 1
            return COLLISION, None
        return ONE, bytes(answer)

    def _round(self, mask: int, mask_len: int, one_slot: bool, found: set[bytes],
               pending: list[tuple[int, int]]) -> int:
        """One inventory round; answers go to ``found``, collided slots to ``pending`` as
        (mask, mask length). Returns the round's outcome for a 1-slot round."""
        self.rounds += 1
        frame = request(mask, mask_len, one_slot)
        self.chip.transmit(frame)
        tx = request_us(frame)
        outcome = EMPTY
        for slot in range(1 if one_slot else 16):
            if slot:
                self.chip.transmit_eof()
                tx = int(EOF_US)
            outcome, answer = self._slot(tx)
            if answer is not None:
                found.add(uid_of(answer))
            elif outcome == COLLISION and not one_slot:
                if mask_len + 4 > MAX_MASK_BITS:
                    raise ChipError(f"{self.chip.name}: collisions at a {mask_len}-bit mask")
                pending.append((mask | (slot << mask_len), mask_len + 4))
        return outcome

    def run(self, mask: int = 0, mask_len: int = 0, *, one_slot_first: bool = False
            ) -> set[bytes]:
        """UIDs of every tag answering the mask. With ``one_slot_first`` a 1-slot request
        goes first (cheapest for an empty antenna or a single tag); it turns into a 16-slot
        round only when it collides."""
        found: set[bytes] = set()
        pending: list[tuple[int, int]] = []
        start = self.rounds
        if one_slot_first:
            outcome = self._round(mask, mask_len, True, found, pending)
            if outcome != COLLISION:
                return found
        pending.append((mask, mask_len))
        while pending:
            if self.rounds - start >= MAX_ROUNDS:
                raise ChipError(f"{self.chip.name}: inventory did not settle in "
                                f"{MAX_ROUNDS} rounds")
            m, n = pending.pop()
            self._round(m, n, False, found, pending)
        return found

    def answers(self, uid: bytes) -> bool:
        """Whether the tag ``uid`` answers a 1-slot request addressed to its whole UID."""
        frame = request(uid_value(uid), 64, True)
        self.chip.transmit(frame)
        _, answer = self._slot(request_us(frame))
        return answer is not None and uid_of(answer) == uid

    def measure(self, uid: bytes) -> int | None:
        """The tag's signal figure (module docstring), None if it does not answer at all."""
        chip = self.chip
        base = chip.min_level
        if not self.answers(uid):
            return None
        lo, hi = base, 15           # decoded at lo; find the highest level that decodes
        try:
            while lo < hi:
                mid = (lo + hi + 1) // 2
                chip.set_min_level(mid)
                if self.answers(uid):
                    lo = mid
                else:
                    hi = mid - 1
        finally:
            chip.set_min_level(base)
        return -100 + 6 * lo
