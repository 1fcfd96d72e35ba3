"""The suite is right on any x86-64 host: native runs ask one predicate, and ``SHA1OPT_CPU_LACKS`` reaches them.

``tests/support/cpu.py`` is the one question every native-run test asks (``emit.host_cpu.lacking``,
worded by ``lacks_text``). Proved here: the helper skips with "this CPU lacks X" under the injection,
the injection removes the features that include the one named, and -- the CI check -- a small
selection of native-run tests (one snippet per ISA feature of the semantics table against the CPU,
and one hybrid export validated natively) run in a child ``pytest`` with ``SHA1OPT_CPU_LACKS`` set to
each of avx512vl, sha, avx2 and bmi2 passes, skipping exactly the tests whose code needs a feature
then lacking, each with its reason (``make test`` on an AVX-512 host so covers the no-AVX-512,
no-SHA, no-AVX2 and no-BMI2 paths; a test that ran the code anyway would fail the comparison).
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.cpu import needs, not_run_here
from sha1opt.emit.host_cpu import LACKS_ENV, host, lacking, lacks_text, with_lacks
from sha1opt.semantics.att import parse_text
from sha1opt.semantics.x86 import SEMANTICS, isa_set

ROOT = Path(__file__).resolve().parents[1]
INJECTIONS = ("avx512vl", "sha", "avx2", "bmi2")
CHILD_LIMIT = 120.0                    # seconds per child pytest (each takes ~5 s)

# (test file, snippet) of test_numpy_agrees_with_cpu: the snippet's own features decide whether it runs.
SNIPPETS = (
    ("tests/semantics/test_semantics.py", "add %ebx, %eax"),
    ("tests/semantics/test_semantics.py", "andn %ecx, %ebx, %eax"),
    ("tests/semantics/test_semantics.py", "rorx $27, %ebx, %eax"),
    ("tests/semantics/test_vector_semantics.py", "pshufb %xmm15, %xmm0"),
    ("tests/semantics/test_vector_semantics.py", "vpaddd %xmm1, %xmm2, %xmm3"),
    ("tests/semantics/test_vector_semantics.py", "vpaddd %ymm11, %ymm7, %ymm9"),
    ("tests/semantics/test_vector_semantics.py", "vpternlogd $0x96, %xmm1, %xmm2, %xmm3"),
    ("tests/semantics/test_vector_semantics.py", "sha1rnds4 $0, %xmm1, %xmm0"),
)
EXPORT = ("tests/emit/test_hybrid_i386_export.py::test_the_i386_ssse3_block_exports_proved_and_run", ("ssse3",))
VECTOR_HARNESS = ("avx",)              # tests/semantics/test_vector_semantics.py moves ymm with vmovdqu


def _expected_skip(test: str, features, cpu) -> str | None:
    """The skip reason the child must give ``test`` on ``cpu`` (None: it must pass)."""
    if "test_vector_semantics" in test and lacking(VECTOR_HARNESS, cpu):
        return f"{lacks_text(lacking(VECTOR_HARNESS, cpu))}: the harness moves ymm registers with vmovdqu"
    missing = lacking(features, cpu)
    return lacks_text(missing) if missing else None


def _selection() -> dict[str, tuple[str, ...]]:
    """node id -> the features its native run needs (from the table itself, not written by hand)."""
    out = {}
    for path, snippet in SNIPPETS:
        program = parse_text(snippet, "x86_64")
        feats = ((SEMANTICS[program[0].mnemonic].isa,) if path.endswith("test_semantics.py")
                 else tuple(isa_set(program)))
        out[f"{path}::test_numpy_agrees_with_cpu[{snippet}]"] = feats
    out[EXPORT[0]] = EXPORT[1]
    return out


def _outcomes(junit: Path) -> dict[str, str | None]:
    """node id -> None (passed) or the skip message; a failure or error is an assertion here."""
    out = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        path = case.get("classname").replace(".", "/") + ".py"
        node = f"{path}::{case.get('name')}"
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        assert bad is None, f"{node}: {bad.get('message')}"
        skipped = case.find("skipped")
        out[node] = skipped.get("message") if skipped is not None else None
    return out


@pytest.fixture
def lacks(monkeypatch):
    """``lacks("avx2")``: this process's CPU as seen under ``SHA1OPT_CPU_LACKS=avx2`` (host() reads it per call)."""
    return lambda spec: monkeypatch.setenv(LACKS_ENV, spec)


@needs()
def test_under_lacks_avx2_the_helper_skips_an_avx2_test_with_its_reason(tmp_path):
    """A test marked ``@needs("avx2")`` is skipped, in a real pytest run, with "this CPU lacks avx2"; its base
    neighbour runs (on any host: the injection only removes)."""
    (tmp_path / "test_probe.py").write_text(
        "from tests.support.cpu import needs\n\n"
        "@needs('avx2')\ndef test_avx2():\n    pass\n\n"
        "@needs()\ndef test_base():\n    pass\n")
    env = {**os.environ, LACKS_ENV: "avx2", "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(tmp_path)],
                       capture_output=True, text=True, timeout=CHILD_LIMIT, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed, 1 skipped" in r.stdout and "this CPU lacks avx2" in r.stdout, r.stdout


@needs()
def test_lacking_avx_means_lacking_avx2_and_avx512vl(lacks):
    """The injection removes every feature that includes the one named; what it does not include stays."""
    lacks("avx")
    assert not_run_here("avx2") == "this CPU lacks avx2"
    assert not_run_here("avx512vl") == "this CPU lacks avx512vl"
    assert not_run_here("avx2", "avx512vl") == "this CPU lacks avx2, avx512vl"
    assert not_run_here("sse2") is None and not_run_here() is None       # every x86-64 CPU has SSE2
    assert not {"avx", "avx2", "avx512vl"} & host().features


@needs()
# One injected lack keeps the rule in `make test`: avx2 (lacking it also lacks avx512vl, so every host
# that has avx2 runs a real injection); the other children (~5 s each, bmi2 ~10 s) are slow.
@pytest.mark.parametrize("feature", [f if f == "avx2" else pytest.param(f, marks=pytest.mark.slow) for f in INJECTIONS])
def test_native_tests_pass_on_a_cpu_without(feature, tmp_path):
    """CI check: the selection passes in a child pytest under ``SHA1OPT_CPU_LACKS=<feature>`` (added to
    whatever this run already injects), skipping exactly the tests that need a feature then lacking,
    with "this CPU lacks ..."; every other one runs and passes."""
    spec = ",".join(s for s in (os.environ.get(LACKS_ENV, ""), feature) if s)
    cpu = with_lacks(host(), spec)
    selection = _selection()
    junit = tmp_path / "junit.xml"
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", "not slow", "-p", "no:cacheprovider",
                        f"--junitxml={junit}", *selection], capture_output=True, text=True,
                       timeout=CHILD_LIMIT, env={**os.environ, LACKS_ENV: spec}, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    got = _outcomes(junit)
    assert set(got) == set(selection), sorted(set(selection) ^ set(got))
    want = {node: _expected_skip(node, feats, cpu) for node, feats in selection.items()}
    assert got == want
    assert any(w is None for w in want.values())                           # the base snippet always runs
