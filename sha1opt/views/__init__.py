"""Views: library values turned into what a user sees -- lines, JSON objects, PNG charts.

* ``report``  -- a search ``Report`` as text lines and a JSON object;
* ``drawing`` -- a schedule clock by clock (one column per dependency chain) and a Gantt PNG,
  written atomically through ``semantics.datafiles.atomic_output``.

Views never print or exit (the CLI does); they may import everything below them
(``sha1opt.emit``, ``sha1opt.search``, ``sha1opt.semantics``), never the CLI.
"""
