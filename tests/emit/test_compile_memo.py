"""``toolchain.compile_source`` compiles a self-contained C file once per process for each (compiler, arch, flags,
content): the native harness was compiled again for every validation (334 gcc runs of ``harness.c`` in one
``make test``, strace count, 2026-12-04)."""

import shutil

import pytest

from sha1opt.emit import toolchain
from sha1opt.emit.toolchain import FREESTANDING_FLAGS, compile_source

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")


def test_the_same_c_file_is_compiled_once_and_a_changed_one_again(tmp_path, monkeypatch):
    real, runs = toolchain.run, []
    monkeypatch.setattr(toolchain, "run", lambda args, *a, **k: (runs.append(args), real(args, *a, **k))[1])
    src = tmp_path / "f.c"
    src.write_text("int f(int x) { return x * 3; }\n")
    first = compile_source(src, "x86_64", tmp_path / "a.o", "compiling", FREESTANDING_FLAGS)
    second = compile_source(src, "x86_64", tmp_path / "b.o", "compiling", FREESTANDING_FLAGS)
    assert len(runs) == 1 and second.read_bytes() == first.read_bytes()
    compile_source(src, "i386", tmp_path / "c.o", "compiling", FREESTANDING_FLAGS)          # another arch
    src.write_text("int f(int x) { return x * 5; }\n")                                      # another content
    changed = compile_source(src, "x86_64", tmp_path / "d.o", "compiling", FREESTANDING_FLAGS)
    assert len(runs) == 3 and changed.read_bytes() != first.read_bytes()


def test_a_c_file_including_its_own_header_is_compiled_every_time(tmp_path, monkeypatch):
    """Its header may change under the same file: no key covers it, so it is never taken from the memo."""
    real, runs = toolchain.run, []
    monkeypatch.setattr(toolchain, "run", lambda args, *a, **k: (runs.append(args), real(args, *a, **k))[1])
    (tmp_path / "k.h").write_text("#define K 3\n")
    src = tmp_path / "g.c"
    src.write_text('#include "k.h"\nint g(int x) { return x * K; }\n')
    compile_source(src, "x86_64", tmp_path / "a.o", "compiling", FREESTANDING_FLAGS)
    compile_source(src, "x86_64", tmp_path / "b.o", "compiling", FREESTANDING_FLAGS)
    assert len(runs) == 2
