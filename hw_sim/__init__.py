"""Hardware simulator: a virtual table served through the same interfaces a real table uses."""
