"""The SHA-NI family: ``sha1rnds4`` / ``sha1msg1`` / ``sha1msg2`` / ``sha1nexte`` (``search.space.shani``).

Levels: every ``--isa`` level allowing the ``sha`` feature (``shani``). A
model without SHA-NI, or a block that does not prove, passes to the next
family down (the hybrid family at the same cap). Its code is a
``ShaniParams`` point, proved whole from its object at export; its figure the
block-loop measure with its loop control (``engines.shani.loop_items``). The
export writes ELF only (``flavors``): the function is written in GNU-as ELF
syntax and proved from an ELF object -- a Mach-O request is refused here, by
the family, in one line.

Dispatch paths: ``shani`` (the block with every feature the model's CPU has)
and, when that block needs more than ``SHANI_BASE`` (goldencove's AVX-512
``sha1msg2`` form), ``shani_sse``: the best SHA-NI block without AVX
(``family_rows.SHANI_NO_AVX``), for the SHA-NI CPUs without AVX-512.

Store: rows ``shani`` / variant ``SHANI_FULL`` or ``SHANI_NO_AVX``
(``family_rows.known_shani``: stored first, else ``best_shani`` with
``SHANI_EVALUATIONS`` moves, stored when proved).

Example: ``SHANI.choose("zen3", "x86_64", "shani", db, ignore)`` reads the
stored zen3 row and gives ``Choice(SHANI, <its ShaniParams>, "x86_64",
["SHA-NI ...: 2.05 c/B predicted on zen3 ...", "exporting the SHA-NI
function"], cycles=<stored>)``.
"""

from __future__ import annotations

from typing import Sequence

from sha1opt.semantics.x86 import Arch, isa_set
from sha1opt.search.cost.model import Model, load_model
from sha1opt.search.cost.simulator import Simulator
from sha1opt.search.engines.shani import block_cycles, has_shani, loop_items
from sha1opt.search.family_rows import SHANI_FULL, SHANI_NO_AVX, known_shani, search_shani, stored_shani
from sha1opt.search.progress import Progress, ProgressFn, ignore
from sha1opt.search.space.hybrid_caps import allows
from sha1opt.search.space.shani import default_params, isa_rows_used, legal, prove_shani, unit_code, walk_order
from sha1opt.emit.family import Choice, Family, Passed, Shown
from sha1opt.emit.export import Exportable
from sha1opt.emit.shani_export import shani_exportable
from sha1opt.emit.shani_frame import shani_function_text

SHANI_EVALUATIONS = 200
HEADS = 200     # ``ranked`` prices the first HEADS points of the search's walk (every class head comes first)
# what a SHA-NI block may use and still run on every SHA-NI CPU (Goldmont, Zen 1-3, Ice Lake ... have no AVX-512)
SHANI_BASE = frozenset({"sse", "sse2", "ssse3", "sse4.1", "sha"})
FEATURE = "sha"                    # the x86 feature the family needs (``x86.required_isa``'s spelling)


