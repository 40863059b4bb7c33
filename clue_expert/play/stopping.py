"""Stop signals of the long commands (simulate, sweep, reproduce, play,
contest-agent, notebook, serve): what a first and a second SIGINT or SIGTERM
do, wherever they are sent (issue 39, docs/exit-codes.md).

* The **first** signal the process receives stops the command cleanly: it is
  noted (:func:`stop_asked`) and raised as
  :class:`KeyboardInterrupt`, so the work finished is kept and summarised;
  the exit code is 128 + that signal (130 for SIGINT, 143 for SIGTERM).
  Where that exception would be dropped (a finalizer; a library's Python
  code that its C code calls back, such as numba's or clipspy's), the stop
  is noted and sent again to the main thread until it lands elsewhere; the
  process ends two seconds later should it never land.
* A **second** signal while that stop is under way: a SIGTERM is absorbed
  (the first stop, which never waits without a bound, goes on and prints its
  summary: what a supervisor that forwards its SIGTERM, or signals every
  process of the tree, wants); a SIGINT -- a person pressing Ctrl-C again --
  ends the process at once with 130 (standard output and error flushed).
* A worker process ended by SIGINT or SIGTERM (sent to the worker alone, or
  to the whole process group) stops the command as a first signal to the
  parent would (:func:`note_worker_stop`): the parent never waits for a
  worker that is gone.
* Once a stopped command has returned, its output is flushed and the
  process ends at once (``os._exit``) with its code: the interpreter's
  finalization, which puts the default actions back (a late SIGTERM would
  then kill the process and lose its code) and frees every engine, is
  skipped.

:func:`signals_held` holds both signals back around writes that must be
whole (a line of ``cells.jsonl``, a record renamed into place) and around
the ending of worker processes.
"""
from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
import time
from typing import Any, Callable, Iterator

#: The stop signals.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

#: Signals (SIGINT, SIGTERM) that asked this process to stop and have not
#: been acted on.  Their handlers raise KeyboardInterrupt, which may land in a
#: C library's callback into Python (CLIPS calling a rule's Python code
#: through cffi), where it is printed and dropped and the game carries on;
#: the game loops look here after each game (:mod:`.simulate`).  (A sweep of
#: one-game cells in one process ignored a Ctrl-C in 1 of about 10 tries.)
STOP_ASKED: list = []


def stop_asked(signum: int) -> None:
    """Note that ``signum`` asked this process to stop (a handler's first step)."""
    STOP_ASKED.append(signum)


def in_finalizer(frame: Any) -> bool:
    """Whether ``frame`` (where a signal came in) runs inside a ``__del__``:
    an exception raised there is printed as "Exception ignored in …" and
    dropped (clipspy's ``Environment.__del__`` is a common place), so a
    handler only notes the stop there (:func:`stop_asked`)."""
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


#: The modules (and packages) of Python code that C code calls back, where
#: an exception raised may be dropped by the C code, silently: numba's
#: compiled functions unpickle their constants through
#: ``numba.core.serialize``; clipspy's routers and functions are cffi
#: callbacks.  (A SIGTERM landing in numba's ``_numba_unpickle`` left
#: ``contest-agent`` playing on, in about 1 try in 20 on a loaded machine.)
#: Only these: numba's compiler, say, is plain Python that raises as usual,
#: and cffi's own Python is never what its C calls back.
CALLED_BACK = ("numba.core.serialize", "clips.routers", "clips.functions")


def called_back(frame: Any) -> bool:
    """Whether ``frame`` (where a signal came in) is Python code that C code
    calls back (:data:`CALLED_BACK`)."""
    if frame is None:
        return False
    name = frame.f_globals.get("__name__", "")
    return any(name == m or name.startswith(m + ".") for m in CALLED_BACK)


def dropped_here(frame: Any) -> bool:
    """Whether an exception raised at ``frame`` may be dropped instead of
    stopping the command (:func:`in_finalizer`, :func:`called_back`)."""
    return called_back(frame) or in_finalizer(frame)


