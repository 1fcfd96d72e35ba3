"""Where the data lives: the ``corpus/`` folder, installed as ``sha1opt.corpus``.

Invariant: data (identities, uarch tables, test vectors) is read only through
``corpus_dir()`` and only with ``load_toml``, which refuses unknown and
missing keys by name -- LLVM ``.td`` strictness, so a typo in a data row is
an error, not a silently ignored field.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, Iterator

from sha1opt.semantics.errors import CorpusError, OutputError


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


def _new_file_mode(path: Path) -> int:
    """The mode a written file gets: the existing file's, else 0666 less the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextlib.contextmanager
def atomic_output(path: str | Path, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path`` in one rename.

    Invariant: ``path`` is either left as it was or holds the complete new
    content (never a half-written file), and only a regular file or a new
    name is ever replaced -- a device, FIFO or directory is refused. The new
    file keeps the old one's mode, or gets 0666 less the umask.
    """
    path = Path(path)
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise OutputError(f"{path}: not a regular file; refusing to replace it")
    except FileNotFoundError:
        pass
    except OSError as e:
        raise OutputError(f"{path}: {e.strerror}") from None
    parent = path.parent if str(path.parent) else Path(".")
    mode = _new_file_mode(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=parent)
    except OSError as e:
        raise OutputError(f"{path}: cannot write here: {e.strerror}") from None
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as e:
        raise OutputError(f"{path}: cannot write: {e.strerror}") from None
    finally:
        Path(tmp).unlink(missing_ok=True)


def atomic_write(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` through ``atomic_output`` (all or nothing)."""
    with atomic_output(path) as tmp:
        if isinstance(data, bytes):
            tmp.write_bytes(data)
        else:
            tmp.write_text(data)
    return Path(path)
