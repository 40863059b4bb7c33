"""The engine's front door: everything the play and people layers use of the
engine -- a seat's knowledge, the rule files, the engines' names, proofs,
beliefs and the generalized game's solver -- and nothing else.  Modules
outside ``clue_expert.engine`` import the engine only from here
(``tests/test_layers.py`` checks it); inside, modules import each other
directly and never through this file."""
from __future__ import annotations

from .engines import Activation, DEFAULT_ENGINE, ENGINE_NAMES, EngineFiring, check_engine_name, choose_engine, make_engine
from .engines.base import EngineFact
from .engines.clips import run_batch
from .engines.clp import CLIPS_VERSION, atom, batch_chunks, export_facts, export_program, fact_key, fact_text as clips_fact_text, input_facts
from .engines.player_clp import export_player
from .language.compiler import ID_PATTERN, check_edition
from .language.patterns import BOOLEAN, CARDS, INTEGER, MAYBE_NULL, NAMES, SYMBOL, field_type
from .language.reference import function_reference
from .language.rules import RuleSet, all_rules, compile_ruleset, default_rulesets, load_ruleset, load_user_rules, rule_files, written_clash
from .library import FUNCTIONS
from .reasoning.beliefs import compute
from .reasoning.kernels import warm as warm_kernels, warm_if_due as warm_kernels_if_due
from .reasoning.interrogation import Alpha, Cell, SIZE, alpha, ask_values, java_number, solve
from .reasoning.planning import nearest_choice
from .reasoning.proofs import Proof, fact_text, prove
from .seat.knowledge import CASE_ANALYSIS, Candidate, Explanation, Firing, GIVEN, Justification, Knowledge, OBSERVATION, Sheet, replay_record
from .seat.levels import DEFAULT_LEVEL, Level, available_levels, get_level
from .seat.queries import KnowledgeView

__all__ = ['Activation', 'Alpha', 'BOOLEAN', 'CARDS', 'CASE_ANALYSIS', 'CLIPS_VERSION', 'Candidate', 'Cell', 'DEFAULT_ENGINE', 'DEFAULT_LEVEL', 'ENGINE_NAMES', 'EngineFact', 'EngineFiring', 'Explanation', 'FUNCTIONS', 'Firing', 'GIVEN', 'ID_PATTERN', 'INTEGER', 'Justification', 'Knowledge', 'KnowledgeView', 'Level', 'MAYBE_NULL', 'NAMES', 'OBSERVATION', 'Proof', 'RuleSet', 'SIZE', 'SYMBOL', 'Sheet', 'all_rules', 'alpha', 'ask_values', 'atom', 'available_levels', 'batch_chunks', 'check_edition', 'check_engine_name', 'choose_engine', 'clips_fact_text', 'compile_ruleset', 'compute', 'default_rulesets', 'export_facts', 'export_player', 'export_program', 'fact_key', 'fact_text', 'field_type', 'function_reference', 'get_level', 'input_facts', 'java_number', 'load_ruleset', 'load_user_rules', 'make_engine', 'nearest_choice', 'prove', 'replay_record', 'rule_files', 'run_batch', 'solve', 'warm_kernels', 'warm_kernels_if_due', 'written_clash']
