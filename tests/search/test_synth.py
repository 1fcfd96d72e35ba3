"""Synthesis: rediscoveries, minimality against brute force, CEGIS refinement, the corpus rows and the CLI.

Settings used below: "keep" = b, c, d read-only (the SHA-1 round needs them
afterwards), "destroy" = input registers may be overwritten.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import sha1opt.search.synth as S
from sha1opt.cli_synth import synth as synth_command
from sha1opt.search.synth import Lane, Layout, PackedDomain, explore, minimal_paths
from sha1opt.search.synth import discovered as D
from sha1opt.search.synth.cegis import Screen, refuting_lanes
from sha1opt.search.synth.layers import HashedStore, PackedStore
from sha1opt.semantics.att import parse_text
from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.errors import CorpusError, Sha1optError
from sha1opt.semantics.ir import evaluate
from sha1opt.semantics.machine import Machine
from sha1opt.semantics.prove import Proved, Prover
from sha1opt.semantics.x86 import writes
from sha1opt.views.synth import claim, render


def code(text: str) -> tuple:
    return tuple(parse_text(text, "x86_64"))


def texts(result) -> set[str]:
    return {s.text for s in result.solutions}


# --- the packed lanes compute what numpy computes ----------------------------------------


@pytest.mark.parametrize("widths", [(1,) * 8, (2, 3, 5, 7, 1, 2), (32, 32, 32)])
def test_packed_domain_agrees_with_numpy_on_every_op(widths):
    rng = np.random.default_rng(7)
    lanes = [Lane((int(rng.integers(0, 1 << 32)),), w) for w in widths]
    layout = Layout(lanes)
    dom, n = PackedDomain(layout), len(lanes)
    trials = 50
    xs = rng.integers(0, 1 << 32, size=(trials, n), dtype=np.uint64).astype(np.uint32)
    ys = rng.integers(0, 1 << 32, size=(trials, n), dtype=np.uint64).astype(np.uint32)
    px = np.stack([layout.pack(r) for r in xs])
    py = np.stack([layout.pack(r) for r in ys])
    nd = NumpyDomain(n)
    ops = [("add", 2), ("sub", 2), ("and", 2), ("or", 2), ("xor", 2), ("not", 1), ("neg", 1)]
    counts = [0, 1, 5, 31]
    ops += [("shl", k) for k in counts]
    if layout.full_width:
        ops += [(op, k) for op in ("rol", "ror", "shr") for k in counts] + [("bswap", 1)]
    masks = [(1 << w) - 1 for w in widths]
    for op, arg in ops:
        for t in range(trials):
            if op in ("shl", "shr", "rol", "ror"):
                got = dom.apply(op, px[t], dom.const(arg))
                want = nd.apply(op, xs[t], np.full(n, arg, dtype=np.uint32))
            elif arg == 2:
                got, want = dom.apply(op, px[t], py[t]), nd.apply(op, xs[t], ys[t])
            else:
                got, want = dom.apply(op, px[t]), nd.apply(op, xs[t])
            assert layout.unpack(got) == [int(v) & m for v, m in zip(want, masks)], (op, arg, widths)


def test_packed_domain_refuses_rotates_on_narrow_lanes():
    layout = Layout([Lane((0,), 1), Lane((1,), 1)])
    dom = PackedDomain(layout)
    with pytest.raises(Sha1optError, match="32-bit lanes"):
        dom.apply("rol", layout.pack([1, 0]), dom.const(1))


# --- rediscoveries --------------------------------------------------------------------------


@pytest.mark.slow     # 30-130 s (exhaustive to length 7, 300 solutions): run by bench/slow_checks.py (bench/synth_table.py
# prints the same rediscovery); minimal lengths and sequences stay checked in make test against brute force (below)
def test_f3_into_e_with_one_temporary_is_two_additions_into_e():
    r = S.synthesize("f3-into-e", temps=1, max_len=7, max_solutions=300, with_costs=False)
    assert r.status == "found" and r.length == 7 and r.complete
    assert claim(r).startswith("minimal length 7: no sequence of length < 7 exists")
    split = "mov %ebx, %esi; and %ecx, %esi; add %esi, %ebp; mov %ebx, %esi; xor %ecx, %esi; and %edx, %esi; add %esi, %ebp"
    assert split in texts(r)
    for sol in r.solutions:   # one temp cannot hold majority whole: every minimal sequence adds two halves
        assert sum(i.mnemonic in ("add", "lea") for i in sol.program) == 2, sol.text
        assert not any(w in ("ebx", "ecx", "edx") for i in sol.program for w in writes(i))


def test_plain_majority_needs_two_temporaries_when_inputs_are_kept():
    one = S.synthesize("f3", temps=1, max_len=12, with_costs=False)
    assert one.status == "none" and one.closed   # no length at all: one register cannot hold majority
    two = S.synthesize("f3", temps=2, max_len=6, with_costs=False, max_solutions=8)
    assert two.status == "found" and two.length == 6


def test_f1_with_one_temporary():
    keep = S.synthesize("f1", temps=1, max_len=6)
    assert keep.status == "found" and keep.length == 4   # the select form plus the mov that keeps c
    assert "mov %ecx, %esi; xor %edx, %esi; and %ebx, %esi; xor %edx, %esi" in texts(keep)
    destroy = S.synthesize("f1", temps=1, destroy=True, max_len=6)
    assert destroy.status == "found" and destroy.length == 3   # d ^ (b & (c ^ d)) in c, no mov
    assert "xor %edx, %ecx; and %ebx, %ecx; xor %edx, %ecx" in texts(destroy)


def test_f1_into_e_with_bmi1_adds_two_independent_terms_via_andn():
    bmi1 = S.synthesize("f1-into-e", temps=1, isa="bmi1", max_len=5, max_solutions=400)
    base = S.synthesize("f1-into-e", temps=1, isa="base", max_len=5, max_solutions=400)
    assert bmi1.status == base.status == "found" and bmi1.length == base.length == 5
    assert bmi1.complete and base.complete
    two_terms = "mov %ebx, %esi; and %ecx, %esi; add %esi, %ebp; andn %edx, %ebx, %esi; add %esi, %ebp"
    assert two_terms in texts(bmi1)
    assert not any("andn" in s.uses for s in base.solutions)
    # Two terms added separately shorten the dependency chain: no base sequence is as short.
    assert min(s.critical_path for s in bmi1.solutions) < min(s.critical_path for s in base.solutions)
    andn_costs = next(s.costs for s in bmi1.solutions if s.text == two_terms)
    assert andn_costs is not None   # priced per uarch: no cycles where the model lacks BMI1
    assert any(c is None for c in andn_costs.values()) and any(c for c in andn_costs.values())


# --- minimality against brute force -------------------------------------------------------------


def brute_force(target: str, temps: int, destroy: bool, n: int):
    """Every sequence of length <= n over the same vocabulary, no pruning at all, run on 64 random states."""
    space = S.space_for(S.TARGETS[target], S.Setting(temps, "base", destroy))
    rng = np.random.default_rng(11)
    lanes = 64
    env = {v: rng.integers(0, 1 << 32, size=lanes, dtype=np.uint64).astype(np.uint32) for v in space.variables}
    want = evaluate([space.target], NumpyDomain(lanes), env)[0]
    start = {space.home[v]: env[v] for v in space.variables}
    start.update({t: rng.integers(0, 1 << 32, size=lanes, dtype=np.uint64).astype(np.uint32) for t in space.temps})
    found: dict[int, list] = {k: [] for k in range(n + 1)}

    def walk(regs, prefix):
        if prefix:
            out = next(iter(writes(prefix[-1])))
            if out in space.outputs and (regs[out] == want).all():
                found[len(prefix)].append((prefix, out))
        if len(prefix) < n:
            for ins in space.vocabulary:
                m = Machine(NumpyDomain(lanes), initial_reg=regs.__getitem__, initial_mem=None, regs=dict(regs))
                m.step(ins)
                walk(m.regs, prefix + (ins,))

    walk(start, ())
    return space, found


@pytest.mark.parametrize("target,temps,destroy,length", [("f2", 1, False, 3), ("f2", 0, True, 2), ("f1", 0, True, 3)])
def test_minimal_length_and_sequences_match_brute_force(target, temps, destroy, length, prover):
    space, found = brute_force(target, temps, destroy, length)
    assert all(not found[k] for k in range(length)), "brute force found something shorter"
    proved = {S.canonical_form(p, out, space) for p, out in found[length]
              if isinstance(S.prove_sequence(p, out, S.TARGETS[target], prover), Proved)}
    r = S.synthesize(target, temps=temps, destroy=destroy, max_len=length, with_costs=False)
    assert r.status == "found" and r.length == length and r.complete
    assert {(s.program, s.output) for s in r.solutions} == proved


@pytest.mark.parametrize("target,temps,destroy,isa,length", [("f1", 0, True, "bmi1", 3), ("f3", 2, False, "base", 4)])
def test_packed_and_hashed_stores_find_the_same_states(target, temps, destroy, isa, length):
    space = S.space_for(S.TARGETS[target], S.Setting(temps, isa, destroy))
    lanes = S.initial_lanes(space) + [Lane((0x12345678, 0x9ABCDEF0, 0x0F0F0F0F), 3)]
    packed, hashed = explore(space, lanes, length, store="packed"), explore(space, lanes, length, store="hashed")
    assert isinstance(packed._engine.store, PackedStore) and isinstance(hashed._engine.store, HashedStore)
    assert packed.status == "goal"   # so the goal paths below are compared too (f3's are spurious at 4)
    assert (packed.status, packed.depth, packed.layer_sizes) == (hashed.status, hashed.depth, hashed.layer_sizes)
    a, b = minimal_paths(packed, 10 ** 6), minimal_paths(hashed, 10 ** 6)
    assert a.total == b.total > 0 and set(a.paths) == set(b.paths)


def test_message_word_uses_the_rotate_and_32_bit_lanes():
    r = S.synthesize("w-word", temps=1, max_len=5, with_costs=False)
    assert r.status == "found" and r.length == 5 and r.complete
    assert "mov %eax, %esi; xor %ebx, %esi; xor %ecx, %esi; xor %edx, %esi; rol $1, %esi" in texts(r)


def test_canonical_form_identifies_reorderings_and_temp_renamings():
    space = S.space_for(S.TARGETS["f3"], S.Setting(2, "base", False))
    a = code("mov %ebx, %esi; and %ecx, %esi; mov %ebx, %edi; or %ecx, %edi; and %edx, %edi; or %edi, %esi")
    b = code("mov %ebx, %edi; or %ecx, %edi; mov %ebx, %esi; and %ecx, %esi; and %edx, %edi; or %edi, %esi")
    c = code("mov %ebx, %edi; and %ecx, %edi; mov %ebx, %esi; or %ecx, %esi; and %edx, %esi; or %esi, %edi")
    ca, cb, cc = S.canonical_form(a, "esi", space), S.canonical_form(b, "esi", space), S.canonical_form(c, "edi", space)
    assert ca == cb == cc
    assert S.canonical_form(code("mov %ebx, %esi; and %ecx, %esi"), "esi", space) != \
        S.canonical_form(code("mov %ecx, %esi; and %ebx, %esi"), "esi", space)


# --- CEGIS: a wrong candidate caught by Z3 grows the tests ------------------------------------------


def test_z3_counterexample_refines_the_lanes_and_the_prover_test_set():
    # No numpy screen and a prover whose prefilter starts empty: every candidate path goes to Z3.
    # On one-bit lanes "add" looks like "xor", so b + c + d style paths reach the abstract goal
    # for f2 and only a counterexample refutes them; each one joins the prover's tests and the lanes.
    prover = Prover(timeout=20.0, lanes=0)
    r = S.synthesize("f2", temps=1, max_len=4, screen_lanes=0, prover=prover, with_costs=False)
    assert r.status == "found" and r.length == 3
    assert r.refuted_by_z3 >= 1 and r.refinements >= 1
    assert len(prover.tests.counterexamples) == r.refuted_by_z3     # the prover's test set grew
    assert r.lanes > len(S.initial_lanes(S.space_for(S.TARGETS["f2"], S.Setting(1))))
    assert all("add" not in s.uses and "lea" not in s.uses for s in r.solutions)


def test_spurious_abstract_path_is_refuted_by_a_narrow_lane():
    space = S.space_for(S.TARGETS["f2"], S.Setting(1, "base", False))
    lanes = S.initial_lanes(space)
    exp = explore(space, lanes, 3)
    spurious = "lea (%ebx,%ecx), %esi; xor %edx, %esi"   # b+c == b^c on bit 0 only

    def goal_paths(exp):
        return {"; ".join(map(str, p)) for p in minimal_paths(exp, 1000).paths} if exp.status == "goal" else set()

    assert exp.status == "goal" and exp.depth == 2 and spurious in goal_paths(exp)
    screen = Screen(space, 64, 0)
    lane = refuting_lanes([screen.failures(code(spurious), "esi")], screen, narrow=True, limit=1)[0]
    assert lane.width == 2                           # the carry into bit 1 is what tells them apart
    assert spurious not in goal_paths(explore(space, lanes + [lane], 3))


def test_time_limit_is_unknown_never_success():
    r = S.synthesize("f3-into-e", temps=1, max_len=7, time_limit=0.05, with_costs=False)
    assert r.status == "unknown" and r.length is None and not r.solutions
    assert "not a result" in claim(r)


# --- the discovered corpus -------------------------------------------------------------------------


def test_save_and_load_discovered_round_trip(tmp_path):
    path = tmp_path / "discovered.toml"
    r = S.synthesize("f2", temps=1, max_len=4, with_costs=False)
    S.save_discovered([r], path, date="2026-01-02")
    rows = S.load_discovered(path)
    assert len(rows) == len(r.solutions)
    row = rows[0]
    assert (row.target, row.temps, row.isa, row.destroy, row.length, row.minimal) == ("f2", 1, "base", False, 3, True)
    assert (row.proved_by, row.date, row.source) == ("z3", "2026-01-02", "sha1opt synth")
    assert {x.code for x in rows} == texts(r)
    # Saving the same setting again replaces its rows instead of duplicating them.
    S.save_discovered([r], path, date="2026-01-03")
    assert len(S.load_discovered(path)) == len(r.solutions)
    assert not list(tmp_path.glob(".discovered.*"))   # the temporary file was renamed away


@pytest.mark.parametrize("edit,message", [
    (lambda t: t.replace('source = "sha1opt synth"', 'source = "x"\ncolour = "red"', 1), "unknown key 'colour'"),
    (lambda t: t.replace('proved_by = "z3"\n', "", 1), "missing key 'proved_by'"),
    (lambda t: t.replace("length = 3", 'length = "3"', 1), "length must be int"),
    (lambda t: t.replace("length = 3", "length = 4", 1), "length 4 but the code has 3"),
    (lambda t: t.replace("xor %ecx, %esi", "frob %ecx, %esi", 1), "code: .*unsupported instruction 'frob'"),
])
def test_load_discovered_is_strict(tmp_path, edit, message):
    path = tmp_path / "discovered.toml"
    S.save_discovered([S.synthesize("f2", temps=1, max_len=4, with_costs=False)], path, date="2026-01-02")
    path.write_text(edit(path.read_text()))
    with pytest.raises(CorpusError, match=message):
        S.load_discovered(path)


def test_duplicate_names_are_refused(tmp_path):
    path = tmp_path / "discovered.toml"
    S.save_discovered([S.synthesize("f2", temps=1, max_len=4, with_costs=False)], path, date="2026-01-02")
    text = path.read_text()
    block = text[text.index("[[sequence]]"):]
    path.write_text(text + "\n" + block.split("\n\n")[0] + "\n")
    with pytest.raises(CorpusError, match="duplicate"):
        S.load_discovered(path)


def test_shipped_discovered_corpus_loads_and_every_row_proves(prover):
    rows = S.load_discovered()
    assert rows, "corpus/discovered.toml is empty"
    for row in rows:
        program = row.program
        out = next(iter(writes(program[-1])))
        assert isinstance(S.prove_sequence(program, out, S.TARGETS[row.target], prover), Proved), row.name


def test_shipped_discovered_corpus_is_in_the_writers_format():
    # The file is what save_discovered writes for its own rows: a save that changes nothing leaves it
    # byte for byte as it is (so a new writer cannot silently reformat or reorder the corpus).
    path = D.discovered_path()
    rows = [row.__dict__ for row in D.load_discovered(path)]
    assert D.toml_text(rows) == path.read_text()


def test_render_states_the_claim_and_lists_the_best_sequences():
    r = S.synthesize("f1", temps=1, destroy=True, max_len=6, with_costs=False)
    text = render(r, show=2).splitlines()
    assert text[0] == "synth f1: temps=1 isa=base destroy, max-len 6"
    assert text[1] == "result: " + claim(r)
    assert text[2].startswith("vocabulary: mov add sub and or xor not; lea(base+index, scale 1)")
    assert "andn" not in text[2]
    assert text[4].startswith(f"sequences (2 of {len(r.solutions)}, ")
    assert text[5] == f"  1. {r.solutions[0].text}    -> %{r.solutions[0].output}"
    assert len(text) == 4 + 1 + 2 * 2


# --- the command ------------------------------------------------------------------------------------


def run(*args):
    return CliRunner().invoke(synth_command, list(args), catch_exceptions=False)


def test_cli_found_exit_0_and_json():
    r = run("--target", "f2", "--temps", "1", "--max-len", "4", "--json")
    assert r.exit_code == 0
    data = json.loads(r.output)
    assert data["status"] == "found" and data["length"] == 3 and data["solutions"]
    assert data["solutions"][0]["code"][0].startswith("mov")


def test_cli_none_exit_1():
    r = run("--target", "f3", "--temps", "1", "--max-len", "4")
    assert r.exit_code == 1 and "none up to length 4" in r.output


def test_cli_unknown_exit_3():
    r = run("--target", "f3-into-e", "--temps", "1", "--max-len", "7", "--time-limit", "0.05")
    assert r.exit_code == 3 and "unknown" in r.output


@pytest.mark.parametrize("args", [["--target", "f9"], ["--target", "f1", "--temps", "9"],
                                  ["--target", "f1", "--isa", "avx"], ["--target", "f1", "--max-len", "-1"]])
def test_cli_bad_input_exit_2(args):
    assert run(*args).exit_code == 2


def test_cli_library_refusal_exit_2_one_line():
    # click accepts --temps 8, but f1-round's five inputs leave only 7 free registers: the library's
    # Sha1optError must become exit 2 with one line, not a traceback (the options above never reach it).
    r = run("--target", "f1-round", "--temps", "8")
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == ["sha1opt: error: at most 7 temporaries for f1-round"]


def test_cli_save_writes_the_users_file(tmp_path, monkeypatch):
    """--save alone writes $XDG_DATA_HOME/sha1opt/discovered.toml (not the installed corpus/)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    path = tmp_path / "sha1opt" / "discovered.toml"
    r = run("--target", "f1", "--temps", "1", "--max-len", "4", "--save", "--save-limit", "1")
    assert r.exit_code == 0 and f"saved 1 sequence(s) to {path}" in r.output
    assert [(row.target, row.length) for row in S.load_discovered(path)] == [("f1", 4)]
