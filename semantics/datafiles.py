"""Where the data lives: the ``corpus/`` folder, installed as ``sha1opt.corpus``.

Invariant: data (identities, uarch tables, test vectors) is read only through
``corpus_dir()`` and only with ``load_toml``, which refuses unknown and
missing keys by name -- LLVM ``.td`` strictness, so a typo in a data row is
an error, not a silently ignored field.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from sha1opt.semantics.errors import CorpusError


def corpus_dir() -> Path:
    try:
        p = Path(str(resources.files("sha1opt.corpus")))
        if p.is_dir():
            return p
    except ModuleNotFoundError:  # pragma: no cover - running from a bare checkout
        pass
    return Path(__file__).resolve().parent.parent / "corpus"


def load_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as e:
        raise CorpusError(f"{path}: cannot read: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise CorpusError(f"{path}: not valid TOML: {e}") from None


def check_keys(row: dict[str, Any], where: str, required: set[str], optional: set[str] = frozenset()) -> None:
    """Refuse unknown keys and missing required keys in one data row."""
    unknown = sorted(set(row) - required - optional)
    if unknown:
        raise CorpusError(f"{where}: unknown key {unknown[0]!r}")
    missing = sorted(required - set(row))
    if missing:
        raise CorpusError(f"{where}: missing key {missing[0]!r}")
    for k, v in row.items():
        if not isinstance(v, (str, int, float, bool, list, dict)):
            raise CorpusError(f"{where}: key {k!r} has an unsupported value")
