"""The CPU sha1opt runs on: what cpuid says it is, which model it maps to, and what code it runs.

Three facts, each computed in one place:

- **identity and features** (``host()``): vendor, family, model, stepping and brand string from
  cpuid leaves 0, 1 and 0x80000002-4, decoded as Linux's ``x86_family``/``x86_model`` do (the
  extended family is added when the base family is 0xF; the extended model is prefixed from
  family 6 up), so the numbers are the ones ``/proc/cpuinfo`` prints. The features are the
  ``features.ISA_INCLUDES`` names the CPU reports (``CPUID_BITS``, the same table the dispatching
  export's constructor reads) *and*, for the AVX family, the OS saves the state (OSXSAVE and
  XCR0 from ``xgetbv``: bits 1-2 for AVX/AVX2, bits 1-2 and 5-7 for AVX-512). The raw leaves come
  from the ``cpuid-native`` package; where it cannot be loaded, ``/proc/cpuinfo`` (whose AVX
  flags Linux clears when it does not enable the state) is read instead and ``source`` says so.
- **the model** (``identify``): ``corpus/cpus.toml`` maps (vendor, family, model range) to a
  model of ``corpus/uarch``, ``exact`` when the model was written for that core, else
  ``nearest`` with the reason in the row. ``host_model()`` is what ``--uarch host`` means: the
  CPU's calibrated model (``sha1opt calibrate``, ``corpus/uarch/calibrated/<vendor>-<family>-<model>-
  <stepping>.toml``) when there is one for exactly this CPU, else that row's model.
- **what runs here** (``lacking``): the one predicate every native run asks, the product's and
  the tests' alike: the features a piece of code needs that this CPU lacks (empty: it runs).

Injection: ``SHA1OPT_CPU_LACKS=avx512vl,sha`` (a comma list of feature names) removes those
features, and every feature that includes one of them, from the host's set, so the lacks-the-ISA
paths run on any host (CI runs a no-AVX-512 suite on an AVX-512 machine that way). It can only
remove: code is never run natively on a feature the CPU does not report.

Example: on an AMD EPYC 7B13 (leaf 1 eax 0x00A00F11) ``host()`` is
``HostCpu("AuthenticAMD", 25, 1, 1, "AMD EPYC 7B13 64-Core Processor", {sse, ..., avx2, bmi2,
sha})``; ``identify`` gives ``zen3`` (exact); ``lacking({"avx512vl", "bmi2"})`` is
``("avx512vl",)``.
"""

from __future__ import annotations

import functools
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from sha1opt.semantics.datafiles import check_keys, corpus_dir, load_toml
from sha1opt.semantics.errors import CorpusError, Sha1optError
from sha1opt.semantics.features import ISA_INCLUDES
from sha1opt.search.cost.calibrated import cpu_key
from sha1opt.search.cost.model import calibrated_names, canonical_name, model_names
from sha1opt.search.space.hybrid_caps import CAPS, LEVELS

LACKS_ENV = "SHA1OPT_CPU_LACKS"
HOST_NAMES = ("host", "native")          # --uarch host / --uarch native: this CPU's model

# (cpuid leaf, register, bit) that reports each feature; AVX-family bits count only with the OS state.
CPUID_BITS: dict[str, tuple[int, str, int]] = {
    "sse": (1, "edx", 25), "sse2": (1, "edx", 26), "ssse3": (1, "ecx", 9), "sse4.1": (1, "ecx", 19),
    "avx": (1, "ecx", 28), "avx2": (7, "ebx", 5), "avx512vl": (7, "ebx", 31), "bmi1": (7, "ebx", 3),
    "bmi2": (7, "ebx", 8), "sha": (7, "ebx", 29), "aes": (1, "ecx", 25),
}
AVX512F = (7, "ebx", 16)           # AVX-512 Foundation: VL alone is not enough
OSXSAVE = (1, "ecx", 27)
XCR0_AVX = 0x06                    # SSE and AVX state enabled by the OS
XCR0_AVX512 = 0xE6                 # ... and the opmask, ZMM_Hi256 and Hi16_ZMM state
_AVX_STATE = {"avx": XCR0_AVX, "avx2": XCR0_AVX, "avx512vl": XCR0_AVX512}
_REGS = ("eax", "ebx", "ecx", "edx")
# /proc/cpuinfo's spelling of each feature (the fallback reader)
CPUINFO_FLAGS: dict[str, str] = {"sse": "sse", "sse2": "sse2", "ssse3": "ssse3", "sse4.1": "sse4_1", "avx": "avx",
                                 "avx2": "avx2", "bmi1": "bmi1", "bmi2": "bmi2", "sha": "sha_ni", "aes": "aes"}

