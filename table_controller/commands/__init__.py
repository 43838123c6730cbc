"""One module per ``table-controller`` command group."""
