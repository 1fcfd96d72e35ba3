"""``sha1opt scan``: find the SHA-1 compression functions in files, archives and directories, and prove each.

``scan(paths, uarch=..., time_limit=...)`` walks its arguments (a directory
recursively, symbolic links to files followed once, to directories not),
and yields, as it goes:

* ``Found`` -- one function: where (file, archive member), its name (or
  ``sub_<address>`` in stripped code), why it was taken (``evidence``), the
  interface it was proved under, the verdict over every dispatch path
  (``analyze.prove_loaded``: the proof ``prove --object`` gives, native
  confirmation of a failure included), the paths, the time, and the
  predicted cycles/byte on ``uarch`` (``analyze.price``, as ``analyze``
  prints it; None when nothing was lifted whole, and for a function not
  proved: what was priced may not be the block loop);
* ``Unreadable`` -- a file or directory that cannot be read, one line why;
* ``Done`` -- at the end: how many files were looked at, parsed, the time.

Which functions: ``lift.candidates.compression_candidates`` (all four round
constants in the function's code or the data it references, SHA-NI round
code, a tail jump into such code, a stripped function's unwind extent) plus
every function the interface catalogue names
(``lift.catalogue.lookup``: for a local symbol, the row of its archive
member). A name with "sha1" alone is not taken:
an HMAC-SHA1 or ``SHA1_Update`` wrapper calls the compression function, it
is not one. The interface is the catalogue's for that symbol, else
the two standard ones in turn, ``(state, data, nblocks)`` then ``(state,
data)``, then every other interface the catalogue lists (``guesses``): the
row names the first interface proved under (an interface is a declaration:
a proof under any is a true statement about the code). When none proves, a
counterexample under a guess says nothing about the code -- the guess may be
wrong (LLVM's ``SHA1::hashBlock(this)`` dies natively when handed
``(state, data, nblocks)``) -- so the row is the first guess left "unknown"
(the machine agreed with SHA-1), else "refused" when every guess was
refused, else "interface unknown"; "counterexample" is said only under a
catalogued interface.

Fast on what cannot hold SHA-1 (``may_hold``, on the raw bytes before any
ELF parsing; objects of other architectures are passed over): a file is
parsed only when it holds all four round constants as little-endian words,
or a "sha1"/"SHA1" name together with SHA-NI's ``sha1rnds4`` or a name the
catalogue lists. Each archive member is checked alike, in process
(``lift.archive``). Of Debian's /usr/lib/x86_64-linux-gnu (2,197 files with
this project's packages installed), 52 objects pass on to ELF parsing.

Each proof runs in a forked child (``time_limit`` seconds of wall time, then
it is killed and the row says so); Ctrl-C (``KeyboardInterrupt``) kills the
child and ends the walk, what was yielded stands. Library code: nothing is
printed; ``progress`` gets a ``search.progress.Progress`` per file and per
function.

Example: ``scan(["/usr/lib/x86_64-linux-gnu/libcrypto.so.3"], uarch="zen3")``
yields ``Found(file=".../libcrypto.so.3", function="SHA1_Transform",
evidence="tail jump", verdict="proved", paths=5, ...)`` and ``Done``.
"""

from __future__ import annotations

import mmap
import os
import stat
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Iterator

from sha1opt.analyze import ObjectProof, price, prove_loaded
from sha1opt.emit.confirm import Finding
from sha1opt.emit.objfile import UserObject, with_called_members
from sha1opt.emit.toolchain import Stopped, run_forked
from sha1opt.search.cost.model import load_model
from sha1opt.search.progress import Progress, ProgressFn, ignore
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.limits import clip
from sha1opt.semantics.lift.archive import MAGIC as AR_MAGIC
from sha1opt.semantics.lift.archive import members
from sha1opt.semantics.lift.calls import KNOWN
from sha1opt.semantics.lift.candidates import Candidate, found_functions, holds_all_constants, holds_sha_ni
from sha1opt.semantics.lift.catalogue import interfaces as catalogue_interfaces
from sha1opt.semantics.lift.catalogue import lookup
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.interface import DEFAULT, KEYWORDS, Interface

TIME_LIMIT = 60.0               # seconds of wall time per function (``--time-limit``)
INTERFACE_UNKNOWN = "interface unknown"     # no guessed interface proved, one gave a counterexample (``_guessed``)
_ELF = b"\x7fELF"
_NAMES = (b"sha1", b"SHA1", b"Sha1")
_IDENT = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$")


