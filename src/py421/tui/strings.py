"""Words of the terminal UI: the ``tui.*`` part of the one catalog, :mod:`py421.i18n`.

>>> ui("fr", "btn.throw")
'Lancer (t)'
>>> ui("xx", "throws", n=1, allowed=3)
'Throw 1 of 3'
"""

from __future__ import annotations

from ..i18n import tr


def ui(lang: str, key: str, **fields: object) -> str:
    """The UI label ``key`` in ``lang`` (English for an unknown language)."""
    return tr(lang, "tui." + key, **fields)
