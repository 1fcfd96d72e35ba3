"""A calibrated model's record: which CPU it was measured on, when, and every row the fit changed, from what.

A calibrated model is a model file in ``corpus/uarch/calibrated/`` (written by ``sha1opt calibrate``),
loaded by ``model.load_model`` like any other: ``inherits`` names the literature model it was fitted
from, and the rows it carries replace that model's rows whole (``model.py``'s inheritance). Its file
name and model name is the CPU's key (``cpu_key``), so ``--uarch host`` finds it for exactly the CPU it
was measured on (``emit.host_cpu.host_model``). Beside the rows, one more top-level table,
``[calibration]``, says where they came from; this module checks it (unknown keys refused, like every
corpus row) and writes the whole file.

Schema of ``[calibration]``:

* ``vendor``, ``family``, ``model``, ``stepping``, ``cpu_name`` -- the CPU (cpuid, as /proc/cpuinfo prints);
* ``date`` -- UTC, ISO 8601; ``base`` -- the literature model fitted from; ``seconds`` -- the run's wall time;
* ``[[calibration.change]]`` -- one per changed parameter: ``row`` (``classes.rot_imm``, ``rules.store_forwarding``,
  ``issue_width``), ``field`` (``latency``, ``ports``, ``uops``, ``compute_uops``, ``busy``, ``value``),
  ``old``, ``new`` (``"absent"``: the model had no such rule) and
  ``measurements`` (the kernels whose error it reduced most);
* ``[calibration.measurements.<kernel>]`` -- every kernel measured: ``median``, ``p10``, ``p90`` (core cycles
  per loop iteration), ``samples``, ``literature`` and ``calibrated`` (the two models' predictions).

Example: ``cpu_key("AuthenticAMD", 25, 1, 1) == "authenticamd-25-1-1"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

import tomli_w

from sha1opt.semantics.datafiles import check_keys
from sha1opt.semantics.errors import CorpusError

_TOP_KEYS = {"vendor", "family", "model", "stepping", "cpu_name", "date", "base", "seconds", "change",
             "measurements"}
_CHANGE_KEYS = {"row", "field", "old", "new", "measurements"}
_MEASUREMENT_KEYS = {"median", "p10", "p90", "samples", "literature", "calibrated"}


def cpu_key(vendor: str, family: int, model: int, stepping: int) -> str:
    """The file stem and model name of a CPU's calibrated model: vendor lower-cased, family, model, stepping."""
    v = re.sub(r"[^a-z0-9]+", "", vendor.lower()) or "unknown"
    return f"{v}-{family}-{model}-{stepping}"


@dataclass(frozen=True)
class Change:
    """One fitted parameter: ``row``.``field`` went from ``old`` to ``new``, on the evidence of ``measurements``."""
    row: str
    field: str
    old: Any
    new: Any
    measurements: tuple[str, ...]


@dataclass(frozen=True)
class Measured:
    """One kernel's measurement (core cycles per iteration) and both models' predictions of it."""
    median: float
    p10: float
    p90: float
    samples: int
    literature: float
    calibrated: float


@dataclass(frozen=True)
class Calibration:
    vendor: str
    family: int
    model: int
    stepping: int
    cpu_name: str
    date: str
    base: str
    seconds: float
    changes: tuple[Change, ...]
    measurements: Mapping[str, Measured]

    @property
    def key(self) -> str:
        return cpu_key(self.vendor, self.family, self.model, self.stepping)


