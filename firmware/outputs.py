"""Lamp and buzzer: the SET_OUTPUTS state (docs/protocol.md §4, §5.2) and its patterns.

Patterns, from the moment SET_OUTPUTS arrived: lamp BLINK_SLOW 1 Hz (500 ms on, 500 off),
BLINK_FAST 4 Hz (125/125); buzzer BEEP one 150 ms beep, DOUBLE_BEEP 150 on, 100 off, 150 on,
CONTINUOUS on. The board driver sets its pins from :func:`lamp_level` and :func:`buzzer_level`.
"""

OFF = 0
LAMP_ON = 1
BLINK_SLOW = 2
BLINK_FAST = 3
BEEP = 1
DOUBLE_BEEP = 2
CONTINUOUS = 3


def lamp_level(pattern: int, elapsed_ms: int) -> int:
    if pattern == LAMP_ON:
        return 1
    if pattern == BLINK_SLOW:
        return 1 if (elapsed_ms // 500) % 2 == 0 else 0
    if pattern == BLINK_FAST:
        return 1 if (elapsed_ms // 125) % 2 == 0 else 0
    return 0


def buzzer_level(pattern: int, elapsed_ms: int) -> int:
    if pattern == BEEP:
        return 1 if elapsed_ms < 150 else 0
    if pattern == DOUBLE_BEEP:
        return 1 if elapsed_ms < 150 or 250 <= elapsed_ms < 400 else 0
    if pattern == CONTINUOUS:
        return 1
    return 0
