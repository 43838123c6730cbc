"""The floor: one process following many tables, their alerts, hands and records."""
