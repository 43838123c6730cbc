"""Versions the firmware announces in its DEVICE_HELLO (docs/protocol.md §4)."""

FIRMWARE = (1, 0, 0)
"""This firmware's version (major, minor, patch)."""
PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 1
"""The newest protocol version the firmware speaks; it also serves 1.0 hosts (§5.3)."""
MODEL = "rp2 PN5180 x13"
