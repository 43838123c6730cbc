"""The shared vocabulary: cards, zones, observations and the alert catalogue.

Every package of the project may import these modules, and they import nothing of the project
but each other: the RFID bridge, the camera, the rules engine, the dealing monitor, the daemon
and the simulator all speak in these terms.
"""
