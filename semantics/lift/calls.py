"""Calls and function pointers of the whole-function executor: what a path does at a ``call`` or ``jmp`` that leaves it.

``Calls`` is the part of ``executor.PathMachine`` (through ``control.ControlFlow``) for
control that leaves the function's own code:

* **a known external function** (``KNOWN``: ``memcpy``, ``memset``,
  ``explicit_bzero``, mbedTLS's ``mbedtls_platform_zeroize``; ``getenv``, ``strlen``,
  ``memcmp``, ``strchr``, ``fwrite``, ``fprintf``, ... whose contracts write no caller memory), named by the
  call's relocation (``R_X86_64_PLT32``, ``R_386_PLT32``, ``PC32``, a -fno-plt GOT slot), is run by
  its contract, not its code (``Known``: its effect and result), with the arguments it is for (``_checked``: a
  pointer, a stream of the C library or an integer by the argument's name; what it reads at a constant place of
  the object's data inside the section; else refused by name): the copy or fill of a length that must be a
  constant at the call (else refused by name); its return value (``dst``, nothing, an unknown integer, or
  NULL and a pointer to an object of its own: a path each; getenv's a read-only string whose bytes are unknowns); every caller-saved register (``CALLER_SAVED``, and every vector
  register) and every stack slot below the stack pointer (the callee's frame, the
  red zone) clobbered: a general register or slot so that a later read of it is refused, a vector
  lane an unknown value of its own; callee-saved
  registers and the stack pointer kept. The ABI's stack alignment at a call
  (``%rsp`` = 0 mod 16 before the ``call``, from ``interface.ENTRY_ALIGNMENT``) is
  proved, else the path is a violation. A copy whose source and destination
  overlap is a violation (C11 7.24.2.1). A tail call (``jmp memcpy``) runs the
  contract and returns to the caller. In a linked object a call through the PLT
  (``ObjectFile.plt_names``) is of the entry's symbol: undefined in the object, an external
  function (its contract, if known); defined in it, its own code, followed as a local function
  (``decode``: ``Decoded.bound``, an assumption the proof states: no other object interposes it).
  Any other external callee is refused by name.
* **a local function** of the same object (a direct ``call`` into its code): followed
  -- the return address pushed, the callee executed, its ``ret`` back -- at most
  ``MAX_CALL_DEPTH`` calls deep; a call to a function already on the path's call
  stack (recursion) is refused by name.
* **a jump or call through a function pointer** in the object's data
  (``jmp *vec(%rip)``): ``pointer_targets`` bounds the pointer's values from the
  object's relocations -- its initial value (the data relocation at it) and every
  value the object's code stores to it (``mov %rax, vec(%rip)`` after ``mov
  sym@GOTPCREL(%rip), %rax``, ``lea sym(%rip), %rax`` or i386's ``lea sym@GOTOFF(%ebx), %eax``). The path forks once per
  target, each fork taking one (a path condition on one selector constant per pointer,
  so the forks are disjoint), and each is proved on its own, the target named.
  A pointer whose values cannot be bounded so -- a global symbol (another object may
  store to it), its address taken (also through a GOT slot), a store of a value not a symbol's address -- is
  refused by name. A linked x86-64 object's pointer is bounded the same way from the loader's relocations and
  the rip-relative references of its code (``pointers``: nettle's fat ``libnettle.so``). A load of such a pointer
  (``load_pointer``: nettle's init reloading the pointer it came through) takes its value the same way (the
  same selector: one value on a path until the path stores another); a store (``store_pointer``) is allowed
  only of a code address into a pointer of the object's own; a jump or call through a register holding a
  code address goes there (``register_target``).

Example: gcc's ``memset(w, 0, 64); ...; memcpy(w, data, 64)`` on a stack buffer
``w`` at ``-0x58(%rsp)`` writes 16 words of the constant 0 and then the message
words ``m0..m15`` into the stack slots ``-0x58 .. -0x1c``; ``%rax`` holds the
pointer ``w`` after each; ``%rcx`` holds ``%rcx [clobbered by the call to memcpy]``,
which the code may only overwrite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import z3

from sha1opt.semantics.lift.decode import Decoded, linked_word
from sha1opt.semantics.lift.interface import ENTRY_ALIGNMENT
from sha1opt.semantics.lift.pointers import IMPLICIT, Target, pointer_name, pointer_targets, target_at
from sha1opt.semantics.lift.values import (RESULT_REGION, STRING_MARK, Int, Opq, Ptr, Refused, Violation, memory_key,
                                           read_only_string)
from sha1opt.semantics.lift.vectors import vector_registers
from sha1opt.semantics.x86 import Mem, Reg


@dataclass(frozen=True)
class Known:
    """An external function run by its contract: ``effect`` on memory, the arguments in order (``dst``, ``src``,
    ``value``, ``length``; a fill without ``value`` writes zeros), what it returns, and where the contract is.

    Effects: ``copy`` / ``fill`` write ``length`` bytes at ``dst`` (a constant length); ``out`` writes ``size``
    bytes at ``dst``, each 32-bit word an integer the proof does not know; ``reads`` reads what
    its arguments point to and writes nothing; ``globals`` writes no memory the caller can name (no argument
    buffer, no stack above the call) but may change global data -- a stdio stream, a library's feature flags --
    so every word of external data (``ext:``) is read anew after it; a ``format`` argument must be a constant
    string of the object without ``%n`` (the one conversion that writes). Returns: ``dst``; ``nothing`` (the
    result register clobbered); ``integer`` (an unknown integer, a fresh value at each call); ``string or
    null`` (a path each: NULL, or a pointer to a read-only string of its own that is not the caller's,
    ``RESULT_REGION``, whose bytes read as unknowns, ``memory``); ``pointer or null`` (the same, its contents not
    modelled); ``pointer into s or null`` (strchr: NULL, or ``s + k`` for a new unknown offset k when ``s``
    points into a read-only string -- ``result - s`` is then the integer k and the bytes there read as unknowns,
    ``memory``; any other ``s``, an object of its own as ``pointer or null``)."""

    name: str
    effect: Literal["copy", "fill", "out", "reads", "globals"]
    args: tuple[str, ...]
    returns: Literal["dst", "nothing", "integer", "string or null", "pointer or null", "pointer into s or null"]
    source: str
    size: int = 0            # ``out``: the bytes it stores at ``dst``, 32-bit words the proof does not know
    # what it reads through each pointer argument that is not a copy's source: "string" (up to a NUL), or the
    # integer arguments whose product is the byte count (fwrite's ``size * nmemb``); checked where the pointer is
    # a constant place in the object's data (``Calls._checked``)
    reads: tuple[tuple[str, str | tuple[str, ...]], ...] = ()
    # the library whose own function the contract models (mbedTLS's zeroize): it stands for that library's
    # definition wherever it is; None, the C library's, which a linked object's own definition of the name
    # replaces (its code is followed then, never this contract)
    library: str | None = None


KNOWN: dict[str, Known] = {k.name: k for k in (
    Known("memcpy", "copy", ("dst", "src", "length"), "dst",
          "ISO C11 7.24.2.1 (copies length bytes; overlapping objects: undefined); returns dst"),
    Known("memset", "fill", ("dst", "value", "length"), "dst",
          "ISO C11 7.24.6.1 (copies (unsigned char)value into each of the first length bytes); returns dst"),
    Known("explicit_bzero", "fill", ("dst", "length"), "nothing",
          "glibc manual 'Erasing Sensitive Data' (glibc 2.25): writes length zero bytes at dst, never elided"),
    Known("mbedtls_platform_zeroize", "fill", ("dst", "length"), "nothing",
          "mbedTLS include/mbedtls/platform_util.h: mbedtls_platform_zeroize(buf, len) sets len bytes of buf to 0",
          library="mbedTLS"),
    Known("getenv", "reads", ("name",), "string or null",
          "ISO C11 7.22.4.6: returns a pointer to the environment string, or a null pointer; the program shall "
          "not modify the string", reads=(("name", "string"),)),
    Known("secure_getenv", "reads", ("name",), "string or null",
          "glibc manual 'Environment Access': getenv, returning a null pointer in a secure-execution process",
          reads=(("name", "string"),)),
    Known("strlen", "reads", ("s",), "integer", "ISO C11 7.24.6.3: returns the number of characters before the NUL",
          reads=(("s", "string"),)),
    Known("strcmp", "reads", ("s1", "s2"), "integer", "ISO C11 7.24.4.2: compares two strings, returns an integer",
          reads=(("s1", "string"), ("s2", "string"))),
    Known("strncmp", "reads", ("s1", "s2", "n"), "integer",
          "ISO C11 7.24.4.4: compares at most n characters of two strings, returns an integer",
          reads=(("s1", "string"), ("s2", "string"))),
    Known("memcmp", "reads", ("s1", "s2", "n"), "integer",
          "ISO C11 7.24.4.1: compares n characters of two objects, returns an integer",
          reads=(("s1", ("n",)), ("s2", ("n",)))),
    Known("strchr", "reads", ("s", "c"), "pointer into s or null",
          "ISO C11 7.24.5.2: returns a pointer to the located character in s, or a null pointer",
          reads=(("s", "string"),)),
    Known("fwrite", "globals", ("ptr", "size", "nmemb", "stream"), "integer",
          "ISO C11 7.21.8.2: writes from the array ptr to the stream (the C library's FILE), returns the count",
          reads=(("ptr", ("size", "nmemb")),)),
    Known("fprintf", "globals", ("stream", "format"), "integer",
          "ISO C11 7.21.6.1: writes to the stream under control of format (no %n: checked), returns a count"),
    Known("__fprintf_chk", "globals", ("stream", "flag", "format"), "integer",
          "Linux Standard Base 5.0 __fprintf_chk: fprintf(stream, format, ...) with a check of the stack before "
          "it formats (no %n: checked); returns fprintf's count"),
    Known("_nettle_cpuid", "out", ("leaf", "dst"), "nothing",
          "nettle x86_64/fat/cpuid.asm, fat-x86_64.c: void _nettle_cpuid(unsigned input, unsigned regs[4]) stores "
          "cpuid's eax, ebx, ecx, edx for leaf input into regs[0..3]", size=16, library="nettle"),
    Known("_ZN8CryptoPP17DetectX86FeaturesEv", "globals", (), "nothing",
          "Crypto++ cpu.h/cpu.cpp: void CryptoPP::DetectX86Features() queries cpuid and sets the library's g_has* "
          "feature flags and g_x86DetectionDone; no arguments, no result", library="Crypto++"),
)}


# Registers a callee may change (the vector registers too, both ABIs): SysV psABI 3.2.1 table 3.4; i386 psABI 2.2.
CALLER_SAVED = {64: ("eax", "ecx", "edx", "esi", "edi", "r8d", "r9d", "r10d", "r11d"), 32: ("eax", "ecx", "edx")}
_ARG_REGS = ("edi", "esi", "edx", "ecx", "r8d", "r9d")   # SysV psABI 3.2.3: the integer arguments (cdecl: the stack)
# What an argument of a known function must be at the call (``_checked``), by its name: a pointer (``Ptr``: into the
# stack, the object, a buffer of the caller, a string a known function returned), a stream of the C library (the
# value of ``stdin``, ``stdout`` or ``stderr``, ISO C11 7.21.1 and 7.21.5.1: a FILE* the program did not open), or
# else an integer (``Int``). A register a call clobbered, a callee-saved register's entry value or any value of the
# wrong kind is not what the contract was proved for: refused by name.
_POINTER_ARGS = frozenset({"dst", "src", "name", "s", "s1", "s2", "ptr", "format"})
STREAMS = ("stdin", "stdout", "stderr")

_RESULT_REG = {64: Reg("eax", 64), 32: Reg("eax", 32)}     # where a result is returned (%rax, %eax)
MAX_CALL_DEPTH = 8          # local calls followed at most this deep on one path
MAX_COPY = 252              # bytes a known function may copy (63 words: one write slot each, ``executor.run``)
MAX_FILL = 4096             # bytes a known function may fill


class Outside(Refused):
    """A jump or call to a function outside this object (a function pointer's value): not followed here.
    ``symbol`` names it; ``tail`` when it is a jump (the callee returns to our caller): then the path is
    the callee's own proof, if the caller's arguments are intact at the jump (``function``)."""

    def __init__(self, d: Decoded, why: str, symbol: str, tail: bool) -> None:
        super().__init__(d, why, "control flow")
        self.symbol = symbol
        self.tail = tail


def left_by_call(reg: str, lane: int, name: str, address: int) -> str:
    """The name of what lane ``lane`` of vector register ``reg`` holds after the call to ``name`` at ``address``:
    an unknown of its own."""
    return f"{reg}.{lane} after {name} at 0x{address:x}"


def _object_place(p) -> tuple[str, int] | None:
    """(section, offset) when ``p`` points at a constant place of the object's data, else None."""
    off = z3.simplify(p.off) if isinstance(p, Ptr) and p.region.startswith("sec:") else None
    return (p.region[4:], off.as_long()) if off is not None and z3.is_bv_value(off) else None


def _shown(v) -> str:
    """An argument's value as a message names it: an opaque value's name, a pointer's region and offset, a term."""
    if isinstance(v, Opq):
        return v.name
    if isinstance(v, Ptr):
        return f"{v.region}{z3.simplify(v.off)}"
    if isinstance(v, Int):
        return str(z3.simplify(v.v))
    return "nothing" if v is None else str(v)


def clobbered(reg: str, why: str) -> Opq:
    """What a register holds after a call changed it: a value the code may only overwrite (``[`` in the name:
    never read back as an entry value)."""
    return Opq(f"%{reg} [clobbered by {why}]")


class Calls:
    """Mixin of ``PathMachine`` (through ``ControlFlow``): needs ``s``, ``p``, ``bits``, ``bv``, ``load``,
    ``store``, ``implies``, ``possible``, ``stack_base``, ``replaying``, ``initial_reg`` and ``_return``."""

    # -- known external functions -----------------------------------------------------------
    def call_external(self, d: Decoded, name: str, tail: bool, decide=None) -> None:
        """A call (or, ``tail``, a jump) to the external function ``name``: its contract, or refused by name;
        ``decide`` forks a result that is NULL or not (``paths.explore``; None on replay: the path decides)."""
        known = KNOWN.get(name)
        if known is None:
            raise Outside(d, f"{'jumps to' if tail else 'calls'} an external function ({name}) the lifter has no "
                             "contract for", name, tail)
        w = self.bits // 8
        rsp = self.s.regs.get("esp")
        if not (isinstance(rsp, Ptr) and rsp.region == "stack"):
            raise Refused(d, f"calls {name} without a stack pointer into the stack", "control flow")
        at_call = rsp.off + self.bv(w if tail else 0)        # %rsp as the call instruction saw it
        mod, residue = ENTRY_ALIGNMENT["sysv" if self.bits == 64 else "cdecl"]
        want = (residue + w) % mod
        if not self.replaying and not self.implies((self.stack_base + at_call) & self.bv(mod - 1) == self.bv(want)):
            raise Violation(d, f"calls {name} with the stack pointer not {mod}-byte aligned (the ABI requires "
                               f"%{'r' if self.bits == 64 else 'e'}sp = {want} mod {mod} at a call)")
        args = dict(zip(known.args, self._arguments(d, at_call, len(known.args))))
        self._checked(d, known, args)
        dst = args.get("dst")
        if known.effect in ("copy", "fill", "out"):
            length = self._constant(args["length"], d, f"{name}'s length") if known.effect != "out" else known.size
            if not isinstance(dst, Ptr):
                raise Refused(d, f"{name}'s destination is not a pointer", "untracked value")
        if known.effect == "copy":
            src = args["src"]
            if not isinstance(src, Ptr):
                raise Refused(d, f"{name}'s source is not a pointer", "untracked value")
            self._copy(d, name, dst, src, length)
        elif known.effect == "fill":
            fill = self._constant(args["value"], d, f"{name}'s fill byte") & 0xFF if "value" in args else 0
            self._fill(d, name, dst, length, fill)
        elif known.effect == "out":
            self._clear(d, self._range(d, dst, length, name), length, name)
            self.s.results += 1
            for pos in range(0, length, 4):
                word = z3.BitVec(f"{name}() at 0x{d.address:x} (#{self.s.results}) word {pos // 4}", 32)
                self.store(Ptr(dst.region, dst.off + self.bv(pos)), Int(z3.ZeroExt(self.bits - 32, word)), 4, d)
        elif known.effect == "globals":
            if "format" in args:
                self._format(d, name, args["format"])
            # external data may have changed: its words read anew (a later read names a new unknown)
            self.s.mem = {k: v for k, v in self.s.mem.items() if not k[0].startswith("ext:")}
            self.s.calls += 1
        why = f"the call to {name}"
        for r in CALLER_SAVED[self.bits]:
            self.s.regs[r] = clobbered(r, why)
        for v in vector_registers(self.bits):
            # (lanes are data: an unknown value of its own, never the entry value, whatever a row computes on)
            self.s.regs[v] = tuple(self.initial_reg(left_by_call(v, j, name, d.address)) for j in range(8))
        if known.returns == "dst":
            self.s.regs["eax"] = dst
        elif known.returns != "nothing" and not tail:
            self.s.regs["eax"] = self._result(d, name, known.returns, decide, args.get("s"),
                                              self._object_string(args.get("name")))
        self._clobber_frame(rsp, why)
        self.s.flags = None
        if tail:
            self._return(d)

    def _result(self, d: Decoded, name: str, returns: str, decide, s=None, variable: bytes | None = None):
        """A known function's result: an unknown integer (one of its own per call), or NULL on one path and
        a pointer to an object of its own on the other (``decide`` forks; the fork gets ``alternative``) --
        strchr's (``pointer into s or null``) a pointer into ``s`` at an unknown offset k when ``s`` points into
        a read-only string: ``strchr() at 0xd5 (#6) offset``, any 64-bit value (no bound on where the character
        is: the string's length is unknown, so every k is covered)."""
        self.s.results += 1          # (the same count on replay: one per known call on the path, in order)
        at = f"{name}() at 0x{d.address:x} (#{self.s.results})"
        if returns == "integer":
            return Int(z3.BitVec(f"{at} result", self.bits))
        null = z3.Bool(f"{at} returns NULL")
        mark = f"{STRING_MARK}{self.s.results}" if returns == "string or null" else ""
        obj = Ptr(f"{RESULT_REGION}{name}@0x{d.address:x}{mark}", self.bv(0))
        if variable and b"=" not in variable and mark:     # (getenv of a constant name a process environment can
            # hold: a native run can choose the path; recorded before the fork, so both paths have it)
            self.s.environment = self.s.environment + ((variable.decode("latin-1"), null, obj.region[
                len(RESULT_REGION):]),)
        taken = decide(null) if decide is not None else self.implies(null)
        if returns == "pointer into s or null" and isinstance(s, Ptr) and read_only_string(s.region):
            obj = Ptr(s.region, s.off + z3.BitVec(f"{at} offset", self.bits))
        if decide is not None:
            self.alternative = (_RESULT_REG[self.bits], obj if taken else Int(self.bv(0)), self.bits // 8)
        return Int(self.bv(0)) if taken else obj

    def _format(self, d: Decoded, name: str, fmt) -> None:
        """A format argument: a constant string of this object's data without ``%n`` (which writes through a
        pointer argument), else refused by name."""
        text = self._object_string(fmt)
        if text is None:
            raise Refused(d, f"{name}'s format is not a constant string of the object (ended by a NUL inside its "
                             "section)", "untracked value")
        if re.search(rb"%[-+ #0-9.*'hlLqjzt]*n", text.replace(b"%%", b"")):
            raise Refused(d, f"{name}'s format {text[:40]!r} has %n (a write the contract does not model)",
                          "untracked value")

    def _checked(self, d: Decoded, known: Known, args: dict) -> None:
        """Each argument is of its kind (``_POINTER_ARGS``, ``STREAMS``, else an integer), and what the function
        reads at a constant place of the object's data lies inside it (``Known.reads``), else refused by name.
        Example: nettle's ``fwrite(msg, 1, 0x25, stderr)`` with the ``mov (%rax),%rcx`` that loads ``stderr``
        dropped passes ``%rcx [clobbered by the call to getenv]``: refused, "fwrite's stream is not ..." """
        for arg, v in args.items():
            if arg == "stream":
                ok = isinstance(v, Int) and any(z3.eq(v.v, self._input(f"{s}+0", self.bits // 8, k).v)
                                                for s in STREAMS for k in range(self.s.calls + 1))
                kind = "a stream of the C library (the value of stdin, stdout or stderr)"
            else:
                # (an integer: a value of the proof's own, ``Int``, or a data term -- never an opaque one)
                ok = isinstance(v, Ptr) if arg in _POINTER_ARGS else v is not None and not isinstance(v, (Ptr, Opq))
                kind = "a pointer" if arg in _POINTER_ARGS else "an integer"
            if not ok:
                raise Refused(d, f"{known.name}'s argument {arg} is not {kind} at the call ({_shown(v)})",
                              "untracked value")
        for arg, extent in known.reads:
            p = args[arg]
            if (place := _object_place(p)) is None:
                continue            # (the stack, the caller's buffers, a returned string: not the object's bytes)
            section, at = place
            if extent == "string":
                inside = self._object_string(p) is not None
            else:
                count = 1
                for k in extent:
                    count *= self._constant(args[k], d, f"{known.name}'s {k}")
                inside = count == 0 or self.p.obj.read(section, at, count) is not None
            if not inside:
                raise Refused(d, f"{known.name} reads past the end of {section} through its argument {arg}",
                              "address")

    def _object_string(self, p) -> bytes | None:
        """The NUL-terminated string at ``p`` when it is a constant place in the object's data, else None (also
        when the section ends before its NUL)."""
        if (place := _object_place(p)) is None:
            return None
        (section, at), text = place, b""
        while (c := self.p.obj.read(section, at + len(text), 1)) not in (None, b"\0"):
            text += c
        return text if c is not None else None

    def _arguments(self, d: Decoded, at_call, count: int) -> list:
        if self.bits == 64:
            return [self.s.regs.get(r) for r in _ARG_REGS[:count]]
        return [self.load(Ptr("stack", at_call + self.bv(4 * i)), 4, d) for i in range(count)]

    def _constant(self, v, d: Decoded, what: str) -> int:
        if isinstance(v, Int):
            s = z3.simplify(v.v)
            if z3.is_bv_value(s):
                return s.as_long()
            raise Refused(d, f"{what} is not a constant at the call ({s})", "untracked value")
        raise Refused(d, f"{what} is not a constant at the call", "untracked value")

    def _range(self, d: Decoded, p: Ptr, length: int, name: str) -> tuple[str, str, int]:
        key = self._key(self._in_context(p, length, d))
        if key[1] and key[0] != "stack":
            raise Refused(d, f"{name}'s buffer in {p.region} is at a computed offset", "address")
        return key

    def _clear(self, d: Decoded, key: tuple[str, str, int], length: int, name: str) -> None:
        """Drop the slots wholly inside ``length`` bytes at ``key`` (about to be written); refuse a partial one."""
        region, rest, c = key
        for k, (_, size) in list(self.s.mem.items()):
            if k[0] != region or k[1] != rest or k[2] + size <= c or k[2] >= c + length:
                continue
            if not (c <= k[2] and k[2] + size <= c + length):
                raise Refused(d, f"{name} writes part of a {size}-byte slot at {region}{k[2]:+d}", "untracked value")
            del self.s.mem[k]

    def _fill(self, d: Decoded, name: str, dst: Ptr, length: int, byte: int) -> None:
        if length > MAX_FILL:
            raise Refused(d, f"{name} of {length} bytes (more than {MAX_FILL}) is not modelled", "untracked value")
        self._clear(d, self._range(d, dst, length, name), length, name)
        pos = 0
        while pos < length:
            size = 4 if length - pos >= 4 else 1
            self.store(Ptr(dst.region, dst.off + self.bv(pos)), Int(self.bv(int.from_bytes(bytes([byte]) * size,
                                                                                              "little"))), size, d)
            pos += size

    def _copy(self, d: Decoded, name: str, dst: Ptr, src: Ptr, length: int) -> None:
        if length > MAX_COPY:
            raise Refused(d, f"{name} of {length} bytes (more than {MAX_COPY}) is not modelled", "untracked value")
        if dst.region == src.region and length and self.possible(
                z3.ULT(dst.off - src.off + self.bv(length - 1), self.bv(2 * length - 1))):
            raise Violation(d, f"{name} of {length} bytes between overlapping buffers in {dst.region} "
                               "(undefined behaviour, C11 7.24.2.1)")
        skey = self._range(d, src, length, name)
        pos, values = 0, []
        while pos < length:                 # slot by slot: what the source holds, as it was written
            held = self.s.mem.get((skey[0], skey[1], skey[2] + pos))
            size = held[1] if held is not None and pos + held[1] <= length else (4 if length - pos >= 4 else 1)
            values.append((pos, self.load(Ptr(src.region, src.off + self.bv(pos)), size, d), size))
            pos += size
        self._clear(d, self._range(d, dst, length, name), length, name)
        for pos, v, size in values:
            self.store(Ptr(dst.region, dst.off + self.bv(pos)), v, size, d)

    def _clobber_frame(self, rsp: Ptr, why: str) -> None:
        """The callee's frame (everything below the stack pointer, the red zone too) holds what it left there."""
        rest, c = memory_key(rsp.off)
        for k, (v, size) in list(self.s.mem.items()):
            if k[0] != "stack":
                continue
            if k[1] == rest:
                below = k[2] < c
            else:                          # (a realigned slot: below the stack pointer if z3 cannot rule it out)
                off = self._stack_offsets.get(k)
                below = off is None or self.possible(off < rsp.off)
            if below:
                self.s.mem[k] = (Opq(f"stack{k[2]:+d} [clobbered by {why}]"), size)

    # -- local calls ----------------------------------------------------------------------------
    def enter_local(self, d: Decoded, target: tuple[str, int]) -> None:
        """Bookkeeping of a call into this object's code: the depth limit and recursion, by name."""
        name = self.code_name(target)
        frames = self.s.frames
        if target in frames or target == (self.p.fn.section, self.p.fn.entry):
            raise Refused(d, f"recursive call to {name} (it is already being executed on this path)", "control flow")
        if len(frames) >= MAX_CALL_DEPTH:
            raise Refused(d, f"call to {name} more than {MAX_CALL_DEPTH} calls deep", "control flow")
        self.s.frames = frames + (target,)

    def leave_local(self) -> None:
        """A local call returns: its frame popped, and the indirect jumps made within it forgotten (``jumped``: a
        wrapper that jumps through a pointer may be called again)."""
        if self.s.frames:
            self.s.frames = self.s.frames[:-1]
            self.s.jumped = tuple(j for j in self.s.jumped if j[0] <= len(self.s.frames))

    def code_name(self, target: tuple[str, int]) -> str:
        sym = self.p.obj.covering(*target)
        if sym is None:
            return f"{target[0]}+0x{target[1]:x}"
        return sym.name if sym.value == target[1] else f"{sym.name}+0x{target[1] - sym.value:x}"

    # -- function pointers ----------------------------------------------------------------------
    def pointer_target(self, d: Decoded, decide) -> tuple[Target, str, int]:
        """The target of ``jmp``/``call`` through a function pointer in the object's data, the pointer's name and
        how many values it may hold: one of ``pointer_targets``, chosen by forking (exploring: the fork runs
        the instruction again, ``refetch``) or by the path condition (replay). Stores to the object's data
        are violations of the contract, so the pointer holds one value on a path: one selector per pointer.
        The pointer's address is the operand's (``jmp *vec(%rip)``) or a register's holding the object's data
        address (``mov vec@GOTPCREL(%rip), %rax; jmp *(%rax)``: a global pointer, refused naming it)."""
        op = d.ins.operands[0]
        base = self.s.regs.get(op.base.name) if isinstance(op, Mem) and op.base is not None else None
        if isinstance(op, Mem) and op.index is None and d.mem_ref is not None and d.mem_ref.region.startswith("sec:"):
            self.address(op, d)         # (i386 @GOTOFF: the base register must hold the GOT pointer)
            section, offset = d.mem_ref.region[4:], d.mem_ref.offset
        elif isinstance(op, Mem) and op.index is None and d.mem_ref is None and d.pcrel is None and \
                isinstance(base, Ptr) and base.region.startswith("sec:") and \
                z3.is_bv_value(off := z3.simplify(self.address(op, d).off)):
            section, offset = base.region[4:], off.as_long()
        else:
            # (through a register or a computed address: no pointer in the object's data to bound it by)
            raise Refused(d, f"indirect {'jump' if d.mnemonic == 'jmp' else 'call'}", "control flow")
        var = pointer_name(self.p.obj, section, offset)
        targets = pointer_targets(self.p.obj, section, offset, self.bits)
        if isinstance(targets, str):
            kind = "jump" if d.mnemonic == "jmp" else "call"
            raise Refused(d, f"indirect {kind} through {var}: {targets}", "control flow")
        held = self.s.mem.get((f"sec:{section}", "", offset))
        if held is not None:             # (stored on this path: ``store_pointer``)
            return self._target_of(held[0], d), var, len(targets)
        return self._choose(var, targets, decide), var, len(targets)

    def register_target(self, d: Decoded) -> Target | None:
        """The target of ``jmp``/``call *%reg`` when the register holds a code address (a function pointer's
        value loaded from the object's data, ``load_pointer``), else None."""
        op = d.ins.operands[0]
        v = self.s.regs.get(op.name) if isinstance(op, Reg) else None
        return self._target_of(v, d) if isinstance(v, Ptr) else None

    def load_pointer(self, section: str, offset: int, d: Decoded) -> Ptr | Int:
        """A load of the function pointer at ``section + offset`` (a relocated word of the object's data): one
        of its ``pointer_targets`` as a code address, chosen as a jump through it chooses (one selector per
        pointer: the same value at every read on a path, until the path stores another, ``store_pointer``).
        A linked object's word whose values are not bounded is an input named by its address, as its other
        writable words are (``decode.linked_ref``): an unknown, not a code address."""
        var = pointer_name(self.p.obj, section, offset)
        targets = pointer_targets(self.p.obj, section, offset, self.bits)
        if isinstance(targets, str) and not self.p.obj.relocatable:
            return self._input(f"{linked_word(self.p.obj.addresses[section] + offset)}+0", self.bits // 8)
        if isinstance(targets, str):
            raise Refused(d, f"reads a relocated word of {section} ({var}: {targets})", "address")
        t = self._choose(var, targets, self.decide)
        return Ptr(f"ext:{t.name}", self.bv(0)) if t.section is None else Ptr(f"sec:{t.section}", self.bv(t.offset))

    def store_pointer(self, section: str, offset: int, v, size: int, d: Decoded) -> None:
        """A store to the object's data: allowed only of a code address into a function pointer of the object's
        own -- a word its relocation initialises to an address, no global symbol over it (nettle's ``fat_init``
        choosing the implementations) -- and, where the pointer's values are bounded (``pointer_targets``), one
        of them; any other store is a violation."""
        obj = self.p.obj
        var = pointer_name(obj, section, offset)
        why = None
        if 8 * size != self.bits or obj.relocation_at(section, offset) is None:
            why = "not a function pointer"
        elif any(s.section == section and s.name and s.value <= offset < s.value + max(s.size, 1)
                 and s.bind != "STB_LOCAL" for s in obj.symbols):
            why = "a global symbol"
        elif not (isinstance(v, Ptr) and (v.region.startswith("ext:") or v.region[4:] in obj.executable)):
            why = "a value that is not a code address"
        else:
            targets = pointer_targets(obj, section, offset, self.bits)
            if not isinstance(targets, str) and all(self._target_of(v, d).key != t.key for t in targets):
                why = "a value that is not one of its targets"
        if why is not None:
            raise Violation(d, f"writes {section} memory ({var}: {why})")

    def _target_of(self, v, d: Decoded) -> Target:
        off = z3.simplify(v.off) if isinstance(v, Ptr) else None
        if off is None or not z3.is_bv_value(off):
            raise Refused(d, "indirect jump or call through a value that is not a code address", "control flow")
        if v.region.startswith("ext:") and off.as_long() == 0:
            return Target(v.region[4:], None, 0)
        if v.region.startswith("sec:") and v.region[4:] in self.p.obj.executable:
            return target_at(self.p.obj, v.region[4:], off.as_long(), "")
        raise Refused(d, f"indirect jump or call into {v.region}", "control flow")

    def _choose(self, var: str, targets: tuple[Target, ...], decide) -> Target:
        sel = z3.BitVec(f"target of {var}", 8)
        self.refetch = decide is not None
        chosen = targets[-1]
        for i, t in enumerate(targets[:-1]):
            c = sel == i
            if (self.implies(c) if decide is None else decide(c)):
                chosen = t
                break
        else:
            if decide is not None:
                self.s.cond.append(sel == len(targets) - 1)
        if (var, chosen.name) not in self.s.pointers:
            self.s.pointers = self.s.pointers + ((var, chosen.name),)
        if chosen.bound and chosen.bound not in self.s.bound:
            self.s.bound = self.s.bound + (chosen.bound,)      # (a value a GOT slot gave: not interposed)
        return chosen


__all__ = ["CALLER_SAVED", "IMPLICIT", "KNOWN", "Known", "MAX_CALL_DEPTH", "Calls", "Outside", "Target", "clobbered",
           "left_by_call", "pointer_targets"]
