"""What ``sha1opt uarchs`` says about a model: its notable rules and classes, as lines of prose.

The model (``sha1opt.search.cost.model.Model``) is data only; this view is
the one place that words it. Every line is derived from the model's data, so
editing a TOML row changes what is printed.

Example: for the ``atom`` model, ``notable(m)`` includes
``"lea stall: +3 clk when a base/index register comes from a recent
instruction (not after lea_complex, lea_simple)"`` and
``"store forwarding: 1 clk"``; ``header(m)`` is
``"atom: in-order, issue 2/clk, no BMI, vector mmx+sse+sse2+sse3+ssse3"``.
"""

from __future__ import annotations

from sha1opt.search.cost.model import Model

# The classes whose costs differ most between the CPUs on SHA-1 code.
SHOWN_CLASSES = ("rot_imm", "rot1", "lea_complex", "bswap")


def header(m: Model) -> str:
    """``name (alias ...): engine, issue N/clk[, window W], ISA`` -- the first line per model."""
    alias = f" (alias {', '.join(m.aliases)})" if m.aliases else ""
    window = f", window {m.window}" if m.window else ""
    isa = "+".join(x for x, on in (("BMI1", m.has_bmi1), ("BMI2", m.has_bmi2)) if on) or "no BMI"
    vec = f", vector {'+'.join(m.vector_isa)}" if m.vector_isa else ", no vector ISA"
    return f"{m.name}{alias}: {m.engine}, issue {m.issue_width}/clk{window}, {isa}{vec}"


def units_line(m: Model) -> str:
    """``units: a, bx2, ...`` (``x2``: a double-pumped unit)."""
    return f"units: {', '.join(u.name + ('x2' if u.speed == 2 else '') for u in m.units)}"


def notable(m: Model) -> list[str]:
    """One line per rule and per class that stands out, derived from the data."""
    out: list[str] = []
    r = m.rules
    if r.pairing:
        out.append("pairs two instructions per clock: U then V; rotates/shifts U only, "
                   "rol by an immediate other than 1 does not pair"
                   + ("; displacement+immediate does not pair" if r.pairing.no_disp_and_imm else ""))
    if r.address_stall:
        ex = f" (not after {', '.join(sorted(r.address_stall.exempt))})" if r.address_stall.exempt else ""
        out.append(f"{r.address_stall.name}: +{r.address_stall.cycles} clk when a base/index "
                   f"register comes from a recent instruction{ex}")
    if r.move_elimination:
        out.append(f"move elimination: {', '.join(sorted(r.move_elimination))} cost no latency or port")
    if r.replay:
        out.append(f"replay: a load from a store of a >= {r.replay.min_latency:g}-clk result "
                   f"costs +{r.replay.penalty:g} clk")
    if r.register_reads:
        out.append(f"{r.register_reads.name}: at most {r.register_reads.per_clock} retired registers read per clock")
    if r.port_binding:
        out.append("port binding: a uop's port is chosen when it is allocated (by issue slot), not when it is ready")
    if r.scheduler:
        out.append(f"{r.scheduler.name}: at most {r.scheduler.entries} uops wait in the reservation station")
    if r.dispatch_delay:
        out.append(f"{r.dispatch_delay.name}: a uop dispatches no sooner than {r.dispatch_delay.cycles} clk "
                   f"after allocation (an input arriving then or a clock later: one clock later)")
    out.append(f"store forwarding: {r.store_forward_latency:g} clk")
    dbl = [u.name for u in m.units if u.speed == 2]
    if dbl:
        out.append(f"double-pumped: {', '.join(dbl)}")
    for cname in SHOWN_CLASSES:
        c = m.classes[cname]
        # "a|b": either unit; "a+b": one uop on each (a Pentium NP instruction takes both pipes)
        out.append(f"{cname}: {c.latency:g} clk, {c.uops} slot(s), uops {' + '.join(map(str, c.ports))}")
    for cname, c in m.classes.items():
        if c.busy != 1:
            out.append(f"{cname}: each compute uop holds its unit {c.busy} clk (not pipelined)")
    return out


def lines(m: Model) -> list[str]:
    """Everything ``sha1opt uarchs`` prints for ``m``, in order (indentation included)."""
    return [header(m), f"  {m.description}", f"  {units_line(m)}"] + [f"  - {line}" for line in notable(m)]
