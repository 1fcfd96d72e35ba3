"""CPU identification: corpus/cpus.toml (which model each x86 CPU is) and the cpuid decoding of
emit/host_cpu.py (``decode``: leaves in, the numbers /proc/cpuinfo prints and the usable features out).

The rules come from the schema in cpus.toml's header, from Linux (arch/x86/include/asm/intel-family.h,
arch/x86/kernel/cpu/amd.c, x86_family()/x86_model() in arch/x86/lib/cpu.c), LLVM's Host.cpp (the
-march=native tables) and the Intel SDM / AMD APM (CPUID leaf 1 signature layout, XCR0 state bits);
each test names the one it checks. The CPUs of (c) are looked up through ``identify``; (d) feeds
``decode`` synthetic cpuid leaves, so no test depends on the machine it runs on."""

import struct

import pytest

from sha1opt.emit.host_cpu import VENDORS, CpuId, cpu_table, decode, from_cpuinfo, identify
from sha1opt.search.cost.model import model_names
from sha1opt.semantics.errors import CorpusError

INTEL, AMD = "GenuineIntel", "AuthenticAMD"


# --------------------------------------------------------------------------------------- (a) the table

def test_every_row_states_a_source_and_every_nearest_row_its_reason():
    """cpus.toml header: every row has a source; a "nearest" row states why that model is the closest."""
    rows = cpu_table()
    assert len(rows) >= 30
    for row in rows:
        assert row.source.strip(), row.name
        assert row.match in ("exact", "nearest"), row.name
        if row.match == "nearest":
            assert len(row.reason.strip()) > 20, row.name


def test_no_cpu_is_covered_by_two_rows():
    """cpus.toml header: no CPU may be covered by two rows -- checked here model number by model number,
    independently of the loader's range arithmetic."""
    seen: dict[tuple[str, int, int], str] = {}
    for row in cpu_table():
        for a, b in row.models:
            for m in range(a, b + 1):
                key = (row.vendor, row.family, m)
                assert key not in seen, f"{key} in {seen.get(key)!r} and {row.name!r}"
                seen[key] = row.name


def _row(vendor="GenuineIntel", family=6, models="[[1, 2]]", model="p6", match="exact", extra=""):
    return (f'[[cpu]]\nvendor = "{vendor}"\nfamily = {family}\nmodels = {models}\nname = "n"\n'
            f'model = "{model}"\nmatch = "{match}"\nsource = "s"\n{extra}')


def _refused(tmp_path, text, match):
    path = tmp_path / "cpus.toml"
    path.write_text(text)
    with pytest.raises(CorpusError, match=match):
        cpu_table(path)


def test_a_table_whose_rows_overlap_is_refused(tmp_path):
    """cpus.toml header: no CPU covered by two rows -- two rows sharing family 6 model 2 are refused."""
    _refused(tmp_path, _row(models="[[1, 2]]") + "\n" + _row(models="[[2, 3]]", model="core2"), "overlaps")


def test_a_row_listing_a_model_twice_is_refused(tmp_path):
    """cpus.toml header: no CPU covered twice -- also not by two ranges of one row."""
    _refused(tmp_path, _row(models="[[1, 4], [3, 5]]"), "listed twice")


def test_a_nearest_row_without_a_reason_is_refused(tmp_path):
    """cpus.toml header: reason is required for "nearest"."""
    _refused(tmp_path, _row(match="nearest"), "states its reason")


def test_a_row_with_an_empty_source_is_refused(tmp_path):
    """House rule (a source per corpus row); cpus.toml header: source."""
    _refused(tmp_path, _row().replace('source = "s"', 'source = " "'), "empty source")


def test_a_vendor_that_is_not_a_cpuid_vendor_string_is_refused(tmp_path):
    """cpus.toml header: vendor is cpuid's vendor string (leaf 0 ebx:edx:ecx), e.g. "GenuineIntel", not "Intel"."""
    _refused(tmp_path, _row(vendor="Intel"), "not a cpuid vendor string")
    assert "GenuineIntel" in VENDORS and "AuthenticAMD" in VENDORS


def test_a_model_number_beyond_eight_bits_is_refused(tmp_path):
    """Intel SDM vol. 2A, CPUID leaf 1: the displayed model is extended model (4 bits) : model (4 bits),
    so at most 0xFF; a range beyond it is a typo."""
    _refused(tmp_path, _row(models="[[0x10, 0x100]]"), "within 0..0xFF")


def test_a_nearest_row_with_a_reason_loads(tmp_path):
    """The refusals above are not blanket: the same row with a reason and distinct ranges loads."""
    path = tmp_path / "cpus.toml"
    path.write_text(_row(match="nearest", extra='reason = "the closest core"\n'))
    (row,) = cpu_table(path)
    assert (row.vendor, row.family, row.models, row.match, row.reason) == (INTEL, 6, ((1, 2),), "nearest",
                                                                           "the closest core")


