"""Symbolic execution of a whole function over its machine code: one instruction at a time.

(The value kinds live in ``values``, paths and exploration in ``paths``, memory in ``memory``.)

A ``PathMachine`` runs ``Decoded`` instructions from a start state. Values
are of four kinds, and each instruction is executed in the kind its inputs
have:

* ``Ptr(region, off)`` -- an address: ``off`` is a z3 bit-vector (arch
  width) over the symbols ``n`` (nblocks), ``k`` (iterations done) and
  alignment unknowns (``andq $-64,%rsp``). Regions: ``stack`` (offset 0 =
  the entry stack pointer), ``state``, ``data``, ``sec:<section>`` (this
  object's bytes), ``ext:<symbol>`` (an undefined symbol), ``got``.
* ``Int(v)`` -- an integer (block count, loop counter, a loaded capability
  word): a z3 bit-vector, exact modular arithmetic.
* ``Opq(name)`` -- an entry value that may only be moved (callee-saved
  registers, the return address): restoring it is checked by identity.
* data -- a value of the data ``domain`` (terms, numpy lanes): 32-bit round
  values, computed by the semantics table's functions, exactly as
  ``machine.Machine`` does.

Flags are modelled as values only as far as branches need: after a
count/pointer instruction the four flags ZF SF CF OF are z3 booleans; after
a data instruction they are "data", and a branch on them is refused.

Exploration (``explore``) decides each conditional branch with z3 under the
path condition; when both ways are possible it forks. A path ends at
``ret`` to the caller (``exit``), on arriving at a stop address (a loop
head), or at a refusal (``refused``: the instruction, its address and line).
Replay (``PathMachine.run``, the interface ``composition.check_program``
drives) re-executes a recorded trace in another data domain, with the same
``on_write`` hook ``machine.Machine.run`` has, so the compositional prover
proves whole paths.

Memory: words in regions keyed by (region, offset); the data region is
read relative to the current block (``64*k``): word j of it is the spec's
``m{j/4}`` through ``initial_mem("data", j)``; a word beyond the block (the
next block, read ahead by OpenSSL's SIMD paths) is ``data[j]`` and allowed
only where the path condition keeps it inside the buffer (``data_size``).
Writes are allowed to the stack below the entry stack pointer (and i386's
argument slots) and to the 20 state bytes; any other write is refused (a
violation, never ignored). Vector registers (``vectors.VectorUnit``) hold 8
lanes of data values under their xmm name, as in ``machine.Machine``.
"""

from __future__ import annotations

import itertools
from typing import Callable

import z3

from sha1opt.semantics.lift import cbc
from sha1opt.semantics.lift.calls import RESULT_REGION
from sha1opt.semantics.lift.control import ControlFlow
from sha1opt.semantics.lift.decode import BRANCHES, Decoded
from sha1opt.semantics.lift.memory import MemoryModel
from sha1opt.semantics.lift.paths import PathEnd, Program, State, explore
from sha1opt.semantics.lift.summary import Havoc
from sha1opt.semantics.lift.summary import apply as apply_havoc
from sha1opt.semantics.lift.values import (MASK32, DataPair, Flags, Int, Opq, Ptr, Refused, Violation, is_data, signed,
                                           stack_base)
from sha1opt.semantics.lift.vectors import VectorUnit
from sha1opt.semantics.control import CONTROL
from sha1opt.semantics.x86 import CL, SEMANTICS, Imm, Mem, Reg, value_of

# Mnemonics the lifter models on counts and pointers only (not in the data table).
_INT_ONLY = ("inc", "dec", "neg", "movzx", "movsxd", "sar", "adc")
# Mnemonics the lifter can execute on integers (everything else on constants goes to the data table).
_WIDE = frozenset(("mov", "lea", "add", "sub", "and", "or", "xor", "shl", "shr", "not") + _INT_ONLY)


# Prefetch hints: no architectural effect, and never a fault whatever the address (SDM vol. 2, PREFETCHh).
PREFETCHES = frozenset({"prefetcht0", "prefetcht1", "prefetcht2", "prefetchnta"})


