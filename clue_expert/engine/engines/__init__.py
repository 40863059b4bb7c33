"""The rule-engine adapters behind one interface (:mod:`.base`): experta and
CLIPS.  Importing this package registers every adapter in
:data:`~clue_expert.engine.engines.base.ENGINES`."""
from .base import (ENGINE_NAMES, ENGINES, Activation, Binder, EngineFact, EngineFiring, NativeSink,  # noqa: F401
                   RuleEngine, Watcher, bound, check_engine_name, make_engine, register_engine)
from . import clips, experta  # noqa: F401,E402  (registers the adapters)

#: The engine every command and the Python API use unless told otherwise (see
#: :func:`choose_engine`): CLIPS, the faster of the two (benchmarks/games.py:
#: about 7x experta's games per second) and deterministic in its agenda order;
#: experta is one ``--engine experta`` away and passes the same tests.
DEFAULT_ENGINE = "clips"


def choose_engine(seat: str | None = None, command: str | None = None, level: str | None = None) -> str:
    """The engine a seat runs: its seat spec's ``engine=`` (``seat``), else the
    one the command chose (``command``: ``--engine``, passed down from the
    command line to where the seat is made), else its knowledge level's
    ``engine:`` (``level``), else :data:`DEFAULT_ENGINE`.  Nothing here is
    process-wide: every choice is an argument."""
    for name in (seat, command, level):
        if name is not None:
            return check_engine_name(name)
    return DEFAULT_ENGINE
