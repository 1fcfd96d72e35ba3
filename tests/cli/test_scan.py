"""``sha1opt scan`` (issue 24): find the SHA-1 compression functions under some paths, prove each, one row each.

The rules: a folder is walked recursively and archives member by member; a
function is reported when its code (or the data it references) holds all
four SHA-1 round constants, SHA-NI round code, or a tail jump into such code
(``lift.candidates.compression_candidates``) -- never for a name alone (an
HMAC-SHA1 wrapper) and never for SHA-256 code (no SHA-1 constants); each row
carries the proof's verdict, paths, time and the host model's c/B as
``analyze`` computes them; a file that cannot be read is one line on stderr,
never a traceback; ``--time-limit`` stops a proof; Ctrl-C prints what was
found and exits 130. The objects are built here from sha1opt's own export and
C written here (SHA-256's constants computed from the primes, FIPS 180-4
4.2.2), nothing of another project's code.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from sha1opt.analyze import analyze_file, prove_object
from sha1opt.cli_analyze import scan
from sha1opt.emit.assembly import function_text
from sha1opt.scan import Found, may_hold
from sha1opt.scan import scan as scan_paths
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.candidates import compression_candidates
from sha1opt.semantics.lift.elf import ObjectFile
from tests.support.groups import SHA1OPT

pytestmark = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("ar")), reason="gcc/ar not installed")
LIBCRYPTO_A = Path("/usr/lib/x86_64-linux-gnu/libcrypto.a")
OPENSSL_MEMBER = "libcrypto-lib-sha1-x86_64.o"


def _primes(n: int) -> list[int]:
    out, k = [], 2
    while len(out) < n:
        if all(k % p for p in out):
            out.append(k)
        k += 1
    return out


def _sha256_c() -> str:
    """A SHA-256 compression function in C; K = the first 32 bits of the fractional parts of the cube roots
    of the first 64 primes (FIPS 180-4 4.2.2), computed here."""
    k = [int((p ** (1 / 3) - math.floor(p ** (1 / 3))) * 2 ** 32) for p in _primes(64)]
    table = ", ".join(f"0x{v:08x}u" for v in k)
    return f"""#include <stdint.h>
