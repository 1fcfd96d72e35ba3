"""Every family of the registry implements the ``Family`` protocol itself (emit/family.py).

The family classes derive from the protocol (for its one ``export`` method), so a method a family forgets
would silently be the protocol's stub, which returns None: a dispatcher asking ``features`` would get None,
not an error. Only ``export`` is the protocol's own, and ``base_paths`` is asked only of a family without
``per_level``.
"""

import pytest

from sha1opt.emit.family import Family
from sha1opt.emit.families import FAMILIES

PROTOCOL_METHODS = sorted(n for n, v in vars(Family).items() if callable(v) and not n.startswith("_") and n != "export")


def _own(family, name: str) -> bool:
    """Whether ``name`` is defined by the family's class or a base below the protocol."""
    for cls in type(family).__mro__:
        if cls is Family:
            return False
        if name in vars(cls):
            return True
    return False


def test_the_protocol_lists_its_methods():
    assert {"admits", "choose", "exportable", "features", "loop_items", "prove", "known"} <= set(PROTOCOL_METHODS)


@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_every_family_implements_every_method_of_the_protocol(family):
    needed = [n for n in PROTOCOL_METHODS if not (n == "base_paths" and family.per_level)]
    assert [n for n in needed if not _own(family, n)] == []
