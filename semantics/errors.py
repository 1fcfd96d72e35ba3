"""The one root of every sha1opt exception.

Invariant: exceptions are for misuse only (a malformed expression, an
unsupported instruction, an unknown register). Results -- a proof, a
counterexample, a solver that gave up -- are values, never exceptions
(see ``prove.py``). Every error carries a message that fits on one line,
because the CLI prints exactly ``str(error)`` and exits non-zero.
"""


class Sha1optError(Exception):
    """Root of all sha1opt errors; ``str(e)`` is a one-line user message."""


class ParseError(Sha1optError):
    """Malformed user input: an expression, an assembly line or a data file."""


class UnsupportedError(Sha1optError):
    """Well-formed input that names something outside the modelled subset."""


class CorpusError(Sha1optError):
    """A corpus data file breaks its schema (unknown key, duplicate name...)."""


class OutputError(Sha1optError):
    """An output path that cannot or must not be written (not a regular file, unwritable)."""
