"""Analysis of a SHA-1 block function from the machine code its input assembles to.

One path for every input (``emit.objfile.load_object``): ``.s`` / ``.S``
text is assembled by the system toolchain, a ``.o``, an archive member or a
shared object is read as is; then ``semantics.lift`` decodes the function,
and ``prove_object`` proves the *whole* function -- prologue, loop control,
every exit, callee-saved restores and stack discipline -- for every nblocks
its contract allows (``lift.function.prove_function``; an object this process
already proved the same way is not proved again: ``emit.proof_memo``).

Invariant: ``ObjectProof.proved`` is True only when every path of the
function proved. ``prove_object(..., paths={"_ssse3_shortcut"})`` proves
only the paths with those labels (the symbol a path's loop head is in); the
others are "not checked", and the outcome is then at best "partial" (the
selected paths proved), never "proved": e.g. OpenSSL's x86-64 object with
``paths={"_ssse3_shortcut"}`` gives "proved SHA-1 on the selected path(s)
only (1 of 6: loop at 0x13e0 (_ssse3_shortcut)); 5 not checked -- the
function as a whole is not proved". A failed proof is checked natively (``emit.native_check``)
before it is called a counterexample: the printed counterexample is a
concrete (state, data, nblocks) on which the machine disagrees with SHA-1
(a shared object's function too: loaded with ``dlopen`` in the harness's
child, called at its address, the proof passed as what lifted it).
A proof failure the machine does not reproduce is "unknown". A refusal
(unsupported instruction, unresolved symbol, indirect jump) raises
``LiftRefusal`` with one line naming the instruction, address and line.

A path the executor gives up on because the code mixes kinds of values --
a pointer or count used as data, data used as an address, a stack slot read
at an offset or size other than it was written (a refusal of category
``"untracked value"``, ``lift.values.CATEGORIES``: what a wrong register or
displacement produces; and a branch on the flags of a data instruction, the
message deciding the path: Berkeley DB's ``__db_SHA1Transform``, whose
unparenthesised ``blk0`` makes ``f(b, c, d) + is_bigendian`` a condition) -- is
"unknown", not "refused": it is run natively
like any failed path, so a wrong function gets a concrete
counterexample (e.g. the export with ``xorl 0x20(%rsp)`` changed to
``0x21(%rsp)``: "NOT proved: counterexample (confirmed natively)"), and a
right one is "not proved". Refusals of instructions, symbols and control
flow the executor does not model stay refusals.

A path that jumps to a function outside the object with the caller's
arguments intact (a function pointer's value, nettle's fat entry
``nettle_sha1_compress``; ``lift.calls``) is that function's own proof: in
an archive it is proved from the member defining it (``objfile.
defining_members``), and such a path is never run natively (the harness
links one member).

A function whose code sets the count itself (``FunctionProof.nblocks_unread``:
every loop head reached with nblocks neither tested nor held; a stripped
``libcrypto.so.3``'s ``SHA1_Transform`` is ``mov $1, %edx; jmp`` into the
block function) is proved again as one block, ``(state, data)``, and says so
as a finding.

Contract: by default nblocks >= 0 with nblocks = 0 a no-op (sha1opt's own
exports). When the only failure is that nblocks = 0 enters the loop
(OpenSSL reads one block past the buffer then), the function is proved
again under nblocks >= 1 and the behaviour at 0 is reported as a finding.

``analyze_file(path, uarchs)`` adds the predicted cost per model: the loop
iteration of the first loop path (steady state, 64 bytes per iteration)
simulated on each model.

Invariant: nothing is priced that was not lifted. A loop is priced only
when every path of its iteration, head to back edge, was lifted
(``PathReport.trace``; ``lift.function._lifted``); otherwise its cost is
None and ``unlifted`` says why, per path -- e.g. the textbook export with
``mov %rsi, %r9; add %r9d, %r10d`` put in round 40 ("a path of the
iteration stops: addition of a pointer and a non-integer at 0x8e7 ...")
prints no c/B, where it once priced the 574 instructions before that point
as the loop.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.candidates import Candidate, compression_candidates, found_functions
from sha1opt.semantics.lift.calls import KNOWN
from sha1opt.semantics.lift.catalogue import lookup
from sha1opt.semantics.lift.elf import NoFunction, Symbol
from sha1opt.semantics.lift.function import Abi, Contract, FunctionProof, prove_function
from sha1opt.semantics.lift.interface import ABI_OF, DEFAULT, KEYWORDS, Interface
from sha1opt.semantics.x86 import Arch
from sha1opt.search.cost.items import cost_items
from sha1opt.search.cost.model import UarchError, load_model
from sha1opt.search.cost.simulator import Simulation, simulate
from sha1opt.emit.confirm import Finding, Unavailable, run_zero_blocks
from sha1opt.emit.native_check import native_finding
from sha1opt.emit.objfile import UserObject, defining_members, load_object, with_called_members
from sha1opt.emit.proof_memo import remembered
from sha1opt.emit.toolchain import Preprocessor

BLOCK_BYTES = 64
ONE_BLOCK = KEYWORDS["one-block"]


class LiftRefusal(Sha1optError):
    """The function uses something the lifter does not model; the message is one line."""


def untracked_as_unknown(proof: FunctionProof) -> FunctionProof:
    """``proof`` with every path refused as an ``"untracked value"`` made "unknown" (its reason and category
    kept): the refusal is about the values the path computes, not an unmodelled construct."""
    paths = tuple(replace(p, outcome="unknown", detail=f"not proved: {p.detail}")
                  if p.outcome == "refused" and p.category == "untracked value" else p for p in proof.paths)
    return replace(proof, paths=paths) if paths != proof.paths else proof


@dataclass(frozen=True)
class ObjectProof:
    source: str
    function: str
    arch: Arch
    outcome: str                    # "proved" | "partial" | "counterexample" | "unknown" | "refused" (some paths)
    proof: FunctionProof
    native: Finding | Unavailable | None
    findings: tuple[str, ...]
    seconds: float
    # which interface the proof used and where it came from: "declared (--interface)", the catalogue row's
    # library (``lift.catalogue``), or the default (state, data, nblocks)
    interface: str = ""
    interface_origin: str = ""
    # how the function was chosen when none was named: "" (named, ``sha1_block_data_order`` or the only global
    # function) or why this one (``sole_function``: the one SHA-1 compression function ``scan`` finds)
    function_origin: str = ""

    @property
    def proved(self) -> bool:
        return self.outcome == "proved"

    @property
    def contract(self) -> Contract:
        return self.proof.contract

    def summary(self) -> str:
        skipped = sum(1 for p in self.proof.paths if p.outcome == "not checked")
        if self.outcome == "partial":
            done = [p.name for p in self.proof.paths if p.outcome == "proved"]
            return (f"proved {self.contract.claim} on the selected path(s) only ({len(done)} of "
                    f"{len(self.proof.paths)}: {', '.join(done)}); {skipped} not checked -- the function as a whole "
                    "is not proved")
        unchecked = f"; {skipped} path(s) not checked" if skipped else ""
        if self.proved:
            loops = sum(1 for p in self.proof.paths if p.kind == "loop")
            count = self.contract.covers()
            assumes = (f"; assuming no other object interposes {', '.join(self.proof.assumes)} (this object's "
                       "own, reached through its PLT or GOT)" if self.proof.assumes else "")
            return (f"proved {self.contract.claim} (whole function {self.function}: {len(self.proof.paths)} path(s), "
                    f"{loops} loop(s), {count}{assumes}; {self.seconds:.2f} s)")
        bad = next((p for p in self.proof.paths if p.outcome not in ("proved", "refused")),
                   next(p for p in self.proof.paths if p.outcome != "proved"))
        if self.outcome == "refused":
            counts = Counter(p.outcome for p in self.proof.paths if p.outcome != "not checked")
            ok = counts.pop("proved", 0)
            rest = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
            return (f"NOT proved: {ok} path(s) proved, {rest} (first {bad.outcome}: {bad.detail}){unchecked}; "
                    "the function is proved only when every path is")
        if self.outcome == "counterexample":
            return (f"NOT proved: counterexample (confirmed natively): {self.native.describe()}; prover: "
                    f"{bad.detail}{unchecked}")
        why = (f"; no native confirmation: {self.native.reason}" if isinstance(self.native, Unavailable)
               else "; the machine agreed with SHA-1 on every concrete record tried")
        return f"NOT proved (unknown): {bad.name}: {bad.detail}{why}{unchecked}"


def prove_object(path: str | Path, *, function: str | None = None, abi: Abi | None = None,
                 member: str | None = None, arch: Arch | None = None, min_blocks: int | None = None,
                 workdir: Path | None = None, native: bool = True, interface: Interface | None = None,
                 paths: frozenset[str] | None = None, cpp: Preprocessor = Preprocessor()) -> ObjectProof:
    """Prove the whole function of ``path`` (see the module docstring), or only its ``paths`` (labels).

    ``interface`` (``lift.interface.parse_interface``) declares the arguments
    when they are not ``(state, data, nblocks)``, e.g. a one-block function
    with a workspace; its name, if any, is the function. Without it the
    function's row in the interface catalogue (``lift.catalogue``) is used,
    else ``(state, data, nblocks)`` (``choose_interface``; the result's
    ``interface`` and ``interface_origin`` say which). A failed proof of
    such a function is confirmed natively through ``emit.adapter`` (called
    once per block, the workspace in the adapter's ``.bss``).
    """
    with tempfile.TemporaryDirectory(prefix="sha1opt-lift-") as tmp:
        work = Path(workdir or tmp)
        uo = load_object(path, work, arch=arch, member=member, cpp=cpp)
        found, found_by = None, ""
        if function is None and (interface is None or interface.name is None):
            found, found_by = sole_function(uo, member)
        if found is not None:
            function = found.name
            if not any(s.name == function for s in uo.obj.symbols):     # (stripped: its symbol, as scan made it)
                uo = replace(uo, obj=replace(uo.obj, symbols=[*uo.obj.symbols, found.symbol]))
        else:
            uo = with_stripped_name(uo, function)
        archive = Path(path) if uo.kind == "archive member" else None
        if archive is not None:
            uo = with_called_members(uo, archive, uo.member, work, frozenset(KNOWN))
        chosen, origin = choose_interface(uo, function, member, interface)
        try:
            res = _prove(uo, function, abi, min_blocks, work, native, chosen, paths, archive)
        except LiftRefusal as e:
            if declared_by_user(origin):
                raise
            raise LiftRefusal(f"{e} (interface {chosen}, from {origin})") from None
        # (the interface as proved: the contract's arguments, after any one-block fallback said as a finding)
        return replace(res, interface=f"{res.function}({', '.join(res.contract.arg_names())})",
                       interface_origin=origin, function_origin=found_by)


def sole_function(uo: UserObject, member: str | None) -> tuple[Candidate | None, str]:
    """The function to prove when none is named: ``(None, "")`` where the object's own rule picks one
    (``sha1_block_data_order``, else the only global function: ``ObjectFile.find_function``) or where it does
    not hold exactly one SHA-1 compression function, or exactly one with a symbol among stripped ones; else that
    function (named ``sub_<address>`` when stripped) and why it was chosen. The functions are ``scan``'s
    (``lift.candidates.found_functions``).

    Example: libcrypto.so.3 (5,363 global functions) holds one with a symbol, ``SHA1_Transform``, whose ``jmp``
    enters the stripped block function, and four stripped ones (the stitched AES-CBC bodies and the
    multi-buffer function): ``SHA1_Transform``'s candidate, "the file's one SHA-1 compression function with a
    symbol; evidence: tail jump (stripped ones, named with --function: sub_d5f00, ...)".
    """
    try:
        uo.obj.find_function(None)
        return None, ""
    except NoFunction:
        pass
    _, found = found_functions(uo.obj, member)
    if len(found) == 1:
        return found[0], f"the file's one SHA-1 compression function; evidence: {found[0].evidence}"
    named = [c for c in found if c.evidence != "stripped"]
    if len(named) == 1:
        others = ", ".join(c.name for c in found if c is not named[0])
        return named[0], (f"the file's one SHA-1 compression function with a symbol; evidence: {named[0].evidence} "
                          f"(stripped ones, named with --function: {others})")
    return None, ""             # (prove_function's refusal names the SHA-1 candidates)


def declared_by_user(origin: str) -> bool:
    return origin == DECLARED


DECLARED = "declared (--interface)"


def with_stripped_name(uo: UserObject, function: str | None) -> UserObject:
    """``uo`` with a symbol for ``function`` when it is a name ``scan`` gives a stripped function,
    ``sub_<hex address>`` (``lift.candidates``: an unwind extent or code a SHA-1-named function enters, holding
    the four round constants), so what a scan row names can be proved under a declared interface; or, not a
    candidate, when an unwind entry starts at that address (x86-64 libcrypto.so.3's stripped dispatcher of the
    stitched AES-CBC + SHA-1 bodies, ``sub_d5ec0``: it holds no constant, its bodies do)."""
    if function is None or not function.startswith("sub_") or any(s.name == function for s in uo.obj.symbols):
        return uo
    hit = next((c.symbol for c in compression_candidates(uo.obj) if c.name == function), None)
    if hit is None and re.fullmatch(r"sub_[0-9a-f]+", function):
        at = int(function[4:], 16)
        hit = next((Symbol(function, sec, a, n, "STT_FUNC", "STB_LOCAL") for sec in sorted(uo.obj.executable)
                    for a, n in uo.obj.unwind_extents(sec) if uo.obj.addresses.get(sec, 0) + a == at), None)
    return uo if hit is None else replace(uo, obj=replace(uo.obj, symbols=[*uo.obj.symbols, hit]))


def choose_interface(uo: UserObject, function: str | None, member: str | None,
                     declared: Interface | None) -> tuple[Interface, str]:
    """The interface to prove under and where it came from: a declared one always wins; else the catalogue's
    row for the function's symbol (``lift.catalogue.lookup``, for ``member`` if it is a local symbol); else
    the default ``(state, data, nblocks)``."""
    if declared is not None:
        return declared, DECLARED
    try:
        sym = uo.obj.find_function(function)
    except NoFunction:
        return DEFAULT, "the default (blocks)"          # (prove_function names the missing function)
    row = lookup(sym.name, member)
    if row is None:
        return DEFAULT, "the default (blocks): the function is not in the interface catalogue"
    note = f"; {row.note}" if row.note else ""
    return row.interface, f"the interface catalogue (corpus/interfaces.toml: {row.library}{note})"


def prove_loaded(uo: UserObject, function: str | None, workdir: Path, *, native: bool = True,
                 interface: Interface | None = None, archive: Path | None = None) -> ObjectProof:
    """``prove_object`` of an object already loaded (``emit.objfile.UserObject``; ``archive``: the ``.a`` it is
    a member of, whose other members a function pointer may lead into): what ``sha1opt scan`` proves each
    function it finds with, the object read once for all of them."""
    return _prove(uo, function, None, None, workdir, native, interface or DEFAULT, None, archive)


def _prove(uo: UserObject, function: str | None, abi: Abi | None, min_blocks: int | None, work: Path,
           native: bool, interface: Interface = DEFAULT, paths: frozenset[str] | None = None,
           archive: Path | None = None) -> ObjectProof:
    t0 = time.perf_counter()
    abi = abi or ABI_OF[uo.arch]
    if abi != ABI_OF[uo.arch]:
        raise LiftRefusal(f"ABI {abi} does not exist on {uo.arch}")
    if function and interface.name and function != interface.name:
        raise LiftRefusal(f"--function {function} and the interface's function {interface.name} differ")
    function = function or interface.name
    paths = frozenset(paths) if paths is not None else None
    if paths is not None and not paths:
        raise LiftRefusal("no path selected (give at least one path label)")
    proof = remembered(prove_function, uo.obj, function, interface.contract(abi, min_blocks or 0), paths)
    if proof.nblocks_unread and not proof.proved and replace(interface, name=None) == DEFAULT:
        # the code sets its count itself (SHA1_Transform: ``mov $1, %edx; jmp`` into the block function):
        # nblocks is a fixed argument, and the function compresses one block
        interface = ONE_BLOCK
        proof = remembered(prove_function, uo.obj, function, interface.contract(abi), paths)
        proof = replace(proof, findings=(*proof.findings, "the nblocks argument is never read (the code sets the "
                                         "count itself): proved as a one-block function (state, data)"))
    findings = proof.findings
    if min_blocks is None and findings and not interface.one_block:
        proof = remembered(prove_function, uo.obj, function, interface.contract(abi, 1), paths)
        if native:
            findings = tuple(f"{f}; {run_zero_blocks(uo, proof.function, work, proof, interface)}"
                             for f in dict.fromkeys(findings))
    proof = untracked_as_unknown(_follow_outside(archive, proof, work, uo))
    if proof.outcome == "refused":
        if not any((p.outcome == "proved" and p.kind in ("loop", "one block"))
                   or p.outcome in ("counterexample", "unknown") for p in proof.paths):
            raise LiftRefusal(proof.refusal or "refused")
        # some dispatch paths proved, others use what is not modelled: report every path, prove nothing;
        # a path that failed outright is still run natively, with the capability words that take it
        found = None
        if native and any(p.outcome in ("counterexample", "unknown") for p in proof.paths):
            found = _confirm_failed(uo, proof, work, interface)
        outcome = "counterexample" if isinstance(found, Finding) else "refused"
        return ObjectProof(uo.source, proof.function, uo.arch, outcome, proof, found, findings,
                           time.perf_counter() - t0)
    if proof.proved or proof.outcome == "not checked":     # every path proved / every selected path proved
        return ObjectProof(uo.source, proof.function, uo.arch, "proved" if proof.proved else "partial", proof, None,
                           findings, time.perf_counter() - t0)
    found = _confirm_failed(uo, proof, work, interface) if native else Unavailable("native runs off")
    outcome = "counterexample" if isinstance(found, Finding) else "unknown"
    return ObjectProof(uo.source, proof.function, uo.arch, outcome, proof, found, findings, time.perf_counter() - t0)


def _follow_outside(archive: Path | None, proof: FunctionProof, work: Path, here: UserObject) -> FunctionProof:
    """Each path that jumps to a function outside the object with the caller's arguments intact
    (``PathReport.outside``: a function pointer's value, nettle's fat entry) takes that function's own proof
    under the same contract, from the archive member defining it -- or, from a linked object, to one of its own
    global functions (``control``: libnettle.so's init paths), from that object, proved once; one no member
    defines (or outside an archive) stays refused, saying so. The proofs' assumptions are the result's too.
    Example: nettle's ``nettle_sha1_compress`` (``fat-x86_64.o``) through ``_nettle_sha1_compress_x86_64`` is
    proved in ``sha1-compress.o``."""
    wanted = {p.outside for p in proof.paths if p.outside}
    if not wanted:
        return proof
    if archive is not None:
        where = defining_members(archive, wanted)
    elif not here.obj.relocatable:
        own = {s.name for s in here.obj.functions() if s.section in here.obj.executable}
        where = {name: "this object" for name in wanted if name in own}
    else:
        where = {}
    done: dict[tuple[str, Contract], tuple[str, FunctionProof]] = {}
    loaded: dict[str, object] = {"this object": here}
    for p in proof.paths:
        callee = p.callee or proof.contract
        if p.outside in where and (p.outside, callee) not in done:
            member = where[p.outside]
            uo = loaded.get(member) or loaded.setdefault(member, load_object(archive, work, member=member))
            done[p.outside, callee] = (member, prove_function(uo.obj, p.outside, callee))
    paths = []
    for p in proof.paths:
        callee = p.callee or proof.contract
        if p.outside is None:
            paths.append(p)
        elif (p.outside, callee) not in done:
            where_not = "no member of the archive defines it" if archive is not None else "not an archive member"
            paths.append(replace(p, detail=f"{p.detail} ({where_not})"))
        else:
            member, sub = done[p.outside, callee]
            bad = next((q for q in sub.paths if q.outcome != "proved"), None)
            said = "; ".join(f"{q.name}: {q.outcome}" for q in sub.paths)
            extra = callee.arg_names()[len(proof.contract.args):]
            detail = (f"jumps to {p.outside} with the caller's arguments" + (f" and {', '.join(extra)}" if extra else "")
                      + f"; {p.outside} ({member if member == 'this object' else f'member {member}'}) "
                      + (f"proved: {said}" if bad is None else f"not proved: {bad.name}: {bad.detail}"))
            paths.append(replace(p, kind="one block" if proof.contract.one_block and bad is None else p.kind,
                                 outcome=sub.outcome, detail=detail, cuts=sum(q.cuts for q in sub.paths),
                                 category=None if bad is None else bad.category, first_wrong=sub.paths[0].first_wrong
                                 if len(sub.paths) == 1 else None))
    assumes = {a for _, sub in done.values() for a in sub.assumes}
    return replace(proof, paths=tuple(paths), assumes=tuple(sorted(set(proof.assumes) | assumes)))


def _confirm_failed(uo: UserObject, proof: FunctionProof, work: Path, interface: Interface) -> Finding | Unavailable | None:
    """Run the function natively once per failed path, with that path's capability words (its
    ``witness``: OpenSSL's SSSE3 path runs only with its OPENSSL_ia32cap_P bits set); the first
    record that disagrees with SHA-1, else the last run's result."""
    found: Finding | Unavailable | None = None
    tried: set = set()
    for p in proof.paths:
        if p.outcome not in ("counterexample", "unknown") or p.witness in tried:
            continue
        if p.outside is not None:
            # (its code is another archive member's, which the harness does not link: a run would fail for that)
            found = found or Unavailable(f"the path {p.name} runs {p.outside}, defined in another member of the "
                                         "archive, which the native harness does not link")
            continue
        tried.add(p.witness)
        found = native_finding(uo, proof.function, proof.contract.min_blocks, work, interface,
                               symbols=dict(p.witness), lifted=proof)
        if isinstance(found, Finding):
            return found
    return found


# -- cost ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Analysis:
    uarch: str
    arch: Arch
    loop: bool                      # True: steady-state cycles per loop iteration (``blocks`` blocks)
    instructions: int               # items simulated per iteration
    cycles: float | None            # None when the model cannot run the code (see error)
    cycles_per_byte: float | None
    bottleneck: str
    proof: ObjectProof
    simulation: Simulation | None
    error: str | None = None        # why this model gives no figure (the model, or ``unlifted``)
    unlifted: str | None = None     # the loop priced is not lifted whole: why (no model gives a figure)
    path: str = ""                  # the path priced: the first loop, else the first one-block path (the paths
                                    # table's first row); "" for a function with one straight path
    blocks: int = 1                 # blocks one loop iteration compresses (libgcrypt's and OpenSSL's AVX2: 2)

    @property
    def proved(self) -> bool:
        return self.proof.proved


@dataclass(frozen=True)
class PathCost:
    """One loop path (a dispatch target) simulated on one model: steady state, per byte consumed."""

    path: str
    outcome: str                    # the path's proof outcome
    uarch: str
    cycles_per_byte: float | None   # None: the model cannot price it (``error``), or it was not lifted whole
    error: str | None = None
    unlifted: str | None = None     # the path's iteration was not lifted whole: why (no figure on any model)


def one_block_paths(fp) -> list:
    """The lifted one-block paths of a function proof (a function with no loop: ``SHA1_Transform``), in the order
    the paths table lists them."""
    return [p for p in fp.paths if p.kind == "one block" and p.trace]


def path_costs(proof: ObjectProof, uarchs: Sequence[str]) -> list[PathCost]:
    """Every loop path of the proof (proved or not) on every model: the paths x models table ``analyze``
    prints for a dispatching function such as OpenSSL's. A loop not lifted whole has no figure, and says
    why (``PathReport.unlifted``). A one-block function's paths (``SHA1_Transform`` of ``libcrypto.so.3``)
    are priced once each, entry to ret, per 64 bytes."""
    models = [load_model(u) for u in uarchs]
    out: list[PathCost] = []
    for p in proof.proof.loop_paths() + one_block_paths(proof.proof):
        if not p.trace:
            out.extend(PathCost(p.name, p.outcome, m.name, None, unlifted=p.unlifted) for m in models)
            continue
        items = cost_items(p.trace)
        for m in models:
            try:
                sim = simulate(items, m, loop=p.kind == "loop", bytes_per_iteration=p.block_bytes)
                out.append(PathCost(p.name, p.outcome, m.name, sim.cycles_per_byte))
            except (UarchError, Sha1optError, KeyError) as e:
                out.append(PathCost(p.name, p.outcome, m.name, None, str(e)))
    return out


def analyze_file(path: str | Path, uarchs: Sequence[str], arch: Arch | None = None, *, function: str | None = None,
                 abi: Abi | None = None, member: str | None = None,
                 interface: Interface | None = None, min_blocks: int | None = None,
                 cpp: Preprocessor = Preprocessor()) -> list[Analysis]:
    """One ``Analysis`` per model in ``uarchs`` for the function the input assembles to (a loop of several
    blocks per iteration priced per byte of all of them; ``cpp``: a ``.S``'s ``-I``/``-D``)."""
    models = [load_model(u) for u in uarchs]   # unknown names fail before any work
    proof = prove_object(path, function=function, abi=abi, member=member, arch=arch, interface=interface,
                         min_blocks=min_blocks, cpp=cpp)
    return price(proof, models)


def price(proof: ObjectProof, models: Sequence) -> list[Analysis]:
    """One ``Analysis`` per model (``search.cost.model.load_model`` values) of a proved or refused function:
    its first loop path, else its one-block path, simulated; nothing priced that was not lifted whole."""
    fp = proof.proof
    loops = fp.loop_paths()
    is_loop = bool(loops)
    one_block = one_block_paths(fp)
    priced = loops[0] if loops else one_block[0] if len(one_block) > 1 else None
    items = cost_items(priced.trace if priced is not None else fp.straight)
    name = priced.name if priced is not None else ""
    why = (f"{loops[0].name} is not lifted whole: {loops[0].unlifted}" if loops and not loops[0].trace
           else None if loops or fp.straight else "no path from entry to ret was lifted whole")
    if why:
        return [Analysis(m.name, proof.arch, is_loop, 0, None, None, "n/a", proof, None, f"not priced: {why}", why,
                         name) for m in models]
    out: list[Analysis] = []
    for m in models:
        try:
            sim = simulate(items, m, loop=is_loop, bytes_per_iteration=priced.block_bytes if is_loop else BLOCK_BYTES)
        except (UarchError, Sha1optError, KeyError) as e:
            out.append(Analysis(m.name, proof.arch, is_loop, len(items), None, None, "n/a", proof, None, str(e),
                                path=name))
            continue
        out.append(Analysis(m.name, proof.arch, is_loop, len(items), sim.cycles, sim.cycles_per_byte, sim.bottleneck,
                            proof, sim, path=name, blocks=priced.block_bytes // BLOCK_BYTES if is_loop else 1))
    return out
