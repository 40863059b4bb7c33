"""clue-expert: a rule-based expert system for Clue/Cluedo.

Facts about hands, passes and shown cards go into a forward-chaining experta
engine whose rules are compiled from YAML files in ``rules/``; a SAT case
analysis makes the deduction complete, and every conclusion is explained.
"""
from .core.cards import Edition, get_edition
from .core.errors import ClueError, ContradictionError, RecordError, RuleFileError, UnknownCardError
from .engine.knowledge import Knowledge, Sheet
from .core.records import Record, load_record
from .engine.knowledge import replay_record as replay

__version__ = "0.1.0"
__all__ = ["Edition", "get_edition", "ClueError", "ContradictionError", "RecordError", "RuleFileError",
           "UnknownCardError", "Knowledge", "Sheet", "Record", "load_record", "replay", "__version__"]
