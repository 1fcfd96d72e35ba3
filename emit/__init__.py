"""Emit: from a schedule to a validated, measured ``sha1_block_data_order`` on the real machine.

What lives here (one concept per module):

* ``assembly``    -- GNU-as text of the whole function around a schedule's body (ELF / Mach-O
                     flavors), one instruction's AT&T spelling, ``guess_arch`` of AT&T text;
* ``toolchain``   -- ``as`` / ``gcc`` / ``ld`` as argument lists: the one place for C builds and
                     their flags (freestanding ``cflags``, ``compile_source``, ``c_assembly``,
                     ``link_static``, ``link_hosted``); every failure is a ``ToolchainError``;
* ``validate``    -- assemble, read the machine code back (``semantics.lift``), prove the whole
                     function from it, run the vectors where ``execution`` says;
* ``harness``     -- the freestanding harness (``csrc/harness.c``) that runs the vectors; its libc
                     build that loads a shared object with dlopen (``csrc/dlopen_main.c``);
* ``execution``   -- where validated code runs: natively, under a qualified emulator, or not at
                     all with what this CPU lacks (``host_cpu.lacking``), as a value;
* ``emulator``    -- the emulators and the features they run correctly (``corpus/emulators.toml``,
                     found by ``bench/qemu_levels.py``), matched against the installed version;
* ``vectors``     -- the NIST CAVP and FIPS 180 known answers from ``corpus/vectors``;
* ``native``      -- straight-line snippets run on the CPU, to check the semantics table;
* ``export``      -- validated ``.S`` written atomically, or nothing;
* ``timing``      -- the one timing driver: ``csrc/bench.c`` built for an arch, run in interleaved
                     pairs, the per-pair ratio statistics and the add-chain core clock, the TSC rate;
* ``image``       -- what a validated object must be (runnable, the same as re-assembled), read by
                     the one ELF reader ``semantics.lift.elf.ObjectFile``;
* ``bench``       -- paired-ratio benchmark of an emitted file against the peers;
* ``peers``       -- the peers: gcc's code for ``csrc/sha1_ref.c`` (``gcc_reference_loop``) and
                     OpenSSL's libcrypto with its code-path masks;
* ``calibration`` -- paired timings of variants, llvm-mca, and the error/rank statistics;
* ``family``      -- the ``Family`` protocol (what every family of code gives) and ``Choice``;
* ``families``    -- the registry (scalar, hybrid, SHA-NI, in order) and the walks over it: what
                     ``export --isa`` writes (``export_choice``), what ``search --isa`` searches;
* ``family_scalar`` / ``family_hybrid`` / ``family_shani`` -- the three families' entries;
* ``hybrid_frame`` / ``hybrid_export`` / ``hybrid_bench`` -- the function around a hybrid block (vector
                     message schedule, ``search.space.hybrid``), its validation and export, and its
                     paired-ratio timing;
* ``shani_frame`` / ``shani_export`` -- the SHA-NI function, its validation and export;
* ``tuning``      -- ``export --tune``: a hybrid level's best candidates validated and timed here;
* ``dispatch_word`` / ``dispatch_text`` / ``dispatch_plan`` / ``dispatch_probe`` / ``dispatch_export`` --
                     ``export --dispatch``: the capability word and its cpuid constructor, the one
                     entry jumping to the proved paths, which paths in which order, the constructor
                     run natively, and the validation (every path proved, forced and run) and write.

Imports: ``sha1opt.search`` and ``sha1opt.semantics`` (and the data in ``sha1opt.corpus``);
never ``sha1opt``'s CLI, job or views, and never click. Library code: no printing, no exits;
outcomes are values, misuse raises a ``Sha1optError`` subclass.
"""
