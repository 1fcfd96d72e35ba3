"""Views: library values turned into what a user sees -- lines, JSON objects, PNG charts.

* ``report``  -- a search ``Report``, and a family's whole-block report, as text lines and a JSON object;
* ``drawing`` -- a schedule clock by clock (one column per dependency chain), a family's whole block
  (``emit.family.Shown``) clock by clock per unit class, and a Gantt PNG, written atomically through
  ``semantics.datafiles.atomic_output``.

Views never print or exit (the CLI does); they may import everything below them
(``sha1opt.emit``, ``sha1opt.search``, ``sha1opt.semantics``), never the CLI.
"""