@dataclass(frozen=True)
class Found:
    """One function found and what its proof gave (see the module docstring)."""

    file: str
    member: str | None
    function: str
    address: int                # the function's address (a linked object) or section offset (a .o)
    evidence: str               # ``lift.candidates.Candidate.evidence``, or "catalogue"
    interface: str              # e.g. "(state, data, nblocks)"
    catalogued: bool            # the interface is the catalogue's (else the default, or one-block when unread)
    verdict: str                # proved | partial | counterexample | unknown | refused | interface unknown
                                # | time limit | error (counterexample: only under a catalogued interface)
    paths: int                  # dispatch paths the proof reported (0: none, e.g. refused before any)
    proved_paths: int
    seconds: float
    uarch: str
    cycles_per_byte: float | None
    detail: str                 # one line: the proof's summary, the refusal, the limit
    dispatch: tuple[str, ...] = ()   # local functions proved as this one's dispatch paths
    assumes: tuple[str, ...] = ()    # the object's own globals the proof took its PLT or GOT to (no interposition)

    @property
    def where(self) -> str:
        return f"{self.file}({self.member})" if self.member else self.file


@dataclass(frozen=True)
class Unreadable:
    path: str
    reason: str


@dataclass(frozen=True)
class Done:
    files: int                  # regular files looked at
    parsed: int                 # files or archive members that passed ``may_hold`` and were parsed
    seconds: float


Event = Found | Unreadable | Done


def may_hold(data) -> bool:
    """Whether ``data`` (an object's bytes) can hold a SHA-1 compression function (the module docstring)."""
    if holds_all_constants(data):
        return True
    spots = [i for pat in _NAMES for i in _occurrences(data, pat)]
    if not spots:
        return False
    return holds_sha_ni(data) or any(lookup(name) is not None for name in _names_at(data, spots))


def _x86(data) -> bool:
    """An x86 or x86-64 ELF header (e_machine 3 or 62): other architectures' objects are passed over."""
    return len(data) >= 20 and data[5] == 1 and int.from_bytes(data[18:20], "little") in (3, 62)


def _occurrences(data, pattern: bytes, most: int = 10_000) -> list[int]:
    out, i = [], data.find(pattern)
    while i >= 0 and len(out) < most:
        out.append(i)
        i = data.find(pattern, i + 1)
    return out


def _names_at(data, spots: list[int]) -> set[str]:
    """The identifier around each spot (a symbol name in a string table)."""
    out = set()
    for i in spots:
        a, b = i, i
        while a > 0 and data[a - 1] in _IDENT and i - a < 200:
            a -= 1
        while b < len(data) and data[b] in _IDENT and b - i < 200:
            b += 1
        out.add(bytes(data[a:b]).decode("ascii", errors="replace"))
    return out


def _files(paths: Iterable[str | Path]) -> Iterator[Path | Unreadable]:
    """Regular files under ``paths`` (each once, by device and inode), or why one cannot be read."""
    seen: set[tuple[int, int]] = set()

    def one(p: Path, named: bool) -> Iterator[Path | Unreadable]:
        try:
            st = os.stat(p)
        except OSError as e:
            if named or not p.is_symlink():      # a dangling link in a directory is no file
                yield Unreadable(str(p), e.strerror or str(e))
            return
        if stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            yield p
        elif named and not stat.S_ISREG(st.st_mode):
            yield Unreadable(str(p), "not a regular file")

    for given in paths:
        root = Path(given)
        if not root.is_dir():
            yield from one(root, True)
            continue
        errors: list[OSError] = []
        for top, dirs, names in os.walk(root, onerror=errors.append):
            dirs.sort()
            for n in sorted(names):
                yield from one(Path(top) / n, False)
            while errors:
                e = errors.pop()
                yield Unreadable(str(e.filename or top), e.strerror or str(e))
        while errors:
            e = errors.pop()
            yield Unreadable(str(e.filename or root), e.strerror or str(e))


