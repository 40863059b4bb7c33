"""The engine interface the seat's knowledge drives, and the registry of
engine adapters.

One abstract base, :class:`RuleEngine`, and an adapter per engine (experta
in :mod:`clue_expert.engine.engines.experta`, CLIPS in
:mod:`clue_expert.engine.engines.clips`) -- in the style of python-chess's
engine module.  The seat declares :class:`EngineFact` s, runs the engine to
a fixed point and reads each :class:`EngineFiring` with the facts its rule
matched (the activation's basis, which become the premises of what the
firing concludes).  For a rule whose right-hand side is not native (it
calls a library function, or decides), the seat computes the right-hand
side in Python while the firing is reported, and declares the conclusions
before the engine goes on; a native rule (the seat names them when it loads
the rules) asserts its facts inside the engine, and its firing is reported
all the same, with the facts it asserted (:attr:`EngineFiring.native`).

Nothing outside the adapter modules imports experta or clips
(``tests/test_layers.py``).
"""
from __future__ import annotations

import difflib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterator, Mapping, Protocol, Sequence

from ...core.errors import UnknownEngineError
from ...core.facts import AnyKey, key_of

#: The engines a user may name (``--engine``, ``engine=`` in a seat spec, ``engine:`` in a level file).
ENGINE_NAMES: tuple[str, ...] = ("experta", "clips")


@dataclass(frozen=True, init=False)
class EngineFact:
    """An engine-neutral fact: its kind and its field values, in the order
    of the kind's fields (:data:`clue_expert.core.facts.KINDS`).  A multislot
    (``cards``, ``matching``, ``players``) is a tuple."""

    kind: str
    """The fact kind."""
    values: tuple[tuple[str, Any], ...]
    """``(field, value)`` pairs."""

    def __init__(self, kind: str, values: tuple[tuple[str, Any], ...]) -> None:
        # frozen, and made a few thousand times a game: the fields are set
        # straight in the instance's dict (a frozen dataclass's own __init__
        # calls object.__setattr__ for each, three times slower)
        d = self.__dict__
        d["kind"] = kind
        d["values"] = values

    def __hash__(self) -> int:
        # the hash the dataclass would compute, worked out once per fact: an
        # engine fact is looked up in the adapter's dicts several times
        d = self.__dict__
        h = d.get("_hash")
        if h is None:
            h = d["_hash"] = hash((self.kind, self.values))
        return h

    def __reduce__(self) -> tuple:
        # a string's hash differs from process to process: the cached one stays behind
        return (EngineFact, (self.kind, self.values))

    @classmethod
    def of(cls, kind: str, values: Mapping[str, Any]) -> "EngineFact":
        """The fact of ``kind`` with these field values (sets become sorted tuples)."""
        return cls(kind, tuple((f, tuple(sorted(v)) if isinstance(v, (set, frozenset)) else
                                (tuple(v) if isinstance(v, list) else v)) for f, v in values.items()))

    def get(self, name: str, default: Any = None) -> Any:
        """The value of field ``name`` (``default`` when the fact has no such field)."""
        for f, v in self.values:
            if f == name:
                return v
        return default

    def as_dict(self) -> dict[str, Any]:
        """Field -> value."""
        return dict(self.values)

    def key(self) -> AnyKey:
        """The fact's key, its record (:func:`clue_expert.core.facts.key_of`),
        worked out once per fact: the seat reads the keys of every firing's facts."""
        d = self.__dict__
        key = d.get("_key")
        if key is None:
            key = d["_key"] = key_of(self.kind, dict(self.values))
        return key


@dataclass(frozen=True, init=False)
class Activation:
    """A rule instance on the agenda: the rule, its salience, the facts that
    matched its positive patterns (in pattern order) and its variables' values."""

    rule: str
    """The rule's id."""
    salience: int
    """Its salience (higher fires first)."""
    facts: tuple[EngineFact, ...]
    """The matched facts, in pattern order (the activation's basis)."""
    bindings: tuple[tuple[str, Any], ...] = ()
    """``(variable, value)`` pairs."""

    def __init__(self, rule: str, salience: int, facts: tuple[EngineFact, ...],
                 bindings: tuple[tuple[str, Any], ...] = ()) -> None:
        d = self.__dict__  # frozen: see EngineFact.__init__
        d["rule"] = rule
        d["salience"] = salience
        d["facts"] = facts
        d["bindings"] = bindings

    def binding(self) -> dict[str, Any]:
        """Variable -> value."""
        return dict(self.bindings)