def _num(v: Any, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise CorpusError(f"{where}: must be a number")
    return float(v)


def _int(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise CorpusError(f"{where}: must be an integer")
    return v


def _str(v: Any, where: str) -> str:
    if not isinstance(v, str):
        raise CorpusError(f"{where}: must be a string")
    return v


def check_calibration(raw: Any, where: str) -> Calibration:
    """The ``[calibration]`` table as a value; ``CorpusError`` naming ``where`` and the key for anything unknown
    or missing."""
    if not isinstance(raw, dict):
        raise CorpusError(f"{where}: calibration must be a table")
    w = f"{where}: calibration"
    check_keys(raw, w, _TOP_KEYS)
    changes = []
    if not isinstance(raw["change"], list):
        raise CorpusError(f"{w}.change: must be an array of tables")
    for k, c in enumerate(raw["change"]):
        cw = f"{w}.change[{k}]"
        if not isinstance(c, dict):
            raise CorpusError(f"{cw}: not a table")
        check_keys(c, cw, _CHANGE_KEYS)
        ms = c["measurements"]
        if not isinstance(ms, list) or not all(isinstance(m, str) for m in ms):
            raise CorpusError(f"{cw}.measurements: must be a list of kernel names")
        changes.append(Change(_str(c["row"], f"{cw}.row"), _str(c["field"], f"{cw}.field"), c["old"], c["new"],
                              tuple(ms)))
    meas = {}
    if not isinstance(raw["measurements"], dict):
        raise CorpusError(f"{w}.measurements: must be a table")
    for name, m in raw["measurements"].items():
        mw = f"{w}.measurements.{name}"
        if not isinstance(m, dict):
            raise CorpusError(f"{mw}: not a table")
        check_keys(m, mw, _MEASUREMENT_KEYS)
        meas[name] = Measured(_num(m["median"], f"{mw}.median"), _num(m["p10"], f"{mw}.p10"),
                              _num(m["p90"], f"{mw}.p90"), _int(m["samples"], f"{mw}.samples"),
                              _num(m["literature"], f"{mw}.literature"), _num(m["calibrated"], f"{mw}.calibrated"))
    for c in changes:
        for m in c.measurements:
            if m not in meas:
                raise CorpusError(f"{w}: change of {c.row}.{c.field} cites {m!r}, which is not among the measurements")
    return Calibration(_str(raw["vendor"], f"{w}.vendor"), _int(raw["family"], f"{w}.family"),
                       _int(raw["model"], f"{w}.model"), _int(raw["stepping"], f"{w}.stepping"),
                       _str(raw["cpu_name"], f"{w}.cpu_name"), _str(raw["date"], f"{w}.date"),
                       _str(raw["base"], f"{w}.base"), _num(raw["seconds"], f"{w}.seconds"), tuple(changes), meas)


ABSENT = "absent"        # how a change's old or new value says the model had no such rule


def plain(v: Any) -> Any:
    """``v`` as TOML can hold it (tuples as lists, no value as ``ABSENT``)."""
    if v is None:
        return ABSENT
    if isinstance(v, (tuple, list)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def calibrated_text(cal: Calibration, rows: Mapping[str, Any], description: str) -> str:
    """The calibrated model file: ``inherits`` the base, the changed ``rows`` (``"issue_width"`` -> a value,
    ``"classes.X"`` / ``"rules.X"`` -> the whole row as a table) and the ``[calibration]`` record.

    The result loads with ``model.load_model(cal.key)`` once written to ``calibrated_dir() / f"{cal.key}.toml"``.
    """
    doc: dict[str, Any] = {"name": cal.key, "inherits": cal.base, "description": description,
                           "source": f"sha1opt calibrate on {cal.cpu_name or cal.vendor} ({cal.vendor} family "
                                     f"{cal.family} model {cal.model} stepping {cal.stepping}), {cal.date}: "
                                     f"microbenchmarks fitted to {cal.base}'s simulator; rows not here are "
                                     f"{cal.base}'s"}
    classes: dict[str, Any] = {}
    rules: dict[str, Any] = {}
    for key, value in rows.items():
        table, _, name = key.partition(".")
        if table == "classes":
            classes[name] = plain(value)
        elif table == "rules":
            rules[name] = plain(value)
        elif not name:
            doc[key] = plain(value)
        else:
            raise CorpusError(f"calibrated row {key!r}: not a top-level key, a class or a rule")
    if classes:
        doc["classes"] = classes
    if rules:
        doc["rules"] = rules
    doc["calibration"] = {
        "vendor": cal.vendor, "family": cal.family, "model": cal.model, "stepping": cal.stepping,
        "cpu_name": cal.cpu_name, "date": cal.date, "base": cal.base, "seconds": round(cal.seconds, 1),
        "change": [{"row": c.row, "field": c.field, "old": plain(c.old), "new": plain(c.new),
                    "measurements": list(c.measurements)} for c in cal.changes],
        "measurements": {n: {"median": round(m.median, 4), "p10": round(m.p10, 4), "p90": round(m.p90, 4),
                             "samples": m.samples, "literature": round(m.literature, 4),
                             "calibrated": round(m.calibrated, 4)} for n, m in cal.measurements.items()},
    }
    head = (f"# {cal.key}: {cal.base} calibrated on this CPU by `sha1opt calibrate` (a measured model; the\n"
            f"# literature model is corpus/uarch/{cal.base}.toml). Rows here replace {cal.base}'s whole;\n"
            f"# [calibration] says which changed, from what to what, and from which measurements.\n")
    return head + tomli_w.dumps(doc)
