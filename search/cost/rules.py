"""A model's rules: the constants and mechanisms beside its class rows (forwarding, stalls, renaming, pairing).

Each rule is one optional table ``[rules.NAME]`` of a model file (``RULE_KEYS``: its required and optional keys;
``store_forwarding`` is required), read by ``parse_rules`` into one frozen ``Rules`` value that the engines
read. ``Rules.forward_latency`` is the one place either engine asks how long a store takes to reach a later
load of its address. Example: zen4's ``[rules.memory_renaming]`` (latency 0) makes
``forward_latency("plain", "plain")`` 0 while ``forward_latency("plain", "other")`` stays its 7.

The field readers (``number``, ``string``, ``half_clock``) are the model loader's too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sha1opt.semantics.datafiles import check_keys
from sha1opt.semantics.errors import CorpusError

RULE_KEYS: dict[str, tuple[set[str], set[str]]] = {
    "store_forwarding": ({"latency", "source"}, set()),
    "vector_store_forwarding": ({"latency", "source"}, set()),
    "rmw_forwarding": ({"latency", "source"}, {"immediate"}),
    "memory_renaming": ({"latency", "source"}, set()),
    "address_stall": ({"name", "cycles", "exempt", "source"}, set()),
    "pairing": ({"ordered", "lockstep", "no_disp_and_imm", "source"}, set()),
    "move_elimination": ({"classes", "source"}, {"slots"}),
    "replay": ({"name", "penalty", "min_latency", "source"}, set()),
    "register_reads": ({"name", "per_clock", "source"}, set()),
    "port_binding": ({"source"}, set()),
    "scheduler": ({"name", "entries", "source"}, set()),
    "dispatch_delay": ({"name", "cycles", "source"}, set()),
    "microcode": ({"classes", "slots", "source"}, set()),
}
RULE_NAMES: tuple[str, ...] = tuple(RULE_KEYS)     # every rule a model may carry


@dataclass(frozen=True)
class AddressStall:
    name: str                   # how the bottleneck is reported, e.g. "lea stall"
    cycles: int                 # extra clocks before a base/index register may be used
    exempt: frozenset[str]      # producer classes that do not cause it (AGU results)
    source: str


@dataclass(frozen=True)
class Pairing:
    ordered: bool               # the 2nd instruction of a cycle must use a later unit (U then V)
    lockstep: bool              # a multi-clock instruction holds the whole group
    no_disp_and_imm: bool       # an instruction with a displacement and an immediate issues alone
    source: str


@dataclass(frozen=True)
class Replay:
    name: str                   # how the cause is reported in breakdowns, e.g. "P4 replay"
    penalty: float              # clocks lost by a replayed load
    min_latency: float          # a store's data producer at least this slow triggers it
    source: str


@dataclass(frozen=True)
class RegisterReads:
    name: str                   # how the cause is reported, e.g. "register-read stall"
    per_clock: int              # distinct retired (permanent-file) registers renamed per clock
    source: str


@dataclass(frozen=True)
class VectorForwarding:
    latency: float              # clocks from a vector store's data to a (scalar) load of one of its lanes
    source: str


@dataclass(frozen=True)
class RmwForwarding:
    latency: float              # clocks from the store of a read-modify-write with a register operand
    #                             (``addl %ebx, 8(%rsp)``) to a later load of that address
    source: str
    immediate: bool = False     # also the store of one by an immediate or of one operand (``roll $5, 8(%rsp)``);
    #                             else that store forwards as a mov store (goldencove: 0, zen4: this rule)


@dataclass(frozen=True)
class MemoryRenaming:
    """A plain load of a just-stored address gets the store's data at rename, ``latency`` clocks after it.

    Only a plain general-purpose load (class ``load``: ``movl 8(%rsp), %ecx``) of a plain register store
    (``movl %ebx, 8(%rsp)``) is renamed; a load-op (``addl 8(%rsp), %ecx``), a read-modify-write's store and
    a vector store forward as ``store_forwarding`` / ``rmw_forwarding`` / ``vector_store_forwarding`` say.
    Example (zen4, latency 0): ``movl %ebx, 8(%rsp); movl 8(%rsp), %ecx; addl %ecx, %ebx`` runs at one
    clock per link (the add), ``movl %ebx, 8(%rsp); addl 8(%rsp), %ebx`` at 1 + 7.
    """
    latency: float
    source: str


@dataclass(frozen=True)
class DispatchDelay:
    name: str                   # how the cause is reported, e.g. "issue-to-dispatch delay"
    cycles: int                 # clocks from allocation to the earliest dispatch of a uop (1 without the rule)
    source: str


@dataclass(frozen=True)
class Microcode:
    """Instructions of ``classes`` come from the microcode sequencer, not the op cache (out of order only).

    Such an instruction takes none of the front end's ``issue_width`` slots but ``slots`` of the integer
    side's dispatch (as many per clock; other integer instructions take their uops there, vector ones none),
    and after it the next instruction that is not of ``classes`` starts the integer side on a new clock: the
    switch back to the op cache ends its dispatch group. Back to back, microcoded instructions stream
    (``ooo.FrontEnd.integer``). Example (the calibrated Zen 4, 8 slots): ``shldl $5, %eax, %eax`` alone runs
    at its units' 1.5 clocks; with one to four leas after each at 2 clocks per group (8 + 4 slots), with five
    at 3, and with five vector instructions at 2 (bench/results/microcode_mix_zen4.txt) -- without the rule,
    1.5-2.1 for all of them.
    """
    classes: frozenset[str]
    slots: int
    source: str


@dataclass(frozen=True)
class Scheduler:
    name: str                   # how the cause is reported, e.g. "scheduler full"
    entries: int                # fused uops allocated and not yet dispatched to a unit, at most
    source: str


@dataclass(frozen=True)
class Rules:
    store_forward_latency: float
    store_forward_source: str
    address_stall: AddressStall | None = None
    pairing: Pairing | None = None
    move_elimination: frozenset[str] = frozenset()
    move_elimination_source: str = ""
    replay: Replay | None = None
    register_reads: RegisterReads | None = None
    port_binding: str | None = None     # its source when compute uops are bound to a port at allocation
    scheduler: Scheduler | None = None  # the reservation station's size (allocation waits for a free entry)
    move_elimination_slots: int | None = None   # moves eliminated per two rename clocks, less live aliases
    vector_store_forwarding: VectorForwarding | None = None   # None: a vector store forwards as a scalar one
    dispatch_delay: DispatchDelay | None = None     # None: a uop may dispatch the clock after its allocation
    rmw_forwarding: RmwForwarding | None = None     # None: a read-modify-write's store forwards as a mov store
    memory_renaming: MemoryRenaming | None = None   # None: a plain load forwards as a load-op does
    microcode: Microcode | None = None              # None: every instruction comes from the op cache

    def forward_latency(self, store: str, load: str = "other") -> float:
        """Clocks from a store's data to a later load of its address having it -- the one place both engines
        ask. ``store``: ``STORE_KINDS`` ("plain": a mov of a register; "rmw": a read-modify-write with a
        register operand; "rmw_imm": one by an immediate or of one operand; "vector": a vector store wider
        than 4 bytes; "other": any other store); ``load``: "plain" (class ``load``) or "other" (a load-op, a
        read-modify-write's load). Example (zen4): ("plain", "plain") 0 -- memory renaming; ("plain",
        "other") 7; ("rmw_imm", "other") 0."""
        if store == "vector" and self.vector_store_forwarding is not None:
            return self.vector_store_forwarding.latency
        rmw = self.rmw_forwarding
        if rmw is not None and (store == "rmw" or (store == "rmw_imm" and rmw.immediate)):
            return rmw.latency
        if store == "plain" and load == "plain" and self.memory_renaming is not None:
            return self.memory_renaming.latency
        return self.store_forward_latency


STORE_KINDS = ("plain", "rmw", "rmw_imm", "vector", "other")     # ``Rules.forward_latency``'s store kinds


def number(v: Any, where: str, *, integer: bool = False, minimum: float = 0) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (integer and not isinstance(v, int)):
        raise CorpusError(f"{where}: must be {'an integer' if integer else 'a number'}")
    if v < minimum:
        raise CorpusError(f"{where}: must be >= {minimum}")
    return v


def string(v: Any, where: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise CorpusError(f"{where}: must be a non-empty string")
    return v


def half_clock(v: float, where: str) -> float:
    if abs(v * 2 - round(v * 2)) > 1e-9:
        raise CorpusError(f"{where}: latencies are modelled to half a clock, got {v}")
    return float(v)


def parse_rules(fname: str, raw: Any, class_names: set[str], in_order: bool) -> Rules:
    if not isinstance(raw, dict):
        raise CorpusError(f"{fname}: rules must be a table")
    for rname, row in raw.items():
        if rname not in RULE_KEYS:
            raise CorpusError(f"{fname}: rules.{rname}: unknown rule (known: {', '.join(sorted(RULE_KEYS))})")
        if not isinstance(row, dict):
            raise CorpusError(f"{fname}: rules.{rname}: not a table")
        req, opt = RULE_KEYS[rname]
        check_keys(row, f"{fname}: rules.{rname}", req, opt)
        string(row["source"], f"{fname}: rules.{rname}.source")
    if "store_forwarding" not in raw:
        raise CorpusError(f"{fname}: missing rule 'store_forwarding'")
    sf = raw["store_forwarding"]
    stall = pairing = replay = None
    if "address_stall" in raw:
        r = raw["address_stall"]
        ex = r["exempt"]
        if not isinstance(ex, list) or not all(isinstance(c, str) and c in class_names for c in ex):
            raise CorpusError(f"{fname}: rules.address_stall.exempt must list instruction classes")
        stall = AddressStall(string(r["name"], f"{fname}: rules.address_stall.name"),
                             int(number(r["cycles"], f"{fname}: rules.address_stall.cycles", integer=True, minimum=1)),
                             frozenset(ex), r["source"])
    if "pairing" in raw:
        r = raw["pairing"]
        if not in_order:
            raise CorpusError(f"{fname}: rules.pairing applies to in-order models only")
        for k in ("ordered", "lockstep", "no_disp_and_imm"):
            if not isinstance(r[k], bool):
                raise CorpusError(f"{fname}: rules.pairing.{k} must be true or false")
        pairing = Pairing(r["ordered"], r["lockstep"], r["no_disp_and_imm"], r["source"])
    elim: frozenset[str] = frozenset()
    elim_src = ""
    elim_slots = None
    if "move_elimination" in raw:
        r = raw["move_elimination"]
        if not isinstance(r["classes"], list) or not all(c in ("mov_rr", "vec_mov") for c in r["classes"]):
            raise CorpusError(f"{fname}: rules.move_elimination.classes may only list 'mov_rr' and 'vec_mov'")
        if not set(r["classes"]) <= class_names:
            raise CorpusError(f"{fname}: rules.move_elimination.classes names a class the model has no row for")
        elim, elim_src = frozenset(r["classes"]), r["source"]
        if "slots" in r:
            elim_slots = int(number(r["slots"], f"{fname}: rules.move_elimination.slots", integer=True, minimum=1))
    if "replay" in raw:
        r = raw["replay"]
        replay = Replay(string(r["name"], f"{fname}: rules.replay.name"), float(number(r["penalty"], f"{fname}: rules.replay.penalty")),
                        float(number(r["min_latency"], f"{fname}: rules.replay.min_latency")), r["source"])
    reads = None
    if "register_reads" in raw:
        r = raw["register_reads"]
        if in_order:
            raise CorpusError(f"{fname}: rules.register_reads applies to out-of-order models only")
        reads = RegisterReads(string(r["name"], f"{fname}: rules.register_reads.name"),
                              int(number(r["per_clock"], f"{fname}: rules.register_reads.per_clock", integer=True,
                                          minimum=1)), r["source"])
    lat = half_clock(number(sf["latency"], f"{fname}: rules.store_forwarding.latency"),
                      f"{fname}: rules.store_forwarding.latency")
    def ooo_row(name: str) -> dict | None:
        """An out-of-order rule's row, None when absent (refused on an in-order model: never read there)."""
        if name not in raw:
            return None
        if in_order:
            raise CorpusError(f"{fname}: rules.{name} applies to out-of-order models only")
        return raw[name]

    def count(r: dict, name: str, key: str, minimum: int) -> int:
        return int(number(r[key], f"{fname}: rules.{name}.{key}", integer=True, minimum=minimum))

    def forwarding(name: str) -> tuple[dict, float] | None:
        """An out-of-order forwarding rule's row and latency."""
        r, where = ooo_row(name), f"{fname}: rules.{name}.latency"
        return None if r is None else (r, half_clock(number(r["latency"], where), where))

    binding = r["source"] if (r := ooo_row("port_binding")) is not None else None
    r = ooo_row("scheduler")
    sched = Scheduler(string(r["name"], f"{fname}: rules.scheduler.name"), count(r, "scheduler", "entries", 4),
                      r["source"]) if r is not None else None
    v = forwarding("vector_store_forwarding")
    vfwd = VectorForwarding(v[1], v[0]["source"]) if v else None
    r = ooo_row("dispatch_delay")
    delay = DispatchDelay(string(r["name"], f"{fname}: rules.dispatch_delay.name"),
                          count(r, "dispatch_delay", "cycles", 1), r["source"]) if r is not None else None
    rmw = None
    if (w := forwarding("rmw_forwarding")) is not None:
        imm = w[0].get("immediate", False)
        if not isinstance(imm, bool):
            raise CorpusError(f"{fname}: rules.rmw_forwarding.immediate must be true or false")
        rmw = RmwForwarding(w[1], w[0]["source"], imm)
    n = forwarding("memory_renaming")
    renaming = MemoryRenaming(n[1], n[0]["source"]) if n else None
    micro = None
    if (r := ooo_row("microcode")) is not None:
        if not isinstance(r["classes"], list) or not r["classes"] or \
                not all(isinstance(c, str) and c in class_names for c in r["classes"]):
            raise CorpusError(f"{fname}: rules.microcode.classes must list instruction classes of the model")
        micro = Microcode(frozenset(r["classes"]), count(r, "microcode", "slots", 1), r["source"])
    return Rules(lat, sf["source"], stall, pairing, elim, elim_src, replay, reads, binding, sched, elim_slots, vfwd,
                 delay, rmw, renaming, micro)
