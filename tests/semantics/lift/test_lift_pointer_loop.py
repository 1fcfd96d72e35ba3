"""A path whose indirect jump goes where one of its indirect jumps went before is refused: a loop through a pointer.

Rule (issue 24; ``lift.control``, ``paths.State.jumped``): a resolver that finds its function pointer unchanged
jumps through it to itself, forever (natively: the process never returns). Each round may fork (nettle's resolver
calls getenv: two paths a round), so following it only ends at the step limit, after exponentially many paths --
a mutant of nettle's fat ``nettle_sha1_compress_init`` (``lea -0x49(%rip),%rbp`` with a bit flipped, so the
pointer never compares equal to the resolver) ran more than 10 minutes and grew to 3.6 GB in
bench/other_libraries.py. Now the second jump to the same code address is refused by name, at once. The code is
the tests' own ``csrc/sha1_archive_resolver.c``, built with gcc -O2 (``-DSTORE=``: the resolver does not store).
"""

from __future__ import annotations

from pathlib import Path

from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.lift.interface import DEFAULT
from tests.support.csrc import compile_c

SOURCE = Path(__file__).resolve().parent / "csrc" / "sha1_archive_resolver.c"


def _paths(tmp_path_factory, *defines: str):
    obj = compile_c(SOURCE, tmp_path_factory.mktemp("resolver"), *defines)
    return prove_function(obj, "entry", DEFAULT.contract("sysv")).paths


def test_regression_resolver_jumping_back_to_itself_is_refused_at_once(tmp_path_factory):
    paths = _paths(tmp_path_factory, "STORE=")
    looped = [p for p in paths if "back to init, where an indirect jump of this path went before" in p.detail]
    assert looped and all(p.outcome == "refused" for p in looped), [(p.outcome, p.detail[:160]) for p in paths]
    assert max(p.instructions for p in paths) < 20


def test_resolver_that_stores_the_implementation_jumps_once_to_each(tmp_path_factory):
    paths = _paths(tmp_path_factory)
    assert not any("indirect jump of this path went before" in p.detail for p in paths), [p.detail for p in paths]
    assert {t for p in paths for _, t in p.pointers} == {"init", "sha1_ref_block_data_order"}


def test_wrapper_called_twice_jumps_through_its_pointer_in_each_call(tmp_path_factory):
    """The rule is per call (``calls.leave_local`` forgets a returned call's jumps): a wrapper that tail-jumps
    through a pointer into this object's code, called twice on one path (``csrc/sha1_pointer_twice.c``), is
    followed both times, not refused as a loop."""
    obj = compile_c(Path(__file__).resolve().parent / "csrc" / "sha1_pointer_twice.c",
                    tmp_path_factory.mktemp("twice"))
    paths = prove_function(obj, "twice", DEFAULT.contract("sysv")).paths
    assert paths and not any("went before" in p.detail for p in paths), [p.detail[:200] for p in paths]
    assert max(p.instructions for p in paths) > 1000        # (both blocks' rounds were executed)