class PathMachine(ControlFlow, MemoryModel, VectorUnit):
    """Executes decoded instructions over one state (see the module docstring).

    ``initial_reg(name)`` / ``initial_mem(region, offset)`` give data values
    of untouched registers and memory words, as for ``machine.Machine``;
    ``block`` is the data region's current block offset (``64*k``);
    ``data_size`` the data buffer's length in bytes (``64*n``): a read outside
    the current block (OpenSSL reads the next block ahead) is allowed only
    where the path condition keeps it inside the buffer (else a violation);
    without ``data_size`` it is refused.
    """

    def __init__(self, program: Program, domain, initial_reg, initial_mem, state: State, *,
                 bits: int, block: z3.BitVecRef | None = None, axioms: list | None = None,
                 stack_writable: Callable[[int], bool] | None = None,
                 data_size: z3.BitVecRef | None = None, data_writable: bool = False,
                 counter: int | None = None, block_in_context: int | None = None, state_wide: bool = False,
                 scratch: tuple[int, int] | None = None, select_cmov: bool = False, messages: int = 0) -> None:
        self.p = program
        self.messages = messages        # the multi-buffer contract: the descriptors the caller gives (``lanes``)
        # an undecided ``cmov`` selects instead of forking -- two integers by z3's ``If``, two pointers by a
        # ``Choice``: the multi-buffer contract, whose prologue takes the largest of 8 counts by a chain of
        # ``cmovg`` and parks every message's pointer by a ``cmov`` each iteration (``streams``)
        self.select_cmov = select_cmov
        self.state_wide = state_wide            # ``state@S wide``: the state words are 64-bit slots' low halves
        self.scratch = scratch                  # ``state@S + workspace@W[N]``: its bytes [lo, hi) from the state
        self.data_writable = data_writable      # the contract's ``data clobbered``: the block may be written
        self.counter = counter      # ``state counter@OFFSET``: the counter's low word's offset from the state words
        self.block_in_context = block_in_context    # ``state@S + words@D``: the block at state + (D - S)
        self.domain = domain
        self.initial_reg = initial_reg
        self.initial_mem = initial_mem
        self.s = state
        self.bits = bits
        self.block = block if block is not None else z3.BitVecVal(0, bits)
        self.axioms = axioms if axioms is not None else []
        self.stack_writable = stack_writable or (lambda off: off < 0)
        self.data_size = data_size
        # The entry stack pointer's address: realignments (``and $-64``) are exact in it, so
        # aligned vector accesses to the realigned frame are proved aligned; the contract's
        # entry alignment (SysV: 8 mod 16) is an axiom over it (``function.prove_function``).
        self.stack_base = stack_base(bits)
        self._fresh = itertools.count()
        self._slot = 0
        # Replay (``run``) re-executes a trace ``explore`` produced, where the buffer bounds and
        # alignments were proved on this path already: they are not asked of z3 again.
        self.replaying = False
        self._inside = 64          # reads below block + _inside are proved inside the buffer
        self.on_write = None
        self.decide = None        # the step's branch decider (``step``): a load of a function pointer forks by it
        self.replay_index = 0     # ``run``: the position in the trace of the instruction being replayed
        self.exited = False

    # -- z3 helpers ----------------------------------------------------------
    def bv(self, v: int, bits: int | None = None) -> z3.BitVecRef:
        key = (v, bits or self.bits)
        got = _BV.get(key)
        if got is None:
            got = _BV[key] = z3.BitVecVal(v, bits or self.bits)
        return got

    def possible(self, c) -> bool:
        c = z3.simplify(c)
        if z3.is_true(c):
            return True
        if z3.is_false(c):
            return False
        s = z3.Solver()
        s.set("timeout", 5000)
        s.add(*self.axioms, *self.s.cond, c)
        r = s.check()
        return r != z3.unsat

    def implies(self, goal) -> bool:
        """``goal`` holds on every state of this path (z3 says unsat for its negation)."""
        return not self.possible(z3.Not(goal))

    # -- registers -------------------------------------------------------------
    def reg_raw(self, r: Reg, d: Decoded):
        if r.name not in self.s.regs:
            raise Refused(d, f"%{r.name} is read before it is written (no value on entry)", "untracked value")
        return self.s.regs[r.name]

    def read_data(self, op, d: Decoded):
        if isinstance(op, Imm):
            return self.domain.const(op.value & MASK32)
        if isinstance(op, Reg):
            name = "ecx" if op == CL else op.name
            v = self.s.regs.get(name)
            if v is None or (isinstance(v, Opq) and "[" not in v.name):   # (half an entry value: refused)
                v = self.initial_reg(name)
                self.s.regs[name] = v
            return self._as_data(v, d, str(op))
        v = self.load(self.address(op, d), 4, d)
        return self._as_data(v, d, str(op))

    def _as_data(self, v, d: Decoded, what: str):
        if isinstance(v, Int):
            s = z3.simplify(v.v)
            if z3.is_bv_value(s):
                return self.domain.const(s.as_long() & MASK32)
            raise Refused(d, f"{what} holds a count ({s}) but is used as data", "untracked value")
        if isinstance(v, Ptr):
            raise Refused(d, f"{what} holds a pointer into {v.region} but is used as data", "untracked value")
        if isinstance(v, DataPair):
            return v.lo                 # (a 32-bit read of a 64-bit register: its low half)
        if isinstance(v, Opq):
            raise Refused(d, f"{what} holds the caller's {v.name} but is used as data", "untracked value")
        return v

    def set_reg(self, r: Reg, v, d: Decoded) -> None:
        self.s.regs[r.name] = v
        self._written(("reg", r.name), v, d)

    # -- integer / pointer values ---------------------------------------------------
    def operand_value(self, op, d: Decoded, width: int):
        """An operand as Int/Ptr/Opq/data (no conversion)."""
        if isinstance(op, Imm):
            if d.imm_ref is not None and not d.gotpc and d.mnemonic not in ("call", "jmp"):
                return Ptr(d.imm_ref.region, self.bv(d.imm_ref.offset))
            return Int(self.bv(op.value & ((1 << self.bits) - 1)))
        if isinstance(op, Reg):
            name = "ecx" if op == CL else op.name
            v = self.s.regs.get(name)
            if v is None:
                v = self.initial_reg(name)
                self.s.regs[name] = v
            if width == 4 and self.bits == 64 and isinstance(v, Int):
                return Int(z3.ZeroExt(32, z3.Extract(31, 0, v.v)))
            if width == 4 and isinstance(v, DataPair):
                return v.lo             # (a 32-bit read of two data words held whole: the low one)
            if op == CL and isinstance(v, Int):
                return Int(v.v & self.bv(0xFF))
            return v
        if d.got_slot:
            return self.got_value(op, d, width)
        return self.load(self.address(op, d), width, d)

    def _int(self, v, d: Decoded, what: str) -> z3.BitVecRef:
        if isinstance(v, Int):
            return v.v
        raise Refused(d, f"{what} is not an integer here", "untracked value")

    def _bits(self, v, d: Decoded, what: str) -> z3.BitVecRef:
        """An integer, or a stack address as the number it is (``stack_base + off``): the bits of ``%rsp`` that
        a realignment computes on (libgcrypt: ``mov %rsp,%rax; neg %rax; and $15,%eax; add`` rounds up to 16),
        exact in the entry stack pointer, whose alignment is the contract's axiom. Other pointers have no known
        address: refused."""
        if isinstance(v, Ptr) and v.region == "stack":
            return self.stack_base + v.off
        return self._int(v, d, what)

    # -- one instruction -----------------------------------------------------------------
    def step(self, d: Decoded, decide: Callable | None = None) -> None:
        """Execute ``d``; ``decide(cond)`` picks a branch direction (exploration) or None (replay: trace order)."""
        m = d.mnemonic
        self.decide = decide
        if isinstance(d, Havoc):              # (a loop's summary state: ``summary``)
            apply_havoc(self, d)
            return
        if d.rewritten:                     # (a nop a relocation rewrites is not a nop: checked before skipping)
            raise Refused(d, f"{m}: {d.rewritten}", "instruction")
        if m in ("nop", "endbr64", "endbr32") or m in PREFETCHES:
            self.s.pc_addr = (self.s.pc_addr[0], d.next)
            return
        if m not in CONTROL and m not in SEMANTICS and m not in _INT_ONLY and not m.startswith("cmov"):
            raise Refused(d, f"unsupported instruction {m}", "instruction")
        if d.problem:
            raise Refused(d, f"{m}: {d.problem}", "instruction")
        ops = d.ins.operands
        sec = self.s.pc_addr[0]
        nxt = (sec, d.next)
        self.s.pc_addr = nxt
        if m in SEMANTICS and SEMANTICS[m].vector:
            self.vector_step(d, SEMANTICS[m])
            return
        if m in CONTROL:
            self._control(d, m, ops, decide, sec, nxt)
            return
        w = d.width or 4
        kinds = []
        for k, o in enumerate(ops):
            if isinstance(o, Mem) and m == "lea":
                continue
            if k == len(ops) - 1 and m in ("mov", "lea", "movzx", "andn", "rorx", "movsxd"):
                continue
            if isinstance(o, Mem):
                kinds.append(self.operand_value(o, d, d.msize or w))
            elif isinstance(o, Reg):
                kinds.append(self.operand_value(o, d, w if o != CL else 1))
        numeral = [isinstance(v, Int) and z3.is_bv_value(z3.simplify(v.v)) for v in kinds]
        symbolic = any(not is_data(v) and not num for v, num in zip(kinds, numeral))
        # Constants stay integers while only constants meet (a round counter); meeting data they become data.
        wide = w == 8 or symbolic or (m in _WIDE and all(numeral) and not any(is_data(v) for v in kinds))
        same_reg_zero = m in ("xor", "sub") and len(ops) == 2 and ops[0] == ops[1] and isinstance(ops[0], Reg)
        if m == "mov" and isinstance(ops[0], Imm):
            wide = True
        if m == "mov" and not isinstance(ops[0], Imm):
            src = self.operand_value(ops[0], d, w)
            wide = not is_data(src) or w == 8
        if m in _INT_ONLY or m.startswith("cmov"):
            wide = True
        if m == "lea":
            # (a 64-bit lea of data -- base and index both data -- is its low half, the 32-bit lea: ``_data``)
            mem = ops[0]
            wide = self._lea_is_pointer(mem, d) or (w == 8 and (self.bits == 32 or mem.base is None and
                                                                mem.index is None))
        if same_reg_zero:
            self.set_reg(ops[1], Int(self.bv(0)), d)
            self.set_flags_logic(self.bv(0), w)
            return
        if m.startswith("cmov"):
            self._cmov(d, m, ops, w, decide)
        elif wide:
            self._wide(d, m, ops, w)
        else:
            self._data(d, m, ops)

    def _lea_is_pointer(self, mem: Mem, d: Decoded) -> bool:
        if d.mem_ref is not None or d.pcrel is not None:
            return True
        for r in (mem.base, mem.index):
            if r is not None and not is_data(self.s.regs.get(r.name, 0) if r.name in self.s.regs else self.initial_reg(r.name)):
                return True
        return False

    def _data(self, d: Decoded, m: str, ops) -> None:
        sem = SEMANTICS.get(m)
        if sem is None:
            raise Refused(d, f"{m} on data is not modelled", "instruction")
        dom = self.domain
        value = value_of(d.ins, dom, lambda o: self.read_data(o, d))
        dst = ops[-1]
        if isinstance(dst, Reg):
            self.set_reg(dst, value, d)
        else:
            self.store(self.address(dst, d), value, 4, d)
        if sem.writes_flags:
            self.s.flags = Flags(None, None, None, None, data=True, computed=True)

    def _write(self, dst, v, w: int, d: Decoded) -> None:
        if isinstance(dst, Reg):
            if isinstance(v, Int) and w == 4 and self.bits == 64:
                v = Int(z3.ZeroExt(32, z3.Extract(31, 0, v.v)))
            if isinstance(v, Ptr) and w == 4 and self.bits == 64:
                raise Refused(d, "a pointer truncated to 32 bits", "untracked value")
            if isinstance(v, Opq) and w == 4 and self.bits == 64:
                # a 32-bit write zero-extends: two data words keep the low one; any other opaque value (an entry
                # value: ``mov %ebx, %ebx`` is not %rbx restored) becomes its low half, a value of its own
                v = v.lo if isinstance(v, DataPair) else Opq(v.name + ("[31:0]" if "[" not in v.name else
                                                                         " [low 32 bits]"))
            self.set_reg(dst, v, d)
        else:
            self.store(self.address(dst, d), v, w, d)

    def _wide(self, d: Decoded, m: str, ops, w: int) -> None:
        """Integer and pointer arithmetic, at the operand width."""
        if m in ("mov", "movzx", "movsxd"):
            src_size = w if m == "mov" else (4 if m == "movsxd" else (d.msize or d.width))
            if m == "movzx" and isinstance(ops[0], Reg) and ops[0].width < 8 * src_size:
                src_size = ops[0].width // 8        # (``movzbl %cl, %ecx``: the byte register's width, not the 32-bit)
            v = self.operand_value(ops[0], d, src_size)
            if m == "movzx" and isinstance(ops[0], Reg) and not isinstance(v, Int):
                # (a register's low byte of data, a pointer or an entry value: none is modelled as a byte)
                raise Refused(d, f"movzx of the low byte of {ops[0]}, which holds no integer", "untracked value")
            if m == "movzx" and isinstance(v, Int) and src_size < self.bits // 8:
                v = Int(v.v & self.bv((1 << (8 * src_size)) - 1))
            if m == "movsxd" and isinstance(v, Int):
                v = Int(z3.SignExt(32, z3.Extract(31, 0, v.v)))
            self._write(ops[1], v, w, d)
            return
        if m == "lea":
            mem: Mem = ops[0]
            if d.mem_ref is not None or d.pcrel is not None:
                v = self.address(mem, d)
            else:
                parts = []
                if mem.base is not None:
                    parts.append(self.operand_value(mem.base, d, 8 if mem.base.width == 64 else 4))
                if mem.index is not None:
                    iv = self.operand_value(mem.index, d, 8 if mem.index.width == 64 else 4)
                    if not isinstance(iv, Int):
                        raise Refused(d, "scaled pointer", "untracked value")
                    parts.append(Int(iv.v * self.bv(mem.scale)))
                parts.append(Int(self.bv(mem.disp & ((1 << self.bits) - 1))))
                v = parts[0]
                for q in parts[1:]:
                    v = self._add(v, q, d)
            self._write(ops[1], v, w, d)
            return
        dst = ops[-1]
        x = self.operand_value(dst, d, w)
        if m in ("inc", "dec", "neg", "not"):
            xv = self._int(x, d, str(dst)) if m in ("inc", "dec") else self._bits(x, d, str(dst))
            if m == "not":
                self._write(dst, Int(~xv), w, d)
                return
            r = xv + 1 if m == "inc" else (xv - 1 if m == "dec" else -xv)
            old_cf = self.s.flags.cf if (self.s.flags and not self.s.flags.data) else None
            if m == "neg":
                self.set_flags_sub(self.bv(0), xv, r, w)
            else:
                (self.set_flags_add if m == "inc" else self.set_flags_sub)(xv, self.bv(1), r, w)
                self.s.flags.cf = old_cf
            self._write(dst, Int(r), w, d)
            return
        y = self.operand_value(ops[0], d, w) if len(ops) == 2 else Int(self.bv(1))
        if m == "adc":
            # add with carry, on integers only (a byte counter's high word: ``state counter@OFFSET``): x + y + CF
            cf = self.s.flags.cf if self.s.flags is not None and not self.s.flags.data else None
            if not (isinstance(x, Int) and isinstance(y, Int)):
                raise Refused(d, "adc is modelled on integers only (a counter's carry), not on data or pointers",
                              "instruction")
            if cf is None:
                raise Refused(d, "adc after flags no instruction has set (or set from data)", "untracked value")
            self._write(dst, Int(x.v + y.v + z3.If(cf, self.bv(1), self.bv(0))), w, d)
            self.s.flags = None             # (its flags are not modelled: a branch on them is refused)
            return
        if m in ("add", "sub", "cmp"):
            r = self._add(x, y, d) if m == "add" else self._sub(x, y, d)
            a = self._flag_view(x)
            b = self._flag_view(y)
            if a is not None and b is not None:
                rv = a + b if m == "add" else a - b
                (self.set_flags_add if m == "add" else self.set_flags_sub)(a, b, rv, w)
            else:
                self.s.flags = None
            if m != "cmp":
                self._write(dst, r, w, d)
            return
        if m in ("and", "or", "xor", "test"):
            if isinstance(x, Ptr) and m == "and" and isinstance(y, Int):
                yv = z3.simplify(y.v)
                if z3.is_bv_value(yv):
                    mask = signed(yv.as_long(), self.bits)
                    if mask < 0 and (-mask) & (-mask - 1) == 0:
                        # realignment: off - a, 0 <= a < alignment (a fixed unknown of this call)
                        # (facts of this path: kept in its condition, not in the shared axioms)
                        a = z3.BitVec(f"align{next(_ALIGN)}", self.bits)
                        self.s.cond.append(z3.ULT(a, self.bv(-mask)))
                        if x.region == "stack":   # exact: the low bits of the address being cleared
                            self.s.cond.append(a == (self.stack_base + x.off) & self.bv(-mask - 1))
                        self._write(dst, Ptr(x.region, x.off - a), w, d)
                        self.s.flags = None
                        return
            low = self._low_halves(x, y, d)
            if low is not None:             # (64-bit data: the low half is the 32-bit operation's)
                if m != "test":
                    self._write(dst, self.domain.apply(m, *low), w, d)
                self.s.flags = Flags(None, None, None, None, data=True, computed=True)
                return
            if isinstance(x, Ptr) and x.region != "stack" or isinstance(y, Ptr) and y.region != "stack":
                raise Refused(d, "bit operation on a pointer", "untracked value")
            xv, yv = self._bits(x, d, str(dst)), self._bits(y, d, str(ops[0]))
            r = {"and": xv & yv, "test": xv & yv, "or": xv | yv, "xor": xv ^ yv}[m]
            self.set_flags_logic(r, w)
            if m != "test":
                self._write(dst, Int(r), w, d)
            return
        if m in ("shl", "shr", "sar"):
            xv, yv = self._bits(x, d, str(dst)), self._int(y, d, str(ops[0]))
            cnt = yv & self.bv(63 if w == 8 else 31)
            xv = self._trunc(xv, w)
            cnt = self._trunc(cnt, w)
            r = xv << cnt if m == "shl" else (z3.LShR(xv, cnt) if m == "shr" else xv >> cnt)
            self.s.flags = Flags(r == 0, self._msb(r, w), None, None)
            self._write(dst, Int(z3.ZeroExt(self.bits - 8 * w, r) if 8 * w < self.bits else r), w, d)
            return
        raise Refused(d, f"{m} on pointers or counts is not modelled", "untracked value")

    def _flag_view(self, v):
        if isinstance(v, Int):
            return v.v
        if isinstance(v, Ptr):
            return None
        return None

    def _add(self, x, y, d: Decoded):
        if d.gotpc:
            # i386 PIC: ``call __x86.get_pc_thunk.bx`` leaves the address after the call (the add's own, a
            # code pointer), and R_386_GOTPC makes the immediate GOT - that address: the sum is the GOT base.
            here = f"sec:{self.s.pc_addr[0]}"
            if not (isinstance(x, Ptr) and x.region == here and isinstance(y, Int)):
                raise Refused(d, "_GLOBAL_OFFSET_TABLE_ added to a value that is not a code address", "address")
            return Ptr("got", z3.simplify(x.off + self.bv(d.imm_ref.offset)))
        if isinstance(y, Int) and z3.is_bv_value(z3.simplify(y.v)) and z3.simplify(y.v).as_long() == 0:
            return x                      # lea 0(%esi), %esi: a multi-byte nop
        if isinstance(x, Int) and isinstance(y, Int):
            return Int(x.v + y.v)
        if isinstance(x, Ptr) and isinstance(y, Int):
            return Ptr(x.region, x.off + y.v)
        if isinstance(x, Int) and isinstance(y, Ptr):
            return Ptr(y.region, y.off + x.v)
        low = self._low_halves(x, y, d)
        if low is not None:
            return self.domain.apply("add", *low)
        raise Refused(d, "addition of a pointer and a non-integer", "untracked value")

    def _low_halves(self, x, y, d: Decoded):
        """The low 32-bit halves of a 64-bit ``add``/``sub``/``and``/``or``/``xor`` of data and data or a numeral,
        else None.

        Data in a 64-bit register is tracked in its low 32 bits only (its upper
        half is never read: used as an address, a count, shifted or rotated as
        64 bits or moved whole into a vector register it is refused), and the
        low half of a 64-bit sum, difference or bitwise operation (or ``lea``,
        ``step``) is the 32-bit one of the low halves, so the result is data
        again. Example (gcc's SHA-1 in libdbus): ``mov $0xca62c1d6, %r12d; mov
        %ebp, %ebp; add %r12, %rbp`` -- %rbp's low half is ebp + 0xca62c1d6;
        NSS's ``xor %r8, %rdx`` of two state slots' values is their low halves'
        xor, whatever the upper halves hold. The flags of the 64-bit result are
        not tracked."""
        if self.bits != 64 or d.width != 8 or not (is_data(x) or is_data(y)):
            return None
        halves = []
        for v in (x, y):
            if is_data(v):
                halves.append(v)
                continue
            c = z3.simplify(v.v) if isinstance(v, Int) else None
            if c is None or not z3.is_bv_value(c):
                return None
            halves.append(self.domain.const(c.as_long() & 0xFFFFFFFF))
        return tuple(halves)

    def _sub(self, x, y, d: Decoded):
        if isinstance(x, Int) and isinstance(y, Int):
            return Int(x.v - y.v)
        if isinstance(x, Ptr) and isinstance(y, Int):
            return Ptr(x.region, x.off - y.v)
        if isinstance(x, Ptr) and isinstance(y, Ptr) and x.region == y.region:
            return Int(x.off - y.off)
        apart = cbc.distance(x, y, self.bits)       # (out - inp of a stitched AES-CBC function)
        if apart is not None:
            return apart
        low = self._low_halves(x, y, d)
        if low is not None:
            return self.domain.apply("sub", *low)
        if any(isinstance(v, Ptr) and v.region.startswith(RESULT_REGION) for v in (x, y)):
            # (strchr's result points into its argument when that is a read-only string, ``calls._result``)
            raise Refused(d, "subtraction of pointers into different objects a known function returned",
                          "address")
        raise Refused(d, "subtraction of unlike values", "untracked value")

    # -- replay: the interface composition.check_program drives -------------------------
    def run(self, program, on_write=None) -> None:
        """Replay ``program`` (a trace of ``Decoded``); branches follow the trace."""
        self.on_write = on_write
        self.replaying = True
        trace = list(program)
        for i, d in enumerate(trace):
            self.replay_index = i
            self._slot = 0
            self.s.pc_addr = (self.s.pc_addr[0], d.address) if self.s.pc_addr[0] else self.s.pc_addr
            self.step(d, None)
            if d.mnemonic in BRANCHES and i + 1 < len(trace):
                self.s.pc_addr = (self.s.pc_addr[0], trace[i + 1].address)
        self.on_write = None
        self.replaying = False

    def get(self, loc):
        if loc[0] == "reg" and "." in loc[1]:
            return self.vector_lane(loc[1])
        if loc[0] == "reg":
            v = self.s.regs.get(loc[1])
            return v if v is not None else self.initial_reg(loc[1])
        key = (loc[1], "", loc[2])
        v = self.s.mem[key][0] if key in self.s.mem else self.initial_mem(loc[1], loc[2])
        if isinstance(v, Int) and z3.is_bv_value(z3.simplify(v.v)):
            return self.domain.const(z3.simplify(v.v).as_long() & MASK32)
        return v


_ALIGN = itertools.count()
_BV: dict[tuple[int, int], z3.BitVecRef] = {}

__all__ = ["PathEnd", "PathMachine", "Program", "State", "explore", "Int", "Opq", "Ptr", "Refused", "Violation",
           "is_data"]
