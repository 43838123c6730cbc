"""The scenario harness: the scenario file format, the runner that performs a scenario's steps
on the simulated devices against the controller, what a run is expected to raise, and
continuous play (``demo``, the soak)."""
