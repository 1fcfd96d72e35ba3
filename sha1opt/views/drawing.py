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
Library code: returns rows, or writes a PNG (atomically) -- never prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sha1opt.search.space.candidate import ORIGINS, Realized
from sha1opt.semantics.datafiles import atomic_output

CHAIN_TITLES = {"W": "W formation", "kw": "K+W into e", "f": "f(b,c,d)", "a5": "a<<<5", "b": "b>>>2",
                "spill": "spill/reload", "move": "moves at exit"}
COLOURS = {"W": "tab:blue", "kw": "tab:green", "f": "tab:orange", "a5": "tab:red", "b": "tab:purple",
           "spill": "tab:gray", "move": "tab:brown"}


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


def gantt_png(real: Realized, sim, path: str | Path, title: str) -> Path:
    """A Gantt chart of issue..complete per instruction, coloured by chain, written atomically."""
    import matplotlib  # lazily: matplotlib takes about a second to import, and only --png needs it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    n = len(sim.timeline)
    fig, ax = plt.subplots(figsize=(12, max(4, n * 0.12)))
    for k, slot in enumerate(sim.timeline):
        ax.barh(k, max(0.2, slot.complete - slot.issue), left=slot.issue, color=COLOURS[real.origin(slot.index)[1]],
                height=0.8)
    ax.invert_yaxis()
    ax.set_xlabel("clock")
    ax.set_ylabel("instruction (program order)")
    ax.set_title(title)
    cols = columns(real)
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[c]) for c in cols]
    ax.legend(handles, [CHAIN_TITLES[c] for c in cols], loc="lower right")
    fig.tight_layout()
    try:
        with atomic_output(path, suffix=".png") as tmp:
            fig.savefig(tmp, dpi=80)
    finally:
        plt.close(fig)
    return path
