"""The simulated devices of one table: the physical table model and the dealer who moves its
cards, the virtual RFID controller on a pseudo-terminal, GPIO pins with contact bounce, the
virtual camera and its card art, and the simulated clock. Each is read through the same code
path as the real device (pyserial, the button debouncer, the vision analyser)."""
