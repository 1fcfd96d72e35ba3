"""The search space: every block of code the search can build, and the default one.

``frame`` (the frame contract the emitter provides: where state, data and the
W ring live; the rotating state registers) <- ``recipe`` (instruction
selection: choices, each resting on a corpus identity) <- ``order``
(dependence graph, list scheduling) <- ``regalloc`` (the fixed rotating layout:
temporaries onto physical registers) and ``assignment`` (floating registers:
every value allocated with the order, spills into the i386 frame, exit moves)
<- ``candidate`` (recipe + priority offsets + register moves -> code;
``textbook`` is the default schedule).

``synthesized`` turns the proved rows of ``corpus/discovered.toml`` into f options.

``hybrid`` (whole blocks with the message schedule in xmm, W+K in a stack ring),
``hybrid_dialects`` (its vector dialects -- SSSE3 / AVX / AVX-512VL -- as rows of one table, and the
vector ops spelled by a row), ``hybrid_proof`` (its block proof, vector writes cut lane by lane) and
``hybrid_caps`` (the ``--isa`` levels as feature sets).

May import: ``sha1opt.semantics`` and ``search.synth`` (the discovered corpus), nothing else of ``search``.
"""
