"""The path machine's memory: addresses, regions, loads and stores (``MemoryModel``, a mixin of ``executor.PathMachine``).

Invariant: every word the machine has read or written is one entry of
``state.mem`` keyed by ``(region, symbolic part, constant offset)`` with its
value and size; a data-region key is relative to the current block
(``block = 64*k``), so word j of block k is ``("data", "", j)`` whatever k is.
Example: with ``%rsi = Ptr("data", 64*k)``, ``movl 8(%rsi), %eax`` reads key
``("data", "", 8)`` -- the spec's ``m2`` -- and ``movl %eax, -4(%rsp)``
writes ``("stack", "", -4)``. Two keys whose constant parts overlap without
being equal are refused (a partial overlap); stack keys with different
symbolic parts (a realigned frame) are asked of z3. Writes are allowed only
to the stack below the entry stack pointer (``stack_writable``), to the
5 state words and, under ``data clobbered`` (``data_writable``, one block),
to the block's 16 words, under ``state counter@OFFSET`` (``counter``) to the
counter's two words as integers (the entry state holds them, ``counter+0`` /
``counter+4``, 32-bit constants, and every state carries them on: an absent
one is refused, never assumed the caller's; any other access of the counter's
8 bytes is refused; their final value is ``counter.counted``'s) -- a read after such a
write gives what was written; anything else is a ``Violation``, never ignored. A read past
the current block (read-ahead) is allowed only where the path condition
keeps it inside the data buffer (``data_size``). The stack guard (``canary``)
is a read-only region of one word, the same opaque constant at every read.
The state's context (``interface``: ``state@OFFSET``) outside the 5 state words is
the caller's: a 32-bit word there reads as a data value, a byte, half-word or
quad-word as an integer the proof does not know; writes there are violations --
except inside a workspace declared in it (``state@S + workspace@W[N]``, ``scratch``: bytes relative to the
state words), written at any width and read back as written. A wide state (``state@S wide``, ``state_wide``)
is five 64-bit slots at 0, 8, .., 32: a slot read whole is h_i (its low half; a 64-bit value's upper half is
never tracked), a 32-bit half read alone h_i or the upper half's own unknown, and a slot or either half may be
written (upper halves are not checked on exit).
A context that also holds the block (``state@0x40 + words@0``, ``block_in_context`` = -0x40) has it as the
data region: an access wholly inside its 64 bytes is one of the data region (``state-0x3c`` is
``("data", "", 4)``), one straddling its edge is refused (``_in_context``).
A relocatable object's writable word another object or the object's own code may change is an input too
(``statics.run_time_name``) -- except the function's own static set on first use (``Program.own_static``), one
of the values it can hold, each store of it checked to be one of them (``_store_static``) -- and the function's
own static buffer (``Program.own_scratch``), which it may write, a word not yet written on the path an input. A GOT slot's ``mov`` loads the symbol's address (``got_value``; an input region ``ext:SYM`` for a flag another
object defines or a writable one), whose words are then inputs (``ext:``, new unknowns after a call that may
change global data). A linked object's read past the section its address was computed from is of the section
holding it (``_relocated``). The object's own function pointers read as one of their values and may be stored
with a code address (``calls.load_pointer`` / ``store_pointer``); any other write to the object is a violation.
A linked object's function pointer (a word the loader relocates to its code, ``decode.linked_ref``) is one too;
where its values are not bounded a read of it is an input named by its address, as before. getenv's string
(``calls.Known``, ``string or null``) reads as unknown bytes at constant offsets -- at a computed one (strchr's
``s + k``, a loop summary's pointer) as new unknowns -- and is never written (``_returned_string``); a computed
offset into any other region stays refused.
"""

from __future__ import annotations

import z3

from sha1opt.semantics.lift import cbc, lanes
from sha1opt.semantics.lift.canary import CANARY_REGION, guard_value
from sha1opt.semantics.lift.decode import Decoded, linked_ref
from sha1opt.semantics.lift.statics import run_time_name
from sha1opt.semantics.lift.summary import one_value
from sha1opt.semantics.lift.values import RESULT_REGION, STRING_MARK, DataPair, Int, Opq, Ptr, Refused, Violation, is_data
from sha1opt.semantics.lift.values import memory_key as _split
from sha1opt.semantics.x86 import Mem


