"""The rule-engine adapters behind one interface (:mod:`.base`): experta and
CLIPS.  Importing this package registers every adapter in
:data:`~clue_expert.engine.engines.base.ENGINES`."""
from .base import (ENGINE_NAMES, ENGINES, Activation, EngineFact, EngineFiring, RuleEngine,  # noqa: F401
                   Watcher, check_engine_name, make_engine, register_engine)
from . import clips, experta  # noqa: F401,E402  (registers the adapters)

#: The engine every command uses unless told otherwise.
DEFAULT_ENGINE = "experta"
