"""The shipped SHA-1 vectors load, have the published counts, and match hashlib."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from sha1opt.emit.vectors import (
    CAVP_FILES,
    DIGEST_SIZE,
    Vector,
    VectorError,
    all_vectors,
    load_cavp,
    load_fips,
    parse_fips_toml,
    parse_rsp,
)
from sha1opt.semantics.errors import Sha1optError

# Record counts of the verbatim NIST files (see corpus/vectors/SOURCE.md):
# ShortMsg is Len = 0, 8, ..., 512 bits; LongMsg is Len = 1304, 2096, ...,
# 51200 bits (step 792).
EXPECTED_COUNTS = {"SHA1ShortMsg": 65, "SHA1LongMsg": 64}


def _check(vectors: list[Vector]) -> None:
    for v in vectors:
        assert len(v.digest) == DIGEST_SIZE, v.name
        assert hashlib.sha1(v.message).digest() == v.digest, v.name


@pytest.mark.parametrize("name", CAVP_FILES)
def test_cavp_digests_match_hashlib(name: str) -> None:
    vectors = load_cavp(name)
    assert len(vectors) == EXPECTED_COUNTS[name]
    _check(vectors)
    names = [v.name for v in vectors]
    assert len(set(names)) == len(names)


def test_cavp_lengths_are_the_published_ones() -> None:
    short = [len(v.message) * 8 for v in load_cavp("SHA1ShortMsg")]
    assert short == list(range(0, 513, 8))
    long = [len(v.message) * 8 for v in load_cavp("SHA1LongMsg")]
    assert long == list(range(1304, 51201, 792))


def test_cavp_empty_message_and_names() -> None:
    first = load_cavp("SHA1ShortMsg")[0]
    assert first == Vector(
        name="SHA1ShortMsg/Len=0",
        message=b"",
        digest=bytes.fromhex("da39a3ee5e6b4b0d3255bfef95601890afd80709"),
    )
    assert load_cavp("SHA1ShortMsg")[3].name == "SHA1ShortMsg/Len=24"


def test_fips_known_answers() -> None:
    vectors = {v.name: v for v in load_fips()}
    _check(list(vectors.values()))
    assert vectors["fips180/abc"].digest.hex() == "a9993e364706816aba3e25717850c26c9cd0d89d"
    assert vectors["fips180/448-bit"].digest.hex() == "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
    million = vectors["fips180/million-a"]
    assert million.message == b"a" * 1_000_000
    assert million.digest.hex() == "34aa973cd4c4daa4f61eeb2bdbad27316534016f"
    assert vectors["fips180/empty"].message == b""


def test_all_vectors() -> None:
    vectors = all_vectors()
    assert len(vectors) == len(load_fips()) + sum(EXPECTED_COUNTS.values())
    _check(vectors)


def test_unknown_cavp_name() -> None:
    with pytest.raises(VectorError):
        load_cavp("SHA1Monte")


def test_vector_error_is_a_sha1opt_error() -> None:
    assert issubclass(VectorError, Sha1optError)


# --------------------------------------------------------------------------
# Malformed input

GOOD_RECORD = "Len = 24\nMsg = df4bd2\nMD = bf36ed5d74727dfd5d7854ec6b1d49468d8ee8aa\n"


def test_parse_rsp_accepts_crlf_comments_and_header(tmp_path: Path) -> None:
    path = tmp_path / "ok.rsp"
    path.write_bytes(("#  comment\n\n[L = 20]\n\n" + GOOD_RECORD).replace("\n", "\r\n").encode())
    (vector,) = parse_rsp(path.read_text(), "ok")
    assert vector.name == "ok/Len=24"
    assert vector.message == bytes.fromhex("df4bd2")


@pytest.mark.parametrize(
    "record",
    [
        # Len disagrees with Msg (32 bits claimed, 24 given).
        "Len = 32\nMsg = df4bd2\nMD = bf36ed5d74727dfd5d7854ec6b1d49468d8ee8aa\n",
        # Not whole bytes (bit-oriented record).
        "Len = 20\nMsg = df4bd2\nMD = bf36ed5d74727dfd5d7854ec6b1d49468d8ee8aa\n",
        # Len = 0 must be the '00' placeholder.
        "Len = 0\nMsg = 01\nMD = da39a3ee5e6b4b0d3255bfef95601890afd80709\n",
        # Digest not 20 bytes.
        "Len = 24\nMsg = df4bd2\nMD = bf36ed\n",
        # Odd-length / non-hex message.
        "Len = 24\nMsg = df4bd\nMD = bf36ed5d74727dfd5d7854ec6b1d49468d8ee8aa\n",
        # Fields out of order, and a truncated record.
        "Msg = df4bd2\nLen = 24\nMD = bf36ed5d74727dfd5d7854ec6b1d49468d8ee8aa\n",
        "Len = 24\nMsg = df4bd2\n",
        # Wrong digest size header; duplicate record.
        "[L = 32]\n" + GOOD_RECORD,
        GOOD_RECORD + "\n" + GOOD_RECORD,
    ],
)
def test_parse_rsp_rejects_malformed(tmp_path: Path, record: str) -> None:
    path = tmp_path / "bad.rsp"
    path.write_text("#  CAVS test\n[L = 20]\n\n" + record)
    with pytest.raises(VectorError):
        parse_rsp(path.read_text(), "bad")


@pytest.mark.parametrize(
    "text",
    [
        # Unknown key in a row.
        'vector = [{name = "x", message = "abc", digest = "'
        + "a9993e364706816aba3e25717850c26c9cd0d89d"
        + '", source = "s", note = "?"}]',
        # Unknown top-level key.
        "extra = 1\n",
        # Both message forms.
        'vector = [{name = "x", message = "a", repeat = "a", count = 1, digest = "'
        + "86f7e437faa5a7fce15d1ddcb9eaeaea377667b8"
        + '", source = "s"}]',
        # Bad digest.
        'vector = [{name = "x", message = "a", digest = "86f7", source = "s"}]',
    ],
)
def test_parse_fips_toml_rejects_malformed(text: str) -> None:
    with pytest.raises(VectorError):
        parse_fips_toml(text)