FRAME_LIMIT = 1 << 24       # the deepest own frame a computed stack offset may reach (16 MiB below the entry)


class MemoryModel:
    """Addresses and memory of a ``PathMachine`` (module docstring); needs its ``s``, ``p``, ``bv``,
    ``possible``, ``implies``, ``domain``, ``initial_mem``, ``block``, ``data_size``, ``bits``,
    ``stack_writable``, ``data_writable``, ``block_in_context``, ``state_wide``, ``scratch``, ``replaying`` and
    ``on_write``."""

    def _in_context(self, p: Ptr, size: int, d: Decoded) -> Ptr:
        """``p`` as the data region's address when the state's context holds the block and the ``size`` bytes
        at ``p`` are inside it; else ``p``. Bytes both in and out of the block are refused: the two regions
        are modelled apart, so such an access has no one value."""
        lo = self.block_in_context
        if lo is None or p.region != "state":
            return p
        rest, c = _split(p.off)
        if rest:
            return p            # (a computed offset into the state's context: refused where it is used)
        if lo <= c and c + size <= lo + 64:
            return Ptr("data", self.block + self.bv(c - lo))
        if c < lo + 64 and lo < c + size:
            raise Refused(d, f"a {size}-byte access at state{c:+d} straddles the edge of the block in the context",
                          "address")
        return p

    def got_value(self, m: Mem, d: Decoded, size: int) -> Ptr:
        """What a ``mov`` from a GOT slot loads: the symbol's address (``decode.got_address``). i386's slot is
        addressed from the GOT pointer, which its base register must hold."""
        if 8 * size != self.bits:
            raise Refused(d, "a GOT slot read in part", "address")
        if m.base is not None and m.base.name != "rip":
            base = self.s.regs.get(m.base.name)
            if not (isinstance(base, Ptr) and base.region == "got" and _split(base.off) == ("", 0)):
                raise Refused(d, "@GOT slot without the GOT pointer in its base register", "address")
        return Ptr(d.mem_ref.region, self.bv(d.mem_ref.offset))

    def address(self, m: Mem, d: Decoded) -> Ptr:
        if d.got_slot:
            raise Refused(d, "a GOT slot used as an address (only a mov of the address it holds is modelled)",
                          "address")
        if d.mem_ref is not None:
            if d.gotoff:
                base = self.s.regs.get(m.base.name) if m.base else None
                if not (isinstance(base, Ptr) and base.region == "got" and _split(base.off) == ("", 0)):
                    raise Refused(d, "@GOTOFF address without the GOT pointer in its base register", "address")
            elif m.base is not None:
                raise Refused(d, "relocated address with a base register", "address")
            p = Ptr(d.mem_ref.region, self.bv(d.mem_ref.offset))
        elif d.pcrel is not None:
            b = self.s.regs.get(m.base.name) if m.base else None
            here = f"sec:{self.s.pc_addr[0]}"
            if not (isinstance(b, Ptr) and b.region == here and z3.is_bv_value(z3.simplify(b.off))):
                raise Refused(d, "PC-relative displacement without a code address in its base register", "address")
            p = Ptr(d.pcrel.region, self.bv(d.pcrel.offset + z3.simplify(b.off).as_long() - d.pcrel_at))
        else:
            if m.base is None:
                raise Refused(d, "absolute address", "address")
            b = self.s.regs.get(m.base.name)
            x = self.s.regs.get(m.index.name) if m.index is not None else None
            if isinstance(b, Int) and isinstance(x, Ptr) and m.scale == 1 and m.index.width == 64 == self.bits:
                # (an integer base and a pointer index: the same sum, ``movups %xmm2, (%r13,%r12)``)
                return cbc.rebase(Ptr(x.region, x.off + b.v + self.bv(m.disp)), self.bits)
            if not isinstance(b, Ptr):
                raise Refused(d, f"address base {m.base} does not hold a pointer", "untracked value")
            p = Ptr(b.region, b.off + self.bv(m.disp))
        if m.index is not None:
            iv = self.s.regs.get(m.index.name)
            if not isinstance(iv, Int):
                raise Refused(d, f"index register {m.index} does not hold an integer", "untracked value")
            idx = iv.v if m.index.width == 64 or self.bits == 32 else z3.ZeroExt(self.bits - 32, z3.Extract(31, 0, iv.v))
            idx = one_value(self, idx)          # (a loop summary's flag of a few values: one a path)
            p = Ptr(p.region, p.off + idx * self.bv(m.scale))
        return cbc.rebase(p, self.bits)         # (plain + (cipher - plain): the ciphertext, ``cbc``)

    def _key(self, p: Ptr) -> tuple[str, str, int]:
        off = p.off
        if p.region in ("data", "plain", "cipher"):
            off = off - self.block
        rest, c = _split(off)
        return (p.region, rest, c)

    def _overlap(self, key, size: int, d: Decoded) -> None:
        region, rest, c = key
        for (r2, rest2, c2), (_, size2) in self.s.mem.items():
            if r2 != region or (rest2, c2) == (rest, c):
                continue
            if rest2 == rest:
                if c < c2 + size2 and c2 < c + size:
                    raise Refused(d, f"accesses {region}{'+' + rest if rest else ''}{c:+d} and {c2:+d} partially "
                                     "overlap", "untracked value")
            elif region == "stack":
                pass  # checked below with the solver
        others = [(k, sz) for k, (_, sz) in self.s.mem.items() if k[0] == "stack" and k[1] != rest]
        if not others:
            return
        # Different symbolic parts of stack addresses (a realigned frame): ask z3 whether they can overlap.
        me = self._stack_offsets.get(key)
        if me is None:
            return
        # [me, me + size) and [o2, o2 + sz2) meet iff me - o2 lies in (-size, sz2); one question for all of them
        meets = [z3.ULT(me - o2 + self.bv(size - 1), self.bv(size + sz2 - 1))
                 for o2, sz2 in ((self._stack_offsets.get(k2), sz2) for k2, sz2 in others) if o2 is not None]
        if meets and self.possible(z3.Or(*meets)):
            raise Refused(d, "a realigned stack access may overlap another stack slot", "address")

    @property
    def _stack_offsets(self) -> dict:
        if not hasattr(self, "_so"):
            self._so = {}
        return self._so

    def load(self, p: Ptr, size: int, d: Decoded):
        key = self._key(self._in_context(p, size, d))
        if key[0].startswith(RESULT_REGION):
            return self._returned_string(key, size, d)
        if key[0] == "data" and size in (1, 2) and not key[1]:
            # bytes of the block: a shifted, masked message word (of the caller's, never one the code wrote)
            c = key[2]
            if ("data", "", c - c % 4) in self.s.mem:
                raise Refused(d, "a byte read of a data word the code overwrote", "untracked value")
            if not 0 <= c < 64:
                self._inside_buffer(c, size, d)
            if c // 4 != (c + size - 1) // 4:
                raise Refused(d, "a read straddling two message words", "untracked value")
            word = self.initial_mem("data", c - c % 4)
            dom = self.domain
            v = dom.apply("shr", word, dom.const(8 * (c % 4))) if c % 4 else word
            return dom.apply("and", v, dom.const((1 << (8 * size)) - 1))
        if key in self.s.mem:
            v, sz = self.s.mem[key]
            hi = self.s.mem.get((key[0], key[1], key[2] + 4), (None, 0))
            if sz == 4 and 8 * size == self.bits == 64 and is_data(v) and hi[1] == 4 and is_data(hi[0]):
                # two 32-bit data words (vector lanes stored whole) read as one 64-bit value: a value the code
                # may only move, store or take apart (``values.DataPair``), never compute on
                return DataPair(f"{key[0]}{key[2]:+d} [two 32-bit data words read as one 64-bit value]", v, hi[0])
            # (a 32-bit data value spilled with a 64-bit move -- clang's red zone -- reads back as itself; a wide
            # state slot whose low half was written 32-bit, read whole, has that value in its low half)
            if sz != size and not (sz == 8 and size == 4 and is_data(v)) and not (
                    sz == 4 and size == 8 and is_data(v) and self._wide_slot(key)):
                raise Refused(d, f"{size}-byte read of a {sz}-byte slot", "untracked value")
            return v
        if key[0] == "stack":
            self._stack_offsets[key] = p.off        # (before ``_overlap``, which asks z3 about this offset)
        self._overlap(key, size, d)
        region, rest, c = key
        if region.startswith("sec:") and not rest:
            region, c = self._relocated(region, c, size)
        if region == "stack":
            if rest:
                raise Refused(d, "read of an unwritten realigned stack slot", "untracked value")
            v = self.initial_mem("stack", c) if size == 4 else Opq(f"stack{c:+d}")
        elif region == "state" and not rest and self._in_counter(c, size):
            # ``state counter@OFFSET``: the entry state holds the counter's two words (``function.entry_state``)
            # and every state derived from it carries them: one absent is a value no proof tracked, never
            # assumed to be the caller's (an invariant that dropped it would claim so unchecked)
            raise Refused(d, f"reads the byte counter (state{c:+d}) where its value is not tracked"
                          if size == 4 and (c - self.counter) % 4 == 0 else
                          f"reads the byte counter other than as its two 32-bit words ({size} bytes at state{c:+d})",
                          "untracked value")
        elif region == "state" and not rest and self.state_wide and 0 <= c < 40:
            # ``state@S wide``: slot i (8 bytes at 8i) read whole is h_i in its low half, its upper half never
            # tracked (``interface``'s invariant); a 32-bit half read alone is h_i (low) or the slot's upper half,
            # an unknown of its own (``wide_slots``): code whose result depends on it is refuted
            if not (size == 8 and c % 8 == 0 or size == 4 and c % 4 == 0):
                raise Refused(d, f"a {size}-byte access at state{c:+d} of the 64-bit state slots (modelled: a slot "
                              "whole or one 32-bit half)", "address")
            # (not kept in ``s.mem``: a slot read whole and its halves read alone are the same entry values, and
            # only writes there are checked for overlap, ``_overlap`` above)
            return self.initial_mem("state", c)
        elif region == "state":
            if not rest and size != 4 and (c + size <= 0 or c >= 20):
                # a byte, half-word or quad-word of the state's context outside the state words (``state@OFFSET``:
                # the caller's fields, readable): an integer the proof does not know, the same at every read
                v = Int(z3.ZeroExt(self.bits - 8 * size, z3.BitVec(f"context[{c}]", 8 * size))
                        if 8 * size < self.bits else z3.BitVec(f"context[{c}]", self.bits))
            elif rest or size != 4:
                raise Refused(d, "state accessed at a computed offset or not as a 32-bit word", "address")
            else:
                v = self.initial_mem("state", c)
        elif region == "data":
            if not rest and size == 8 == self.bits // 8 and c % 4 == 0:
                # two message words in one 64-bit register (gcc's vectorized copies): ``values.DataPair``
                if not 0 <= c <= 56:
                    self._inside_buffer(c, size, d)
                return DataPair(f"data{c:+d} [two message words read as one 64-bit value]",
                                self.initial_mem("data", c), self.initial_mem("data", c + 4))
            if rest or size != 4:
                raise Refused(d, "data read at an address that is not block + constant, or not as a 32-bit word",
                              "untracked value")
            if not 0 <= c <= 60:
                self._inside_buffer(c, size, d)
            v = self.initial_mem("data", c)
        elif region.startswith("sec:") and not rest and (own := self.p.own_static(region[4:], c, size)) is not None:
            # (the function's own static, set on first use: one of the values it may hold, ``Program.own_static``)
            v = self._input(own[0], size)
            self.s.cond.append(z3.Or(*[v.v == self.bv(x) for x in sorted(own[1])]))
        elif region.startswith("sec:") and not rest and self.p.obj.relocation_at(region[4:], c) is None \
                and (name := run_time_name(self.p.obj, region[4:], c)) is not None:
            # (a word of the object's writable data that may hold other than the file's bytes: an input)
            v = self._input(name, size)
        elif region.startswith("sec:"):
            raw = self.p.obj.read(region[4:], c, size) if not rest else None
            if raw is None:
                raise Refused(d, f"read outside the object's section {region[4:]}", "address")
            if self.p.obj.relocation_at(region[4:], c) is not None and 8 * size == self.bits:
                v = self.load_pointer(region[4:], c, d)        # (a function pointer: one of its values)
                if isinstance(v, Ptr):      # (else a linked object's unbounded one: an input, read anew after calls)
                    self.s.mem[key] = (v, size)
                return v
            if any(self.p.obj.relocation_at(region[4:], c + i) for i in range(size)):
                raise Refused(d, f"reads a relocated word of {region[4:]} (an address, not a constant)", "address")
            v = Int(self.bv(int.from_bytes(raw, "little"))) if size == 8 else self.domain.const(int.from_bytes(raw, "little"))
        elif region.startswith("ext:"):
            if rest:
                raise Refused(d, f"computed offset into {region[4:]}", "address")
            v = self._input(f"{region[4:]}+{c}", size)
        elif region in cbc.REGIONS:
            v = cbc.load(self, key, size, d)
        elif lanes.is_region(region):
            v = lanes.load(self, key, size, d)
        elif region == CANARY_REGION:
            if rest or c or 8 * size != self.bits:
                raise Refused(d, "the stack guard read in part or at an offset", "address")
            v = Int(guard_value(self.bits))
        else:
            raise Refused(d, f"read from {region}", "address")
        self.s.mem[key] = (v, size)
        if region == "stack":
            self._stack_offsets[key] = p.off
        return v

    def _returned_string(self, key: tuple[str, str, int], size: int, d: Decoded) -> Int:
        """A read of the string a known function returned (``calls.Known.returns`` "string or null": getenv's
        environment string, which the program shall not modify, C11 7.22.4.6): byte ``i`` at a constant offset is
        an integer the proof does not know, ``getenv@0x25#1[i]``, the same at every read on the path (the string
        is read-only: ``store`` refuses a write as a violation), never data of the message; a wider read is its
        bytes, little-endian. Example: ``cmpl $0x6e736561, (%r15)`` compares ``[3]..[0]`` with the constant, a
        branch forking on it like any integer condition. A read at an offset that is not a constant relative to
        the returned pointer (strchr's result ``s + k``, a summarized loop's ``s + offset``, ``summary``) is bytes
        of their own, new unknowns at each such read (``getenv@0x25#1[computed offset] (#7)[0]``, ``results``
        counting them on the path as replay does): the string's contents are arbitrary input, so unknowns not
        tied to the bytes at constant offsets over-approximate every value the read can give -- sound for this
        read-only, unconstrained object only; a computed offset into the state, the data or the stack stays
        refused (``load``). A read of another known function's object (not a string) is refused by name.
        Whether the bytes read lie before the string's NUL is not modelled: every value of them is covered, so
        no outcome is assumed."""
        region, rest, c = key
        name = region[len(RESULT_REGION):]
        if STRING_MARK not in name:
            raise Refused(d, f"reads the object {name} returned (a string whose contents are not modelled)",
                          "address")
        if rest:
            self.s.results += 1
            name = f"{name}[computed offset] (#{self.s.results})"
            c = 0
        v = z3.Concat(*[z3.BitVec(f"{name}[{c + i}]", 8) for i in reversed(range(size))]) if size > 1 else \
            z3.BitVec(f"{name}[{c}]", 8)
        return Int(z3.ZeroExt(self.bits - 8 * size, v) if 8 * size < self.bits else v)

    def _wide_slot(self, key) -> bool:
        """Whether ``key`` is a wide state slot's (``state@S wide``: its low half at state+8i)."""
        return self.state_wide and key[0] == "state" and not key[1] and 0 <= key[2] < 40 and key[2] % 8 == 0

    def _in_counter(self, c: int, size: int) -> bool:
        """Whether ``size`` bytes at state offset ``c`` touch the declared byte counter's 8 bytes."""
        return self.counter is not None and c < self.counter + 8 and self.counter < c + size

    def _input(self, name: str, size: int, calls: int | None = None) -> Int:
        """A word the proof does not know, named ``SYM+offset`` (after a call that may change external data,
        ``calls.Known``: a new unknown); ``calls``: the word as read after that many such calls (default: the
        path's count now)."""
        calls = self.s.calls if calls is None else calls
        name += f" after {calls} call(s)" if calls else ""
        return Int(z3.ZeroExt(self.bits - 8 * size, z3.BitVec(name, 8 * size))
                   if 8 * size < self.bits else z3.BitVec(name, self.bits))

    def _relocated(self, region: str, c: int, size: int) -> tuple[str, int]:
        """A linked object's address past the section it was computed from (i386 PIC: the code address from
        ``call; pop`` plus a constant reaches ``.bss``): the section holding it, by its linked address -- a
        writable section's word is an input named by its address (``ext:mem_4546a0``: what the loader or the
        program put there, not the file's bytes), a read-only one's the file's bytes (``decode.linked_ref``)."""
        obj = self.p.obj
        section = region[4:]
        if obj.relocatable or obj.read(section, c, size) is not None or section not in obj.addresses:
            return region, c
        addr = obj.addresses[section] + c
        ref = linked_ref(obj, obj.section_at(addr), addr)
        return ref.region, ref.offset

    def _inside_buffer(self, c: int, size: int, d: Decoded) -> None:
        """A read at block+c outside the current block: inside the data buffer on this path, or refused."""
        if self.data_size is None or c < 0:
            raise Refused(d, f"reads outside the current block (block{c:+d}): reading ahead is not modelled",
                          "untracked value")
        if self.replaying or c + size <= self._inside:
            return
        for end in sorted({64 * ((c + size + 63) // 64), c + size}, reverse=True):
            top = self.block + self.bv(end)
            if self.implies(z3.And(z3.ULE(top, self.data_size), z3.UGE(top, self.block))):
                self._inside = max(self._inside, end)       # (the whole block around it, once)
                return
        raise Violation(d, f"reads past the end of the data (block{c:+d}) on this path")

    def store(self, p: Ptr, v, size: int, d: Decoded) -> None:
        if isinstance(v, DataPair):         # two data words: stored as the words they are, or the low one
            if size == 4:
                v = v.lo
            elif size == 8:
                self.store(p, v.lo, 4, d)
                self.store(Ptr(p.region, p.off + 4), v.hi, 4, d)
                return
            else:
                raise Refused(d, f"a {size}-byte store of two data words held whole", "untracked value")
        key = self._key(self._in_context(p, size, d))
        region, rest, c = key
        if region == "stack":
            if not rest and not self.stack_writable(c):
                raise Violation(d, f"writes the caller's stack frame (entry stack pointer {c:+d})")
            if rest and not self._in_own_frame(p.off, rest, c, size):
                # (not proved inside: maybe outside -- the caller's frame -- maybe not; refused, never assumed)
                raise Refused(d, "writes the stack at a computed offset not proved below the entry stack pointer "
                              "(the function's own frame)", "address")
        elif region == "state" and not rest and self._in_counter(c, size):
            if size != 4 or (c - self.counter) % 4:
                # (a 64-bit ``addq`` of the whole counter may well be right: not modelled, so never a violation)
                raise Refused(d, f"writes the byte counter other than as its two 32-bit words ({size} bytes at "
                              f"state{c:+d})", "untracked value")
            if not isinstance(v, Int):
                # (not a violation: a value an invariant havocked is not the code's own)
                raise Refused(d, f"writes a value not tracked as an integer into the byte counter (state{c:+d})",
                              "untracked value")
        elif region == "state" and not rest and self.scratch is not None and \
                self.scratch[0] <= c and c + size <= self.scratch[1]:
            pass                                # (the context's workspace: ``state@S + workspace@W[N]``)
        elif region == "state" and rest and self.scratch is not None:
            # (it may well be inside the workspace -- a rolled loop's W[i & 15] -- so never a violation)
            raise Refused(d, "writes the state's context at a computed offset (its workspace is modelled at "
                          "constant offsets only)", "address")
        elif region == "state" and self.state_wide:
            # a slot whole, or one 32-bit half of it (the upper half: any value, not checked on exit)
            if rest or not (0 <= c < 40) or size not in (4, 8) or c % size:
                raise Violation(d, f"writes outside the 5 state slots{' and the workspace' if self.scratch else ''} "
                                   f"(state{c:+d})")
        elif region == "state":
            if rest or not (0 <= c <= 16) or c % 4 or size != 4:
                raise Violation(d, f"writes outside the 5 state words{' and the workspace' if self.scratch else ''} "
                                   f"(state{c:+d})")
        elif region.startswith("sec:") and not rest and (own := self.p.own_static(region[4:], c, size)) is not None:
            self._store_static(region[4:], c, own, v, size, d)
        elif region.startswith("sec:") and not rest and (buf := self.p.own_scratch(region[4:], c)) is not None \
                and self.p.own_scratch(region[4:], c + size - 1) == buf:
            pass                                # (the function's own static buffer: its words are the call's)
        elif region.startswith("sec:") and not rest and region[4:] in self.p.obj.writable:
            self.store_pointer(region[4:], c, v, size, d)     # (a function pointer of the object, or a violation)
        elif region == "data" and self.data_writable:
            if rest or not (0 <= c <= 60) or c % 4 or size != 4:
                raise Violation(d, f"writes the data buffer outside its 16 words or not as a 32-bit word (block{c:+d})")
        elif region in cbc.REGIONS:
            cbc.store(key, size, d)
        elif lanes.is_region(region):
            lanes.store(key, size, d)
        elif region.startswith(RESULT_REGION):
            raise Violation(d, f"writes the string {region[len(RESULT_REGION):]} returned (read-only: C11 7.22.4.6)")
        else:
            raise Violation(d, f"writes {region[4:] if ':' in region else region} memory")
        if region == "stack":
            self._stack_offsets[key] = p.off        # (before ``_overlap``, which asks z3 about this offset)
        if key not in self.s.mem:
            self._overlap(key, size, d)
        elif self.s.mem[key][1] < size:
            if region != "stack" or rest:
                raise Refused(d, f"{size}-byte write over a {self.s.mem[key][1]}-byte slot", "untracked value")
            self._widen(key, size, d)
        self.s.mem[key] = (v, size)
        if region == "stack":
            self._stack_offsets[key] = p.off
        self._written(("mem", region, c) if not rest else None, v, d)

    def _in_own_frame(self, off, rest: str, c: int, size: int) -> bool:
        """Whether ``size`` bytes at stack offset ``off`` = (the symbolic part ``rest``) + ``c`` -- a computed
        offset: a realigned frame, an index -- lie below the entry stack pointer on this path, within
        ``FRAME_LIMIT`` of it: the function's own frame, never the caller's (its return address, arguments and
        locals), whatever the unknowns in ``off`` are. Per ``rest`` the constants proved so far span [lo, end):
        inside that span an access is proved too (rest + lo >= -FRAME_LIMIT and rest + end <= 0 hold, and the
        offsets between are ordered, no wrap-around), so z3 is asked only past it; the span is the path's own
        (``State.spans``), carried to its forks, whose conditions only add to it."""
        if self.replaying:
            return True             # (proved when the path was explored)
        spans = self.s.spans
        lo, end = spans.get(rest, (None, None))
        if lo is not None and lo <= c and c + size <= end:
            return True
        top = off + self.bv(size)
        if not self.implies(z3.And(top <= self.bv(0), off >= self.bv(-FRAME_LIMIT), off < top)):   # (signed)
            return False
        spans[rest] = (c, c + size) if lo is None else (min(lo, c), max(end, c + size))
        return True

    def _widen(self, key, size: int, d: Decoded) -> None:
        """A wider write over a stack slot (a spill slot reused for a 64-bit value, clang's libLLVM-15
        ``SHA1::hashBlock``: ``mov %ebp,-0x40(%rsp)`` then ``mov %rbx,-0x40(%rsp)``): every slot wholly inside
        the written bytes is dropped (its bytes are the new value's); one only partly inside is refused
        (``_overlap``)."""
        region, rest, c = key
        for k2, (_, size2) in list(self.s.mem.items()):
            if k2[:2] == (region, rest) and c <= k2[2] and k2[2] + size2 <= c + size:
                del self.s.mem[k2]
        self._overlap(key, size, d)

    def _store_static(self, section: str, c: int, own: tuple[str, frozenset[int]], v, size: int,
                      d: Decoded) -> None:
        """A store to the function's own static (``Program.own_static``): of one of the values assumed at entry;
        a constant not among them is refused and given to ``Program.stored`` (the proof explores again with
        it); any other value is a violation."""
        name, values = own
        if not isinstance(v, Int):
            raise Violation(d, f"writes {name} (a static set on first use) with a value that is not an integer")
        low = z3.Extract(8 * size - 1, 0, v.v) if 8 * size < self.bits else v.v
        if self.implies(z3.Or(*[low == z3.BitVecVal(x, 8 * size) for x in sorted(values)])):
            return
        got = z3.simplify(low)
        if not z3.is_bv_value(got):
            raise Violation(d, f"writes {name} (a static set on first use) with a value that is not a constant")
        self.p.stored(section, c, got.as_long())
        raise Refused(d, f"stores 0x{got.as_long():x} to {name}, a value not among those assumed at entry "
                      f"({', '.join(f'0x{x:x}' for x in sorted(values))})", "untracked value")

    def _written(self, loc, v, d: Decoded) -> None:
        if self.on_write is None or not is_data(v) or loc is None:
            return
        # one key per write (a vector write reports each lane): instruction index and write slot
        self._slot += 1
        new = self.on_write(self.replay_index * 64 + self._slot, d.ins, loc, v)
        if new is not v:
            if loc[0] == "reg" and "." in loc[1]:
                reg, j = loc[1].split(".")
                lanes = list(self.s.regs[reg])
                lanes[int(j)] = new
                self.s.regs[reg] = tuple(lanes)
            elif loc[0] == "reg":
                self.s.regs[loc[1]] = new
            else:
                key = next(k for k in self.s.mem if k[0] == loc[1] and k[1] == "" and k[2] == loc[2])
                self.s.mem[key] = (new, self.s.mem[key][1])


def host_words(domain, init_mem):
    """``init_mem`` for data passed as host-order words (role ``words``): the word at data+4j holds W_j itself,
    i.e. ``bswap`` of the spec's little-endian load m_j, so a plain load meets the spec's W_j = bswap(m_j)."""
    def wrapped(region: str, off: int):
        v = init_mem(region, off)
        return domain.apply("bswap", v) if region == "data" and off % 4 == 0 else v
    return wrapped


def wide_slots(init_mem):
    """``init_mem`` for a wide state (``state@S wide``: 64-bit slots 8 bytes apart): the slot at state+8i holds
    h_i in its low half (the entry value of state word i, ``init_mem("state", 4i)``, where every consumer --
    ``names``, ``composition.check_program``'s inputs -- looks for it); its upper half at state+8i+4 is an unknown
    of its own (region ``state upper``), so code whose result depends on it meets a free value: a counterexample.
    Example: ``mov -0x58(%rdi), %rcx`` under ``state@-0x58 wide`` reads h0; ``mov -0x54(%rdi), %ecx`` reads
    ``state upper[4]``."""
    def wrapped(region: str, off: int):
        if region == "state" and 0 <= off < 40 and off % 4 == 0:
            return init_mem("state", off // 2) if off % 8 == 0 else init_mem(WIDE_UPPER, off)
        return init_mem(region, off)
    return wrapped


WIDE_UPPER = "state upper"      # the region naming a wide state slot's upper half at entry (``wide_slots``)
