"""The search: per microarchitecture, the cheapest proved code for a range of SHA-1 rounds.

What lives here, one concept per folder or module:

* ``space/``    -- the search space: the frame contract and state registers
  (``frame``), instruction selection (``recipe``), dependence graph and list
  scheduling (``order``), register allocation (``regalloc``) and the
  candidate that ties them together, with the default (textbook) schedule
  (``candidate``).
* ``cost/``     -- the cost models: per-CPU tables from ``corpus/uarch`` and
  the cycle simulator (in-order and out-of-order engines).
* ``engines/``  -- the engines that search the space: CP-SAT round templates
  (``exact``), simulated annealing (``anneal``) and the worker portfolio.
* ``synth/``    -- CEGIS synthesis of minimal instruction sequences.
* ``bound``      -- a lower bound per model on a range's or a whole block's
  simulated cycles (critical path, issue width, ports): "gap to bound".
* ``measure`` (the block-loop measure: every family's block loop with its loop control),
  ``objective`` (a range's cycles inside the block, rounds 0-79 as the steady-state block loop;
  peers as a ``Reference``),
  ``store`` (SQLite results of every family), ``family_rows`` (hybrid and SHA-NI results as
  store rows), ``blocks`` (whole blocks from stored results)
  and ``driver`` (``search_range``, the stages of one search).

May import: ``sha1opt.semantics`` and its own modules (``tests/test_architecture.py``
checks the order inside: cost is a leaf; space reads synth's discovered
sequences). Never ``emit`` or the CLI:
what the search needs from the toolchain (gcc's code as a peer) is handed in.
Library code: never prints, exits or imports click.
"""