def _objects(path: Path) -> Iterator[tuple[str | None, bytes] | Unreadable]:
    """(member or None, ELF bytes) of every object of ``path`` that ``may_hold`` SHA-1."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
            if head[:4] != _ELF and head != AR_MAGIC:
                return
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
                if head[:4] == _ELF:
                    if _x86(data) and may_hold(data):
                        yield None, bytes(data)
                    return
                for m in members(data):
                    body = data[m.offset:m.offset + m.size]
                    if body[:4] == _ELF and _x86(body) and may_hold(body):
                        yield m.name, body
    except (OSError, ValueError) as e:
        yield Unreadable(str(path), getattr(e, "strerror", None) or str(e))
    except Sha1optError as e:
        yield Unreadable(str(path), str(e))


def scan(paths: Iterable[str | Path], *, uarch: str, time_limit: float = TIME_LIMIT, native: bool = True,
         progress: ProgressFn = ignore) -> Iterator[Event]:
    """The events of scanning ``paths`` (see the module docstring)."""
    if time_limit <= 0:
        raise Sha1optError(f"the time limit must be positive, not {time_limit:g} s")
    model = load_model(uarch)          # an unknown name fails before any work
    t0 = time.perf_counter()
    files = parsed = 0
    with tempfile.TemporaryDirectory(prefix="sha1opt-scan-") as tmp:
        work = Path(tmp)
        for item in _files(paths):
            if isinstance(item, Unreadable):
                yield item
                continue
            files += 1
            progress(Progress(f"{item.name}", files))
            for got in _objects(item):
                if isinstance(got, Unreadable):
                    yield got
                    continue
                member, data = got
                parsed += 1
                try:
                    obj = ObjectFile.parse(data)
                    every, found = found_functions(obj, member)
                except Sha1optError as e:
                    yield Unreadable(f"{item}({member})" if member else str(item), str(e))
                    continue
                except Exception as e:  # noqa: BLE001 - one odd object must not end a scan of thousands
                    yield Unreadable(f"{item}({member})" if member else str(item),
                                     f"cannot be analysed ({type(e).__name__}: {e})")
                    continue
                if not found:
                    continue
                disk = item
                if member is not None:
                    disk = work / f"{parsed}_{Path(member).name}"
                    disk.write_bytes(data)
                for i, cand in enumerate(found):
                    progress(Progress(f"{item.name}{f'({member})' if member else ''}: proving {cand.name}",
                                      i, len(found)))
                    dispatch = tuple(c.name for c in every if cand.name in c.entered_by)
                    yield _prove_in_child(_Job(str(item), member, disk, obj, cand, dispatch),
                                          model, time_limit, native, work)
    yield Done(files, parsed, time.perf_counter() - t0)


@dataclass(frozen=True)
class _Job:
    file: str
    member: str | None
    disk: Path
    obj: ObjectFile
    cand: Candidate
    dispatch: tuple[str, ...]


def _interface(job: _Job) -> tuple[Interface, str]:
    row = lookup(job.cand.name, job.member)     # a member's own row first (wolfSSL's local ``Transform``)
    iface = row.interface if row is not None else None
    if iface is None:
        return DEFAULT, "named" if job.cand.evidence == "named" else job.cand.evidence
    return (replace(iface, name=None) if iface.name not in (None, job.cand.name) else iface), "catalogue"


def _address(job: _Job) -> int:
    """The function's address (a linked object) or section offset (a .o)."""
    sym = job.cand.symbol
    return job.obj.addresses.get(sym.section or "", 0) + sym.value


def _row(job: _Job, proof: ObjectProof | None, model, seconds: float, verdict: str, detail: str,
         iface: Interface) -> Found:
    detail = clip(" ".join(detail.split()), 400)      # one line (a linker's message has several)
    catalogued = _interface(job)[1] == "catalogue"
    address = _address(job)
    if proof is None:
        return Found(job.file, job.member, job.cand.name, address, job.cand.evidence, str(replace(iface, name=None)),
                     catalogued, verdict, 0, 0, seconds, model.name, None, detail, job.dispatch)
    used = iface if iface != DEFAULT or not proof.contract.one_block else KEYWORDS["one-block"]
    # priced only when proved: the loop of code not proved SHA-1 may be something else (a rolled function's
    # round loop taken for the block loop prices one round as 64 bytes: 0.02 c/B)
    cpb = next((a.cycles_per_byte for a in price(proof, [model])), None) if proof.proved else None
    paths = [p for p in proof.proof.paths if p.outcome != "not checked"]
    return Found(job.file, job.member, proof.function, address, job.cand.evidence, str(replace(used, name=None)),
                 catalogued, proof.outcome,
                 len(paths), sum(p.outcome == "proved" for p in paths), seconds, model.name, cpb,
                 detail, job.dispatch, proof.proof.assumes)


def _prove(job: _Job, model, native: bool, work: Path) -> Found:
    """The proof of one function, as a row (in the child)."""
    t0 = time.perf_counter()
    iface, origin = _interface(job)
    obj = job.obj
    if job.cand.evidence == "stripped":         # a name the prover can be given: the unwind extent as a symbol
        obj = replace(obj, symbols=[*obj.symbols, job.cand.symbol])
    kind = "archive member" if job.member else ("object" if obj.relocatable else "shared object")
    uo = UserObject(job.disk, obj, kind, f"{Path(job.file).name}({job.member})" if job.member else job.file,
                    job.member, Path(job.file) if job.member else None)
    sub = work / f"fn{os.getpid()}"
    sub.mkdir(exist_ok=True)
    if job.member is not None:              # linked once with the members it calls, for every guess below
        uo = with_called_members(uo, Path(job.file), job.member, sub, frozenset(KNOWN))
    catalogued = origin == "catalogue"
    tried = [iface] if catalogued else guesses()
    results: list[tuple[ObjectProof | None, str, Interface]] = []
    for each in tried:
        try:
            proof = prove_loaded(uo, job.cand.name, sub, native=native, interface=each,
                                 archive=Path(job.file) if job.member else None)
        except Sha1optError as e:
            proof, why = None, str(e)
        else:
            why = proof.summary()
        if proof is not None and proof.proved:
            return _row(job, proof, model, time.perf_counter() - t0, proof.outcome, why, each)
        results.append((proof, why, each))
    seconds = time.perf_counter() - t0
    if not catalogued:
        return _guessed(job, results, model, seconds)
    proof, why, each = results[0]
    return _row(job, proof, model, seconds, proof.outcome if proof else "refused", why, each)


