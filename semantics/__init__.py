"""Semantics of SHA-1 round code: what x86 code computes, and proofs that it is SHA-1.

What lives here (one concept per module):

- ``ir``          the term IR: 32-bit terms as an interned DAG in a ``Builder``.
- ``x86``         registers, operands, instructions and THE table (``SEMANTICS``):
                  each mnemonic's form, value function, ISA level and flag writes;
                  ``effects``, ``arguments``, ``required_isa``, ``rename`` derive
                  everything else from it.
- ``features``    the ISA features (``ISA_INCLUDES``: which extensions a CPU with
                  one also has, a partial order; ``ISA_LEVELS``, the scalar chain).
- ``vector``      the vector and SHA-NI rows of the table, over 32-bit lanes
                  (xmm = 4 lanes, ymm = 8), registered into ``x86.SEMANTICS``.
- ``sha_ni``      the SHA-NI rows' value functions, transcribed from the SDM.
- ``aes``         the AES-NI rows' value functions and the AES round (FIPS-197) the
                  IR's AES ops mean (exact in numpy, uninterpreted in Z3).
- ``control``     the control-flow and stack rows (``CONTROL``: compares, branches,
                  calls, pushes) the lifter gives meaning to; apart from
                  ``SEMANTICS``, which the interpreters and cost models iterate over.
- ``att``         parser of straight-line AT&T code into ``x86.Instr``.
- ``listing``     whole functions (control, stack, labels) and their block loop.
- ``expr``        parser of the user expression grammar (``(b & c) | (~b & d)``).
- ``numerals``    how numbers are spelled (ASCII only) for every parser.
- ``domain``      the value domains: Z3 bit-vectors, numpy lanes, terms.
- ``machine``     one interpreter of ``x86.Instr`` over any domain.
- ``sha1``        the SHA-1 specification, once, over any domain; ``range_spec``.
- ``prove``       the prover (tests first, then Z3) and its outcome values.
- ``identities``  the rewrite corpus (``corpus/identities``) and its checks.
- ``composition`` the compositional checker: cut at round values, prove each.
- ``block``       ``prove_block`` (the whole-block proof every caller uses) and
                  ``describe_failure``.
- ``verdict_memo``  proofs kept for the process under their whole key (inputs, the
                  table's content, the names the prover reads); only what proved.
- ``datafiles``   locating and reading the corpus data files; every output file
                  (``atomic_output``: regular files only, umask honoured).
- ``errors``      ``Sha1optError`` and its subclasses, the only exceptions raised.

What it may import: the standard library, numpy and z3 -- nothing of the
project outside ``sha1opt.semantics`` (search, emit and the CLI import it,
never the reverse); ``corpus/`` is read as data through ``datafiles``.
Library code here never prints, exits or imports click.

Example: ``prove_block(sched.body, sched.inputs, sched.outputs, sched.pointers).ok``
is True for the textbook block of ``search.space.candidate.textbook("x86_64")``.
"""
