"""Drawing a schedule: the cycle-by-cycle table (one column per dependency chain) and a Gantt chart.

The columns are the chains the hand diagrams in the 2009 threads use: W
formation, K+W into e, the round function f, a<<<5 and the rotate of b --
and, with floating registers (``search.space.assignment``), the spills and
reloads and the moves back to the fixed layout at the range's end.
Each row is a clock of the model's simulation; a cell lists the
instructions of that chain *issued* in that clock, with the round number.
Which chain and round an instruction belongs to is ``Realized.origin``: it
follows the register assignment (the code may hold instructions no op of the
order has), never the position in the order.
For a family's whole block (``show --isa``: an ``emit.family.Shown``, the
block-loop items of a hybrid block or a SHA-NI point) the columns are the
two unit classes instead (``UNIT_TITLES``): each instruction goes to
``scalar`` or ``vector`` by its row of the semantics table
(``x86.SEMANTICS[m].vector``), so one sees which clocks the vector work
hides in; each cell also names the units the model used. Example: the
``unit_table`` of a hybrid block's loop (``main`` and the loop control
included) holds at clock 0 ``mov (%rdi), %eax [p2]`` under scalar and
``vmovdqu (%rsi), %xmm0 [p3]`` under vector; ``shown_lines`` puts the
report's headline above it.
Library code: returns rows and lines, or writes a PNG (atomically) -- never prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sha1opt.search.space.candidate import ORIGINS, Realized
from sha1opt.semantics.datafiles import atomic_output
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.opaque import Opaque
from sha1opt.semantics.x86 import SEMANTICS, Instr

CHAIN_TITLES = {"W": "W formation", "kw": "K+W into e", "f": "f(b,c,d)", "a5": "a<<<5", "b": "b>>>2",
                "spill": "spill/reload", "move": "moves at exit"}
COLOURS = {"W": "tab:blue", "kw": "tab:green", "f": "tab:orange", "a5": "tab:red", "b": "tab:purple",
           "spill": "tab:gray", "move": "tab:brown"}
UNIT_CLASSES = ("scalar", "vector")
UNIT_TITLES = {"scalar": "scalar (GPRs)", "vector": "vector (xmm)"}
UNIT_COLOURS = {"scalar": "tab:orange", "vector": "tab:blue"}


def unit_class(ins) -> str:
    """``vector`` for an instruction of a vector row of the semantics table (or the cost model's vector
    item of one, ``measure.block_items``), else ``scalar`` (the loop control too)."""
    if isinstance(ins, Opaque):
        return "vector" if ins.kind == "vector" else "scalar"
    return "vector" if isinstance(ins, Instr) and SEMANTICS[ins.mnemonic].vector else "scalar"


def columns(real: Realized) -> tuple[str, ...]:
    """The chains the drawing shows: the five of every schedule, and spill / move when the code has them."""
    used = {real.origin(k)[1] for k in range(len(real.code))}
    return tuple(c for c in ORIGINS if c in used or c in ORIGINS[:5])


@dataclass(frozen=True)
class Row:
    cycle: int
    cells: dict[str, list[str]]   # chain -> instruction texts issued this cycle


def table(real: Realized, sim) -> list[Row]:
    """``sim`` is the simulation of ``real.code``: slot k is ``real.code[k]``."""
    cols = columns(real)
    rows: dict[int, dict[str, list[str]]] = {}
    for slot in sim.timeline:
        cyc = int(slot.issue)
        rows.setdefault(cyc, {c: [] for c in cols})
        t, chain = real.origin(slot.index)
        rows[cyc][chain].append(f"{t}: {slot.text}")
    return [Row(c, rows[c]) for c in sorted(rows)]


def _drawn(items, sim) -> list:
    """``items`` as ``sim`` simulated them (``measure.block_loop(items, model)``); a simulation of other code
    is a misuse, refused by name rather than drawn against the wrong instructions."""
    items = list(items)
    if len(sim.timeline) != len(items):
        raise Sha1optError(f"the simulation has {len(sim.timeline)} instructions, the block's loop "
                           f"{len(items)}: draw the simulation of the block's loop (measure.block_loop)")
    return items


def unit_table(items, sim) -> list[Row]:
    """``sim`` is the simulation of ``items`` (a block's loop, its loop control included): per clock, the
    instructions issued in each unit class (``UNIT_CLASSES``), each with the units the model used."""
    code = _drawn(items, sim)
    rows: dict[int, dict[str, list[str]]] = {}
    for slot in sim.timeline:
        cells = rows.setdefault(int(slot.issue), {c: [] for c in UNIT_CLASSES})
        cells[unit_class(code[slot.index])].append(f"{slot.text} [{slot.unit}]" if slot.unit else slot.text)
    return [Row(c, rows[c]) for c in sorted(rows)]


def shown_lines(uarch: str, shown, sim, width: int = 40) -> list[str]:
    """``show --isa``'s text for a family's report (``emit.family.Shown``) and ``sim``, the simulation of its
    items: the headline (the report's figure, not the simulation's) and ``unit_table`` by clock."""
    drawn = [f"the clocks below: one iteration, {shown.blocks} blocks"] if shown.blocks > 1 else []
    lines = [f"{uarch} ({shown.arch}) {shown.family.name} {shown.code}: {shown.cycles:.1f} cycles/block, "
             f"{shown.cycles / 64:.2f} c/B, bottleneck {sim.bottleneck}; "
             + "; ".join((*shown.notes, shown.proof, *drawn)),
             f"{'clk':>4} | " + " | ".join(f"{UNIT_TITLES[c]:{width}s}" for c in UNIT_CLASSES)]
    for row in unit_table(shown.items, sim):
        for k in range(max(1, *(len(v) for v in row.cells.values()))):
            cells = [(row.cells[c][k] if k < len(row.cells[c]) else "")[:width] for c in UNIT_CLASSES]
            lines.append(f"{row.cycle if k == 0 else '':>4} | " + " | ".join(f"{x:{width}s}" for x in cells))
    return lines


def gantt_png(real: Realized, sim, path: str | Path, title: str) -> Path:
    """A Gantt chart of issue..complete per instruction, coloured by chain, written atomically."""
    cols = columns(real)
    return _gantt(sim, lambda slot: COLOURS[real.origin(slot.index)[1]], [(COLOURS[c], CHAIN_TITLES[c]) for c in cols],
                  path, title)


def unit_gantt_png(items, sim, path: str | Path, title: str) -> Path:
    """The Gantt chart of a block's loop (``sim`` as for ``unit_table``), coloured by unit class (scalar /
    vector), written atomically."""
    code = _drawn(items, sim)
    return _gantt(sim, lambda slot: UNIT_COLOURS[unit_class(code[slot.index])],
                  [(UNIT_COLOURS[c], UNIT_TITLES[c]) for c in UNIT_CLASSES], path, title)


def _gantt(sim, colour, legend: list[tuple[str, str]], path: str | Path, title: str) -> Path:
    import matplotlib  # lazily: matplotlib takes about a second to import, and only --png needs it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    n = len(sim.timeline)
    fig, ax = plt.subplots(figsize=(12, max(4, min(n * 0.12, 300))))
    for k, slot in enumerate(sim.timeline):
        ax.barh(k, max(0.2, slot.complete - slot.issue), left=slot.issue, color=colour(slot), height=0.8)
    ax.invert_yaxis()
    ax.set_xlabel("clock")
    ax.set_ylabel("instruction (program order)")
    ax.set_title(title)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c, _ in legend]
    ax.legend(handles, [name for _, name in legend], loc="lower right")
    fig.tight_layout()
    try:
        with atomic_output(path, suffix=".png") as tmp:
            fig.savefig(tmp, dpi=80)
    finally:
        plt.close(fig)
    return path