Leaf = Callable[[int, int], tuple[int, int, int, int]]   # (leaf, subleaf) -> (eax, ebx, ecx, edx)
# cpuid leaf 0's vendor strings a corpus/cpus.toml row may name (Intel SDM vol. 2A CPUID; AMD APM vol. 3; the
# Hygon, Centaur/VIA and Zhaoxin strings as GCC's and LLVM's cpuid signature tables spell them)
VENDORS = ("GenuineIntel", "AuthenticAMD", "HygonGenuine", "CentaurHauls", "  Shanghai  ")


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


class HostError(Sha1optError):
    """This CPU cannot be identified, or a name given for it is wrong."""


@dataclass(frozen=True)
class CpuId:
    """A CPU's identification as ``/proc/cpuinfo`` prints it (``CpuId("AuthenticAMD", 23, 49)``: Zen 2 Rome)."""

    vendor: str
    family: int
    model: int

    def __str__(self) -> str:
        return f"{self.vendor} family {self.family} model {self.model}"


@dataclass(frozen=True)
class HostCpu:
    """The running CPU: identification, brand string and the features it runs (OS support checked)."""

    id: CpuId
    stepping: int
    brand: str
    features: frozenset[str]
    source: str = "cpuid"                 # "cpuid" or "/proc/cpuinfo"
    removed: frozenset[str] = field(default=frozenset())   # taken away by SHA1OPT_CPU_LACKS

    def __str__(self) -> str:
        return f"{self.brand or self.id.vendor} ({self.id}, stepping {self.stepping})"


@dataclass(frozen=True)
class CpuRow:
    """One row of ``corpus/cpus.toml``: a family/model range and the model its CPUs map to."""

    vendor: str
    family: int
    models: tuple[tuple[int, int], ...]
    name: str
    model: str
    match: str                            # "exact" or "nearest"
    reason: str
    source: str

    @property
    def how(self) -> str:
        """``"its own model"``, or ``"the nearest model: <reason>"``: what the mapping is, in one phrase."""
        return "its own model" if self.match == "exact" else f"the nearest model: {self.reason}"

    def covers(self, cpu: CpuId) -> bool:
        return (cpu.vendor, cpu.family) == (self.vendor, self.family) and any(a <= cpu.model <= b
                                                                              for a, b in self.models)


def _bit(regs: dict[int, tuple[int, int, int, int]], where: tuple[int, str, int]) -> bool:
    leaf, reg, bit = where
    return bool(regs.get(leaf, (0, 0, 0, 0))[_REGS.index(reg)] >> bit & 1)


def decode(leaf: Leaf, xgetbv: Callable[[int], int] | None) -> HostCpu:
    """A ``HostCpu`` from raw cpuid (``leaf(n, sub)``) and ``xgetbv(0)`` -- pure, so tests feed it any CPU."""
    top = leaf(0, 0)
    vendor = struct.pack("<3I", top[1], top[3], top[2]).decode("ascii", "replace").strip("\0")
    regs = {0: top, 1: leaf(1, 0) if top[0] >= 1 else (0, 0, 0, 0)}
    if top[0] >= 7:
        regs[7] = leaf(7, 0)
    sig = regs[1][0]
    base_family, base_model = sig >> 8 & 0xF, sig >> 4 & 0xF
    family = base_family + (sig >> 20 & 0xFF) if base_family == 0xF else base_family
    model = base_model | ((sig >> 16 & 0xF) << 4 if family >= 6 else 0)
    brand = ""
    top_ext = leaf(0x80000000, 0)[0]
    # a CPU without extended leaves may echo another leaf's eax here: only 0x8000xxxx is a count (Linux checks the same)
    if top_ext >> 16 == 0x8000 and top_ext >= 0x80000004:
        raw = b"".join(struct.pack("<4I", *leaf(0x80000002 + i, 0)) for i in range(3))
        brand = " ".join(raw.split(b"\0")[0].decode("ascii", "replace").split())
    xcr0 = xgetbv(0) if xgetbv is not None and _bit(regs, OSXSAVE) else 0
    features = set()
    for f, where in CPUID_BITS.items():
        if not _bit(regs, where):
            continue
        if f in _AVX_STATE and (xcr0 & _AVX_STATE[f]) != _AVX_STATE[f]:
            continue
        if f == "avx512vl" and not _bit(regs, AVX512F):
            continue
        features.add(f)
    if "avx" not in features:                 # AVX2 / AVX-512 code is VEX/EVEX: nothing without AVX
        features -= {"avx2", "avx512vl"}
    return HostCpu(CpuId(vendor, family, model), sig & 0xF, brand, frozenset(features))