static const uint32_t K[64] = {{{table}}};
#define R(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
void sha256_transform(uint32_t s[8], const unsigned char *d) {{
    uint32_t w[64], a = s[0], b = s[1], c = s[2], e = s[4], f = s[5], g = s[6], h = s[7], dd = s[3];
    for (int i = 0; i < 16; i++) w[i] = (uint32_t)d[4*i] << 24 | d[4*i+1] << 16 | d[4*i+2] << 8 | d[4*i+3];
    for (int i = 16; i < 64; i++)
        w[i] = w[i-16] + (R(w[i-15], 7) ^ R(w[i-15], 18) ^ (w[i-15] >> 3)) + w[i-7]
             + (R(w[i-2], 17) ^ R(w[i-2], 19) ^ (w[i-2] >> 10));
    for (int i = 0; i < 64; i++) {{
        uint32_t t1 = h + (R(e, 6) ^ R(e, 11) ^ R(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (R(a, 2) ^ R(a, 13) ^ R(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = dd + t1; dd = c; c = b; b = a; a = t1 + t2;
    }}
    s[0] += a; s[1] += b; s[2] += c; s[3] += dd; s[4] += e; s[5] += f; s[6] += g; s[7] += h;
}}
"""


HMAC_C = """#include <stdint.h>
void sha1_compress(uint32_t *state, const unsigned char *block);
/* an HMAC-SHA1 step: a name with "sha1", no round constants of its own: a wrapper, not a compression function */
void hmac_sha1_inner(uint32_t *state, const unsigned char *block, const unsigned char *pad) {
    unsigned char b[64];
    for (int i = 0; i < 64; i++) b[i] = block[i] ^ pad[i];
    sha1_compress(state, b);
}
"""


def _gcc(src: Path, out: Path) -> Path:
    subprocess.run(["gcc", "-O2", "-c", "-o", str(out), str(src)], check=True, timeout=120)
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """export.o (sha1opt's own), plain.o (no SHA), sha256.o, hmac_sha1.o, lib.a (export.o and plain.o), a
    corrupt ELF holding the round constants and a corrupt archive, in a subfolder."""
    d = tmp_path_factory.mktemp("scan")
    build = tmp_path_factory.mktemp("build")
    (build / "export.S").write_text(function_text(textbook("x86_64")))
    _gcc(build / "export.S", d / "export.o")
    (build / "plain.c").write_text("int add(int a, int b) { return a + b; }\n")
    _gcc(build / "plain.c", d / "plain.o")
    (build / "sha256.c").write_text(_sha256_c())
    _gcc(build / "sha256.c", d / "sha256.o")
    (build / "hmac_sha1.c").write_text(HMAC_C)
    _gcc(build / "hmac_sha1.c", d / "hmac_sha1.o")
    sub = d / "sub"
    sub.mkdir()
    subprocess.run(["ar", "rcs", str(sub / "lib.a"), str(d / "export.o"), str(d / "plain.o")], check=True,
                   timeout=60)
    constants = b"".join(k.to_bytes(4, "little") for k in (0x5A827999, 0x6ED9EBA1, 0x8F1BBCDC, 0xCA62C1D6))
    head = bytearray(64)          # an x86-64 ELF header whose section headers lie past the end of the file
    head[:7], head[16:20] = b"\x7fELF\x02\x01\x01", b"\x01\x00\x3e\x00"
    head[40:48], head[58:62] = (4096).to_bytes(8, "little"), b"\x40\x00\x05\x00"
    (sub / "broken.o").write_bytes(bytes(head) + constants)
    (sub / "broken.a").write_bytes(b"!<arch>\nnot a header at all, and the constants " + constants)
    return d


def test_scan_of_a_folder_reports_the_sha1_functions_only_each_proved_with_its_row(folder):
    """One row per SHA-1 function: export.o and the archive member lib.a(export.o), proved, with the path
    count, the interface, the evidence and the host model's c/B (the figure `analyze` gives on that model);
    plain.o, sha256.o and the HMAC wrapper are not reported; each corrupt file is one line on stderr."""
    r = CliRunner().invoke(scan, [str(folder), "--uarch", "zen3"])
    assert r.exit_code == 0, r.output
    rows = [ln for ln in r.stdout.splitlines() if "sha1_block_data_order" in ln]
    assert len(rows) == 2, r.stdout
    assert rows[0].startswith(f"{folder / 'export.o'}  sha1_block_data_order @0x0")
    assert rows[1].startswith(f"{folder / 'sub' / 'lib.a'}(export.o)  sha1_block_data_order")
    expected = analyze_file(folder / "export.o", ["zen3"])[0].cycles_per_byte
    for row in rows:
        assert "(state, data, nblocks) (catalogue) [constants]  proved  2/2 proved" in row, row  # OpenSSL's row
        assert f"{expected:.2f} c/B zen3" in row
    for absent in ("plain", "sha256", "hmac"):
        assert absent not in r.stdout
    err = [ln for ln in r.stderr.splitlines() if ln.startswith("sha1opt: cannot read")]
    assert len(err) == 2 and any("broken.o" in ln for ln in err) and any("broken.a" in ln for ln in err), r.stderr
    assert "Traceback" not in r.output
    assert r.stdout.splitlines()[-1].startswith("2 function(s), 2 proved;")


def test_scan_json_gives_every_row_field(folder):
    """--json: every row's fields as data (file, member, function, address, interface, verdict, paths, time,
    c/B, model), the unreadable files and the totals; no progress line on stderr."""
    r = CliRunner().invoke(scan, [str(folder / "sub" / "lib.a"), str(folder / "plain.o"), "--uarch", "zen3",
                                  "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    (row,) = out["functions"]
    assert row["file"] == str(folder / "sub" / "lib.a") and row["member"] == "export.o"
    assert row["function"] == "sha1_block_data_order" and row["verdict"] == "proved"
    assert row["paths"] == row["proved_paths"] == 2 and row["interface"] == "(state, data, nblocks)"
    assert row["cycles_per_byte"] > 0 and row["uarch"] == "zen3" and row["seconds"] > 0
    assert out["unreadable"] == [] and out["interrupted"] is False and out["done"]["files"] == 2


def test_sha256_and_a_sha1_named_wrapper_are_not_sha1(folder):
    """The pre-filter and the candidates: SHA-256 code holds none of SHA-1's constants (not even parsed); the
    HMAC-SHA1 wrapper names SHA-1 but holds no constant and no SHA-NI code, and the catalogue does not list it."""
    assert not may_hold((folder / "sha256.o").read_bytes())
    events = list(scan_paths([folder / "sha256.o", folder / "hmac_sha1.o"], uarch="zen3"))
    assert [type(e).__name__ for e in events] == ["Done"]


def test_a_missing_path_is_one_line_and_the_rest_is_scanned(folder, tmp_path):
    """A path that does not exist and a FIFO named on the command line: one line each, then the other files."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = CliRunner().invoke(scan, [str(tmp_path / "nothing"), str(fifo), str(folder / "export.o"), "--uarch", "zen3"])
    assert r.exit_code == 0, r.output
    assert f"cannot read {tmp_path / 'nothing'}: No such file or directory" in r.stderr
    assert f"cannot read {fifo}: not a regular file" in r.stderr
    assert "proved  2/2 proved" in r.stdout and "Traceback" not in r.output


@pytest.mark.skipif(not LIBCRYPTO_A.exists(), reason="libcrypto.a not installed (setup/system-packages.sh: libssl-dev)")
def test_time_limit_stops_a_proof_and_says_so(tmp_path):
    """--time-limit 1 on OpenSSL's x86-64 SHA-1 (five dispatch paths, far more than a second to prove): the
    row says "time limit", the scan goes on and ends within seconds."""
    member = tmp_path / OPENSSL_MEMBER
    member.write_bytes(subprocess.run(["ar", "p", str(LIBCRYPTO_A), OPENSSL_MEMBER], capture_output=True,
                                      check=True, timeout=60).stdout)
    t0 = time.monotonic()
    events = list(scan_paths([member], uarch="zen3", time_limit=1.0))
    assert time.monotonic() - t0 < 20
    (row,) = [e for e in events if isinstance(e, Found)]
    assert row.verdict == "time limit" and row.function == "sha1_block_data_order"
    assert "1 s time limit" in row.detail
    assert row.dispatch == ("sha1_block_data_order_shaext", "sha1_block_data_order_ssse3",
                            "sha1_block_data_order_avx", "sha1_block_data_order_avx2")


@pytest.mark.skipif(not LIBCRYPTO_A.exists(), reason="libcrypto.a not installed (setup/system-packages.sh: libssl-dev)")
def test_the_multi_buffer_function_is_proved_under_its_catalogue_interface(tmp_path):
    """OpenSSL's multi-buffer ``sha1_multi_block`` (independent hashes in SIMD lanes) is a catalogue row: scan
    proves it under ``(lanes, messages, groups)`` -- its SSE, AVX, SHA-NI and AVX2 bodies for 1 and 2 groups --
    with no interface declared (was: "not modelled")."""
    name = "libcrypto-lib-sha1-mb-x86_64.o"
    member = tmp_path / name
    member.write_bytes(subprocess.run(["ar", "p", str(LIBCRYPTO_A), name], capture_output=True, check=True,
                                      timeout=60).stdout)
    r = CliRunner().invoke(scan, [str(member), "--uarch", "zen3", "--time-limit", "300"])
    assert r.exit_code == 0, r.output
    assert "sha1_multi_block @0x0  (lanes, messages, groups) (catalogue)" in r.output, r.output
    assert "1 function(s), 1 proved" in r.output, r.output


def _as_from_a_shell() -> None:
    """The child's SIGINT as a shell starts a command: default action, not blocked -- whatever the test
    worker's threads inherited (a CI run once saw the scan finish untouched by the signal)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(not LIBCRYPTO_A.exists(), reason="libcrypto.a not installed (setup/system-packages.sh: libssl-dev)")
def test_ctrl_c_prints_what_was_found_and_exits_130(folder, tmp_path):
    """SIGINT to the whole process group (a terminal's Ctrl-C) while the second function is being proved: the
    first row stands, one line says so, exit 130, no traceback, no process left behind."""
    member = tmp_path / OPENSSL_MEMBER
    member.write_bytes(subprocess.run(["ar", "p", str(LIBCRYPTO_A), OPENSSL_MEMBER], capture_output=True,
                                      check=True, timeout=60).stdout)
    p = subprocess.Popen([SHA1OPT, "scan", str(folder / "export.o"), str(member), "--uarch", "zen3"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=_as_from_a_shell)
    try:
        deadline = time.monotonic() + 60
        first = p.stdout.readline()            # the export's row: the OpenSSL proof has started after it
        assert "proved  2/2 proved" in first, first
        time.sleep(1.0)
        assert time.monotonic() < deadline
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=20)
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    assert p.returncode == 130, (out, err)
    assert "interrupted: 1 function(s) found so far" in err and "Traceback" not in err + out


@pytest.mark.parametrize("sibling", [True, False], ids=["tail-jump", "call"])
def test_a_stripped_shared_object_is_found_by_its_constants(folder, tmp_path, sibling):
    """Our export linked into a shared object behind a wrapper named for SHA-1, every other symbol hidden and the
    file stripped: the block function has no name left. When the wrapper tail-jumps (gcc -O2) it is the same
    function: its row, proved, the stripped code its dispatch path. When it calls (-fno-optimize-sibling-calls)
    it is a wrapper, not reported; the stripped code is found from that call into the four round constants,
    named ``sub_<address>`` and proved."""
    (tmp_path / "wrap.c").write_text("#include <stddef.h>\n#include <stdint.h>\n"
                                     "void sha1_block_data_order(uint32_t *s, const void *d, size_t n);\n"
                                     "void sha1_wrapper(uint32_t *s, const void *d, size_t n) "
                                     "{ sha1_block_data_order(s, d, n); }\n")
    (tmp_path / "vers").write_text("{ global: sha1_wrapper; local: *; };\n")
    lib = tmp_path / "libstripped.so"
    flags = [] if sibling else ["-fno-optimize-sibling-calls"]
    subprocess.run(["gcc", "-O2", *flags, "-shared", "-fPIC", "-o", str(lib), str(tmp_path / "wrap.c"),
                    str(folder / "export.o"), f"-Wl,--version-script={tmp_path / 'vers'}", "-s"], check=True,
                   timeout=120)
    (row,) = [e for e in scan_paths([lib], uarch="zen3") if isinstance(e, Found)]
    if sibling:
        assert row.function == "sha1_wrapper" and row.evidence == "tail jump"
        assert len(row.dispatch) == 1 and row.dispatch[0].startswith("sub_")
    else:
        assert row.function == f"sub_{row.address:x}" and row.evidence == "stripped"
        # the name scan gives is one prove --function takes (``ObjectFile.find_function``: the unwind extent)
        assert prove_object(lib, function=row.function, workdir=tmp_path).proved
    assert row.verdict == "proved" and row.paths == row.proved_paths == 2, row.detail


TABLE_AFTER_CODE_S = """
        .text
        .globl  keeper
        .type   keeper, @function
keeper:                         # references the table: a candidate
        .cfi_startproc
        leaq    K(%rip), %rax
        movl    (%rax), %eax
        ret
        .cfi_endproc
        .size   keeper, .-keeper
        .globl  caller
        .type   caller, @function
caller:                         # only calls code beside the table: no candidate
        .cfi_startproc
        subq    $8, %rsp
        call    beside
        addq    $8, %rsp
        ret
        .cfi_endproc
        .size   caller, .-caller
beside: ret
        .p2align 6
K:      .long   0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6
        .section .note.GNU-stack,"",@progbits
"""


def _table_library(tmp_path: Path) -> Path:
    """``TABLE_AFTER_CODE_S`` linked into a shared object, every symbol hidden and the file stripped."""
    (tmp_path / "t.S").write_text(TABLE_AFTER_CODE_S)
    (tmp_path / "vers").write_text("{ local: *; };\n")
    lib = tmp_path / "libtable.so"
    subprocess.run(["gcc", "-shared", "-o", str(lib), str(tmp_path / "t.S"),
                    f"-Wl,--version-script={tmp_path / 'vers'}", "-s"], check=True, timeout=120)
    return lib


def test_stripped_code_that_loads_a_k_table_kept_in_text_is_found(tmp_path):
    """Rule (``candidates._referencing``): perlasm keeps its K table in .text after the code, outside every unwind
    extent (x86-64 libcrypto.so.3's stitched AES-CBC + SHA-1 bodies): an extent that loads it rip-relative is a
    candidate, named sub_<address>; one that only calls code beside the table is not."""
    lib = _table_library(tmp_path)
    obj = ObjectFile.parse(lib.read_bytes())
    found = [c for c in compression_candidates(obj) if c.evidence == "stripped"]
    assert len(found) == 1 and found[0].symbol.size == 10, found      # keeper: lea (7 bytes), movl (2), ret (1)


def test_nothing_readable_is_exit_2(tmp_path):
    """Only paths that cannot be read: one line each on stderr and exit 2 (bad input), not a clean 0."""
    r = CliRunner().invoke(scan, [str(tmp_path / "a"), str(tmp_path / "b"), "--uarch", "zen3"])
    assert r.exit_code == 2 and r.stderr.count("sha1opt: cannot read") == 2, r.output
    assert "Traceback" not in r.output


@pytest.mark.skipif(not Path("/usr/lib/x86_64-linux-gnu/libnettle.a").exists(),
                    reason="libnettle.a not installed (setup/system-packages.sh: nettle-dev)")
def test_nettle_archive_rows_use_the_catalogue_and_skip_its_hmac_sha1():
    """Debian's libnettle.a: its x86-64 and SHA-NI compress functions are found and proved under the catalogue's
    interface (state, data) (one block; under the default (state, data, nblocks) nblocks = 0 would crash them),
    and none of its hmac-sha1 / pbkdf2-hmac-sha1 / sha1 (update, digest) members gives a row."""
    rows = [e for e in scan_paths(["/usr/lib/x86_64-linux-gnu/libnettle.a"], uarch="zen3") if isinstance(e, Found)]
    by = {r.function: r for r in rows}
    for name in ("_nettle_sha1_compress_x86_64", "_nettle_sha1_compress_sha_ni"):
        assert by[name].verdict == "proved" and by[name].interface == "(state, data)" and by[name].catalogued
    assert not any("hmac" in r.member or r.member == "sha1.o" for r in rows), [(r.member, r.function) for r in rows]


WORDS_C = Path(__file__).resolve().parents[1] / "semantics" / "lift" / "csrc" / "sha1_words_pairs.c"
HASHER_C = f"""#define WORDS_INLINE
#include "{WORDS_C}"
/* SHA-1 of a block held in the object itself, as a C++ method on `this` does: no (state, data) arguments */
struct hasher {{ u32 words[16]; u32 state[5]; unsigned long length; }};
void hasher_block(struct hasher *h) {{ sha1_words_pairs(h->state, h->words); h->length += 64; }}
"""


def test_regression_correct_code_under_a_guessed_interface_was_called_counterexample(tmp_path, monkeypatch):
    """The bug (Debian's /usr/lib/x86_64-linux-gnu, 11 rows: LLVM's ``SHA1::hashBlock``, stripped code of glib,
    libdbus, libk5crypto): correct SHA-1 whose interface is not the standard one was reported "counterexample
    (confirmed natively)" and exit 1 -- the guessed ``(state, data, nblocks)`` handed to code that takes only
    ``this`` makes it die natively, which refutes the guess, not the code. The rule (``scan._guessed``): under
    guessed interfaces a counterexample under each is "interface unknown" (exit 3), its detail naming both
    guesses' results and how to declare the interface; "counterexample" is said only under a catalogued one.
    (The two standard guesses only: the rule does not depend on how many there are, each costs a proof.)"""
    from sha1opt import scan as scan_module
    from sha1opt.semantics.lift.interface import DEFAULT, KEYWORDS

    monkeypatch.setattr(scan_module, "guesses", lambda: [DEFAULT, KEYWORDS["one-block"]])
    (tmp_path / "hasher.c").write_text(HASHER_C)
    obj = _gcc(tmp_path / "hasher.c", tmp_path / "hasher.o")
    r = CliRunner().invoke(scan, [str(obj), "--uarch", "zen3", "--json"])
    assert r.exit_code == 3 and "Traceback" not in r.output, r.output
    (row,) = json.loads(r.stdout)["functions"]
    assert row["function"] == "hasher_block" and not row["catalogued"]
    assert row["verdict"] == "interface unknown", row["detail"]
    assert "under (state, data, nblocks):" in row["detail"] and "under (state, data):" in row["detail"], row["detail"]


def test_a_catalogued_interface_keeps_its_counterexample(tmp_path, monkeypatch):
    """The other side of the rule: under the catalogue's interface (a declaration, ``lift.catalogue``) a wrong
    function is a counterexample, exit 1 -- here our textbook export with one round constant changed, its name
    given the catalogue row ``(state, data, nblocks)`` through a patched ``lookup``."""
    from sha1opt import scan as scan_module
    from sha1opt.semantics.lift.interface import DEFAULT

    text = function_text(textbook("x86_64"))
    assert "0x5a827999" in text.lower()
    (tmp_path / "wrong.S").write_text(text.replace("0x5a827999", "0x5a827998").replace("0x5A827999", "0x5A827998"))
    obj = _gcc(tmp_path / "wrong.S", tmp_path / "wrong.o")

    class Row:
        interface = DEFAULT

    real = scan_module.lookup
    monkeypatch.setattr(scan_module, "lookup",
                        lambda name, member=None: Row() if name == "sha1_block_data_order" else real(name, member))
    events = list(scan_paths([obj], uarch="zen3"))
    (row,) = [e for e in events if isinstance(e, Found)]
    assert row.catalogued and row.verdict == "counterexample", row.detail


def test_a_function_the_catalogue_does_not_name_is_tried_under_its_other_interfaces(tmp_path, monkeypatch):
    """``scan.guesses``: after the two standard interfaces, every other interface ``corpus/interfaces.toml``
    lists is tried (the issue: "infers the interface from a catalogue of known interfaces"), each one-block
    one also ``clobbered``, ``nblocks even`` last. A digest and host-order words, as glib's and libdbus's
    stripped ``sha_transform(digest, words)`` take them, proves under ``(state, words)``, said to be guessed
    (not the catalogue's row) -- scanned with the guesses up to that one (each costs a proof)."""
    from dataclasses import replace

    from sha1opt import scan as scan_module
    from sha1opt.semantics.lift.catalogue import interfaces
    from sha1opt.semantics.lift.interface import DEFAULT, KEYWORDS, parse_interface

    every = scan_module.guesses()
    assert every[:2] == [DEFAULT, KEYWORDS["one-block"]] and every[-1].block_multiple == 2
    assert set(interfaces()) <= set(every)
    assert all(replace(i, data_clobbered=True) in every for i in interfaces() if i.one_block)
    words = parse_interface("(state, words)")
    monkeypatch.setattr(scan_module, "guesses", lambda: every[:every.index(words) + 1])
    obj = _gcc(WORDS_C, tmp_path / "words.o")
    (row,) = [e for e in scan_paths([obj], uarch="zen3") if isinstance(e, Found)]
    assert row.verdict == "proved" and row.interface == "(state, words)" and not row.catalogued, row.detail


def test_an_unwind_entry_that_is_no_candidate_is_named_for_prove(tmp_path):
    """Rule (``analyze.with_stripped_name``): ``sub_<address>`` names the unwind entry starting there even when
    scan would not list it (a dispatcher holding no constant); an address no entry starts at names nothing."""
    from sha1opt.analyze import with_stripped_name
    from sha1opt.emit.objfile import load_object
    lib = _table_library(tmp_path)
    uo = load_object(lib, tmp_path)
    base = uo.obj.addresses[".text"]
    caller = sorted(uo.obj.unwind_extents(".text"))[1]           # keeper, then caller
    named = with_stripped_name(uo, f"sub_{base + caller[0]:x}")
    assert named.obj.find_function(f"sub_{base + caller[0]:x}").size == caller[1]
    assert with_stripped_name(uo, f"sub_{base + caller[0] + 1:x}") is uo
