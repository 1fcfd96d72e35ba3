"""Microarchitecture models: one TOML file per CPU in ``corpus/uarch/``, loaded into a frozen ``Model``.

A model is data: execution units, one cost row per instruction class
(uops, latency, reciprocal throughput, the units each uop may use, on an
out-of-order model the clocks each compute uop holds its unit (``busy``,
default 1), a ``source``) and the CPU's quirks as typed rules (store forwarding, the
address-generation stall, Pentium pairing, move elimination, the P4
replay, vector-store forwarding, the out-of-order allocation rules and the
issue-to-dispatch delay), plus the CPU's default architecture (``arch``) and GCC's
``-mtune`` name for it (``gcc_mtune``). ``sha1opt.search.cost.simulator``
interprets a model; nothing here simulates, and nothing here formats prose
(``sha1opt.views.uarch_notes`` turns a model into the lines ``sha1opt uarchs``
prints).

Example: ``load_model("p4-northwood")`` is the ``p4`` model:
``engine == "out-of-order"``, ``arch == "i386"``, ``gcc_mtune == "pentium4"``,
``isa == "base"``, ``rules.replay.name == "P4 replay"``.

Invariants (checked when a file is loaded; a violation is a ``CorpusError``
naming the file and row):

* every key is known -- top level, units, classes and rules alike -- and
  every row carries a ``source``;
* every class of ``CLASSES`` has a row (plus ``BMI1_CLASSES`` /
  ``BMI2_CLASSES`` when the model has those extensions), and no other row;
* every uop names defined units; every latency is >= 0 and a multiple of
  half a clock (the double-pumped P4 ALUs are the finest grain);
* ``busy`` only on an out-of-order model (the in-order engine holds a pipe
  ``rthroughput`` clocks), a whole number >= 1;
* ``inherits`` names another model file; the child's rows replace the
  parent's rows of the same name whole (a row is never half-inherited), and
  ``aliases`` are not inherited.

Names: ``load_model`` accepts a model's name or any of its aliases
(``p4-northwood`` -> ``p4``); an unknown name is a ``UarchError`` listing
the known names.
"""

from __future__ import annotations

import copy
import difflib
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from sha1opt.search.cost.calibrated import check_calibration
from sha1opt.search.cost.rules import (RULE_NAMES, STORE_KINDS, AddressStall, DispatchDelay,  # noqa: F401
                                       MemoryRenaming, Pairing, RegisterReads, Replay, RmwForwarding, Rules, Scheduler,
                                       VectorForwarding, half_clock as _half_clock, number as _number, parse_rules,
                                       string as _string)
from sha1opt.semantics.datafiles import check_keys, corpus_dir, load_toml
from sha1opt.semantics.errors import CorpusError, Sha1optError
from sha1opt.semantics.features import ISA_LEVELS


class UarchError(Sha1optError):
    """An unknown microarchitecture name, or a model asked for something it lacks."""


# The instruction classes every model prices. ``classes.classify`` maps each
# instruction (and each opaque control/stack item) to exactly one of them.
# ``double_shift`` is shld/shrd by an immediate between two registers; ``double_rot`` the same with one
# register as both operands (a rotate: OpenSSL's AVX path writes ``shld $5, %eax, %eax`` for rol 5).
CLASSES: tuple[str, ...] = (
    "mov_rr", "mov_ri", "load", "store",
    "add_rr", "logic_rr", "add_rm", "logic_rm", "alu_mr", "not",
    "rot1", "rot_imm", "shift_imm", "shift_cl", "shift_mr", "double_shift", "double_rot",
    "lea_simple", "lea_complex", "bswap",
    "compare", "counter", "branch", "jump", "push", "pop", "nop", "opaque",
)
BMI1_CLASSES: tuple[str, ...] = ("andn", "andn_rm")
BMI2_CLASSES: tuple[str, ...] = ("rorx", "rorx_rm")
# Vector classes (``classes.vector_class`` maps vector items to them): required when the model has SSE2;
# SHA-NI classes when it has "sha". A 256-bit (ymm) form is priced as the same class.
VECTOR_CLASSES: tuple[str, ...] = ("vec_mov", "vec_load", "vec_store", "vec_alu", "vec_alu_rm", "vec_shift",
                                   "vec_shuffle", "vec_to_gpr", "gpr_to_vec")