def guesses() -> list[Interface]:
    """The interfaces tried, in order, on a function the catalogue does not name: the two standard ones, then
    every other interface the catalogue lists (``catalogue.interfaces``: state in a struct, host-order words,
    a byte length), then the weaker claims: each one-block interface with its buffer ``clobbered`` (glib's
    stripped ``sha1_transform`` computes W in the caller's words), "nblocks even" last."""
    first = [DEFAULT, KEYWORDS["one-block"]]
    rest = [i for i in catalogue_interfaces() if i not in first]
    whole = [i for i in first + rest if i.block_multiple == 1]
    clobbered = [replace(i, data_clobbered=True) for i in whole if i.one_block and not i.data_clobbered]
    weaker = [i for i in clobbered + rest if i not in whole]
    return whole + weaker


def _guessed(job: _Job, results: list[tuple[ObjectProof | None, str, Interface]], model,
             seconds: float) -> Found:
    """The row of a function proved under none of the ``guesses`` (``INTERFACE_UNKNOWN``).

    A counterexample under an interface that was guessed, not declared, refutes
    the guess as much as the code: LLVM's ``SHA1::hashBlock`` takes only
    ``this`` and dies natively when handed ``(state, data, nblocks)``. So a
    counterexample under a guess is never "counterexample" here: the row is
    the first guess the prover left undecided ("unknown": the machine agreed
    with SHA-1), else the first refusal when every guess was refused (a
    limit of the prover's, whatever the interface), else "interface unknown".
    """
    outcomes = [proof.outcome if proof is not None else "refused" for proof, _, _ in results]
    # the machine agreed with SHA-1 where the prover could not finish: the guess is likely right, say so;
    # refused under every guess: a limit of the prover's whatever the interface (an unmodelled instruction)
    undecided = [r for r, o in zip(results, outcomes) if o not in ("counterexample", "refused")] or \
        (results if all(o == "refused" for o in outcomes) else [])
    shown = [f"under {str(replace(each, name=None))}: {_brief(proof, why)}" for proof, why, each in results[:2]]
    if len(results) > 2:
        shown.append(f"and {len(results) - 2} other guess(es), none proved")
    if undecided:
        proof, why, each = undecided[0]
        detail = f"under {str(replace(each, name=None))}: {why}"
        return _row(job, proof, model, seconds, proof.outcome if proof else "refused", detail, each)
    detail = (f"guessed interfaces, each refuted (declare the real one to prove or refute the code: `sha1opt prove "
              f"--object FILE --function {job.cand.name} --interface '(...)'`): " + "; ".join(shown))
    return _row(job, None, model, seconds, INTERFACE_UNKNOWN, detail, DEFAULT)


def _brief(proof: ObjectProof | None, why: str) -> str:
    """One guess's result in a few words: what the machine did with the counterexample, else the summary."""
    found = proof.native if proof is not None else None
    if isinstance(found, Finding):
        did = found.problem if found.got is None else "a state other than SHA-1's"
        return f"counterexample, run natively with nblocks {found.nblocks}: {clip(did, 100)}"
    return clip(" ".join(why.split()), 150)


def _prove_in_child(job: _Job, model, time_limit: float, native: bool, work: Path) -> Found:
    """``_prove`` in a forked child (``toolchain.run_forked``), stopped past ``time_limit`` seconds (or when the
    caller is interrupted); an error in one proof is its row, not the end of the scan."""
    def one() -> Found:
        try:
            return _prove(job, model, native, work)
        except Exception as e:  # noqa: BLE001 - a bug in one proof must not end the scan: its row names it
            return _row(job, None, model, 0.0, "error", f"{type(e).__name__}: {e}", _interface(job)[0])

    t0 = time.perf_counter()
    got = run_forked(one, time_limit)
    if isinstance(got, Stopped):
        outcome = "time limit" if got.reason == "time limit" else "error"
        detail = (f"not proved within the {time_limit:g} s time limit (stopped)" if got.reason == "time limit"
                  else f"the proof's {got.detail}")
        return _row(job, None, model, time.perf_counter() - t0, outcome, detail, _interface(job)[0])
    return got
