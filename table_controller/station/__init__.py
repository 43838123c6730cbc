"""The dealer station: the table's touchscreen, a web page served by the controller process
(docs/station.md).

- :mod:`.service`: :class:`Station`, its place in the controller's loop and its web server;
- :mod:`.desk`: the console commands it adds (undo, the clock, the next blind level, names);
- :mod:`.undo`: undo of a hand's last decision by replaying the hand without it;
- :mod:`.alerts`: the alerts shown, from their first publication until they end;
- :mod:`.view`: the view of the table built after each step of the loop;
- :mod:`.bridge`: views to the web side (with ``seq``), the page's requests to the loop;
- :mod:`.web`: the Starlette app; ``static/``: the page (no build step, no CDN).
"""

from table_controller.station.service import Station, StationError

__all__ = ["Station", "StationError"]