@dataclass(frozen=True, init=False)
class EngineFiring:
    """An activation that fired: the ``step``-th firing since the last reset."""

    activation: Activation
    """What fired."""
    step: int
    """Its number since the last reset (1, 2, ...)."""
    native: tuple[EngineFact, ...] | None = None
    """The facts a native right-hand side asserted inside the engine (empty
    when the engine held them all already); None for a rule whose
    right-hand side the seat computes."""

    def __init__(self, activation: Activation, step: int, native: tuple[EngineFact, ...] | None = None) -> None:
        d = self.__dict__  # frozen: see EngineFact.__init__
        d["activation"] = activation
        d["step"] = step
        d["native"] = native

    @property
    def rule(self) -> str:
        """The rule's id."""
        return self.activation.rule

    @property
    def facts(self) -> tuple[EngineFact, ...]:
        """The facts it matched."""
        return self.activation.facts


#: What a native firing's variables are: ``(pattern index, field, variable)``
#: for each variable, where a positive pattern first binds it -- the
#: variable's value is that field of the fact matched by that pattern.
Binder = tuple[tuple[int, str, str], ...]

#: Where an adapter may hand a native firing instead of yielding an
#: :class:`EngineFiring` (see :meth:`RuleEngine.run`): called with the rule's
#: id, the facts it matched (in pattern order), its :data:`Binder` and the
#: facts it asserted that the engine did not hold (as :attr:`EngineFiring.native`),
#: or None for a production decision rule whose firings the seat gathers
#: (:attr:`~clue_expert.engine.language.compiler.RulePlan.gathered`: it asserts nothing).
NativeSink = Callable[[str, tuple, Binder, "tuple | None"], None]


class FiringSink(Protocol):
    """The one channel from an engine to the seat (in the style of clingo's
    solve handler: one object the run reports to): :meth:`RuleEngine.run_into`
    hands it every firing, each once, in firing order."""

    def on_firing(self, firing: "EngineFiring") -> None:
        """A rule fired (a native one too when the engine reports it as a
        firing: with a watch, or an engine that runs no right-hand side)."""

    def on_native(self, rule: str, facts: tuple, binder: Binder, native: tuple | None) -> None:
        """A native rule fired inside the engine, handed over straight (see
        :data:`NativeSink`); ``native`` None: a production decision rule
        whose firings the seat gathers (it asserted nothing)."""


def bound(facts: Sequence["EngineFact"], binder: Binder) -> tuple[tuple[str, Any], ...]:
    """The ``(variable, value)`` pairs of a firing on ``facts`` (see :data:`Binder`)."""
    return tuple([(var, facts[i].get(field)) for i, field, var in binder])


#: A watch callback: ``(what, sign, item)`` with ``what`` one of ``fact``
#: (sign ``+``/``-``, an :class:`EngineFact`), ``activation`` (``+``/``-``, an
#: :class:`Activation`) or ``fire`` (sign ``""``, an :class:`EngineFiring`) --
#: what CLIPS's ``(watch facts)``, ``(watch activations)`` and ``(watch rules)`` show.
Watcher = Callable[[str, str, Any], None]


