"""sha1opt: a superoptimizer for SHA-1 round code on x86, with proofs.

This top package is the user-facing layer:

* ``cli`` (with ``cli_analyze``, ``cli_synth``) -- the click commands; thin wrappers that make one
  library call, format its value, and map ``Sha1optError`` to one line on stderr and exit 2;
  ``cli_types`` holds their parameter types (finite seconds, ASCII integers, output paths);
* ``job``     -- the demo job (``sha1opt demo``): prove, search, export and bench, as ``Step`` values;
* ``analyze`` -- predicted cost and proof status of any AT&T SHA-1 block function;
* ``views``   -- formatting of library values (search report, drawing of a schedule).

The layers below are subpackages: ``sha1opt.emit`` -> ``sha1opt.search`` -> ``sha1opt.semantics``,
with data in ``sha1opt.corpus``. Modules here may import everything below; nothing below imports
them (``__version__`` here is the one exception: it imports nothing).
"""
__version__ = "0.1.0"
