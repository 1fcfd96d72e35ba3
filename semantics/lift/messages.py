"""The whole-function proof of a multi-buffer function (``lanes``' contract): every group count, every path.

``prove_messages`` runs once per group count the contract allows
(``lanes.GROUPS``: 1 and 2, each a constant of its own, with the contract's
precondition on the counts, ``lanes.axioms``). From the entry state the
executor explores to the heads of the innermost loops (``Cfg.innermost_heads``:
the block loops; the loop over groups has a constant trip count and is
followed); its ``cmov`` chain taking the largest count, and each ``cmov``
parking a message's pointer, selects instead of forking
(``PathMachine.select_cmov``). Per path end:

* ``ret`` without a loop: the precondition leaves no message with blocks, so
  every lane is unchanged and the callee-saved registers and stack restored;
* the arrivals at one head under one dispatch condition: one path, proved by
  ``streams`` -- the loop, the groups after it and every ``ret``;
* anything the executor stopped: that path's refusal.

A ``MessagePath`` is the data ``function.prove_function`` makes a report of.

Example: ``sha1_multi_block`` gives, for 1 group, its SSE, AVX and SHA-NI
loops and the ``ret`` where no message has blocks; for 2 groups the same and
the AVX2 loop (8 messages a group).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Literal

from sha1opt.semantics.domain import TermDomain
from sha1opt.semantics.ir import Builder
from sha1opt.semantics.lift import lanes
from sha1opt.semantics.lift.executor import PathEnd, State, explore
from sha1opt.semantics.lift.induction import Ctx, names, restored
from sha1opt.semantics.lift.streams import Streams, dispatch
from sha1opt.semantics.lift.verdict import Verdict, stopped
from sha1opt.semantics.prove import Prover


@dataclass(frozen=True)
class MessagePath:
    """One path of a multi-buffer function under ``groups`` groups: what ``function.PathReport`` is made of."""

    groups: int
    kind: Literal["loop", "loop not entered", "stopped"]
    end: PathEnd                # the path's end (a loop: its first arrival)
    verdict: Verdict
    cond: list                  # the path condition a witness is drawn from (a loop: its dispatch condition)
    trace: tuple = ()           # a loop: one iteration, every path of it lifted
    seconds: float = 0.0
    axioms: tuple = ()          # the contract's facts under this group count (for the witness)
    messages: int = 0           # a loop: the messages an iteration hashes a block of each


def prove_messages(ctx_for: Callable[[int], Ctx], start: Callable[[Ctx], State], exits: dict[int, set[int]],
                   prover: Prover,
                   selected: Callable[[PathEnd, int], bool] = lambda end, groups: True) -> list[MessagePath]:
    """Every path of the function, for each group count (module docstring); ``exits``: each block loop's head
    and where the loop is left; a loop whose first arrival ``selected`` rejects (with the group count) is "not
    checked"."""
    heads = set(exits)
    out: list[MessagePath] = []
    for groups in lanes.GROUPS:
        ctx = ctx_for(groups)
        b = Builder()
        init_reg, init_mem = names(b)
        dom = TermDomain(b)

        def machine_for(st: State, block=None, ctx=ctx, dom=dom, init_reg=init_reg, init_mem=init_mem):
            return ctx.machine(dom, init_reg, init_mem, st, block)

        ends = explore(machine_for, start(ctx), heads)
        streams = Streams(ctx, machine_for, exits, prover, b, init_reg, init_mem)
        done: set[int] = set()
        for idx, end in enumerate(ends):
            if idx in done:
                continue
            t0 = time.perf_counter()
            if end.kind == "exit":
                why = streams.hashed(end.state, set()) or restored(ctx, end.state, counter=False) or \
                    streams.untouched(end.state, set())
                v = Verdict("counterexample", f"without the loop: {why}") if why else Verdict(
                    "proved", "no message has blocks: every lane unchanged, registers and stack pointer restored")
                out.append(MessagePath(groups, "loop not entered", end, v, end.state.cond,
                                       seconds=time.perf_counter() - t0, axioms=tuple(ctx.axioms)))
            elif end.kind != "head":
                out.append(MessagePath(groups, "stopped", end, stopped(end), end.state.cond,
                                       seconds=time.perf_counter() - t0, axioms=tuple(ctx.axioms)))
            else:
                key = dispatch(end.state.cond)
                group = [j for j in range(idx, len(ends)) if ends[j].kind == "head" and ends[j].head == end.head
                         and dispatch(ends[j].state.cond) == key]
                done.update(group)
                if not selected(end, groups):
                    out.append(MessagePath(groups, "loop", end, Verdict("not checked", "outside the selected paths"),
                                           list(key), axioms=tuple(ctx.axioms)))
                    continue
                res = streams.prove([ends[j] for j in group])
                out.append(MessagePath(groups, "loop", end, res.verdict, list(key), res.iteration,
                                       time.perf_counter() - t0, tuple(ctx.axioms), res.messages))
    return out


__all__ = ["MessagePath", "prove_messages"]
