"""numpy for the exact beliefs' modules (``beliefs``, ``dp``, ``kernels``, ``scoring``, ``siebel``),
bound once: executed when the beliefs first read it, not when the engine is imported, so that no
command pays for numpy at start-up (:mod:`clue_expert.core.lazy`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

__all__ = ["np"]
