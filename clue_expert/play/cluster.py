"""Games on a Dask distributed cluster (``--cluster ADDRESS|local``).

The one module that imports Dask, and only when a cluster is asked for:
without the optional extra (``pip install "clue-expert[cluster]"``) every
other command works, and ``--cluster`` says which package is missing.

:class:`DaskExecutor` has the :meth:`results` of
:class:`~clue_expert.play.simulate.LocalExecutor`, so
:func:`~clue_expert.play.simulate.run_games` plays on either: one game per
task, every game seeded from (seed, game index) alone, results sorted by game
index, hence the same summary as a local run.  Workers send each game's
record back with its summary and this process writes it, so records land
where ``--records`` says even when the workers are other machines.

``local`` starts a :class:`distributed.LocalCluster` of one-thread worker
processes on this machine; any other address (``tcp://host:8786`` or
``host:8786``) is an existing scheduler (``dask-scheduler``, with workers
started by ``dask-worker``; docs/cluster.md).
"""
from __future__ import annotations

import contextlib
import gc
import itertools
import logging
import os
import signal
import threading
from typing import Any, Iterator, Sequence

from ..core.version import __version__
from ..core.errors import ClueError
from .simulate import WORKER_SEATS, GAMES_AHEAD, GAMES_PER_WORKER, GameSpec, play_one

#: How to install what ``--cluster`` needs.
INSTALL_HINT = 'pip install "clue-expert[cluster]"'
#: Seconds to wait for a scheduler to answer, and for it to have a worker.
CONNECT_TIMEOUT = 10.0
WORKER_TIMEOUT = 30.0

#: One game at a time per worker process: the players cached per process
#: (:func:`~clue_expert.play.simulate.play_one`) are not shared between threads,
#: so a worker started with several threads still plays its games in turn.
_GAME_LOCK = threading.Lock()


class ClusterConnectionError(ConnectionError):
    """The scheduler cannot be reached, or has no worker (exit code 5)."""


def _distributed():
    """The ``distributed`` package, or one clear error naming the extra."""
    try:
        import distributed
    except ImportError as exc:
        raise ClueError(f"--cluster needs Dask distributed, which is not installed ({exc.name or exc}): "
                        f"{INSTALL_HINT}") from None
    return distributed


@contextlib.contextmanager
def _sigint_ignored():
    """SIGINT ignored while worker processes start: they inherit it (Python
    keeps an ignored SIGINT ignored), so a Ctrl-C sent to the whole process
    group reaches only this process, which cancels the games and stops them.
    Only in the main thread (elsewhere signals cannot be set, nor arrive)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _quiet_logs() -> None:
    """Dask's own INFO lines (scheduler, nanny, connections) are not this
    command's output: only its errors reach stderr."""
    names = [n for n in logging.root.manager.loggerDict if n == "distributed" or n.startswith("distributed.")]
    for name in ["distributed", *names]:
        logging.getLogger(name).setLevel(logging.ERROR)


_games_here = [0]  # games this worker process has played


def _play_on_worker(spec: GameSpec) -> tuple:
    """A task: one game on a worker, its (summary, record).  Every
    ``GAMES_PER_WORKER`` games the worker drops its cached players (their
    engines and SAT solvers) and collects: Dask keeps its worker processes,
    so this stands in for the local pool's ``maxtasksperchild``."""
    with _GAME_LOCK:
        _games_here[0] += 1
        if _games_here[0] % GAMES_PER_WORKER == 0:
            WORKER_SEATS.clear()
            gc.collect()
        return play_one(spec)


def _worker_version() -> str:
    """Run on every worker: the clue-expert it has installed."""
    return __version__


