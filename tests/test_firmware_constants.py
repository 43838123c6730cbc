"""The firmware's copy of the link protocol's numbers agrees with the host's (docs/protocol.md).

The MicroPython firmware cannot import :mod:`firmware_bridge` (no ``enum``, no ``dataclasses`` on
the board), so it keeps its own constants; a change on one side only must fail here.
"""

from __future__ import annotations

import pytest

from firmware import framing as device_framing
from firmware import messages, version
from firmware_bridge import framing as host_framing
from firmware_bridge import protocol
from firmware_bridge.protocol import (
    BuzzerPattern,
    DeviceErrorCode,
    LampPattern,
    MessageType,
    ReaderType,
)


@pytest.mark.parametrize("member", list(MessageType), ids=lambda m: m.name)
def test_every_message_type_has_the_same_number(member: MessageType) -> None:
    assert getattr(messages, member.name) == member.value


@pytest.mark.parametrize("member", list(DeviceErrorCode), ids=lambda m: m.name)
def test_every_error_code_has_the_same_number(member: DeviceErrorCode) -> None:
    assert getattr(messages, member.name) == member.value


def test_the_firmware_has_no_number_the_host_does_not_know() -> None:
    others = {"READER_ISO15693", "READER_SIMULATED", "NO_ANTENNA", "RSSI_UNKNOWN", "MAX_TEXT",
              "LAMP_PATTERNS", "BUZZER_PATTERNS"}
    known = {m.name for m in MessageType} | {m.name for m in DeviceErrorCode} | others
    device = {name for name, value in vars(messages).items()
              if name.isupper() and isinstance(value, int)}
    assert device <= known, f"firmware constants unknown to the host: {sorted(device - known)}"


def test_reader_types_and_output_patterns_agree() -> None:
    assert messages.READER_ISO15693 == ReaderType.ISO15693
    assert messages.READER_SIMULATED == ReaderType.SIMULATED
    assert len(LampPattern) == messages.LAMP_PATTERNS
    assert len(BuzzerPattern) == messages.BUZZER_PATTERNS


def test_limits_and_sentinels_agree() -> None:
    assert messages.MAX_TEXT == protocol.MAX_TEXT
    assert messages.NO_ANTENNA == protocol.NO_ANTENNA
    assert messages.RSSI_UNKNOWN == protocol.RSSI_UNKNOWN
    assert device_framing.MAX_CONTENT == host_framing.MAX_CONTENT
    assert device_framing.MAX_ENCODED == host_framing.MAX_ENCODED


def test_the_firmware_speaks_the_hosts_protocol_version() -> None:
    assert (version.PROTOCOL_MAJOR, version.PROTOCOL_MINOR) == (
        protocol.PROTOCOL_MAJOR, protocol.PROTOCOL_MINOR)
