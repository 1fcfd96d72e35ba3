"""The nominal optimum against the robust pick, per model (issue 25 item 4): model figures, not timings.

Usage: .venv/bin/python bench/robust_choice.py [--uarch U ...] [--n N] [--members M] [--seed S] [--out FILE]
(writes bench/results/robust_choice.txt by default; every figure is the cost model's, so the machine's load does
not change them: it may run beside other work)

For each model (default zen1, skylake, core2), first ``search --robust`` on rounds 0-79 (``--evaluations E``
annealing moves, seed 0, one run: a function of its inputs): the search's final candidates (its nominal
optimum, the run's best, the cheapest starts) priced on the ensemble, the nominal optimum against the robust
pick (``search.robust``); the nominal optimum is stored in a fresh results database. Then, for two ``--isa`` levels -- the highest scalar level the model's
CPU has (``bmi2`` or ``base``) and its highest level (``robust_choice.model_level``) -- ``export --robust N``'s
choice (``emit.robust_choice.robust_choice``): every family's default and N ranked candidates (the scalar
family's pick is the searched block just stored, then the recipe variants; the hybrid and SHA-NI families
search with export's budget and seed), each priced by the block-loop measure on the
model and on its uncertainty ensemble (``search.cost.uncertainty``: M members, seed S). Printed per level:
every candidate's nominal c/B and its ensemble spread (min / median / max, worst), then the nominal optimum
against the robust pick (the lowest worst case, ties by the nominal figure). First, per model, what is uncertain
(how many parameters of each tier, ``corpus/uncertainty.toml``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from sha1opt.semantics.datafiles import atomic_write
from sha1opt.search.cost.model import load_model
from sha1opt.search.cost.uncertainty import uncertainty
from sha1opt.search.driver import default_arch, search_range
from sha1opt.search.store import Store
from sha1opt.views.report import robust_lines
from sha1opt.emit.robust_choice import describe, model_level, robust_choice

RESULTS = Path(__file__).parent / "results" / "robust_choice.txt"


def levels(model) -> list[str]:
    scalar = "bmi2" if model.has_isa("bmi2") else "base"
    top = model_level(model)
    return [scalar] if top == scalar else [scalar, top]


def summary(r) -> list[str]:
    nom, best = r.entries[r.nominal], r.best
    row = lambda what, e: (f"  {what:15s} {e.key[:44]:44s} {e.spread.nominal / 64:6.2f} c/B nominal; "  # noqa: E731
                           f"min {e.spread.low / 64:5.2f} median {e.spread.median / 64:5.2f} "
                           f"max {e.spread.high / 64:5.2f} worst {e.spread.worst / 64:5.2f}")
    out = [row("nominal optimum", nom), row("robust pick", best)]
    out.append("  => the nominal optimum is also the robust pick" if r.kept_nominal else
               f"  => robust pick differs: worst case {100 * (best.spread.worst / nom.spread.worst - 1):+.1f} %, "
               f"nominal {100 * (best.spread.nominal / nom.spread.nominal - 1):+.1f} %")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uarch", nargs="+", default=["zen1", "skylake", "core2"])
    ap.add_argument("--n", type=int, default=3, help="ranked candidates per family (export --robust N)")
    ap.add_argument("--members", type=int, default=None, help="ensemble members (default: corpus/uncertainty.toml)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--evaluations", type=int, default=300, help="annealing moves of the rounds 0-79 search (0: none)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    lines = [f"bench/robust_choice.py: the nominal optimum vs the robust pick (export --robust {args.n}); "
             f"cost-model figures (block-loop c/B), ensemble seed {args.seed}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"]
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sha1opt-robust-") as d:
        db = Path(d) / "results.sqlite"
        Store(db).close()
        for name in args.uarch:
            model = load_model(name)
            tiers = Counter(f"{p.tier} {p.field}" for p in uncertainty(model))
            lines += ["", f"== {name}: uncertain parameters: " + ", ".join(f"{n} {t}" for t, n in sorted(tiers.items()))]
            if args.evaluations:
                rep = search_range(name, 0, 79, time_limit=600, workers=1, seed=0, db=db,
                                   evaluations=args.evaluations, robust=True)
                lines += ["", f"search --robust --uarch {name} --rounds 0-79 --evaluations {args.evaluations}: "
                              f"nominal optimum {rep.cycles:.1f} cycles ({rep.cycles / 64:.2f} c/B), {rep.proof}"]
                lines += robust_lines(rep) + [f"  finalist {p.label}: {p.spread.nominal:.1f} cycles nominal; "
                                              f"{p.spread.text()}; worst {p.spread.worst:.1f}"
                                              for p in rep.robust.pooled]
                print("\n".join(lines[-(len(rep.robust.pooled) + 4):]), flush=True)
            for level in levels(model):
                r = robust_choice(name, default_arch(name), level, args.n, db, members=args.members, seed=args.seed)
                lines += [""] + describe(r) + summary(r)
                print("\n".join(lines[-(len(r.entries) + 5):]), flush=True)
    lines += ["", f"{time.monotonic() - t0:.0f} s"]
    atomic_write(args.out, "\n".join(lines) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
