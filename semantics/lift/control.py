"""Flags and control flow of the whole-function executor: compares, branches, calls, returns, the stack.

``ControlFlow`` is the part of ``executor.PathMachine`` for the rows of
``semantics.control.CONTROL``: the four flags branches need (ZF SF CF OF) as z3 booleans
after a count or pointer instruction, a branch condition from them
(``condition("jne")``), and ``push``/``pop``/``leave``/``call``/``ret``/
``jmp``/``j<cc>`` on the stack and the program counter, ``cmov<cc>`` on
counts and pointers (a fork, as a branch; the two may point into different objects: a
data pointer and a constant table's end, the loop-exit sentinel of libgcrypt-style code), and
``set<cc>`` (a fork where the path does not decide the condition: each path a constant 0 or 1).
Calls and jumps out of the function are ``calls.Calls``: a known external
function by its contract, a local function followed, a function pointer's every
value (forks). Pointers into two objects (the caller's buffers, the stack, this
object's sections) compare unequal. A NULL test of a contract pointer (``test %rdi,%rdi`` /
``cmp $0``) sets ZF = 0: the contract's objects are never null (``_null_test``), so its ``je`` is
decided, not forked. A branch on flags a data instruction wrote, an
indirect jump or call whose targets are not bounded, an external function
without a contract, or a return anywhere but to the caller (a ``Violation``)
ends the path; so does a reachable call of ``__stack_chk_fail`` (a ``Violation``:
the canary check fails, ``canary``). A branch on the flags of a data instruction
(``add %r8d, %eax; jne``) is refused as an "untracked value" -- the message decides
the path, which a wrong operator precedence produces (Berkeley DB's ``blk0``) --
so the function is run on concrete records; a ``cmp``/``test`` of data (a register
the interface leaves unset) stays a control-flow refusal.

Example: after ``decq 64(%rsp)`` on the count ``n - k``, ``condition("jne")``
is ``Not(n - k - 1 == 0)``; the flags of ``add`` / ``sub`` / ``cmp`` follow the
SDM (CF unsigned borrow or carry, OF signed overflow); ``inc`` and ``dec``
keep CF.
"""

from __future__ import annotations

import z3

from sha1opt.semantics.lift.calls import KNOWN, RESULT_REGION, Calls, Outside
from sha1opt.semantics.lift.canary import FAIL_FUNCTIONS
from sha1opt.semantics.lift.decode import BRANCHES, Decoded
from sha1opt.semantics.lift.values import Choice, Flags, Int, Opq, Ptr, Refused, Violation, is_data, read_only_string
from sha1opt.semantics.control import CONTROL
from sha1opt.semantics.x86 import Imm, Mem, Reg


# Regions that are objects of the contract (the state and its context, the data, the stack and the workspace on
# it): an address into one is never null.
NON_NULL = ("state", "data", "stack")
# Regions that are objects of their own (never each other): the caller's buffers, the stack, this object's
# sections. (``ext:`` symbols are not: two may alias.)
_OBJECT_REGIONS = ("state", "data", "stack", "got")


def _outside(x: Ptr, y: Ptr, code: frozenset | set) -> bool:
    """One is this object's code (a section of ``code``), the other an address outside it (``ext:``: an undefined
    symbol -- a function of another object -- or a writable data word): never the same address."""
    return any(a.region.startswith("sec:") and a.region[4:] in code and b.region.startswith("ext:")
               for a, b in ((x, y), (y, x)))


def _is_object(p: Ptr) -> bool:
    return p.region in _OBJECT_REGIONS or p.region.startswith(("sec:", RESULT_REGION))