SHA_CLASSES: tuple[str, ...] = ("sha1rnds4", "sha1msg")
# Optional classes: a model may price these instructions apart from their family's class (the value); a
# model without the row prices them as that class. Example: goldencove's ``vec_palignr`` (palignr on port 5
# only, measured) -- skylake, with no such row, prices palignr as ``vec_shuffle``.
REFINED_CLASSES: dict[str, str] = {"vec_palignr": "vec_shuffle", "sha1msg2": "sha1msg"}
# Vector / crypto extensions a model may list in ``vector_isa`` (GNU objdump / cpuinfo spelling).
VECTOR_ISA: tuple[str, ...] = ("mmx", "sse", "sse2", "sse3", "ssse3", "sse4_1", "sse4_2", "sse4a",
                               "avx", "avx2", "avx512f", "avx512vl", "sha")
ROLES = ("load", "sta", "std")          # memory roles a uop may carry; none = compute
ENGINES = ("in-order", "out-of-order")
ARCHES = ("i386", "x86_64")

_TOP_REQUIRED = {"name", "description", "source", "engine", "issue_width", "arch", "gcc_mtune",
                 "units", "classes", "rules"}
_TOP_OPTIONAL = {"inherits", "aliases", "retire_width", "window", "has_bmi1", "has_bmi2", "vector_isa",
                 "calibration"}     # calibration: a calibrated model's record (``calibrated.py``)
_UNIT_KEYS = {"speed", "what", "source"}
_CLASS_KEYS = {"uops", "latency", "rthroughput", "ports", "source"}
_CLASS_OPTIONAL = {"busy"}


@dataclass(frozen=True)
class Unit:
    name: str
    speed: int          # operations accepted per clock: 1, or 2 (double-pumped)
    what: str
    source: str


@dataclass(frozen=True)
class Uop:
    role: str                   # "load", "sta", "std" or "" (compute)
    units: tuple[str, ...]      # alternatives; the simulator picks one

    def __str__(self) -> str:
        return (f"{self.role}:" if self.role else "") + "|".join(self.units)


@dataclass(frozen=True)
class ClassCost:
    name: str
    uops: int                   # front-end slots (fused-domain uops / instructions)
    latency: float              # clocks, from the last input to the result
    rthroughput: float          # documented reciprocal throughput, clocks
    ports: tuple[Uop, ...]      # one entry per executed uop
    source: str
    busy: int = 1               # out-of-order: clocks each compute uop holds its unit (a uop not pipelined:
    #                             Zen 4's sha1rnds4, 2 -- one every 2 clocks on its unit, its latency unchanged)