class RuleEngine(ABC):
    """A forward-chaining engine running compiled rules (the IR of
    :mod:`clue_expert.engine.language.ir`).  Its own matcher finds the activations and
    its own agenda orders them (salience, then the engine's strategy)."""

    #: The engine's name (a member of :data:`ENGINE_NAMES`).
    name: ClassVar[str] = ""

    def __init__(self) -> None:
        #: Called with every fact, activation and firing event when set (see :data:`Watcher`).
        self.watch: Watcher | None = None

    @abstractmethod
    def load(self, rules: Sequence[Any], native: Mapping[str, tuple] | None = None) -> None:
        """Compile ``rules`` (:class:`~clue_expert.engine.language.compiler.CompiledRule` s) onto the engine (replacing any loaded before).
        ``native``: rule id -> the :class:`~clue_expert.engine.language.ir.Assertion` s
        of a rule whose right-hand side the engine may run itself (an engine
        that cannot reports those firings like any other).
        Raises :class:`~clue_expert.core.errors.RuleFileError` naming the file,
        the rule and the construct for anything the engine cannot compile."""

    @abstractmethod
    def reset(self) -> None:
        """Forget every fact and activation (the rules stay loaded)."""

    @abstractmethod
    def declare(self, fact: EngineFact) -> bool:
        """Add a fact; False when the engine already holds an equal one."""

    @abstractmethod
    def retract(self, fact: EngineFact) -> bool:
        """Remove a fact; False when the engine does not hold it."""

    @abstractmethod
    def run(self, limit: int | None = None, sink: NativeSink | None = None) -> Iterator[EngineFiring]:
        """Fire activations, best first, until the agenda is empty (or
        ``limit`` firings), yielding each firing as it happens: facts the
        caller declares before taking the next one are matched before the
        next activation is chosen.  ``sink``: when no :attr:`watch` is set,
        an adapter may call it with a native firing (see :data:`NativeSink`)
        instead of making and yielding its :class:`EngineFiring`, in the
        same order among the firings it yields."""

    def run_into(self, sink: FiringSink, limit: int | None = None) -> int:
        """:meth:`run`, every firing handed to ``sink``: a native one to
        ``sink.on_native`` when the adapter can (no :class:`EngineFiring`
        made), any other to ``sink.on_firing``.  How the seat runs its
        engine.  Returns how many firings were reported as firings."""
        on_firing = sink.on_firing
        n = 0
        for firing in self.run(limit, sink.on_native):
            on_firing(firing)
            n += 1
        return n

    @abstractmethod
    def agenda(self) -> list[Activation]:
        """The activations waiting, in the order they would fire."""

    @abstractmethod
    def facts(self) -> list[EngineFact]:
        """The facts the engine holds, oldest first."""

    def reset_to(self, facts: Sequence[EngineFact]) -> None:
        """:meth:`reset`, then :meth:`settle` ``facts`` (a game's opening,
        the same from game to game): an engine may keep them and put them
        back faster the next time."""
        self.reset()
        self.settle(facts)

    def settle(self, facts: Sequence[EngineFact]) -> None:
        """Declare ``facts`` -- facts whose firings already happened in an
        identical state, their consequences restored with them -- and drop
        the activations they make, unfired (the engine's refraction: an
        activation fires once).  Right after :meth:`reset`."""
        for fact in facts:
            self.declare(fact)
        for _ in self.run():
            pass

    def _emit(self, what: str, sign: str, item: Any) -> None:
        """Report one event to :attr:`watch`, when set."""
        if self.watch is not None:
            self.watch(what, sign, item)


#: Engine name -> adapter class, filled by the adapter modules as they are imported
#: (:mod:`clue_expert.engine.engines` imports every adapter).
ENGINES: dict[str, type[RuleEngine]] = {}


def register_engine(cls: type[RuleEngine]) -> type[RuleEngine]:
    """Class decorator of an adapter: make it available under ``cls.name``."""
    if cls.name not in ENGINE_NAMES:
        raise ValueError(f"engine name {cls.name!r} is not one of {', '.join(ENGINE_NAMES)}")
    ENGINES[cls.name] = cls
    return cls


def check_engine_name(name: str) -> str:
    """``name`` when it names an engine; else :class:`UnknownEngineError`
    naming the engines and the nearest one."""
    if name in ENGINE_NAMES:
        return name
    near = difflib.get_close_matches(str(name).lower(), ENGINE_NAMES, n=1, cutoff=0.4)
    hint = f"; did you mean {near[0]}?" if near else ""
    raise UnknownEngineError(f"unknown engine {str(name)[:60]!r} (engines: {', '.join(ENGINE_NAMES)}){hint}")


def make_engine(name: str) -> RuleEngine:
    """A new engine of the adapter named ``name`` (see :func:`check_engine_name`)."""
    check_engine_name(name)
    cls = ENGINES.get(name)
    if cls is None:
        raise UnknownEngineError(f"engine {name!r} is not available in this installation")
    return cls()


__all__ = ["Activation", "Binder", "ENGINES", "ENGINE_NAMES", "EngineFact", "EngineFiring", "FiringSink", "NativeSink",
           "RuleEngine", "Watcher", "bound", "check_engine_name", "make_engine", "register_engine"]
