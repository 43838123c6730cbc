"""The Pico's boot script: copied to the board as ``/main.py`` (docs/firmware.md, flashing)."""

import firmware.board

firmware.board.run()
