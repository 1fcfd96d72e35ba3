"""Which cost model the running CPU is: /proc/cpuinfo's identification against corpus/cpus.toml.

``host_cpu()`` reads the first processor's (vendor_id, cpu family, model); ``model_of(cpu)``
looks it up in ``corpus/cpus.toml`` (one row per CPU family with the model-number ranges it
covers, a ``source`` per row; unknown keys refused); ``host_refusal(uarch, cpu)`` is the one-line
reason timings on this machine say nothing about ``uarch`` (None when they do). It is what lets
``export --tune`` time candidates only where this machine is the model's CPU. Example: on the
Emerald Rapids host (``CpuId("GenuineIntel", 6, 207)``) ``model_of`` is ``"goldencove"``, so
``host_refusal("goldencove", cpu)`` is None and ``host_refusal("zen5", cpu)`` says to pass
``--uarch goldencove``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from sha1opt.semantics.datafiles import check_keys, corpus_dir, load_toml
from sha1opt.semantics.errors import CorpusError
from sha1opt.search.cost.model import canonical_name, model_names


@dataclass(frozen=True)
class CpuId:
    vendor: str
    family: int
    model: int

    def __str__(self) -> str:
        return f"{self.vendor} family {self.family} model {self.model}"


def host_cpu(cpuinfo: str | Path = "/proc/cpuinfo") -> CpuId | None:
    """The first processor's vendor, family and model from ``cpuinfo``, or None (no such file / not x86)."""
    try:
        text = Path(cpuinfo).read_text()
    except OSError:
        return None
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    try:
        return CpuId(fields["vendor_id"], int(fields["cpu family"]), int(fields["model"]))
    except (KeyError, ValueError):
        return None


@functools.lru_cache(maxsize=None)
def cpu_table(path: Path | None = None) -> tuple[tuple[str, int, tuple[tuple[int, int], ...], str], ...]:
    """corpus/cpus.toml as (vendor, family, model ranges, model name) rows, checked."""
    path = path or corpus_dir() / "cpus.toml"
    raw = load_toml(path)
    if set(raw) - {"cpu"}:
        raise CorpusError(f"{path.name}: unknown key {sorted(set(raw) - {'cpu'})[0]!r}")
    known = set(model_names())
    rows = []
    for i, row in enumerate(raw.get("cpu", [])):
        where = f"{path.name}: cpu {i + 1}"
        check_keys(row, where, {"vendor", "family", "models", "model", "source"})
        ranges = row["models"]
        if not (isinstance(ranges, list) and all(isinstance(r, list) and len(r) == 2 and
                                                 all(isinstance(x, int) for x in r) and r[0] <= r[1]
                                                 for r in ranges)):
            raise CorpusError(f"{where}: models must be a list of [first, last] model-number ranges")
        if row["model"] not in known:
            raise CorpusError(f"{where}: model {row['model']!r} is not in corpus/uarch")
        rows.append((row["vendor"], row["family"], tuple((a, b) for a, b in ranges), row["model"]))
    return tuple(rows)


def model_of(cpu: CpuId, path: Path | None = None) -> str | None:
    """The cost model whose CPU ``cpu`` is, or None."""
    for vendor, family, ranges, model in cpu_table(path):
        if (cpu.vendor, cpu.family) == (vendor, family) and any(a <= cpu.model <= b for a, b in ranges):
            return model
    return None


def host_refusal(uarch: str, cpu: CpuId | None) -> str | None:
    """None when ``cpu`` is ``uarch``'s CPU (``model_of``), else the one-line reason timings here do not count."""
    want = canonical_name(uarch)
    if cpu is None:
        return f"--tune times candidates on this CPU, and its identification could not be read: not tuning for {want}"
    mine = model_of(cpu)
    if mine is None:
        return (f"--tune times candidates on this CPU ({cpu}), which is no model's CPU (corpus/cpus.toml): "
                f"its timings say nothing about {want}")
    if mine != want:
        return f"--tune times candidates on this CPU ({cpu}), which is {mine}'s, not {want}'s: pass --uarch {mine}"
    return None