@dataclass(frozen=True)
class Model:
    name: str
    description: str
    aliases: tuple[str, ...]
    engine: str
    issue_width: int
    retire_width: int
    window: int                 # reorder-buffer entries (fused uops); 0 for in-order
    has_bmi1: bool
    has_bmi2: bool
    units: tuple[Unit, ...]
    classes: Mapping[str, ClassCost]
    rules: Rules
    source: str
    arch: str = "x86_64"        # the architecture code for this CPU is built for by default
    gcc_mtune: str = "generic"  # GCC's -mtune= name for this CPU
    vector_isa: tuple[str, ...] = ()    # vector/crypto extensions (``VECTOR_ISA`` order), e.g. ("sse2", "ssse3")
    path: str = field(default="", compare=False, repr=False)

    def __hash__(self) -> int:          # ``classes`` is a dict: hash the identity-defining fields
        return hash((self.name, self.engine, self.issue_width, self.window))

    @property
    def in_order(self) -> bool:
        return self.engine == "in-order"

    @property
    def arches(self) -> tuple[str, ...]:
        """The architectures this CPU runs: every model i386 code, the x86-64 ones (``arch = "x86_64"``)
        x86-64 code too. Example: p4 -> ``("i386",)``; zen3 -> ``("i386", "x86_64")``."""
        return ("i386", "x86_64") if self.arch == "x86_64" else ("i386",)

    @property
    def isa(self) -> str:
        """The highest ISA level of ``features.ISA_LEVELS`` the CPU has: ``"base"``, ``"bmi1"`` or ``"bmi2"``.

        Example: zen3 (BMI1 and BMI2) -> ``"bmi2"``; core2 -> ``"base"``.
        """
        return "bmi2" if self.has_bmi2 else "bmi1" if self.has_bmi1 else "base"

    def has_isa(self, level: str) -> bool:
        """Whether code needing ISA ``level`` runs here (levels include the ones before them).

        Example: skylake ``has_isa("bmi1")`` is True; pentium ``has_isa("bmi1")`` is False.
        """
        if level not in ISA_LEVELS:
            raise UarchError(f"unknown ISA level {level!r} (known: {', '.join(ISA_LEVELS)})")
        return ISA_LEVELS.index(level) <= ISA_LEVELS.index(self.isa)

    def has_vector(self, ext: str) -> bool:
        """Whether the CPU has vector/crypto extension ``ext`` (a name of ``VECTOR_ISA``, or its ``x86`` spelling:
        ``"sse4.1"`` is ``"sse4_1"``).

        Example: core2 ``has_vector("ssse3")`` is True, ``has_vector("avx")`` False.
        """
        ext = ext.replace(".", "_")
        if ext not in VECTOR_ISA:
            raise UarchError(f"unknown vector extension {ext!r} (known: {', '.join(VECTOR_ISA)})")
        return ext in self.vector_isa

    @property
    def ports(self) -> tuple[str, ...]:
        return tuple(u.name for u in self.units)

    @property
    def load_latency(self) -> float:
        return self.classes["load"].latency

    @property
    def ticks_per_cycle(self) -> int:
        """Simulation grain: 2 when any latency is a half clock or a unit is double-pumped."""
        r = self.rules
        half = any(c.latency != int(c.latency) for c in self.classes.values()) or \
            any(u.speed == 2 for u in self.units) or \
            r.store_forward_latency != int(r.store_forward_latency) or \
            any(x is not None and x.latency != int(x.latency)
                for x in (r.vector_store_forwarding, r.rmw_forwarding, r.memory_renaming))
        return 2 if half else 1


# --- loading ---------------------------------------------------------------

def uarch_dir() -> Path:
    return corpus_dir() / "uarch"


def calibrated_dir() -> Path:
    """Where ``sha1opt calibrate`` writes the calibrated models (``calibrated.py``), one per CPU."""
    return uarch_dir() / "calibrated"


def _files() -> dict[str, Path]:
    """Every loadable model file by stem: the literature models, then the calibrated ones."""
    d = uarch_dir()
    return {p.stem: p for p in sorted(d.glob("*.toml")) + sorted(calibrated_dir().glob("*.toml"))}


def model_names() -> list[str]:
    """Every literature model's canonical name (the file stems), sorted; calibrated models are
    ``calibrated_names()``."""
    return sorted(p.stem for p in uarch_dir().glob("*.toml"))


def calibrated_names() -> list[str]:
    """Every calibrated model's name (a CPU key, ``calibrated.cpu_key``), sorted."""
    return sorted(p.stem for p in calibrated_dir().glob("*.toml"))


def _aliases() -> dict[str, str]:
    return dict(_aliases_of(tuple(_files().items())))


@functools.lru_cache(maxsize=None)
def _aliases_of(files: tuple[tuple[str, Path], ...]) -> tuple[tuple[str, str], ...]:
    """Every (alias, model), read once per set of model files: ``canonical_name`` runs thousands of times
    in one synthesis (each solution priced on every model), and must not re-read every TOML each time."""
    out: dict[str, str] = {}
    for stem, path in files:
        for a in load_toml(path).get("aliases", []):
            out[str(a)] = stem
    return tuple(out.items())