# ------------------------------------------------------------------------- (b) every model is a real CPU

def test_every_model_of_corpus_uarch_is_some_real_cpu_exactly():
    """Issue 22 item 1: each model in corpus/uarch was written for a core, so at least one row of real
    CPUs maps to it with match = "exact" (a model no CPU is exactly would be no CPU's model)."""
    exact = {r.model for r in cpu_table() if r.match == "exact"}
    assert set(model_names()) - exact == set()


# --------------------------------------------------------------------------- (c) named identifications

def _is(cpu: CpuId, model: str, match: str) -> None:
    row = identify(cpu)
    assert row is not None, f"{cpu} is in no row"
    assert (row.model, row.match) == (model, match), f"{cpu}: {row.name}"


def test_epyc_rome_is_zen2():
    """AMD EPYC 7002 (Rome), family 23 model 49 (0x31), the issue's reference CPU: Linux amd.c sets
    X86_FEATURE_ZEN2 for family 17h models 0x30-0x4f; LLVM Host.cpp: 30h-3Fh (Starship) znver2."""
    _is(CpuId(AMD, 23, 49), "zen2", "exact")


def test_epyc_milan_is_zen3():
    """AMD EPYC 7003 (Milan), family 25 model 1: Linux amd.c: family 19h models 0x00-0x0f are Zen 3."""
    _is(CpuId(AMD, 25, 1), "zen3", "exact")


def test_family_19h_model_30h_is_zen3():
    """Family 19h models 30h-3Fh (Badami / Trento): Zen 3 per Linux amd.c (0x20-0x5f) and LLVM Host.cpp."""
    _is(CpuId(AMD, 0x19, 0x30), "zen3", "exact")


def test_zen4_is_zen4_exactly_and_zen3_stays_zen3():
    """Linux amd.c sets X86_FEATURE_ZEN4 for family 19h models 0x10-0x1f and 0x60-0xaf: Genoa (0x11), Raphael
    (0x61), Phoenix (0x74) and Bergamo (0xA0, Zen 4c; LLVM Host.cpp: Stones-Dense -> znver4) are zen4, exact
    (the model written for the core, not zen3 as nearest); the Zen 3 ranges on either side (0x01 Milan, 0x21
    Vermeer, 0x50 Cezanne) stay zen3."""
    for m in (0x11, 0x61, 0x74, 0xA0):
        _is(CpuId(AMD, 0x19, m), "zen4", "exact")
    for m in (0x01, 0x21, 0x50):
        _is(CpuId(AMD, 0x19, m), "zen3", "exact")


def test_emerald_rapids_is_goldencove():
    """Intel Emerald Rapids, family 6 model 207 (0xCF): intel-family.h INTEL_EMERALDRAPIDS_X (Raptor Cove)."""
    _is(CpuId(INTEL, 6, 207), "goldencove", "exact")


def test_skylake_sp_is_skylake():
    """Intel Skylake-SP / Cascade Lake, family 6 model 0x55: intel-family.h INTEL_SKYLAKE_X ('Sky Lake')."""
    assert identify(CpuId(INTEL, 6, 0x55)).model == "skylake"


def test_bonnell_is_atom():
    """Intel Atom Diamondville/Pineview, family 6 model 0x1C: intel-family.h INTEL_ATOM_BONNELL."""
    _is(CpuId(INTEL, 6, 0x1C), "atom", "exact")


def test_merom_is_core2():
    """Intel Core 2 Merom/Conroe, family 6 model 0x0F: intel-family.h INTEL_CORE2_MEROM."""
    _is(CpuId(INTEL, 6, 0x0F), "core2", "exact")


def test_p54c_is_pentium():
    """Intel Pentium P54C, family 5 model 2: intel-family.h INTEL_PENTIUM_75 (P54C)."""
    _is(CpuId(INTEL, 5, 2), "pentium", "exact")


def test_northwood_is_p4_and_prescott_is_p4_prescott():
    """Pentium 4 Northwood, family 15 model 2 (Intel AP-485; p4.toml: models 0-2) is p4; Prescott, model 3
    (intel-family.h INTEL_P4_PRESCOTT; p4-prescott.toml: model 3 and later), and Cedar Mill, model 6, are
    p4-prescott."""
    _is(CpuId(INTEL, 15, 2), "p4", "exact")
    _is(CpuId(INTEL, 15, 3), "p4-prescott", "exact")
    _is(CpuId(INTEL, 15, 6), "p4-prescott", "exact")