def interrupt(signum: int, frame: Any) -> None:
    """A stop signal's handler: the stop noted (:func:`stop_asked`), and
    KeyboardInterrupt raised unless ``frame`` is where it would be dropped
    (:func:`dropped_here`)."""
    stop_asked(signum)
    if not dropped_here(frame):
        raise KeyboardInterrupt


#: Stop signals this process received (its own handler ran) during the command under way.
_received: list = []
#: The first stop of the command under way: a signal received, or a worker's end by one.
_first: list = []


def first_stop() -> int | None:
    """The signal that first asked the command under way to stop (received
    by this process, or one that ended a worker), or None."""
    return _first[0] if _first else None


def exit_code(default: int) -> int:
    """128 + the first stop signal, or ``default`` when none came."""
    signum = first_stop()
    return default if signum is None else 128 + signum


def note_worker_stop(signum: int) -> None:
    """A worker process was ended by ``signum`` (SIGINT or SIGTERM): the
    command stops as on that signal (its exit code is 128 + it, unless this
    process received a signal first)."""
    if not _first:
        _first.append(signum)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a reentrant call (the signal came in the middle of a write), a closed pipe
            pass


def _quit_now(signum: int) -> None:
    """End the process at once with 128 + ``signum``, its output flushed."""
    _flush()
    try:
        os.write(2, b"interrupted\n" if signum == signal.SIGINT else b"terminated\n")
    except OSError:
        pass
    os._exit(128 + signum)


def _on_signal(signum: int, frame: Any) -> None:
    """The handler of SIGINT and SIGTERM while a long command runs (see the
    module's docstring)."""
    if os.getpid() != _parent[0]:
        # a worker forked a moment ago, before it set its own dispositions:
        # it ends at once, as the default action would (no exception that an
        # at-fork hook could swallow)
        os._exit(128 + signum)
    if _again:  # the stop sent again (:func:`_send_again`), or a signal that came meanwhile
        _again.clear()
        if STOP_ASKED and not dropped_here(frame):
            STOP_ASKED.clear()  # acted on
            raise KeyboardInterrupt
        return
    first = not _received
    _received.append(signum)
    if not first:
        if signum == signal.SIGINT:
            _quit_now(signum)  # Ctrl-C again: now
        return  # a second SIGTERM: the first stop goes on
    if _first:  # a worker's end already stops the command: this signal is part of the same stop
        return
    _first.append(signum)
    interrupt(signum, frame)
    # reached only when the signal came where the exception would be dropped (a finalizer, a
    # library's code called back from C): the stop is noted and sent again to the main thread
    # every AGAIN_EVERY s until it lands where it stops the command (or a game loop acted on
    # it); should nothing take it, the process ends STOP_GRACE seconds later
    threading.Thread(target=_send_again, args=(signum, threading.main_thread().ident),
                     name="stop-again", daemon=True).start()


#: Seconds after which a stop noted but not acted on (it came where its
#: exception would be dropped, and sending it again never found the main
#: thread elsewhere) ends the process.
STOP_GRACE = 2.0


#: Seconds between two sendings of a stop that was not acted on (:func:`_send_again`).
AGAIN_EVERY = 0.01
#: A stop sent again, not yet taken by the handler (:func:`_on_signal`).
_again: list = []


def _send_again(signum: int, main: int | None) -> None:
    """A thread's loop: a stop noted where its exception would have been
    dropped is sent again to the main thread (``main``; a real signal, so it
    also ends a blocking call there) until the handler raised it or a game
    loop acted on it (:data:`STOP_ASKED` emptied); after STOP_GRACE seconds
    the process ends with 128 + ``signum``.  (Without ``pthread_kill``, as
    on Windows, it only waits for that end.)"""
    target = main if hasattr(signal, "pthread_kill") else None
    deadline = time.monotonic() + STOP_GRACE
    while time.monotonic() < deadline:
        time.sleep(AGAIN_EVERY)
        if not STOP_ASKED:
            return
        if target is not None and not _again:
            _again.append(signum)
            signal.pthread_kill(target, signum)
    if STOP_ASKED:
        _quit_now(signum)


