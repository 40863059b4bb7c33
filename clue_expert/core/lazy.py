"""Modules executed when first used: a name bound at import time whose module
runs only when one of its attributes is first read (the standard library's
:class:`importlib.util.LazyLoader`, as scientific Python's ``lazy_loader``
does).  For numpy, which every command would otherwise pay for at start-up
(about 55 ms) though only the exact beliefs use it."""
from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """The module ``name``: the one already imported, else one that is executed
    at the first read of an attribute.  :class:`ModuleNotFoundError` at once
    where there is no such module (not at that first read)."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
