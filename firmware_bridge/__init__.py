"""Pi side of the table hardware: the RFID controller's serial link, GPIO, deck registry."""