class DaskExecutor:
    """Games as tasks of a Dask cluster: ``address`` ``local`` (a
    LocalCluster of ``workers`` one-thread processes, started here and
    stopped on :meth:`close`) or a running scheduler's address.  Use it as a
    context manager."""

    def __init__(self, address: str, workers: int = 1):
        if not address or not str(address).strip():
            raise ClueError("--cluster needs an address (tcp://HOST:PORT or HOST:PORT) or 'local'")
        #: What was asked for: ``local`` or the scheduler's address.
        self.address = str(address).strip()
        self._workers = max(1, workers)
        # distributed's LocalCluster and Client: the package is imported only when used, so they are typed Any
        self._cluster: Any = None
        self._client: Any = None

    # -- connection ------------------------------------------------------------
    def __enter__(self) -> "DaskExecutor":
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def open(self) -> None:
        """Start the local cluster or connect to the scheduler; check that
        it has workers running this version of clue-expert."""
        distributed = _distributed()
        _quiet_logs()
        try:
            if self.address == "local":
                # the worker processes read Dask's configuration from the environment as they start
                os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")
                with _sigint_ignored():  # Ctrl-C is this process's to handle: no worker prints a traceback
                    self._cluster = distributed.LocalCluster(
                        n_workers=self._workers, threads_per_worker=1, processes=True,
                        dashboard_address=None, silence_logs=logging.ERROR,
                        # its HTTP routes on a free port: two local clusters at once do not collide on 8787
                        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
                self._client = distributed.Client(self._cluster)
            else:
                self._client = distributed.Client(self.address, timeout=CONNECT_TIMEOUT)
        except RuntimeError as exc:  # LocalCluster: "Cluster failed to start: ..."
            self.close()
            raise ClusterConnectionError(f"could not start a local Dask cluster: {exc}") from None
        except (OSError, TimeoutError) as exc:
            self.close()
            raise ClusterConnectionError(f"could not reach the Dask scheduler at {self.address} within "
                                         f"{CONNECT_TIMEOUT:g} s ({exc}); start one with dask-scheduler "
                                         f"(docs/cluster.md)") from None
        except BaseException:
            self.close()
            raise
        try:
            self._client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
        except (OSError, TimeoutError):
            self.close()
            raise ClusterConnectionError(f"the Dask scheduler at {self.address} has no worker after "
                                         f"{WORKER_TIMEOUT:g} s; start some with dask-worker {self.address} "
                                         f"--nthreads 1 (docs/cluster.md)") from None
        versions = self._client.run(_worker_version)
        other = {w: v for w, v in versions.items() if v != __version__}
        if other:
            worker, version = next(iter(sorted(other.items())))
            self.close()
            raise ClueError(f"worker {worker} runs clue-expert {version}, this machine {__version__}: install "
                            f"the same version on every worker ({len(other)} of {len(versions)} differ)")

    def close(self) -> None:
        """Disconnect (and stop the local cluster)."""
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()

    # -- what run_games needs ----------------------------------------------------
    def worker_count(self) -> int:
        """Worker threads the scheduler knows of now (one game each at a time)."""
        return sum(self._client.nthreads().values()) if self._client else 0

    def describe(self) -> dict:
        """What a summary's ``config`` says about where the games ran."""
        return {"cluster": self.address, "workers": self.worker_count()}

    def results(self, specs: Sequence[GameSpec]) -> Iterator[tuple]:
        """``(summary, record)`` of every game, in the order they finish.
        Closing the iterator early (an error or Ctrl-C) cancels the games
        not finished."""
        if self._client is None:
            raise ClueError("the cluster is not open (use DaskExecutor as a context manager)")
        if not specs:
            return
        distributed = _distributed()
        # at most GAMES_AHEAD games per worker thread handed out ahead of
        # those finished: the specs are read as the games are played
        todo = iter(specs)
        window = max(1, self.worker_count()) * GAMES_AHEAD
        live = {self._client.submit(_play_on_worker, spec, pure=False) for spec in itertools.islice(todo, window)}
        running = distributed.as_completed(list(live))
        try:
            for future in running:
                live.discard(future)
                result = future.result()
                future.release()
                spec = next(todo, None)
                if spec is not None:
                    new = self._client.submit(_play_on_worker, spec, pure=False)
                    live.add(new)
                    running.add(new)
                yield result
        finally:
            pending = [f for f in live if not f.done()]
            if pending:
                self._client.cancel(pending)
