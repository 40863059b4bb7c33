"""Precise error types.  Every error a user can cause is a :class:`ClueError`,
itself a :class:`ValueError`, and says what is wrong and where."""
from __future__ import annotations

from typing import Sequence


class ClueError(ValueError):
    """Base class of every input error clue-expert reports."""


class UnknownCardError(ClueError):
    """A card name that matches no card or alias of the edition."""

    def __init__(self, name: str, edition: str, suggestions: Sequence[str] = ()):
        self.name = name
        #: The edition's id.
        self.edition = edition
        #: The nearest card names, best first.
        self.suggestions = list(suggestions)
        hint = f"; did you mean {', '.join(repr(s) for s in self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"unknown card {name!r} in edition {edition!r}{hint}")

    def __reduce__(self):  # picklable, so worker processes can report it
        return (UnknownCardError, (self.name, self.edition, self.suggestions))


class UnknownEditionError(ClueError):
    """An edition id or alias that is not shipped."""


class EditionError(ClueError):
    """An edition file that cannot be read (names the file and the problem)."""


class UnknownEngineError(ClueError):
    """A rule-engine name that names no engine adapter (``--engine``, ``engine=``, ``engine:``)."""


class UnknownPlayerError(ClueError):
    """A player name that is not seated in the game."""


class DealError(ClueError):
    """A malformed or inconsistent deal file."""


class RecordError(ClueError):
    """A game record that is malformed or breaks the rules of the game."""

    def __init__(self, message: str, *, source: str | None = None, turn: int | None = None):
        #: The file (or other origin) of the record, when known.
        self.source = source
        #: The 1-based number of the offending turn, when there is one.
        self.turn = turn
        where = []
        if source:
            where.append(str(source))
        if turn is not None:
            where.append(f"turn {turn}")
        prefix = (": ".join(where) + ": ") if where else ""
        self.reason = message
        super().__init__(prefix + message)

    def __reduce__(self):
        return (_rebuild, (RecordError, (self.reason,), {"source": self.source, "turn": self.turn}))


class RuleFileError(ClueError):
    """A rule (or scenario) file that does not validate.  Names the file, the
    rule and the problem."""

    def __init__(self, path: str, rule: str | None, problem: str):
        self.path = str(path)
        self.rule = rule
        self.problem = problem
        where = self.path + (f": rule {rule!r}" if rule else "")
        super().__init__(f"{where}: {problem}")

    def __reduce__(self):
        return (RuleFileError, (self.path, self.rule, self.problem))


class ExpressionError(ClueError):
    """An expression outside the whitelisted rule-expression language."""


class ContradictionError(ClueError):
    """Observations that cannot all be true.  Names the conflicting facts and
    the turn; the knowledge before the offending observation is kept."""

    def __init__(self, message: str, *, facts: Sequence[str] = (), turn: int | None = None, cause=None):
        #: Human descriptions of the facts that cannot hold together.
        self.facts = list(facts)
        #: What the engine can say about it in its own terms (the rule that
        #: found it, the fact keys it cites, a sentence), for step-by-step
        #: proofs; None when not known.  Not kept across processes.
        self.cause = cause
        #: The 1-based turn whose observation exposed the contradiction (0 = the deal).
        self.turn = turn
        where = f"turn {turn}: " if turn is not None else ""
        detail = ("; conflicting facts: " + "; ".join(self.facts)) if self.facts else ""
        self.reason = message
        super().__init__(f"{where}{message}{detail}")

    def __reduce__(self):
        return (_rebuild, (ContradictionError, (self.reason,), {"facts": self.facts, "turn": self.turn}))


class QueryError(ClueError):
    """A ``why`` query that cannot be parsed."""


def _rebuild(cls, args, kwargs):
    """Unpickle an error whose constructor takes keyword arguments."""
    return cls(*args, **kwargs)


class RuleLimitError(RuleFileError):
    """A rule file beyond one of the rule language's limits: an expression
    too long, too deep or too big when loaded, or a rule that builds too big a
    value or works too long when it runs.  Names the file, the rule and the
    limit (the limits are listed in docs/limits.md)."""

    def __reduce__(self):
        return (RuleLimitError, (self.path, self.rule, self.problem))
