"""The engine's differential check, full set: the digest of every output of the cost model over a fixed,
seeded set of sequences on every model (``tests/support/engine_digest.py`` says what is hashed).

``FULL_DIGEST`` is the digest the engine gave at commit 27949d2 (before the speed work of issue 27):
a change that makes the engine faster must leave it unchanged. To re-derive it: ``git worktree add
/tmp/orig 27949d2`` and run this script there (copying in ``tests/support/engine_digest.py``, the package
imported from that tree); it
changes only when the sequences change (the search space, the models' data), never for the engine.

Usage: python bench/sim_digest.py [--quick] [--verbose]   (prints the digest; exit 1 if the full set's
digest is not ``FULL_DIGEST``). It takes ~15 minutes on one core.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.engine_digest import digest  # noqa: E402

FULL_DIGEST = "dabb96aa8bf9f46d2e6bc91dfcd59c81b1f7a9dc00e3c2c90ee9834bd3a53645"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    d = digest(args.quick, (lambda line: print(line, flush=True)) if args.verbose else None)
    print(d)
    return 0 if args.quick or d == FULL_DIGEST else 1


if __name__ == "__main__":
    sys.exit(main())
