"""clue-expert: a rule-based expert system for Clue/Cluedo.

Facts about hands, passes and shown cards go into a forward-chaining rule
engine -- CLIPS through clipspy (the default) or experta's Rete -- whose
rules are compiled from YAML files in ``rules/``; a SAT case analysis makes
the deduction complete, and every conclusion is explained.

The public Python API (docs/api.md has worked examples):

* editions and cards: :class:`Edition`, :class:`Card`, :func:`get_edition`,
  :func:`editions`, :func:`build_edition`, :func:`pool_edition`;
* deals: :class:`Deal`, :func:`get_deal`, :func:`load_deal`,
  :func:`random_deal`, :func:`shipped_deals`;
* records (a game seen from one seat): :class:`Record`, :func:`load_record`,
  :func:`parse_record`, :func:`dump_record`, :func:`record_yaml`;
* observations (what a seat can see): :class:`DealtHand`,
  :class:`Suggestion`, :class:`Accusation`, :class:`RevealedHand`,
  :class:`Given`, :class:`Event`; ``Observation`` is any of the first five,
  ``Turn`` any of :class:`Suggestion`, :class:`Accusation`,
  :class:`RevealedHand`;
* players and seats: :class:`Player` (the interface a driver calls),
  :class:`RuleBasedPlayer`, :class:`ScriptedPlayer`, :func:`seat_player`,
  :func:`parse_seat`, :func:`default_seat`, :class:`PlayerError`;
* games: :func:`play_game` and its :class:`GameResult`, :func:`simulate`;
* knowledge: :class:`Knowledge` (one seat's deduction), the read-only
  :class:`KnowledgeView` protocol, :class:`Sheet`, :func:`replay`;
* facts and explanations: :func:`held_key`, :func:`lacked_key`,
  :func:`parse_fact`, :func:`describe`, ``ENVELOPE``;
  :class:`Explanation` (``Knowledge.explain``), :class:`Justification`,
  :func:`prove` and its :class:`Proof`;
* errors: :class:`ClueError` and its kinds.

Importing the package loads the engine (experta, python-sat), never the
terminal interface (rich, argparse).
"""
from .core.cards import Card, Edition, build_edition, editions, get_edition, pool_edition
from .core.deals import Deal, get_deal, load_deal, random_deal, shipped_deals
from .core.errors import ClueError, ContradictionError, RecordError, RuleFileError, UnknownCardError
from .core.facts import ENVELOPE, describe, held_key, lacked_key, parse_fact
from .core.observations import (Accusation, DealtHand, Event, Given, Observation, RevealedHand, Suggestion,
                                Turn)
from .core.version import __version__
from .core.records import Record, dump_record, load_record, parse_record, record_yaml
from .engine import Explanation, Justification, Knowledge, Sheet
from .engine import replay_record as replay
from .engine import Proof, prove
from .engine import KnowledgeView
from .play.game import GameResult, Player, PlayerError, play_game
from .play.players import RuleBasedPlayer, ScriptedPlayer, parse_seat, seat_player
from .play.seats import default_seat
from .play.simulate import simulate

__all__ = [
    # editions and cards
    "Card", "Edition", "build_edition", "editions", "get_edition", "pool_edition",
    # deals
    "Deal", "get_deal", "load_deal", "random_deal", "shipped_deals",
    # records
    "Record", "dump_record", "load_record", "parse_record", "record_yaml",
    # observations
    "Accusation", "DealtHand", "Event", "Given", "Observation", "RevealedHand", "Suggestion", "Turn",
    # players, seats and games
    "GameResult", "Player", "PlayerError", "RuleBasedPlayer", "ScriptedPlayer", "default_seat", "parse_seat",
    "play_game", "seat_player", "simulate",
    # knowledge, facts and explanations
    "ENVELOPE", "Explanation", "Justification", "Knowledge", "KnowledgeView", "Proof", "Sheet", "describe",
    "held_key", "lacked_key", "parse_fact", "prove", "replay",
    # errors
    "ClueError", "ContradictionError", "RecordError", "RuleFileError", "UnknownCardError",
    "__version__",
]
