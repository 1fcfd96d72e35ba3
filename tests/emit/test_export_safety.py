"""Nothing user-controlled reaches the exported text unescaped, and the file written is the object validated (issue 13, item 2)."""

from __future__ import annotations

import re
import subprocess

import pytest

import sha1opt.emit.export as ex
from tests.support.cpu import needs
from tests.support.processes import SHA1OPT
from sha1opt.emit.toolchain import which
from sha1opt.search.space.candidate import textbook

pytestmark = needs()                       # export validates natively

# A directory name that closes the header comment, starts lines and adds a section.
HOSTILE_DIR = 'x*/\n\t.section .init_array,"aw"\n\t.quad 0x41414141\n\t.text\n/*'


def test_export_output_path_closing_the_comment_injects_no_directive(tmp_path):
    (tmp_path / HOSTILE_DIR).mkdir(parents=True)
    out = tmp_path / HOSTILE_DIR / "out.S"
    proc = subprocess.run([SHA1OPT, "export", "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = out.read_text().splitlines()
    end = lines.index(" */")
    assert lines[0] == "/*" and all(ln.startswith(" * ") and "*/" not in ln for ln in lines[1:end])
    assert not any(".init_array" in ln for ln in lines[end:])
    command = next(ln for ln in lines if ln.startswith(" * command:"))
    assert "\\x0a\\x09.section .init_array" in command and "*\\/" in command
    obj = tmp_path / "check.o"
    subprocess.run([which("gcc"), "-c", "-o", str(obj), str(out)], check=True, timeout=60)
    sections = subprocess.run([which("readelf"), "-SW", str(obj)], capture_output=True, text=True, check=True,
                              timeout=60).stdout
    assert "init_array" not in sections and re.search(r"\] \.text\s", sections)


def test_export_refuses_a_written_file_that_adds_a_section_beyond_text(tmp_path, monkeypatch):
    # A rendering bug (or an escape that failed) that puts a section into the final text only.
    real = ex.function_text
    calls = []

    def renders(*args, **kw):
        calls.append(1)
        text = real(*args, **kw)
        return text if len(calls) == 1 else text + '\t.section .init_array,"aw"\n\t.quad 0\n'

    monkeypatch.setattr(ex, "function_text", renders)
    out = tmp_path / "out.S"
    res = ex.export(textbook("x86_64"), out)
    assert not res.ok and not out.exists()
    assert res.validation.failure.name == "written file"
    assert ".init_array" in res.validation.failure.detail or "sections" in res.validation.failure.detail


def test_export_refuses_a_header_that_would_close_its_comment(tmp_path, monkeypatch):
    # If escaping failed, the header check (not only the object comparison) refuses.
    monkeypatch.setattr("sha1opt.emit.assembly.comment_text", lambda s: s)
    out = tmp_path / "out.S"
    res = ex.export(textbook("x86_64"), out, command="sha1opt export -o 'x*/ /*y'")
    assert not res.ok and not out.exists()
    assert res.validation.failure.name == "written file" and "header" in res.validation.failure.detail


@pytest.mark.parametrize("text, want", [("a*/b", "a*\\/b"), ("a/*b", "a/\\*b"), ("a\nb", "a\\x0ab"),
                                        ("a\\b", "a\\\\b"), ("é", "\\xe9"), ("\u2028", "\\u2028")])
def test_comment_text_leaves_nothing_that_ends_the_comment_or_starts_a_line(text, want):
    from sha1opt.emit.assembly import comment_text   # new API; imported here so the file collects without it
    assert comment_text(text) == want
