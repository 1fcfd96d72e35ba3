"""Where the data lives: the ``corpus/`` folder (read), and the files sha1opt writes.

Invariant: data (identities, uarch tables, test vectors) is read only through
``corpus_dir()`` and only with ``load_toml``, which refuses unknown and
missing keys by name -- LLVM ``.td`` strictness, so a typo in a data row is
an error, not a silently ignored field. Every file sha1opt writes (exports,
PNGs, saved synthesis rows) goes through ``atomic_output``: only a regular
file or a new name is replaced, all or nothing, with the umask honoured.
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


def user_data_dir() -> Path:
    """Where sha1opt keeps data the user made (``synth --save`` rows): ``$XDG_DATA_HOME/sha1opt``,
    default ``~/.local/share/sha1opt`` -- never inside the installed package (``corpus_dir()``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "sha1opt"


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


def _umask() -> int:
    """The process umask, read without changing it where the kernel says it (Linux >= 4.7).

    ``os.umask`` can only be read by setting it, which races with other
    threads creating files; ``/proc/self/status`` has it as ``Umask: 0022``.
    """
    try:
        with open("/proc/self/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_output(path: str | Path) -> Path:
    """The file that writing to ``path`` would replace, or a one-line ``OutputError``.

    Invariant: the answer is a regular file or a name that does not exist yet,
    in an existing directory. A symlink to a regular file is followed (the
    target is replaced, as ``>`` in a shell writes through it); anything else
    -- a character device such as ``/dev/null``, a FIFO, a socket, a
    directory, ``/proc/self/fd/1`` naming a terminal or a pipe -- is refused.

    Example: ``check_output("/dev/null")`` raises ``OutputError("/dev/null:
    a character device, not a regular file; refusing to replace it")``;
    ``check_output("out/new.S")`` returns ``Path("out/new.S")`` if ``out/``
    is a directory.
    """
    path = Path(path)
    try:
        st = os.stat(path)                     # follows symlinks: what a write would reach
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise OutputError(f"{path}: {e.strerror}") from None
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            raise OutputError(f"{path}: {_kind(st.st_mode)}, not a regular file; refusing to replace it")
        if path.is_symlink():
            target = Path(os.path.realpath(path))
            try:
                same = os.path.samestat(os.stat(target), st)
            except OSError:
                same = False
            if not same:                       # e.g. /proc/self/fd/N of a deleted file
                raise OutputError(f"{path}: a link that does not name a file by path; refusing to write through it")
            path = target
    parent = path.parent
    if not parent.is_dir():
        raise OutputError(f"{parent}: no such directory")
    return path


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a file"


def output_dir(path: str | Path) -> Path:
    """Create the directory ``path`` (and its parents) if needed and check a file can be written in it.

    Invariant: on return ``path`` is a directory in which this process just
    created and removed a file; otherwise a one-line ``OutputError`` names
    the directory and the reason (a file in the way, read-only, no
    permission). Example: ``output_dir("/proc/out")`` raises
    ``OutputError("/proc/out: cannot create the directory: No such file or directory")``.
    """
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError(f"{path}: exists and is not a directory") from None
    except OSError as e:
        raise OutputError(f"{path}: cannot create the directory: {e.strerror}") from None
    try:
        fd, probe = tempfile.mkstemp(prefix=".sha1opt-probe.", dir=path)
    except OSError as e:
        raise OutputError(f"{path}: cannot write here: {e.strerror}") from None
    os.close(fd)
    os.unlink(probe)
    return path


@contextlib.contextmanager
def atomic_output(path: str | Path, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path`` in one rename.

    Invariant: ``path`` is either left as it was or holds the complete new
    content (never a half-written file), and only a regular file or a new
    name is ever replaced -- a device, FIFO or directory is refused
    (``check_output``). The new file keeps the old one's permission bits
    (``rwx`` for each class; set-user/group-ID bits are not carried over), or
    gets 0666 less the umask (as ``open(path, "w")`` would), never the
    temporary file's 0600.

    Example: with umask 022, ``atomic_write("new.S", text)`` leaves ``new.S``
    mode 0644; over an existing 0640 file it stays 0640.
    """
    target = check_output(path)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode) & 0o777   # permission bits; never set-id onto new text
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    except OSError as e:
        raise OutputError(f"{path}: {e.strerror}") from None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent)
    except OSError as e:
        raise OutputError(f"{path}: cannot write here: {e.strerror}") from None
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
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