def from_cpuinfo(text: str) -> HostCpu | None:
    """The first processor of a ``/proc/cpuinfo`` text, or None (not x86 / unreadable)."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    try:
        cpu = CpuId(fields["vendor_id"], int(fields["cpu family"]), int(fields["model"]))
    except (KeyError, ValueError):
        return None
    flags = set(fields.get("flags", "").split())
    features = {f for f, n in CPUINFO_FLAGS.items() if n in flags}
    if {"avx512f", "avx512vl"} <= flags:
        features.add("avx512vl")
    try:
        stepping = int(fields.get("stepping", "0"))
    except ValueError:
        stepping = 0
    return HostCpu(cpu, stepping, fields.get("model name", ""), frozenset(features), "/proc/cpuinfo")


def _read() -> HostCpu | None:
    try:
        import cpuid_native   # noqa: PLC0415 -- an x86 extension: loaded only when the host is asked for
    except ImportError:
        cpuid_native = None
    if cpuid_native is not None:
        try:
            return decode(lambda n, sub: tuple(cpuid_native.get_cpuid_count(n, sub)[1:5]), cpuid_native.xgetbv)
        except (OSError, ValueError, struct.error):
            pass
    try:
        return from_cpuinfo(Path("/proc/cpuinfo").read_text())
    except OSError:
        return None


def closure_of_lacks(names: Iterable[str]) -> frozenset[str]:
    """``names`` and every feature that includes one of them (lacking AVX means lacking AVX2 too)."""
    out = set()
    for n in names:
        if n not in ISA_INCLUDES or n == "base":
            raise HostError(f"{LACKS_ENV}: unknown feature {n!r} (known: "
                            f"{', '.join(f for f in ISA_INCLUDES if f != 'base')})")
        out |= {g for g, inc in ISA_INCLUDES.items() if n in inc}
    return frozenset(out)


def with_lacks(cpu: HostCpu, spec: str) -> HostCpu:
    """``cpu`` less the features ``spec`` (``"avx512vl,sha"``) names, with their includers."""
    gone = closure_of_lacks(s.strip() for s in spec.split(",") if s.strip())
    return HostCpu(cpu.id, cpu.stepping, cpu.brand, cpu.features - gone, cpu.source, cpu.removed | (cpu.features & gone))


@functools.lru_cache(maxsize=None)
def _host(spec: str) -> HostCpu | None:
    cpu = _read()
    return with_lacks(cpu, spec) if cpu is not None and spec else cpu


def host() -> HostCpu | None:
    """The running CPU (read once per process), less ``SHA1OPT_CPU_LACKS``; None when it cannot be read."""
    return _host(os.environ.get(LACKS_ENV, ""))


def lacking(features: Iterable[str], cpu: HostCpu | None = None) -> tuple[str, ...]:
    """The features of ``features`` (``features.ISA_INCLUDES`` names, ``"base"`` allowed) the CPU does not run,
    sorted; ``()`` when code needing them runs here. An unreadable CPU runs only ``base`` code."""
    cpu = cpu if cpu is not None else host()
    have = cpu.features if cpu is not None else frozenset()
    return tuple(sorted(f for f in set(features) - {"base"} if f not in have))


def lacks_text(missing: Iterable[str]) -> str:
    """``"this CPU lacks avx512vl"`` -- the one wording of a native run not done."""
    return f"this CPU lacks {', '.join(missing)}"


@functools.lru_cache(maxsize=None)
def cpu_table(path: Path | None = None) -> tuple[CpuRow, ...]:
    """corpus/cpus.toml as rows, checked: known keys, a source per row, known models, a reason
    for every nearest row, and no CPU covered by two rows."""
    path = path or corpus_dir() / "cpus.toml"
    raw = load_toml(path)
    if set(raw) - {"cpu"}:
        raise CorpusError(f"{path.name}: unknown key {sorted(set(raw) - {'cpu'})[0]!r}")
    known = set(model_names())
    rows: list[CpuRow] = []
    for i, row in enumerate(raw.get("cpu", [])):
        where = f"{path.name}: cpu {i + 1}"
        check_keys(row, where, {"vendor", "family", "models", "name", "model", "match", "source"}, optional={"reason"})
        if row["vendor"] not in VENDORS:
            raise CorpusError(f"{where}: vendor {row['vendor']!r} is not a cpuid vendor string ({', '.join(map(repr, VENDORS))})")
        if not (_is_int(row["family"]) and 3 <= row["family"] <= 0xF + 0xFF):
            raise CorpusError(f"{where}: family must be a number 3..{0xF + 0xFF} (base family, plus the extended family from 0xF)")
        for key in ("name", "model", "match", "source", "reason"):
            if key in row and not isinstance(row[key], str):
                raise CorpusError(f"{where}: {key} must be a string")
        ranges = row["models"]
        if not (isinstance(ranges, list) and ranges and all(
                isinstance(r, list) and len(r) == 2 and all(_is_int(x) for x in r) and 0 <= r[0] <= r[1] <= 0xFF
                for r in ranges)):
            raise CorpusError(f"{where}: models must be a list of [first, last] model-number ranges within 0..0xFF")
        if not row["name"].strip():
            raise CorpusError(f"{where}: empty name")
        if row["model"] not in known:
            raise CorpusError(f"{where}: model {row['model']!r} is not in corpus/uarch")
        if row["match"] not in ("exact", "nearest"):
            raise CorpusError(f"{where}: match must be 'exact' or 'nearest', not {row['match']!r}")
        reason = row.get("reason", "")
        if row["match"] == "nearest" and not reason.strip():
            raise CorpusError(f"{where}: a nearest row states its reason")
        if not str(row["source"]).strip():
            raise CorpusError(f"{where}: empty source")
        new = CpuRow(row["vendor"], row["family"], tuple((a, b) for a, b in ranges), row["name"], row["model"],
                     row["match"], reason, row["source"])
        for j, (c, d) in enumerate(new.models):          # a row's own ranges may not overlap either
            if any(a <= d and c <= b for a, b in new.models[:j]):
                raise CorpusError(f"{where} ({new.name}): model range [{c:#x}, {d:#x}] is listed twice")
        for old in rows:
            if (old.vendor, old.family) == (new.vendor, new.family) and any(
                    a <= d and c <= b for a, b in old.models for c, d in new.models):
                raise CorpusError(f"{where} ({new.name}) overlaps {old.name}")
        rows.append(new)
    return tuple(rows)


def identify(cpu: CpuId, path: Path | None = None) -> CpuRow | None:
    """The row of ``corpus/cpus.toml`` covering ``cpu``, or None."""
    return next((r for r in cpu_table(path) if r.covers(cpu)), None)


def model_of(cpu: CpuId, path: Path | None = None) -> str | None:
    """The cost model ``cpu`` maps to (exact or nearest), or None."""
    row = identify(cpu, path)
    return row.model if row else None


def calibrated_model(cpu: HostCpu) -> str | None:
    """The calibrated model of exactly this CPU (vendor, family, model, stepping: ``sha1opt calibrate``
    wrote it to ``corpus/uarch/calibrated/``), or None."""
    key = cpu_key(cpu.id.vendor, cpu.id.family, cpu.id.model, cpu.stepping)
    return key if key in calibrated_names() else None


def host_model() -> tuple[str, CpuRow]:
    """The model ``--uarch host`` means, with its row; ``HostError`` naming the CPU when none fits.

    The model is this CPU's calibrated model when ``sha1opt calibrate`` has written one for it
    (``calibrated_model``), else the literature model its row names (the row is returned either way)."""
    cpu = host()
    if cpu is None:
        raise HostError("--uarch host: this CPU's identification could not be read (not x86?); name a model "
                        "(`sha1opt uarchs`)")
    row = identify(cpu.id)
    if row is None:
        raise HostError(f"--uarch host: this CPU ({cpu}) is in no row of corpus/cpus.toml; name a model "
                        f"(`sha1opt uarchs`)")
    return calibrated_model(cpu) or row.model, row


def uarch_name(name: str | None) -> str:
    """A ``--uarch`` value as a model name: ``host``/``native``/None -> this CPU's model, else
    ``canonical_name`` (aliases; unknown names refused)."""
    if name is None or name.lower() in HOST_NAMES:
        return host_model()[0]
    return canonical_name(name)


def levels(cpu: HostCpu) -> tuple[str, ...]:
    """The ``--isa`` levels (``hybrid_caps.LEVELS``) all of whose code runs on ``cpu``, lowest first."""
    return tuple(lv for lv in LEVELS if not lacking(CAPS[lv], cpu))


def host_refusal(uarch: str, cpu: HostCpu | CpuId | None) -> str | None:
    """None when ``cpu`` maps to ``uarch`` (``model_of``), else the one-line reason timings here do not count."""
    want = canonical_name(uarch)
    if isinstance(cpu, HostCpu):
        if want == calibrated_model(cpu):
            return None             # this CPU's own calibrated model
        cpu = cpu.id
    if cpu is None:
        return f"--tune times candidates on this CPU, and its identification could not be read: not tuning for {want}"
    mine = model_of(cpu)
    if mine is None:
        return (f"--tune times candidates on this CPU ({cpu}), which is no model's CPU (corpus/cpus.toml): "
                f"its timings say nothing about {want}")
    if mine != want:
        return f"--tune times candidates on this CPU ({cpu}), which is {mine}'s, not {want}'s: pass --uarch {mine}"
    return None
