"""The controller daemon around the pure core: configuration -> sensors -> dealing monitor ->
journal (SQLite), event bus (pyzmq) and alert outputs. See docs/running.md.

- :mod:`.controller`: :class:`Controller`, the loop (``step``/``run``) and the console requests;
- :mod:`.journal`: :class:`Journal`, the append-only SQLite record and its queries;
- :mod:`.bus`: :class:`EventBus` (public and floor PUB channels), :class:`ConsoleServer` (REP);
- :mod:`.console_input`: the bounds of a console request (size, frames, nesting, fields);
- :mod:`.sequence`, :mod:`.snapshot`, :mod:`.alert_delivery`: ``seq`` on every message, the
  table state for a late subscriber, alerts resent to the floor until acknowledged;
- :mod:`.curve`, :mod:`.access`: CurveZMQ keys off loopback, file and socket modes;
- :mod:`.health`, :mod:`.notify`, :mod:`.logformat`, :mod:`.wakeup`: ``status``, systemd's
  notify protocol, JSON log lines, sensor threads waking the loop;
- :mod:`.build`: a :class:`Controller` from a table's configuration, its devices opened by a
  function (the table's own by default; ``run --sim`` passes the simulator's, from ``hw_sim``:
  the daemon never imports the simulator);
- :mod:`.sensors`: adapters for the RFID service, the shuffler button and the camera;
- :mod:`.redact`: the public channel's copy of an alert, hole cards hidden.
"""
