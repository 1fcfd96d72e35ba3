"""What the tests may run natively here: the one question every native-run test asks.

``not_run_here(*features)`` is the reason code needing ``features`` (``features.ISA_INCLUDES`` names;
none: base x86-64 code) is not run on this machine, or None when it runs: not an x86-64 host, else
``emit.host_cpu.lacking`` -- the product's own predicate, so ``SHA1OPT_CPU_LACKS`` (which removes a
feature and every feature including it) skips the same tests on any host -- worded by
``lacks_text``. Two spellings of the one question:

- ``needs(*features)``: a marker for a test (or ``pytestmark``) whose native run needs them;
- ``skip_unless_runs(*features)``: inside a test whose features are known only at run time
  (a parametrized snippet's instructions).

Example: with ``SHA1OPT_CPU_LACKS=avx2`` a test marked ``@needs("avx2")`` is skipped with the reason
"this CPU lacks avx2"; on an AVX2 host without the variable it runs.
"""

from __future__ import annotations

import pytest

from sha1opt.emit.host_cpu import lacking, lacks_text
from sha1opt.emit.toolchain import host_is_x86_64

NOT_X86_64 = "native runs need an x86-64 host"


def not_run_here(*features: str) -> str | None:
    """Why code needing ``features`` is not run natively here (one line), or None when it runs."""
    if not host_is_x86_64():
        return NOT_X86_64
    missing = lacking(features)
    return lacks_text(missing) if missing else None


def needs(*features: str) -> pytest.MarkDecorator:
    """``@needs("avx512vl", "bmi2")``: skip the test, with the reason, where that code does not run."""
    reason = not_run_here(*features)
    return pytest.mark.skipif(reason is not None, reason=reason or "runs here")


def skip_unless_runs(*features: str) -> None:
    """Skip the running test, with the reason, where code needing ``features`` does not run."""
    reason = not_run_here(*features)
    if reason is not None:
        pytest.skip(reason)