class ShaniFamily(Family):
    name = "shani"
    flavors = frozenset({"elf"})
    per_level = True
    reports = True

    def admits(self, level: str) -> bool:
        return allows(level, FEATURE)

    def level_features(self, level: str) -> frozenset[str]:
        return frozenset({FEATURE})

    def model_has(self, model: Model, level: str) -> bool:
        return has_shani(model)

    def path_names(self, levels: Sequence[str]) -> tuple[str, ...]:
        return ("shani_sse",) + tuple(levels)

    def search(self, uarch: str, arch: Arch, level: str, *, evaluations: int, seed: int = 0, time_limit: float = 60.0,
               should_stop=lambda: False, db=None, progress: ProgressFn = ignore):
        """The SHA-NI point on a model that has SHA-NI (stored when proved), else None."""
        model = load_model(uarch)
        if not (self.admits(level) and has_shani(model)):
            return None
        return search_shani(model, arch, max(evaluations, SHANI_EVALUATIONS), db)

    def known(self, uarch: str, arch: Arch, level: str, db=None, progress: ProgressFn = ignore):
        """The SHA-NI report on a model with SHA-NI (``family_rows.known_shani``: stored first, else searched with
        ``SHANI_EVALUATIONS`` moves), else None."""
        model = load_model(uarch)
        if not has_shani(model):
            return None
        progress(Progress(f"SHA-NI search on {uarch}", 0))
        return known_shani(model, arch, SHANI_EVALUATIONS, db)

    def shown(self, uarch: str, arch: Arch, level: str, db=None, progress: ProgressFn = ignore) -> Shown | None:
        """``known``'s point (None on a model without SHA-NI), beside the default point."""
        rep = self.known(uarch, arch, level, db, progress)
        if rep is None:
            return None
        return Shown(self, arch, rep.params.describe(), tuple(loop_items(rep.params, arch)), rep.cycles, rep.proof,
                     (f"default point {rep.default_cycles / 64:.2f} c/B",))

    def choose(self, uarch: str | None, arch: Arch, level: str, db=None,
               progress: ProgressFn = ignore) -> Choice | Passed:
        """The SHA-NI function ``export --isa level`` writes, or why the next family down is asked."""
        if uarch is None:
            return Choice(self, default_params(arch), arch,
                          [f"SHA-NI default point ({arch}; no --uarch to search on)"])
        rep = self.known(uarch, arch, level, db, progress)
        if rep is None:
            return Passed((f"{uarch} has no SHA-NI: searching without it",))
        line = (f"SHA-NI {rep.params.describe()}: {rep.cycles_per_byte:.2f} c/B predicted on {uarch} "
                f"(default point {rep.default_cycles / 64:.2f}); block {rep.proof}; search stopped: "
                f"{rep.stop_reason}")
        if rep.proved:
            return Choice(self, rep.params, arch, [line, "exporting the SHA-NI function"], cycles=rep.cycles)
        return Passed((line, "the SHA-NI block did not prove: not exported"))

    def ranked(self, uarch: str, arch: Arch, level: str, limit: int, db=None,
               progress: ProgressFn = ignore) -> list[Choice]:
        """The model's SHA-NI point (``choose``), then the cheapest legal point of each other structural class
        of the grid (``shape``: schedule before / after ``sha1rnds4``, ``sha1nexte`` placement, loads and saves,
        the ``sha1msg2`` form) whose features the cap and the model allow, cheapest first; [] on a model
        without SHA-NI."""
        model = load_model(uarch)
        first = self.choose(uarch, arch, level, db, progress) if has_shani(model) else None
        if not isinstance(first, Choice):
            return []
        progress(Progress(f"SHA-NI candidates on {uarch} (--isa {level}) for --tune", 0))
        sim = Simulator(model)
        best: dict[tuple, tuple[float, int, object]] = {}
        for k, p in enumerate(walk_order(arch, seed=1)):
            used = set(isa_rows_used(p, arch).values())
            if shape(p) == shape(first.code) or not all(allows(level, f) and model.has_vector(f) for f in used):
                continue
            if shape(p) not in best or k < HEADS:           # the class heads and the first points after them
                if legal(p, arch):
                    c = block_cycles(p, arch, sim)
                    if shape(p) not in best or c < best[shape(p)][0]:
                        best[shape(p)] = (c, k, p)
            if k >= HEADS and len(best) >= limit:
                break
        out = [first]
        for c, _, p in sorted(best.values(), key=lambda t: (t[0], t[1]))[:limit - 1]:
            out.append(Choice(self, p, arch, [f"SHA-NI {p.describe()}"], cycles=c))
        return out

    def extra_paths(self, choice: Choice, model: Model | None, db) -> tuple[list[tuple[str, Choice, str]], list[str]]:
        """``shani_sse`` (module docstring) when ``choice`` needs more than ``SHANI_BASE``, with its notes."""
        if model is None or not self.features(choice) - SHANI_BASE:
            return [], []
        rep = known_shani(model, choice.arch, SHANI_EVALUATIONS, db, SHANI_NO_AVX)
        line = f"shani_sse: SHA-NI {rep.params.describe()}: {rep.cycles_per_byte:.2f} c/B predicted; block {rep.proof}"
        if not rep.proved:
            return [], [line, "shani_sse: the block did not prove: not exported"]
        return [("shani_sse", Choice(self, rep.params, choice.arch, [line], cycles=rep.cycles),
                 rep.params.describe())], [line]

    def features(self, choice: Choice) -> frozenset[str]:
        return frozenset(isa_set(unit_code(choice.code, choice.arch)))

    def path_text(self, choice: Choice) -> str:
        return shani_function_text(choice.arch, choice.code)

    def loop_items(self, choice: Choice) -> list:
        return loop_items(choice.code, choice.arch)

    def blocks(self, choice: Choice) -> int:
        return 1

    def neighbours(self, choice: Choice, uarch: str, level: str) -> list[Choice]:
        """None: the SHA-NI classes are few and ``ranked`` already spans them."""
        return []

    def prove(self, choice: Choice) -> bool:
        return prove_shani(choice.code, choice.arch).ok

    def describe(self, choice: Choice) -> str:
        return choice.code.describe()

    def flavor_refusal(self, flavor: str, predicted: bool) -> str | None:
        if flavor in self.flavors:
            return None
        if predicted:
            return ("the predicted-best path is SHA-NI, written for ELF only; --isa avx512 (or lower) gives code "
                    "without it")
        return "the SHA-NI function is written for ELF only"

    def exportable(self, choice: Choice, *, uarch: str | None, command: str, prediction: str) -> Exportable:
        return shani_exportable(choice.code, choice.arch, uarch=uarch, prediction=prediction, command=command)

    def stored(self, db, model: Model, arch: Arch, variant: str = SHANI_FULL):
        return stored_shani(db, model, arch, variant or SHANI_FULL)


SHANI = ShaniFamily()


def shape(p) -> tuple:
    """A SHA-NI point's structural class (``space.shani.walk_order``'s heads): what makes two candidates different
    enough to time -- not the leads, which the model prices finely."""
    return (p.sched_after, p.nexte_early, p.preload, p.save_on_stack, p.load_lead, p.msg2_form)
