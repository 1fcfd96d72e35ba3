"""The control-flow graph of one decoded function, and its block loops.

Blocks start at the entry, at every direct branch target and after every
branch, call-free terminator (``jmp``, ``jcc``, ``ret``); edges are the
fall-through and the direct targets. ``loop_heads()`` are the headers of
the *outermost* natural loops (a back edge u -> h where h dominates u, found
by depth-first search on this reducible graph): the block loops, one per
dispatch path. Inner loops (a rolled round loop with a constant trip count)
are not heads: the executor unrolls them, since their branches are decided
by constants.

Example: our exported x86-64 function has blocks entry (``test %rdx,%rdx;
je done``), the prologue, the loop (head at the first round, back edge from
``jne``), the epilogue and ``done: ret``; ``loop_heads() == {loop}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sha1opt.semantics.lift.decode import BRANCHES, Function


@dataclass
class Cfg:
    entry: int
    blocks: dict[int, list[int]] = field(default_factory=dict)     # start -> instruction addresses
    succs: dict[int, list[int]] = field(default_factory=dict)

    @classmethod
    def build(cls, fn: Function) -> "Cfg":
        ins = fn.instructions
        addrs = sorted(ins)
        leaders = {fn.entry}
        for a in addrs:
            d = ins[a]
            if d.mnemonic in BRANCHES or d.mnemonic in ("jmp", "ret"):
                leaders.add(d.next)
                if d.target is not None and d.target in ins:
                    leaders.add(d.target)
        g = cls(fn.entry)
        cur = None
        for a in addrs:
            if a in leaders:
                cur = a
                g.blocks[cur] = []
            if cur is None:
                continue
            g.blocks[cur].append(a)
        for start, body in g.blocks.items():
            last = ins[body[-1]]
            out: list[int] = []
            if last.mnemonic in BRANCHES or last.mnemonic == "jmp":
                if last.target is not None and last.target in g.blocks:
                    out.append(last.target)
            if last.mnemonic not in ("jmp", "ret") and last.next in g.blocks:
                out.append(last.next)
            g.succs[start] = out
        return g

    def back_edges(self) -> list[tuple[int, int]]:
        seen, on_stack, back = set(), set(), []
        stack = [(self.entry, iter(self.succs.get(self.entry, [])))]
        seen.add(self.entry)
        on_stack.add(self.entry)
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                on_stack.discard(node)
                continue
            if nxt in on_stack:
                back.append((node, nxt))
            elif nxt not in seen:
                seen.add(nxt)
                on_stack.add(nxt)
                stack.append((nxt, iter(self.succs.get(nxt, []))))
        return back

    def loop_body(self, tail: int, head: int) -> set[int]:
        """The natural loop of back edge ``tail -> head``: the blocks reachable from ``head`` that reach
        ``tail`` without passing through ``head``. A self-loop (``tail == head``) is that one block; padding
        that only falls through into the body (nops after a ``jmp``) is not reachable, so not in it."""
        preds: dict[int, list[int]] = {}
        for a, ss in self.succs.items():
            for s in ss:
                preds.setdefault(s, []).append(a)
        body, work = {head, tail}, ([tail] if tail != head else [])
        while work:
            n = work.pop()
            for p in preds.get(n, []):
                if p not in body:
                    body.add(p)
                    work.append(p)
        seen, work = {head}, [head]
        while work:
            n = work.pop()
            for s in self.succs.get(n, []):
                if s in body and s not in seen:
                    seen.add(s)
                    work.append(s)
        return seen

    def loop_heads(self) -> set[int]:
        loops: dict[int, set[int]] = {}
        for tail, head in self.back_edges():
            loops.setdefault(head, set()).update(self.loop_body(tail, head))
        return {h for h in loops if not any(h in body and h != g for g, body in loops.items())}

    def innermost_heads(self) -> set[int]:
        """The headers of the natural loops that hold no other loop (OpenSSL's multi-buffer code: the block
        loop inside the loop over groups of messages)."""
        loops: dict[int, set[int]] = {}
        for tail, head in self.back_edges():
            loops.setdefault(head, set()).update(self.loop_body(tail, head))
        return {h for h, body in loops.items() if not any(g in body and g != h for g in loops)}

    def loop_exits(self, head: int) -> set[int]:
        """Where the loop at ``head`` is left: the blocks outside its body that a block of it goes to."""
        body: set[int] = set()
        for tail, h in self.back_edges():
            if h == head:
                body |= self.loop_body(tail, head)
        return {s for b in body for s in self.succs.get(b, []) if s not in body}
