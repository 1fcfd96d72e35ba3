"""The interface catalogue (``corpus/interfaces.toml``, ``semantics/lift/catalogue.py``).

Rules (house rules for corpus data; issue 24): every row parses in the ``--interface`` grammar and
has a source; the loader refuses unknown keys, missing keys, a symbol given twice and an interface
that does not parse or names another function, each in one line; ``interface_for(symbol)`` answers
the exact symbol (named so), None for anything else, and never a member-local row (a static name
such as wolfSSL's ``Transform`` may be another library's function).
"""

from __future__ import annotations

import pytest

from sha1opt.semantics.errors import CorpusError
from sha1opt.semantics.lift.catalogue import interface_for, interfaces, load, lookup
from sha1opt.semantics.lift.interface import DEFAULT

ROW = 'symbol = "f"\ninterface = "(state, data)"\nlibrary = "L"\nsource = "f.h"\n'


def _load(tmp_path, text: str):
    p = tmp_path / "interfaces.toml"
    p.write_text(text)
    return load(p)


def test_every_row_parses_and_names_its_symbol():
    rows = load()
    assert len(rows) >= 17
    for r in rows:
        assert r.interface.name == r.symbol and r.source.strip() and r.library.strip()
    symbols = {r.symbol for r in rows}
    for want in ("_nettle_sha1_compress_x86_64", "_gcry_sha1_transform_intel_shaext", "mbedtls_internal_sha1_process",
                 "wc_ShaTransform", "SHA1_Transform", "_ZN8CryptoPP12_GLOBAL__N_118SHA1_HashBlock_CXXEPjPKj"):
        assert want in symbols


def test_interface_for_answers_the_exact_symbol():
    itf = interface_for("mbedtls_internal_sha1_process")
    assert itf is not None and itf.roles == ("state", "data") and itf.state_offset == 8
    assert itf.name == "mbedtls_internal_sha1_process"
    shani = interface_for("_ZN8CryptoPP29SHA1_HashMultipleBlocks_SHANIEPjPKjmNS_9ByteOrderE")
    assert shani.roles == ("state", "data", "bytes", "const") and shani.constants == ((3, 1),)
    assert interface_for("sha1_block_data_order").roles == DEFAULT.roles
    assert interface_for("mbedtls_internal_sha1_proces") is None and interface_for("memcpy") is None


def test_a_member_local_row_is_answered_only_for_its_member():
    assert interface_for("Transform") is None
    row = lookup("Transform", "src_libwolfssl_la-sha.o")
    assert row is not None and row.interface.state_offset == 0x4c and "words" in row.interface.roles
    assert lookup("Transform", "other.o") is None


@pytest.mark.parametrize("text, message", [
    (ROW + 'size = 5\n', "unknown key 'size'"),
    ('symbol = "f"\ninterface = "(state, data)"\nlibrary = "L"\n', "missing key 'source'"),
    (ROW.replace("(state, data)", "(state, digest)"), "function 1 (f): --interface: column 9: unknown role 'digest'"),
    (ROW.replace("(state, data)", "g(state, data)"), "the interface names 'g'"),
    (ROW.replace('"f.h"', '""'), "source must be a non-empty string"),
    (ROW + "[[function]]\n" + ROW, "function 2 (f): symbol 'f' given twice"),
])
def test_the_loader_refuses_a_bad_row_in_one_line(tmp_path, text, message):
    text = text if text.startswith("[[function]]") else "[[function]]\n" + text
    with pytest.raises(CorpusError) as e:
        _load(tmp_path, text)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_the_loader_refuses_an_unknown_table(tmp_path):
    with pytest.raises(CorpusError, match="unknown table 'functions'"):
        _load(tmp_path, "[[functions]]\n" + ROW)


def test_shapes_are_listed_for_scan_and_never_answer_a_symbol(tmp_path):
    """``[[shape]]`` rows (stripped code's interfaces, no symbol) load checked, join ``interfaces()`` after
    the functions' rows, and no ``lookup`` answers them."""
    from sha1opt.semantics.lift.catalogue import interfaces, load_shapes

    shapes = load_shapes()
    assert shapes and all(s.name is None for s in shapes)
    listed = interfaces()
    assert all(s in listed for s in shapes)
    p = tmp_path / "interfaces.toml"
    p.write_text('[[shape]]\ninterface = "(state@0x10, data)"\nlibrary = "x"\nsource = "y"\nsymbol = "z"\n')
    with pytest.raises(CorpusError, match="unknown key"):
        load_shapes(p)


def test_the_multi_buffer_function_is_a_row_whose_interface_scan_also_tries():
    """OpenSSL's multi-buffer ``sha1_multi_block`` is a ``[[function]]`` row (``(lanes, messages, groups)``), so its
    interface is also one ``scan`` tries on stripped code; the stitched AES-CBC + SHA-1 functions are rows too
    (``cbc``)."""
    assert lookup("sha1_multi_block").interface.contract("sysv").multi_buffer
    assert lookup("aesni_cbc_sha1_enc_avx").interface.contract("sysv").cbc
    assert any(i.roles == ("lanes", "messages", "groups") for i in interfaces())
