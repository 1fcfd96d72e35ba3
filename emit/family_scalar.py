"""The scalar family: SHA-1's 80 rounds in general-purpose registers (``search.space``), the registry's first.

Every ``--isa`` level admits it (it is the fallback of every export) and it
has no level of its own: the dispatcher takes it once, as the path
``scalar`` (the best stored code for the model: ``blocks.best_block``, the
textbook schedule without a model) and, when that code needs a feature
(BMI2's ``rorx``), ``base`` (the best under ``--isa base``) as the path every
CPU runs. Its search is the range search (``search.driver``), so
``search(...)`` is None here; its store rows are round ranges, not blocks.
Its code is a ``Schedule``; its figure the block-loop measure of the
schedule (``measure.block_loop_cycles``), priced on demand.

Example: ``SCALAR.choose(None, "x86_64", "base", None, ignore)`` is the
textbook schedule with the note ``scalar default schedule (x86_64; --isa base)``.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Sequence

from sha1opt.semantics.block import prove_block
from sha1opt.semantics.features import ISA_LEVELS
from sha1opt.semantics.x86 import Arch, isa_set
from sha1opt.search.blocks import best_block, capped_best
from sha1opt.search.cost.model import Model, load_model
from sha1opt.search.measure import block_loop_cycles, block_loop_items
from sha1opt.search.progress import Progress, ProgressFn, ignore
from sha1opt.search.space.candidate import Candidate, block_schedule, realize, textbook
from sha1opt.search.space.hybrid_caps import scalar_level
from sha1opt.search.space.recipe import NAMED_OPTIONS, TEXTBOOK, Recipe, isa_rank, option_isa
from sha1opt.emit.assembly import function_text
from sha1opt.emit.export import Exportable, scalar_exportable
from sha1opt.emit.family import Choice, Family, cheapest_distinct

FLAVORS = frozenset({"elf", "macho"})


class ScalarFamily(Family):
    name = "scalar"
    flavors = FLAVORS
    per_level = False                  # one path for every level (the dispatcher adds it once)
    reports = False                    # its results are the stored ranges, not a report per level

    def admits(self, level: str) -> bool:
        return True

    def level_features(self, level: str) -> frozenset[str]:
        return frozenset()

    def model_has(self, model: Model, level: str) -> bool:
        return True

    def path_names(self, levels: Sequence[str]) -> tuple[str, ...]:
        return ("base", "scalar")

    def search(self, uarch, arch, level, **_):
        return None                    # the range search (``search.driver.search_ranges``) is the family's

    def known(self, uarch, arch, level, db=None, progress: ProgressFn = ignore):
        return None                    # no report per level: ``choose`` reads the stored ranges (``capped_best``)

    def shown(self, uarch, arch, level, db=None, progress: ProgressFn = ignore):
        return None                    # ``show --rounds`` draws the stored ranges

    def choose(self, uarch: str | None, arch: Arch, level: str, db=None, progress: ProgressFn = ignore) -> Choice:
        """The scalar best for the model under the cap (``blocks.capped_best``), its sources as notes."""
        if uarch is None:
            return Choice(self, textbook(arch), arch, [f"scalar default schedule ({arch}; --isa {level})"])
        best = capped_best(uarch, arch, level, db)
        notes = [f"rounds {line}" for line in best.sources]
        if best.refused:
            notes.append(f"the stored best needs more than --isa {level}: the default schedule instead")
        return Choice(self, best.schedule, arch, notes)

    def ranked(self, uarch: str, arch: Arch, level: str, limit: int, db=None,
               progress: ProgressFn = ignore) -> list[Choice]:
        """The model's scalar pick under the cap (``choose``), then whole-block recipe variants ranked by the
        model: the textbook recipe with one field changed (``recipe_variants``: each a different shape, an
        instruction choice the range search may not have kept), cheapest first; distinct code only."""
        model = load_model(uarch)
        progress(Progress(f"scalar candidates on {uarch} (--isa {level}) for --tune", 0))
        first = self.choose(uarch, arch, level, db)
        out, texts = [first], {function_text(first.code)}
        priced = sorted(((block_loop_cycles(s, model), key, s) for key, s in recipe_variants(arch, level, model)),
                        key=lambda t: (t[0], t[1]))
        for _, key, sched in priced:
            if len(out) >= limit:
                break
            text = function_text(sched)
            if text not in texts:
                texts.add(text)
                out.append(Choice(self, sched, arch, [f"scalar recipe {key}"]))
        return out[:limit]

    def neighbours(self, choice: Choice, uarch: str, level: str) -> list[Choice]:
        """The whole-block recipe schedules one field away from ``choice``'s recipe (``recipe_variants`` of it:
        the textbook's one-field variants, or a variant's), cheapest on the model first, distinct code; none
        for a schedule without a recipe (a searched one). What ``tuning.tune``'s climb times around a measured
        scalar winner: on Zen 4 (AuthenticAMD family 25 model 17) the zen4 model's scalar ranking was wrong
        (its pick measured 1.08 x the textbook) and its variants measure within 2 % of each other."""
        base = choice.code.recipe
        if base is None:
            return []
        model = load_model(uarch)
        priced = [(block_loop_cycles(s, model), key, s) for key, s in recipe_variants(choice.arch, level, model, base)]
        return [Choice(self, s, choice.arch, [f"scalar recipe {key}"])
                for key, s in cheapest_distinct(priced, function_text, {function_text(choice.code)})]

    def base_paths(self, uarch: str | None, model: Model | None, arch: Arch, db
                   ) -> tuple[list[tuple[str, Choice, str]], list[str]]:
        """The dispatcher's scalar paths (module docstring) as (name, choice, what), and the notes."""
        if model is None:
            sched, sources, notes = textbook(arch), ["default schedule (no --uarch)"], []
        else:
            sched, sources = best_block(uarch, arch, db)
            notes = [f"rounds {line}" for line in sources]
        best = Choice(self, sched, arch)
        out = [("scalar", best, "; ".join(sources))]
        if self.features(best):
            out.append(("base", self.choose(uarch, arch, "base", db), "best under --isa base"))
        return out, notes

    def extra_paths(self, choice: Choice, model: Model | None, db) -> tuple[list[tuple[str, Choice, str]], list[str]]:
        return [], []

    def features(self, choice: Choice) -> frozenset[str]:
        return frozenset(isa_set(choice.code.body))

    def path_text(self, choice: Choice) -> str:
        return function_text(choice.code)

    def loop_items(self, choice: Choice) -> list:
        return block_loop_items(choice.code)

    def blocks(self, choice: Choice) -> int:
        return 1

    def prove(self, choice: Choice) -> bool:
        s = choice.code
        return prove_block(s.body, s.inputs, s.outputs, s.pointers).ok

    def describe(self, choice: Choice) -> str:
        return choice.code.name

    def flavor_refusal(self, flavor: str, predicted: bool) -> str | None:
        return None

    def exportable(self, choice: Choice, *, uarch: str | None, command: str, prediction: str) -> Exportable:
        return scalar_exportable(choice.code, uarch=uarch, command=command)

    def stored(self, db, model: Model, arch: Arch, variant: str = ""):
        """The best stored scalar block of the model (its round-range rows, ``blocks.best_block``)."""
        return best_block(model.name, arch, db)


