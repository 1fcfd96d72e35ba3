"""Where validated code runs: on this CPU, under a qualified emulator, or not at all (and why).

``execution_for(features, arch)`` decides, for code needing ``features`` (``x86.isa_set`` of its
decoded machine code), in this order:

1. ``NATIVE``   -- ``host_cpu.lacking(features)`` is empty: this CPU runs it (as always before).
2. ``EMULATED`` -- this CPU lacks some, and ``emulator.emulator_for(arch, features)`` names an
                   installed emulator whose row in ``corpus/emulators.toml`` says it executes all of
                   them correctly: the run happens under it (and must still pass there).
3. ``NOT_RUN``  -- neither: the run is recorded as not done, with what this CPU lacks. That is not
                   a failure: the proof from machine code is what "proved" means; the statement
                   ``"vectors not run here: this CPU lacks avx512vl"`` goes into the output and the
                   written file's header.

The outcome is an ``Execution`` value carried by the check (``validate.Check.execution``), so
callers branch on ``mode``, never on a message. Example: on a Zen 3 (no AVX-512),
``execution_for({"avx512vl"}, "x86_64")`` is ``Execution(NOT_RUN, ("avx512vl",))`` and
``execution_for({"avx", "bmi2"}, "x86_64")`` is ``Execution(NATIVE)``; with
``SHA1OPT_CPU_LACKS=avx`` and qemu-user 7.2 installed the latter is ``EMULATED`` under
``qemu-x86_64 -cpu max``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from sha1opt.semantics.x86 import Arch
from sha1opt.emit.emulator import Emulator, emulator_for
from sha1opt.emit.host_cpu import HostCpu, lacking, lacks_text

NATIVE = "native"
EMULATED = "emulated"
NOT_RUN = "not run"


@dataclass(frozen=True)
class Execution:
    """How a run check was done: ``mode`` (NATIVE / EMULATED / NOT_RUN), what this CPU lacks, the emulator."""

    mode: str
    missing: tuple[str, ...] = ()
    emulator: Emulator | None = None

    @property
    def ran(self) -> bool:
        return self.mode != NOT_RUN

    @property
    def prefix(self) -> tuple[str, ...]:
        """The argv the executable runs under: () natively, the emulator's words under one."""
        return self.emulator.argv if self.emulator is not None else ()

    def text(self) -> str:
        """``"natively"``, ``"under qemu-x86_64 7.2.22 -cpu max (this CPU lacks avx)"`` or
        ``"not run here: this CPU lacks avx512vl (...)"``."""
        if self.mode == NATIVE:
            return "natively"
        if self.mode == EMULATED:
            return f"under {self.emulator} ({lacks_text(self.missing)})"
        return (f"not run here: {lacks_text(self.missing)} (and no installed emulator runs "
                f"{', '.join(self.missing)} correctly: corpus/emulators.toml)")


def execution_for(features: Iterable[str], arch: Arch, cpu: HostCpu | None = None,
                  find: Callable[[Arch, Iterable[str]], Emulator | None] | None = None) -> Execution:
    """How code of ``arch`` needing ``features`` runs here (module docstring); ``cpu`` and ``find``
    default to this CPU (``host_cpu.host()``, ``SHA1OPT_CPU_LACKS`` applied) and the emulator table."""
    features = frozenset(features)
    missing = lacking(features, cpu)
    if not missing:
        return Execution(NATIVE)
    emu = (find or emulator_for)(arch, features)
    if emu is not None:
        return Execution(EMULATED, missing, emu)
    return Execution(NOT_RUN, missing)