def test_athlon_is_k7():
    """AMD Athlon XP (Barton), family 6 model 10: LLVM Host.cpp family 6 -> athlon-xp; Linux amd.c init_amd_k7."""
    _is(CpuId(AMD, 6, 10), "k7", "exact")


def test_athlon_64_is_k8():
    """AMD Athlon 64 X2 (revision F), family 15 model 0x43: LLVM Host.cpp family 15 -> k8 / k8-sse3."""
    _is(CpuId(AMD, 15, 0x43), "k8", "exact")


def test_phenom_ii_is_k10():
    """AMD Phenom II (Deneb), family 16 model 4: LLVM Host.cpp family 16 -> amdfam10 (model 4 Shanghai)."""
    _is(CpuId(AMD, 16, 4), "k10", "exact")


def test_zen5_and_a_model_no_source_names():
    """Zen 5 Turin, family 1Ah model 0x02: Linux amd.c X86_FEATURE_ZEN5 (0x00-0x2f). Model 0x30 is in
    neither amd.c's Zen 5 nor its Zen 6 ranges: no row (identify says None, not a guess)."""
    _is(CpuId(AMD, 0x1A, 0x02), "zen5", "exact")
    assert identify(CpuId(AMD, 0x1A, 0x30)) is None


def test_out_of_order_atoms_are_not_bonnell():
    """intel-family.h: 0x37 INTEL_ATOM_SILVERMONT, 0x5C ATOM_GOLDMONT, 0x96 ATOM_TREMONT, 0xBE ATOM_GRACEMONT.
    These cores are out of order; atom.toml is Bonnell's in-order pipeline, so none of them maps to atom."""
    for m in (0x37, 0x5C, 0x96, 0xBE):
        row = identify(CpuId(INTEL, 6, m))
        assert row is not None and row.model != "atom" and row.match == "nearest", hex(m)


def test_hygon_dhyana_is_zen1_nearest():
    """Hygon Dhyana, vendor "HygonGenuine", family 18h (Linux hygon.c): the Zen 1 core, mapped to zen1."""
    _is(CpuId("HygonGenuine", 0x18, 0), "zen1", "nearest")


def test_the_vendor_is_part_of_the_key():
    """Linux and LLVM dispatch on the vendor first: Intel family 15 model 2 is a P4, AMD's is a K8."""
    assert identify(CpuId(INTEL, 15, 2)).model == "p4" and identify(CpuId(AMD, 15, 2)).model == "k8"


# ------------------------------------------------------------------------------ (d) decoding cpuid

def _leaves(sig, vendor=AMD, ecx1=0, edx1=0, ebx7=0, brand=None, max_ext=0x80000008):
    """A cpuid function for ``decode``: leaf 0 (vendor, max leaf 7), 1 (signature, ecx, edx), 7.0 (ebx),
    0x80000000 (max extended leaf) and the brand string in 0x80000002-4."""
    b, d, c = struct.unpack("<3I", vendor.encode())
    raw = (brand or "").encode().ljust(48, b"\0")
    table = {0: (7, b, c, d), 1: (sig, 0, ecx1, edx1), 7: (0, ebx7, 0, 0), 0x80000000: (max_ext, 0, 0, 0)}
    for i in range(3):
        table[0x80000002 + i] = struct.unpack("<4I", raw[16 * i:16 * i + 16])
    return lambda n, sub: table.get(n, (0, 0, 0, 0))


OSXSAVE, AVX = 1 << 27, 1 << 28
AVX2, AVX512F, AVX512VL, BMI2 = 1 << 5, 1 << 16, 1 << 31, 1 << 8


def test_rome_signature_decodes_to_family_23_model_49():
    """Linux x86_family()/x86_model(): base family 0xF adds the extended family (0x8: 23); from family 6 up
    the extended model is the high nibble (0x3:1 -> 49). Rome's leaf 1 eax is 0x00830F10."""
    cpu = decode(_leaves(0x00830F10), lambda _: 0)
    assert (cpu.id, cpu.stepping) == (CpuId(AMD, 23, 49), 0)
    assert identify(cpu.id).model == "zen2"


def test_sapphire_rapids_signature_decodes_to_family_6_model_0x8f():
    """Intel SDM vol. 2A CPUID: family 6 takes the extended model (0x8) as high nibble: 0x000806F8 is 6/0x8F,
    stepping 8, and the vendor string is ebx, edx, ecx of leaf 0."""
    cpu = decode(_leaves(0x000806F8, vendor=INTEL), lambda _: 0)
    assert (cpu.id, cpu.stepping) == (CpuId(INTEL, 6, 0x8F), 8)


