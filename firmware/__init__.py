"""Reference firmware of the RFID antenna controller (docs/firmware.md), in MicroPython.

Every module here runs unchanged on a Raspberry Pi Pico (MicroPython, rp2 port) and under
CPython, where the simulator (``hw_sim.devices.rfid_controller``) runs it against simulated
PN5180 chips; only :mod:`firmware.board` and ``main.py`` touch the Pico's hardware. The modules
use what both interpreters have: no dataclasses, enums or typing at run time (annotations only,
with the ``TYPE_CHECKING`` guard for interface types, see :mod:`firmware.hal`).
"""
