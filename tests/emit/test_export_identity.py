"""Every family's exported text for fixed inputs is byte-identical to what ``main`` wrote before the family
registry (``tests/support/export_texts.py``; the digests in ``tests/emit/data/export_texts.json``)."""

import json

from tests.support.export_texts import DATA, digests


def test_export_texts_unchanged():
    want = json.loads(DATA.read_text())
    got = digests()
    assert sorted(got) == sorted(want)
    changed = [k for k in want if got[k] != want[k]]
    assert not changed, f"{len(changed)} texts changed, e.g. {changed[:5]}"