def canonical_name(name: str) -> str:
    """``name`` or an alias, in any case -> the canonical model name; unknown -> ``UarchError`` with the
    closest names (``"P4"`` is ``p4``; ``"p44"`` is refused with "did you mean p4, ...")."""
    files = _files()
    if name in files:
        return name
    by_lower = {n.lower(): n for n in files} | {a.lower(): t for a, t in _aliases().items()}
    key = name.lower()
    if key in by_lower:
        return by_lower[key]
    close = difflib.get_close_matches(key, list(by_lower), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    aliases = ", ".join(sorted(f"{a} (= {t})" for a, t in _aliases().items()))
    raise UarchError(f"unknown microarchitecture {name!r}{hint} (known: {', '.join(sorted(files))}; "
                     f"aliases: {aliases})")


def load_model(name: str) -> Model:
    """The model called ``name`` (or an alias of it), loaded and checked once per process."""
    return _load(canonical_name(name))


def model_table(name: str) -> dict[str, Any]:
    """The raw table of model ``name`` (its ``inherits`` chain applied), a fresh copy: what ``model_from_table``
    builds a model from (``uncertainty.py`` perturbs one, so its members load like any model)."""
    return copy.deepcopy(_merged(canonical_name(name), ()))


def model_from_table(raw: dict[str, Any], path: str = "") -> Model:
    """A model built from a raw table by the loader's own checks (``CorpusError`` for a bad row, as for a file)."""
    return _build(str(raw.get("name", "")), raw, path)


@functools.lru_cache(maxsize=None)
def _load(stem: str) -> Model:
    raw = _merged(stem, ())
    return _build(stem, raw, str(_files()[stem]))


def _merged(stem: str, seen: tuple[str, ...]) -> dict[str, Any]:
    """The raw table for ``stem`` with its ``inherits`` chain applied (rows replaced whole)."""
    files = _files()
    if stem not in files:
        raise CorpusError(f"{seen[-1]}.toml: inherits unknown model {stem!r}")
    if stem in seen:
        raise CorpusError(f"{stem}.toml: inheritance cycle {' -> '.join(seen + (stem,))}")
    path = files[stem]
    data = load_toml(path)
    unknown = sorted(set(data) - _TOP_REQUIRED - _TOP_OPTIONAL)
    if unknown:
        raise CorpusError(f"{path.name}: unknown key {unknown[0]!r}")
    if "calibration" in data:
        check_calibration(data["calibration"], path.name)
    for table in ("units", "classes", "rules"):
        if table in data and not isinstance(data[table], dict):
            raise CorpusError(f"{path.name}: {table!r} must be a table")
    if "inherits" not in data:
        return data
    parent = _merged(str(data["inherits"]), seen + (stem,))
    out = {k: v for k, v in parent.items() if k not in ("aliases", "inherits")}
    for k, v in data.items():
        if k in ("units", "classes", "rules"):
            out[k] = {**parent.get(k, {}), **v}
        elif k != "inherits":
            out[k] = v
    return out


def _build(stem: str, raw: dict[str, Any], path: str) -> Model:
    fname = f"{stem}.toml"
    check_keys(raw, fname, _TOP_REQUIRED, _TOP_OPTIONAL - {"inherits"})
    if raw["name"] != stem:
        raise CorpusError(f"{fname}: name {raw['name']!r} must equal the file name {stem!r}")
    engine = raw["engine"]
    if engine not in ENGINES:
        raise CorpusError(f"{fname}: engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    in_order = engine == "in-order"
    issue = int(_number(raw["issue_width"], f"{fname}: issue_width", integer=True, minimum=1))
    window = int(_number(raw.get("window", 0), f"{fname}: window", integer=True))
    if not in_order and window < 1:
        raise CorpusError(f"{fname}: an out-of-order model needs a window (reorder-buffer size)")
    retire = int(_number(raw.get("retire_width", issue), f"{fname}: retire_width", integer=True, minimum=1))
    bmi1, bmi2 = raw.get("has_bmi1", False), raw.get("has_bmi2", False)
    if not isinstance(bmi1, bool) or not isinstance(bmi2, bool):
        raise CorpusError(f"{fname}: has_bmi1/has_bmi2 must be true or false")
    if bmi2 and not bmi1:
        raise CorpusError(f"{fname}: has_bmi2 needs has_bmi1 (ISA levels nest: base < bmi1 < bmi2)")
    arch = raw["arch"]
    if arch not in ARCHES:
        raise CorpusError(f"{fname}: arch must be one of {', '.join(ARCHES)}, not {arch!r}")
    gcc_mtune = _string(raw["gcc_mtune"], f"{fname}: gcc_mtune")
    vec = raw.get("vector_isa", [])
    if not isinstance(vec, list) or not all(isinstance(v, str) for v in vec):
        raise CorpusError(f"{fname}: vector_isa must be a list of strings")
    for v in vec:
        if v not in VECTOR_ISA:
            raise CorpusError(f"{fname}: vector_isa: unknown extension {v!r} (known: {', '.join(VECTOR_ISA)})")
    vector_isa = tuple(v for v in VECTOR_ISA if v in vec)
    aliases = raw.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise CorpusError(f"{fname}: aliases must be a list of strings")

    units: list[Unit] = []
    for uname, row in raw["units"].items():
        where = f"{fname}: units.{uname}"
        if not isinstance(row, dict):
            raise CorpusError(f"{where}: not a table")
        check_keys(row, where, _UNIT_KEYS)
        speed = _number(row["speed"], f"{where}.speed", integer=True, minimum=1)
        if speed not in (1, 2):
            raise CorpusError(f"{where}.speed: must be 1 or 2 operations per clock")
        units.append(Unit(uname, int(speed), _string(row["what"], f"{where}.what"), _string(row["source"], f"{where}.source")))
    if not units:
        raise CorpusError(f"{fname}: no units")
    unit_names = {u.name for u in units}

    wanted = set(CLASSES) | (set(BMI1_CLASSES) if bmi1 else set()) | (set(BMI2_CLASSES) if bmi2 else set()) | \
        (set(VECTOR_CLASSES) if "sse2" in vector_isa else set()) | (set(SHA_CLASSES) if "sha" in vector_isa else set())
    optional = {c for c, base in REFINED_CLASSES.items() if base in wanted}
    classes: dict[str, ClassCost] = {}
    for cname, row in raw["classes"].items():
        where = f"{fname}: classes.{cname}"
        if cname not in wanted | optional:
            extra = " (the model lacks that extension)" if cname in BMI1_CLASSES + BMI2_CLASSES + VECTOR_CLASSES + \
                SHA_CLASSES else ""
            raise CorpusError(f"{where}: unknown instruction class{extra}")
        if not isinstance(row, dict):
            raise CorpusError(f"{where}: not a table")
        check_keys(row, where, _CLASS_KEYS, _CLASS_OPTIONAL)
        ports = row["ports"]
        if not isinstance(ports, list) or not ports or not all(isinstance(p, str) for p in ports):
            raise CorpusError(f"{where}.ports: must be a non-empty list of strings")
        uops = tuple(_parse_uop(p, f"{where}.ports", unit_names) for p in ports)
        classes[cname] = ClassCost(
            cname,
            int(_number(row["uops"], f"{where}.uops", integer=True, minimum=1)),
            _half_clock(_number(row["latency"], f"{where}.latency"), f"{where}.latency"),
            float(_number(row["rthroughput"], f"{where}.rthroughput")),
            uops,
            _string(row["source"], f"{where}.source"),
            _busy(row, where, in_order, uops),
        )
    missing = sorted(wanted - set(classes))
    if missing:
        raise CorpusError(f"{fname}: missing instruction class {missing[0]!r}")
    if not in_order:
        _check_roles(fname, classes)
    rules = parse_rules(fname, raw["rules"], set(classes), in_order)
    if rules.microcode is not None and rules.microcode.classes & set(VECTOR_CLASSES):
        raise CorpusError(f"{fname}: rules.microcode.classes names a vector class: the rule is the integer side's")
    return Model(stem, _string(raw["description"], f"{fname}: description"), tuple(aliases), engine, issue,
                 retire, window, bmi1, bmi2, tuple(units), classes, rules,
                 _string(raw["source"], f"{fname}: source"), arch, gcc_mtune, vector_isa, path)


def _parse_uop(text: str, where: str, unit_names: set[str]) -> Uop:
    role, sep, rest = text.partition(":")
    if not sep:
        role, rest = "", text
    elif role not in ROLES:
        raise CorpusError(f"{where}: unknown uop role {role!r} in {text!r} (known: {', '.join(ROLES)})")
    alts = tuple(a.strip() for a in rest.split("|"))
    for a in alts:
        if a not in unit_names:
            raise CorpusError(f"{where}: unknown unit {a!r} in {text!r}")
    if len(set(alts)) != len(alts):
        raise CorpusError(f"{where}: unit repeated in {text!r}")
    return Uop(role, alts)


# Classes whose instructions read memory / write memory (the OoO engine needs
# the uop that does it).
READS_MEMORY = {"load", "add_rm", "logic_rm", "alu_mr", "shift_mr", "andn_rm", "rorx_rm", "pop", "vec_load",
                "vec_alu_rm"}
WRITES_MEMORY = {"store", "alu_mr", "shift_mr", "push", "vec_store"}
RMW_CLASSES = frozenset({"alu_mr", "shift_mr"})     # read-modify-writes: their stores forward by rmw_forwarding


def _check_roles(fname: str, classes: dict[str, ClassCost]) -> None:
    for c in classes.values():
        roles = [u.role for u in c.ports]
        where = f"{fname}: classes.{c.name}.ports"
        if c.name in READS_MEMORY and roles.count("load") != 1:
            raise CorpusError(f"{where}: a class that reads memory needs exactly one 'load:' uop")
        if c.name not in READS_MEMORY and "load" in roles:
            raise CorpusError(f"{where}: only memory-reading classes have a 'load:' uop")
        if c.name in WRITES_MEMORY and roles.count("std") != 1:
            raise CorpusError(f"{where}: a class that writes memory needs exactly one 'std:' uop")
        if c.name not in WRITES_MEMORY and ("std" in roles or "sta" in roles):
            raise CorpusError(f"{where}: only memory-writing classes have 'sta:'/'std:' uops")
        if c.name not in ("load", "store", "push", "pop", "vec_load", "vec_store") and "" not in roles:
            raise CorpusError(f"{where}: needs a compute uop")


def _busy(row: dict, where: str, in_order: bool, uops: tuple[Uop, ...]) -> int:
    if "busy" not in row:
        return 1
    if in_order:
        raise CorpusError(f"{where}.busy: only on an out-of-order model (in order, 'rthroughput' is the clocks a "
                          f"pipe is held)")
    if all(u.role for u in uops):
        raise CorpusError(f"{where}.busy: the row has no compute uop to hold a unit")
    return int(_number(row["busy"], f"{where}.busy", integer=True, minimum=1))


def derived_rthroughput(c: ClassCost, model: Model) -> float:
    """The reciprocal throughput the port map implies (the busiest set of units), for consistency checks."""
    speed = {u.name: u.speed for u in model.units}
    sets = {frozenset(u.units) for u in c.ports}
    sets.add(frozenset(x for u in c.ports for x in u.units))
    best = 0.0
    for s in sets:
        n = sum(c.busy if not u.role else 1 for u in c.ports if set(u.units) <= s)
        best = max(best, n / sum(speed[x] for x in s))
    return best