_parent = [os.getpid()]


def _absorb(signum: int, frame: Any) -> None:
    """After a stopped command returned: the signal is noted and nothing else."""
    _received.append(signum)


def stoppable(cmd: Callable[[Any], int]) -> Callable[[Any], int]:
    """A long command with the stop signals of this module: SIGINT and
    SIGTERM handled as described there; the command's Ctrl-C code (130) is
    128 + the first stop signal (143 when it was SIGTERM); a
    :class:`KeyboardInterrupt` out of the command (a stop the command does
    not summarise) prints ``interrupted`` or ``terminated`` and returns that
    code.  In a thread other than the main one the command runs as it is."""
    @functools.wraps(cmd)
    def run(args) -> int:
        if threading.current_thread() is not threading.main_thread():
            return cmd(args)
        _received.clear()
        _first.clear()
        _again.clear()
        _parent[0] = os.getpid()
        old = {s: signal.getsignal(s) for s in STOP_SIGNALS}
        ignored = {s for s, h in old.items() if h is signal.SIG_IGN}  # nohup: left ignored
        for s in STOP_SIGNALS:
            if s not in ignored:
                signal.signal(s, _on_signal)
        code = None
        try:
            code = cmd(args)
            if code == 130:
                code = exit_code(130)
        except KeyboardInterrupt:
            code = exit_code(130)
            print("terminated" if code == 143 else "interrupted", file=sys.stderr)
        finally:
            STOP_ASKED.clear()
            if _first:
                # a real stop came (a signal, or a worker's end by one): any further signal is
                # absorbed, and the process ends here, its output flushed -- the interpreter's
                # finalization puts the default actions back, and a late SIGTERM would then kill
                # it with its code lost (it also frees every engine: time a stop need not take)
                for s in STOP_SIGNALS:
                    if s not in ignored:
                        signal.signal(s, _absorb)
                _flush()
                os._exit(code if code is not None else exit_code(130))
            for s in STOP_SIGNALS:
                signal.signal(s, old[s])
        return code
    return run


def hold_for_exit() -> None:
    """The process's command has returned and the process is about to end
    with its code: SIGINT and SIGTERM held back (blocked) from now on, so a
    signal that comes while the interpreter finalizes cannot end it by the
    default action and lose the code (the command's work is done).  Called
    by the console script for its own command line only, never in a process
    that goes on (a test calling ``main([...])``)."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


def _deferring(deferred: list) -> dict:
    """In the main thread: the stop signals' handlers replaced by one that
    notes the signal in ``deferred`` (an ignored signal stays ignored); the
    handlers replaced.  Elsewhere (where Python sets no handler): none."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    replaced = {}
    for s in STOP_SIGNALS:
        h = signal.getsignal(s)
        if h is not signal.SIG_IGN and h is not None:
            replaced[s] = signal.signal(s, lambda signum, frame: deferred.append(signum))
    return replaced


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back inside: delivered, and handled, when the
    block is left.  For writes that must be whole and for ending worker
    processes; a no-op where the platform has no signal masks.

    Blocking a signal holds it back only in the thread that blocks it: a
    signal sent to the process goes to another thread that does not block
    it (a library's, this module's ``stop-again``), whose handler has
    Python's handler run in the main thread at once -- inside the block.
    So in the main thread the handlers are also replaced, for the block, by
    one that notes the signal; each signal noted is raised again, once, as
    the block is left, and handled by the handler put back."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    deferred: list = []
    replaced = _deferring(deferred)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)  # one pending here is noted, not handled
        for s, h in replaced.items():
            signal.signal(s, h)
        for s in dict.fromkeys(deferred):  # each once, in the order they came (as pending signals are)
            signal.raise_signal(s)