SCALAR = ScalarFamily()


def recipe_variants(arch: Arch, level: str, model: Model,
                    base: Recipe = TEXTBOOK) -> list[tuple[str, "Schedule"]]:
    """Whole-block schedules of the recipe ``base`` (default: the textbook's) with one field changed
    (``recipe.NAMED_OPTIONS``), each as (its fields that differ from the textbook's, ``name=option`` joined by
    commas, or "textbook"; its schedule, which knows its recipe), for the options both the cap ``level`` and
    the model's CPU (``model.isa``) allow. Example: on x86-64 under ``--isa bmi2`` on a BMI2 model,
    ``rol5=rorx`` is one; with ``base`` the textbook with ``wsrc=reg3``, ``rol5=rorx,wsrc=reg3`` is one."""
    cap = min(isa_rank(scalar_level(level)), isa_rank(model.isa if model.isa in ISA_LEVELS else "base"))
    out = []
    for f in fields(Recipe):
        for option in NAMED_OPTIONS[f.name]:
            if option == getattr(base, f.name) or isa_rank(option_isa(f.name, option)) > cap:
                continue
            recipe = replace(base, **{f.name: option})
            if recipe == TEXTBOOK:                # back to the textbook: its own schedule (and text)
                out.append(("textbook", textbook(arch)))
                continue
            real = realize(Candidate(0, 79, arch, recipe))
            if real is not None:
                key = ",".join(f"{g.name}={getattr(recipe, g.name)}" for g in fields(Recipe)
                               if getattr(recipe, g.name) != getattr(TEXTBOOK, g.name))
                out.append((key, replace(block_schedule([real.code], arch, f"recipe {key}"), recipe=recipe)))
    return out