class ControlFlow(Calls):
    """Mixin of ``PathMachine``: needs ``s`` (the state), ``bits``, ``bv``, ``operand_value``, ``load``,
    ``store``, ``_write``, ``_int`` and ``implies``."""

    # -- flags -------------------------------------------------------------------------
    def _msb(self, x, w):
        return z3.Extract(8 * w - 1, 8 * w - 1, x) == 1

    def _trunc(self, x, w):
        return z3.Extract(8 * w - 1, 0, x) if 8 * w < self.bits else x

    def set_flags_sub(self, a, b, r, w):
        a, b, r = (self._trunc(x, w) for x in (a, b, r))
        self.s.flags = Flags(r == 0, self._msb(r, w), z3.ULT(a, b), self._msb((a ^ b) & (a ^ r), w))

    def set_flags_add(self, a, b, r, w):
        a, b, r = (self._trunc(x, w) for x in (a, b, r))
        self.s.flags = Flags(r == 0, self._msb(r, w), z3.ULT(r, a), self._msb(~(a ^ b) & (a ^ r), w))

    def set_flags_logic(self, r, w):
        r = self._trunc(r, w)
        self.s.flags = Flags(r == 0, self._msb(r, w), z3.BoolVal(False), z3.BoolVal(False))

    def condition(self, mnem: str, d: Decoded):
        f = self.s.flags
        if f is None:
            raise Refused(d, "branch on flags no instruction has set", "untracked value")
        if f.data and f.computed:
            # the message and state decide the path (Berkeley DB's blk0 without parentheses: ``z += f(x, y, w) +
            # is_bigendian ? ...``): never proved; "unknown", so a run on concrete records refutes wrong code
            raise Refused(d, "branch depends on the flags of a data computation", "untracked value")
        if f.data:
            raise Refused(d, "branch depends on data flags", "control flow")
        cc = mnem[1:] if mnem.startswith("j") else mnem[3:] if mnem.startswith("set") else mnem[4:]
        need = {"e": "zf", "ne": "zf", "s": "sf", "ns": "sf", "b": "cf", "ae": "cf", "a": "cf zf", "be": "cf zf",
                "l": "sf of", "ge": "sf of", "g": "zf sf of", "le": "zf sf of", "o": "of", "no": "of"}.get(cc)
        if need is None:
            raise Refused(d, f"condition {cc} is not modelled", "instruction")
        for name in need.split():
            if getattr(f, name) is None:
                raise Refused(d, f"{name.upper()} is undefined here", "control flow")
        zf, sf, cf, of = f.zf, f.sf, f.cf, f.of
        return {"e": lambda: zf, "ne": lambda: z3.Not(zf), "s": lambda: sf, "ns": lambda: z3.Not(sf),
                "b": lambda: cf, "ae": lambda: z3.Not(cf), "a": lambda: z3.And(z3.Not(cf), z3.Not(zf)),
                "be": lambda: z3.Or(cf, zf), "l": lambda: sf != of, "ge": lambda: sf == of,
                "g": lambda: z3.And(z3.Not(zf), sf == of), "le": lambda: z3.Or(zf, sf != of),
                "o": lambda: of, "no": lambda: z3.Not(of)}[cc]()

    def _cmp_pointers(self, x, y, w):
        if isinstance(x, Ptr) and isinstance(y, Ptr) and x.region == y.region:
            self.set_flags_sub(x.off, y.off, x.off - y.off, w)
            return True
        if isinstance(x, Ptr) and isinstance(y, Ptr) and (_is_object(x) and _is_object(y)
                                                              or _outside(x, y, self.p.obj.executable)):
            # two objects (a data pointer against a constant table's end, the sentinel of a cmov): never equal,
            # their order unknown
            self.s.flags = Flags(z3.BoolVal(False), None, None, None)
            return True
        return False

    def _null_test(self, m: str, ops, x, y) -> bool:
        """``test %p, %p`` or ``cmp $0, %p`` of a pointer into an object the contract names (the state or its
        context, the data, the stack or workspace) at a constant offset: the contract's objects are never at
        address 0 (``interface``: none null), so ZF = 0 (CF = OF = 0; SF, the address's top bit, undefined)
        and a ``je`` to a NULL-argument error path is a branch no caller under the contract takes. A pointer into
        a read-only string a known function returned is not NULL at any offset (strchr's ``s + k``, the summary's
        ``s + loop@..``, ``summary``): C's pointer arithmetic keeps it inside the string or one past its end."""
        if not (isinstance(x, Ptr) and (x.region in NON_NULL or x.region.startswith(RESULT_REGION))
                and (z3.is_bv_value(z3.simplify(x.off)) or read_only_string(x.region))):
            return False
        zero = isinstance(y, Int) and z3.is_bv_value(z3.simplify(y.v)) and z3.simplify(y.v).as_long() == 0
        if not ((m == "test" and ops[0] == ops[1]) or (m == "cmp" and zero)):
            return False
        self.s.flags = Flags(z3.BoolVal(False), None, z3.BoolVal(False), z3.BoolVal(False))
        return True

    def _control(self, d: Decoded, m: str, ops, decide, sec: str, nxt) -> None:
        w = self.bits // 8
        if m in ("endbr64", "endbr32", "nop"):
            return
        if m == "bt":
            # a capability bit (OpenSSL's ``bt $0x3d, %r11`` on OPENSSL_ia32cap_P): CF is that bit of an integer;
            # SF and OF are undefined, ZF unaffected -- all three None here (a branch on them is refused)
            x = self.operand_value(ops[1], d, d.width or 4)
            if not isinstance(ops[0], Imm) or is_data(x):
                raise Refused(d, "bt other than an immediate bit of an integer", "untracked value")
            bit = ops[0].value % (8 * (d.width or 4))
            self.s.flags = Flags(None, None, z3.Extract(bit, bit, self._int(x, d, str(ops[1]))) == 1, None)
            return
        if m in ("cmp", "test"):
            x = self.operand_value(ops[1], d, d.width or 4)
            y = self.operand_value(ops[0], d, d.width or 4)
            if m == "cmp" and self._cmp_pointers(x, y, d.width or 4):
                return
            if self._null_test(m, ops, x, y):
                return
            if is_data(x) or is_data(y):
                self.s.flags = Flags(None, None, None, None, data=True)
                return
            xv, yv = self._int(x, d, str(ops[1])), self._int(y, d, str(ops[0]))
            if m == "cmp":
                self.set_flags_sub(xv, yv, xv - yv, d.width or 4)
            else:
                self.set_flags_logic(xv & yv, d.width or 4)
            return
        if m == "push":
            v = self.operand_value(ops[0], d, w) if not isinstance(ops[0], Imm) else Int(self.bv(ops[0].value))
            rsp = self.s.regs["esp"]
            new = Ptr(rsp.region, rsp.off - self.bv(w))
            self.s.regs["esp"] = new
            self.store(new, v, w, d)
            return
        if m == "pop":
            rsp = self.s.regs["esp"]
            v = self.load(rsp, w, d)
            self.s.regs["esp"] = Ptr(rsp.region, rsp.off + self.bv(w))
            self._write(ops[0], v, w, d)
            return
        if m == "leave":
            self.s.regs["esp"] = self.s.regs["ebp"]
            rsp = self.s.regs["esp"]
            v = self.load(rsp, w, d)
            self.s.regs["esp"] = Ptr(rsp.region, rsp.off + self.bv(w))
            self.s.regs["ebp"] = v
            return
        if m == "ret":
            self._return(d, ops[0].value if ops else 0)
            return
        if m == "call":
            if d.imm_ref is not None and d.imm_ref.region[4:] in FAIL_FUNCTIONS:
                raise Violation(d, f"the stack-protector check fails on this path (calls {d.imm_ref.region[4:]}): "
                                   "the frame's copy of the stack guard is overwritten")
            if d.target is None and d.imm_ref is None:
                t, var, count = self._indirect(d, decide)
                if t.section is None:
                    self._pointer_to_external(d, t.name, var, count, tail=False)
                    return
                tgt = (t.section, t.offset)
            elif (d.imm_ref is not None and not d.imm_ref.region.startswith("sec:")) or _library_own(d.bound):
                self.call_external(d, d.bound or d.imm_ref.region[4:], tail=False, decide=decide)
                return
            else:
                tgt = (sec, d.target) if d.target is not None else (d.imm_ref.region[4:], d.imm_ref.offset)
            if tgt != (sec, d.next):       # (``call 1f; 1: pop %ebx``, i386's get-PC idiom: no callee, no frame)
                self.enter_local(d, tgt)
            rsp = self.s.regs["esp"]
            new = Ptr(rsp.region, rsp.off - self.bv(w))
            self.s.regs["esp"] = new
            self.store(new, Ptr(f"sec:{sec}", self.bv(d.next)), w, d)
            self.s.pc_addr = tgt
            return
        if m == "jmp":
            if d.target is not None:
                self.s.pc_addr = (sec, d.target)
            elif d.imm_ref is not None and d.imm_ref.region.startswith("sec:") and not _library_own(d.bound):
                self.s.pc_addr = (d.imm_ref.region[4:], d.imm_ref.offset)      # a relocated jump into this object
            elif d.imm_ref is not None:
                self.call_external(d, d.bound or d.imm_ref.region[4:], tail=True)        # a tail call
            else:
                t, var, count = self._indirect(d, decide)
                if t.section is None:
                    self._pointer_to_external(d, t.name, var, count, tail=True)
                elif (own := self._own_global(t)) is not None:
                    raise Outside(d, f"jmp through {var} to {own} (one of its {count} values), a global function of "
                                     "this linked object: its own proof", own, tail=True)
                elif (len(self.s.frames), t.section, t.offset) in self.s.jumped:
                    raise Refused(d, f"jmp through {var} back to {self.code_name((t.section, t.offset))}, where an "
                                     "indirect jump of this path went before in the same call (a loop through a "
                                     "function pointer)", "control flow")
                else:
                    self.s.jumped = self.s.jumped + ((len(self.s.frames), t.section, t.offset),)
                    self.s.pc_addr = (t.section, t.offset)
            return
        if CONTROL[m].kind == "flag":
            self._setcc(d, m, ops[0], decide)
            return
        if m in BRANCHES:
            c = self.condition(m, d)
            if d.target is None:
                raise Refused(d, "branch to an unresolved target", "control flow")
            if decide is None:
                return
            taken = decide(c)
            if taken:
                self.s.pc_addr = (sec, d.target)
            return
        raise Refused(d, f"unsupported instruction {m}", "instruction")  # pragma: no cover - CONTROL is closed

    def _setcc(self, d: Decoded, m: str, dst, decide) -> None:
        """``set<cc>`` into the low byte of a register holding an integer: the condition as 0 or 1 (a count).

        Exploring, a condition the path condition does not decide forks as a branch (and ``cmov``) does:
        ``decide(c)`` records ``c`` on this path and its negation on the fork, whose byte (the other of 0
        and 1) is left in ``alternative`` for ``paths.explore``. Each path so holds a constant 0 or 1, and an
        index or offset computed from it (nettle's ``sete %r12b; add %r12d,%r12d`` indexing a stack table)
        is a constant address. On replay (``decide`` None) the path condition decides it; where it does
        not, the byte is the condition's value as a term (0 or 1).
        """
        c = self.condition(m, d)
        old = self.s.regs.get(dst.name) if isinstance(dst, Reg) and dst.width == 8 else None
        if not isinstance(old, Int):
            raise Refused(d, f"{m} into {'memory' if isinstance(dst, Mem) else 'a register'} not holding an "
                             "integer", "untracked value")
        high = old.v & self.bv(((1 << self.bits) - 1) ^ 0xFF)
        w = self.bits // 8
        if decide is not None:
            taken = decide(c)
            self._write(dst, Int(high | self.bv(int(taken))), w, d)
            self.alternative = (dst, Int(high | self.bv(int(not taken))), w)
            return
        bit = (self.bv(1) if self.implies(c) else self.bv(0) if self.implies(z3.Not(c))
               else z3.If(c, self.bv(1), self.bv(0)))
        self._write(dst, Int(high | bit), w, d)

    def _indirect(self, d: Decoded, decide):
        """The target of an indirect jump or call: a register holding a code address (one function pointer value
        this path loaded), else through a function pointer in the object's data (``calls.pointer_target``)."""
        t = self.register_target(d)
        if t is not None:
            return t, f"%{d.ins.operands[0]}".replace("%%", "%"), 1
        return self.pointer_target(d, decide)

    def _return(self, d: Decoded, extra: int = 0) -> None:
        """``ret`` (``extra`` more bytes popped): to the caller (the path exits), or back into this object's code
        (a local call's return: its frame popped)."""
        w = self.bits // 8
        rsp = self.s.regs.get("esp")
        if not isinstance(rsp, Ptr):
            raise Refused(d, "ret without a stack pointer", "control flow")
        v = self.load(rsp, w, d)
        self.s.regs["esp"] = Ptr(rsp.region, rsp.off + self.bv(extra + w))
        if isinstance(v, Opq) and v.name == "return address":
            self.exited = True
            return
        if isinstance(v, Ptr) and v.region.startswith("sec:"):
            off = z3.simplify(v.off)
            if z3.is_bv_value(off):
                self.leave_local()
                self.s.pc_addr = (v.region[4:], off.as_long())
                return
        if isinstance(v, Opq):
            raise Violation(d, f"ret does not return to the caller (it pops the saved {v.name}: the stack is unbalanced)")
        raise Refused(d, "returns to a computed address", "control flow")

    def _pointer_to_external(self, d: Decoded, name: str, var: str, count: int, tail: bool) -> None:
        """One value of a function pointer is an external function: its contract if known, else refused naming it."""
        if name in KNOWN:
            self.call_external(d, name, tail)
            return
        raise Outside(d, f"{d.mnemonic} through {var} to {name} (one of its {count} values), a function outside "
                         "this object: not followed here", name, tail)

    def _own_global(self, t) -> str | None:
        """The global function of a linked object whose entry a function pointer's value ``t`` is (a tail jump
        there is that function's own proof, ``analyze``: proved once, not on every path that reaches it;
        libnettle.so's init paths into ``_nettle_sha1_compress_x86_64``), else None."""
        obj = self.p.obj
        if obj.relocatable:
            return None
        return next((s.name for s in obj.functions() if s.section == t.section and s.value == t.offset
                     and s.bind in ("STB_GLOBAL", "STB_WEAK") and s.name), None)

    def _cmov(self, d: Decoded, m: str, ops, w: int, decide) -> None:
        """``cmov<cc>`` on counts and pointers: forks on the condition as a branch does -- under the multi-buffer
        contract (``select_cmov``) an undecided one selects instead: z3's ``If`` of two integers, a ``Choice``
        of two pointers.

        Exploring, ``decide(c)`` picks (or forks) the direction; the other path's
        destination is left in ``alternative`` for ``paths.explore`` to give
        the fork. On replay (``decide`` None) the path condition must decide it.
        """
        c = self.condition(m, d)
        a = self.operand_value(ops[0], d, w)
        b = self.operand_value(ops[1], d, w)
        if self.select_cmov and all(isinstance(x, (Ptr, Choice)) for x in (a, b)):
            k = z3.simplify(c)      # (a condition the path decides stays a choice: whoever reads it decides it)
            self._write(ops[1], a if z3.is_true(k) else b if z3.is_false(k) else
                        Choice("pointer [selected by a cmov]", c, a, b), w, d)
            return
        if not ((isinstance(a, Int) and isinstance(b, Int)) or (isinstance(a, Ptr) and isinstance(b, Ptr))):
            # data (or unlike) values: only a condition the path decides picks one (a constant argument,
            # e.g. a byte order, selecting how a word is loaded); an undecided one is refused
            if self.implies(c):
                self._write(ops[1], a, w, d)
            elif self.implies(z3.Not(c)):
                self._write(ops[1], b, w, d)
            else:
                raise Refused(d, "conditional move of unlike values", "untracked value")
            return
        if isinstance(a, Int) and isinstance(b, Int) and self.select_cmov:
            self._write(ops[1], Int(z3.If(c, a.v, b.v)), w, d)
            return
        if decide is None:
            if self.implies(c):
                taken = True
            elif self.implies(z3.Not(c)):
                taken = False
            else:
                raise Refused(d, "conditional move not decided by the path condition on replay", "control flow")
        else:
            taken = decide(c)
        self._write(ops[1], a if taken else b, w, d)
        self.alternative = (ops[1], b if taken else a, w)


def _library_own(name: str | None) -> bool:
    """A linked object's own function reached through its PLT (``Decoded.bound``) that a library's contract
    models (``calls.Known.library``: mbedTLS's ``mbedtls_platform_zeroize`` in ``libmbedcrypto.so``): run by
    the contract, as where another member defines it; a C library name the object defines (its own
    ``memcpy``) is its code, followed."""
    known = KNOWN.get(name) if name is not None else None
    return known is not None and known.library is not None

