"""The scenario harness: the scenario file format, the runner that performs a scenario's steps
on the simulated devices against the daemon's controller, what a run is expected to raise,
continuous play (``demo``, the soak), and ``run --sim`` (``run_sim``, with the console-driven
dealer of ``console_dealer``)."""
