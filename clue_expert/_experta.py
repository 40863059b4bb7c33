"""The one place where clue-expert imports experta.

experta 1.9.4 (its last release) pins ``frozendict==1.2``.  That frozendict
subclasses ``collections.Mapping``, an alias Python removed in 3.10, so a plain
``import experta`` fails on a fresh Python 3.11 with ``AttributeError: module
'collections' has no attribute 'Mapping'``.

The fix lives here and only here: before experta (and with it frozendict) is
imported for the first time, the old ``collections`` aliases are restored from
``collections.abc``.  The aliases are the very same classes, so nothing else
changes; with frozendict >= 2 installed the shim is harmless.  Every other
module imports experta names from this module, never from ``experta`` itself
(``tests/test_experta_shim.py`` checks both that the engine works on this
Python and that no other module imports experta directly).
"""
from __future__ import annotations

import collections
import collections.abc

for _name in ("Mapping", "MutableMapping", "Sequence", "Iterable", "Hashable", "Callable"):
    if not hasattr(collections, _name):
        setattr(collections, _name, getattr(collections.abc, _name))

from experta import AS, MATCH, W, Fact, Field, KnowledgeEngine, Rule  # noqa: E402
from experta import __version__ as EXPERTA_VERSION  # noqa: E402

__all__ = ["AS", "MATCH", "W", "Fact", "Field", "KnowledgeEngine", "Rule", "EXPERTA_VERSION"]
