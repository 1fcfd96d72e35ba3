"""Views of a synthesis ``Result``: the claim sentence, the vocabulary line, the text report, the JSON object.

The library (``sha1opt.search.synth``) returns values; these functions turn
them into what the ``sha1opt synth`` command and the bench scripts print.

Example: for ``synthesize("f1", temps=1, destroy=True)``, ``claim(result)``
is ``"minimal length 3: no sequence of length < 3 exists; 4 minimal
sequence(s), each proved"``.
"""

from __future__ import annotations

from sha1opt.search.synth import Result, Setting, Vocabulary
from sha1opt.search.synth.targets import isa_has


def claim(result: Result) -> str:
    """What the result proves, in one sentence (an "unknown" says it is not a result)."""
    if result.status == "found":
        s = f"minimal length {result.length}: no sequence of length < {result.length} exists"
        return s + f"; {len(result.solutions)} {'' if result.complete else 'or more '}minimal sequence(s), each proved"
    if result.status == "none":
        if result.closed:
            return "no sequence of any length exists (every reachable machine state was enumerated)"
        return f"none up to length {result.max_len}: no sequence of length <= {result.max_len} exists"
    done = f"lengths <= {result.exhausted} exhausted" if result.exhausted >= 0 else "nothing exhausted"
    return f"unknown ({result.reason}); {done} -- not a result"


def describe_vocabulary(voc: Vocabulary, isa: str) -> str:
    """The instructions a search could use, e.g. ``mov add sub and or xor not; lea(...); andn; rol $1``."""
    parts = ["mov add sub and or xor not", "lea(base+index, scale 1)"]
    if isa_has(isa, "andn"):
        parts.append("andn")
    parts += [f"rol ${n}" for n in voc.rotates]
    if isa_has(isa, "rorx"):
        parts += [f"rorx ${32 - n}" for n in voc.rotates]
    parts += [f"shl ${n}" for n in voc.shl] + [f"shr ${n}" for n in voc.shr]
    if voc.bswap:
        parts.append("bswap")
    if voc.immediates:
        parts.append("immediates " + ",".join(f"{k:#x}" for k in voc.immediates))
    return "; ".join(parts) + " (registers only; a temporary is written before it is read)"


def setting_label(s: Setting) -> str:
    return f"temps={s.temps} isa={s.isa} {'destroy' if s.destroy else 'keep-inputs'}"


def cycles_text(costs: dict[str, float | None]) -> str:
    """``"pentium 7 p4 -"``: cycles per model, ``-`` where the model lacks an instruction's ISA extension."""
    return " ".join(f"{m} {'-' if c is None else f'{c:g}'}" for m, c in costs.items())


def as_dict(result: Result) -> dict:
    """The JSON object of ``sha1opt synth --json`` (every sequence)."""
    s = result.setting
    return {
        "target": result.target, "temps": s.temps, "isa": s.isa,
        "destroy": s.destroy, "max_len": result.max_len, "status": result.status,
        "length": result.length, "exhausted": result.exhausted, "closed": result.closed, "claim": claim(result),
        "complete": result.complete, "candidates": result.candidates, "unproved": result.unproved,
        "refinements": result.refinements, "lanes": result.lanes, "layer_sizes": list(result.layer_sizes),
        "refuted_by_tests": result.refuted_by_tests, "refuted_by_z3": result.refuted_by_z3,
        "solver_calls": result.solver_calls, "seconds": round(result.seconds, 3),
        "vocabulary": describe_vocabulary(result.vocabulary, s.isa), "cost_note": result.cost_note,
        "reason": result.reason,
        "solutions": [{"code": [str(i) for i in sol.program], "output": sol.output,
                       "critical_path": sol.critical_path, "proof_seconds": round(sol.proof_seconds, 4),
                       "cycles": sol.costs} for sol in result.solutions],
    }


def render(result: Result, show: int = 8) -> str:
    """The human report of one result: claim, setting, search figures, the best ``show`` sequences."""
    lines = [f"synth {result.target}: {setting_label(result.setting)}, max-len {result.max_len}",
             f"result: {claim(result)}",
             f"vocabulary: {describe_vocabulary(result.vocabulary, result.setting.isa)}",
             f"search: {result.refinements} refinement(s), {result.lanes} lanes, states per depth "
             f"{' '.join(map(str, result.layer_sizes))}; spurious paths refuted by tests {result.refuted_by_tests}, "
             f"by Z3 {result.refuted_by_z3}; {result.solver_calls} Z3 call(s); {result.seconds:.2f} s"]
    if result.unproved:
        lines.append(f"unproved: Z3 gave up on {result.unproved} candidate(s) (not listed)")
    if result.solutions:
        shown = result.solutions[:show]
        lines.append(f"sequences ({len(shown)} of {len(result.solutions)}{'' if result.complete else '+'}, "
                     f"shortest critical path first; {result.cost_note}):")
        for k, sol in enumerate(shown, start=1):
            lines.append(f"{k:3d}. {sol.text}    -> %{sol.output}")
            extra = f"critical path {sol.critical_path}"
            if sol.costs is not None:
                extra += " | cycles: " + cycles_text(sol.costs)
            lines.append("     " + extra)
    return "\n".join(lines)
