"""The simulated devices of one table: the physical table model and the dealer who moves its
cards, the virtual RFID controller on a pseudo-terminal, GPIO pins with contact bounce, the
virtual camera and its card art, and the simulated clock; the sensor chains from the table model
to observations (``wiring``, ``camera_chain``); and :class:`~hw_sim.devices.sim_table.SimTable`,
which puts them together for one table. Each is read through the same code path as the real
device (pyserial, the button debouncer, the vision analyser). Nothing here imports the scenario
harness or the daemon."""