def test_p4_signature_decodes_to_family_15_model_2():
    """Base family 0xF with extended family 0 stays 15: 0x00000F29 is family 15 model 2 stepping 9."""
    cpu = decode(_leaves(0x00000F29, vendor=INTEL), None)
    assert (cpu.id, cpu.stepping) == (CpuId(INTEL, 15, 2), 9)


def test_below_family_6_the_extended_model_is_not_read():
    """Linux x86_model(): the extended model counts only from family 6 up, so stray bits 16-19 of a family 5
    signature do not change the model (0x00010525 stays the P54C, 5/2)."""
    assert decode(_leaves(0x00010525, vendor=INTEL), None).id == CpuId(INTEL, 5, 2)


def test_avx_needs_osxsave_and_the_os_state_in_xcr0():
    """Intel SDM vol. 1 13.x / LLVM Host.cpp getAvailableFeatures: AVX (and AVX2) count only when OSXSAVE is
    set and XCR0 bits 1-2 (SSE, AVX state) are enabled; cpuid bits alone are not enough."""
    have = dict(ecx1=AVX | OSXSAVE, ebx7=AVX2 | BMI2)
    assert {"avx", "avx2", "bmi2"} <= decode(_leaves(0x00830F10, **have), lambda _: 0x7).features
    no_osxsave = decode(_leaves(0x00830F10, ecx1=AVX, ebx7=AVX2 | BMI2), lambda _: 0x7).features
    no_state = decode(_leaves(0x00830F10, **have), lambda _: 0x3).features      # AVX state (bit 2) off
    no_xgetbv = decode(_leaves(0x00830F10, **have), None).features
    for feats in (no_osxsave, no_state, no_xgetbv):
        assert not {"avx", "avx2"} & feats and "bmi2" in feats


def test_avx512vl_needs_avx512f_and_the_zmm_state():
    """LLVM Host.cpp getAvailableFeatures / Intel SDM: AVX-512 features need XCR0 bits 5-7 (opmask,
    ZMM_Hi256, Hi16_ZMM, 0xE0) on top of 0x6; VL without Foundation (F) is not usable AVX-512."""
    full = AVX2 | AVX512F | AVX512VL
    ok = decode(_leaves(0x000806F8, INTEL, ecx1=AVX | OSXSAVE, ebx7=full), lambda _: 0xE7).features
    assert "avx512vl" in ok
    no_f = decode(_leaves(0x000806F8, INTEL, ecx1=AVX | OSXSAVE, ebx7=AVX2 | AVX512VL), lambda _: 0xE7)
    no_zmm = decode(_leaves(0x000806F8, INTEL, ecx1=AVX | OSXSAVE, ebx7=full), lambda _: 0x07)
    assert "avx512vl" not in no_f.features and "avx512vl" not in no_zmm.features
    assert "avx2" in no_zmm.features                      # the AVX state alone still gives AVX2


def test_aes_ni_is_leaf_1_ecx_bit_25_and_needs_no_os_state():
    """Intel SDM vol. 2A CPUID, leaf 1 ECX bit 25 "AESNI": the legacy-SSE AES instructions need that bit alone
    (no XCR0 state beyond SSE's); /proc/cpuinfo spells it "aes"."""
    assert "aes" in decode(_leaves(0x00830F10, ecx1=1 << 25), None).features
    assert "aes" not in decode(_leaves(0x00830F10, ecx1=AVX | OSXSAVE), lambda _: 0x7).features
    cpuinfo = "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nflags\t\t: sse sse2 aes\n"
    assert from_cpuinfo(cpuinfo).features == {"sse", "sse2", "aes"}


def test_the_brand_string_is_leaves_0x80000002_to_4():
    """Intel SDM / AMD APM CPUID 8000_0002h-8000_0004h: 48 bytes of brand string, NUL-terminated."""
    cpu = decode(_leaves(0x00830F10, brand="  AMD EPYC 7B12 64-Core Processor  "), None)
    assert cpu.brand == "AMD EPYC 7B12 64-Core Processor"


def test_no_brand_when_the_extended_leaves_are_absent():
    """Linux get_cpu_cap: the extended leaves exist only when 0x80000000's eax reads 0x8000xxxx
    (>= 0x80000004 for the brand); a CPU without them may echo another leaf's eax there (Intel SDM:
    out-of-range leaves return the highest basic leaf's data), which can have bit 31 set."""
    for junk in (0x80FF0001, 0x0000000D, 0x80000001):
        assert decode(_leaves(0x00000543, vendor=INTEL, brand="garbage", max_ext=junk), None).brand == ""
    assert decode(_leaves(0x00000543, vendor=INTEL, brand="real", max_ext=0x80000004), None).brand == "real"
