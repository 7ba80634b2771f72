"""The publication log: what was published from each dataset, charged before it was shown, kept on disk.

The teaching ledger (:class:`dpcore.accounting.BudgetLedger`, one per session) forgets everything
when the tab closes; a publication does not go away. Every release drawn with secure noise
(:mod:`dpcore.publish`) is charged here, all or nothing, before it is returned to the page:
in an embedded SQLite database (standard library :mod:`sqlite3`) in the data folder
(:func:`default_path`: ``$DPX_DATA_DIR/publications.sqlite3``, else ``var/publications.sqlite3`` at
the repository root), keyed by the dataset's fingerprint. A reload, a second tab, another user
with the same file and a server restart all see the same spent budget.

Rules of the log
----------------
- **A budget per dataset**, created on first use at ε = :data:`DEFAULT_EPSILON` = 5,
  δ = :data:`DEFAULT_DELTA` = 10⁻⁵ (the session ledger's default, so the two tell the same story
  until someone decides otherwise). :meth:`PublicationLog.set_budget` changes it deliberately: it may
  be raised, or lowered, never below what was already spent; every change, the first one included,
  is kept with its time and reason and exported with the log. Raising is the operator's act: the app's
  page asks ``lower_only`` (anyone on a shared server can reach it), the command line
  ``python -m dpx_publish budget`` (shell access to the server) may raise.
- **Basic composition.** What was spent is the sum of the ε's and the sum of the δ's of every
  release stored (Dwork & Roth 2014, Theorem 3.16). It holds for any mix of mechanisms, which is
  why the log uses it: the session ledger charges the tightest of several accountants, for
  teaching; the log is the conservative record.
- **One guarantee per dataset.** ε and δ add up only when they hold under the same neighbouring
  relation and unit of privacy. The first publication fixes both for its dataset; a release under
  another relation or unit is charged its group-privacy cost there, or refused where no rule gives
  one (:func:`cost_under` is the one place that decides it, by :func:`dpcore.neighbours.conversion`):
  a person-level release on a log kept per record counts twice its ε (remove the person, add them
  back changed); a record-level release on a log kept per person is refused, since a release does not
  carry a bound on rows per person. Each row keeps its own unit; :meth:`PublicationLog.by_unit`
  totals the charges per unit, and says which were converted and why.
- **All or nothing, before it is shown.** :meth:`PublicationLog.publish` takes the cost before the
  noise is drawn, checks it against the budget, draws, checks the releases cost no more than
  declared, and commits, in one ``BEGIN IMMEDIATE`` transaction: two tabs or two processes
  publishing on the same data at once are serialised, and never overspend. A refusal, a failed draw
  or a failed write leaves nothing charged and nothing to show.
- **Nothing is deleted.** No method removes a publication or empties the log; the database itself
  refuses ``DELETE`` and ``UPDATE`` on publications (triggers). Stored are the published numbers,
  their labels and their privacy label: never the data, the truth or the noise.

The database uses write-ahead logging (readers never wait for a writer), ``synchronous = FULL``
(a committed charge survives a power cut: a publication shown must never be lost from the log),
and a busy timeout of :data:`BUSY_TIMEOUT_SECONDS`. Each call opens its own connection, so a
:class:`PublicationLog` may be shared between threads and processes.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Theorem 3.16 (basic composition) and
  Definition 2.4 (the guarantee is relative to a neighbouring relation).
  https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- IBM diffprivlib, ``BudgetAccountant.spend`` (refuse before overspending).
  https://github.com/IBM/differential-privacy-library
- SQLite, "Write-Ahead Logging" and "BEGIN TRANSACTION" (IMMEDIATE takes the write lock at once).
  https://www.sqlite.org/wal.html https://www.sqlite.org/lang_transaction.html
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib import metadata

import pandas as pd

from dpcore.accounting import Budget, BudgetError, Charge
from dpcore.neighbours import NeighbouringRelation, conversion, convert
from dpcore.randomness import Randomness
from dpcore.release import PublicFact, Release
from dpcore.validation import check_epsilon, check_probability
from explorer.export import to_safe_csv

__all__ = [
    "DEFAULT_EPSILON",
    "DEFAULT_DELTA",
    "BUSY_TIMEOUT_SECONDS",
    "FILE_NAME",
    "PublicationBudgetError",
    "RaiseRefusedError",
    "LogUnavailableError",
    "PublicationLog",
    "cost_under",
    "default_path",
]

#: The budget a dataset gets on first use: the session ledger's default (``explorer.state.init_session``).
DEFAULT_EPSILON = 5.0
DEFAULT_DELTA = 1e-5
#: How long a publication waits for another one on the same database before giving up.
BUSY_TIMEOUT_SECONDS = 30.0
#: The database's file name, in the data folder.
FILE_NAME = "publications.sqlite3"
#: The environment variable that names the data folder.
DATA_DIR_VARIABLE = "DPX_DATA_DIR"

# relative slack when comparing a total with a budget, as the session ledger's (dpcore.accounting.ledger):
# spending a budget exactly (ten releases of ε/10) is not refused for rounding
_RELATIVE_SLACK = 1e-9
# the longest fingerprint, dataset name and label stored (a fingerprint is 8 hex digits today)
_MAX_FINGERPRINT = 128
_MAX_TEXT = 1_000
_SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS budgets (
    fingerprint TEXT PRIMARY KEY,
    epsilon REAL NOT NULL CHECK (epsilon > 0),
    delta REAL NOT NULL CHECK (delta >= 0 AND delta < 1),
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS budget_changes (
    id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL REFERENCES budgets (fingerprint),
    time TEXT NOT NULL,
    epsilon REAL NOT NULL,
    delta REAL NOT NULL,
    previous_epsilon REAL,
    previous_delta REAL,
    reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS publications (
    id INTEGER PRIMARY KEY,
    batch INTEGER NOT NULL,
    fingerprint TEXT NOT NULL REFERENCES budgets (fingerprint),
    dataset TEXT NOT NULL,
    created TEXT NOT NULL,
    label TEXT NOT NULL,
    query TEXT NOT NULL,
    mechanism TEXT NOT NULL,
    noise_std REAL,
    epsilon REAL NOT NULL CHECK (epsilon >= 0),
    delta REAL NOT NULL CHECK (delta >= 0),
    relation TEXT NOT NULL,
    unit TEXT NOT NULL,
    randomness TEXT NOT NULL,
    value TEXT NOT NULL,
    labels TEXT NOT NULL,
    public TEXT NOT NULL,
    app_version TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS publications_by_data ON publications (fingerprint, id);
CREATE TRIGGER IF NOT EXISTS publications_are_kept BEFORE DELETE ON publications
BEGIN SELECT RAISE(ABORT, 'the publication log keeps every publication: none can be deleted'); END;
CREATE TRIGGER IF NOT EXISTS publications_are_unchanged BEFORE UPDATE ON publications
BEGIN SELECT RAISE(ABORT, 'the publication log keeps every publication as it was charged'); END;
CREATE TRIGGER IF NOT EXISTS budgets_are_kept BEFORE DELETE ON budgets
BEGIN SELECT RAISE(ABORT, 'the publication log keeps the budget of every dataset'); END;
CREATE TRIGGER IF NOT EXISTS budget_changes_are_kept BEFORE DELETE ON budget_changes
BEGIN SELECT RAISE(ABORT, 'the publication log keeps every change of a budget'); END;
"""

_COLUMNS = (
    "id, batch, fingerprint, dataset, created, label, query, mechanism, noise_std, epsilon, delta, relation, unit, "
    "randomness, value, labels, public, app_version"
)


class PublicationBudgetError(BudgetError):
    """A publication refused because it would bring what was spent on its dataset over the budget.

    Raised before anything is drawn; nothing is charged. A :class:`~dpcore.accounting.BudgetError`
    (so a ``ValueError``), with its attributes: ``method`` (``"basic"``), ``budget``, ``spent``
    (:class:`~dpcore.accounting.Budget`), ``asked`` (the declared cost) and ``total`` (spent plus
    cost, :class:`~dpcore.accounting.Charge`), ``label``; ``releases`` is None (not drawn).
    """

    def __init__(self, *, budget: Budget, spent: Budget, asked: Budget, total: Budget, label: str = ""):
        self.method, self.budget, self.spent = "basic", budget, spent
        self.asked = Charge(asked.epsilon, asked.delta, "basic")
        self.total = Charge(total.epsilon, total.delta, "basic")
        self.releases, self.label = None, label
        ValueError.__init__(
            self,
            f"this publication would bring what was spent on this data to {_words(total)}, over its budget of "
            f"{_words(budget)} (spent so far {_words(spent)}, this publication {_words(asked)}); "
            "nothing was drawn and nothing was charged",
        )


class RaiseRefusedError(ValueError):
    """A budget change asked with ``lower_only`` (the page's) that would raise ε or δ: nothing was changed.

    ``budget`` is the budget now, ``asked`` the one refused (:class:`~dpcore.accounting.Budget`). Raising a budget is
    the operator's act, on the server: ``python -m dpx_publish budget`` (:mod:`dpx_publish.cli`).
    """

    def __init__(self, *, budget: Budget, asked: Budget):
        self.budget, self.asked = budget, asked
        super().__init__(
            f"the budget of this data can only be lowered here, from {_words(budget)}, not raised to {_words(asked)}: "
            "raising it is done by whoever runs the server (python -m dpx_publish budget)"
        )


class LogUnavailableError(OSError):
    """The database could not be opened, read or written (a folder not writable, a disk full, a lock held too long).

    An ``OSError``: the storage failed, not the request. In :meth:`PublicationLog.publish` the
    transaction is rolled back: nothing is charged and nothing is returned.
    """


def _words(b) -> str:
    return f"ε = {b[0]:.6g}, δ = {b[1]:.3g}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _app_version() -> str:
    try:
        return metadata.version("dp-explorer")
    except metadata.PackageNotFoundError:
        return "unknown"


def default_path() -> pathlib.Path:
    """Where the app keeps its publication log: ``$DPX_DATA_DIR/publications.sqlite3``, else
    ``<repository root>/var/publications.sqlite3``; the folder is created if missing.

    Set ``DPX_DATA_DIR`` on a server: the default lies beside the code, which suits a checkout, not an
    installed package or a read-only image.
    """
    folder = os.environ.get(DATA_DIR_VARIABLE, "").strip()
    root = pathlib.Path(folder).expanduser() if folder else pathlib.Path(__file__).resolve().parents[1] / "var"
    root.mkdir(parents=True, exist_ok=True)
    return root / FILE_NAME


def cost_under(release: Release, relation: NeighbouringRelation, unit: str) -> Budget:
    """The (ε, δ) ``release`` costs under ``relation`` and ``unit`` of privacy.

    A release's (ε, δ) is a guarantee about neighbours under its own relation and unit
    (:class:`~dpcore.release.Release`); it is a cost under that relation and unit only. So the
    release's own (ε, δ) is returned when both match; otherwise the guarantee is converted by
    group privacy where one exists (:func:`dpcore.neighbours.convert`: an add/remove release costs
    (2ε, (1 + e^ε)δ) under replace-one; a client-level one its group cost per record), and refused
    where none does (a replace-one release under add/remove; a record-level release per client):
    ε's that hold about different things do not add up (Dwork & Roth 2014, Definition 2.4).
    Every charge of :class:`PublicationLog` goes through this function.

    Parameters
    ----------
    release : Release
    relation : NeighbouringRelation
        The relation the cost is wanted under.
    unit : str
        The unit of privacy the cost is wanted under (:data:`dpcore.release.UNIT_RECORD`, ...).

    Raises
    ------
    dpcore.neighbours.RelationError
        A ``ValueError``: if no valid rule gives the release's guarantee under ``relation`` and
        ``unit``, in one sentence saying why and what to do.
    """
    if not isinstance(release, Release):
        raise TypeError(f"release must be a dpcore.release.Release, got {type(release).__name__}")
    if not isinstance(relation, NeighbouringRelation):
        raise TypeError(f"relation must be a NeighbouringRelation, got {type(relation).__name__}")
    own = (float(release.epsilon), float(release.delta))
    if release.relation is relation and release.unit == unit:
        return Budget(*own)
    # group privacy (dpcore.neighbours.convert): add/remove ⇒ replace-one at 2ε, a client ⇒ its records; the rest
    # is refused with a RelationError, one sentence saying why and what to do
    converted = convert(own, from_relation=release.relation, to_relation=relation, from_unit=release.unit, to_unit=unit)
    return Budget(*converted)


def _check_text(value, name: str, maximum: int, *, empty: bool = True) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if not empty and not value:
        raise ValueError(f"{name} must not be empty, got ''")
    if len(value) > maximum:
        raise ValueError(f"{name} must be at most {maximum} characters long, got {len(value)}")
    return value


def _check_budget(epsilon, delta, what: str) -> Budget:
    return Budget(check_epsilon(epsilon, f"{what} epsilon"), check_probability(delta, f"{what} delta", low_open=False))


def _check_cost(cost) -> Budget:
    if isinstance(cost, (str, bytes)) or not hasattr(cost, "__len__") or len(cost) != 2:
        raise TypeError(f"cost must be an (epsilon, delta) pair, got {cost!r}")
    return _check_budget(cost[0], cost[1], "cost")


def _fits(total: Budget, budget: Budget) -> bool:
    return total.epsilon <= budget.epsilon * (1 + _RELATIVE_SLACK) and total.delta <= budget.delta * (
        1 + _RELATIVE_SLACK
    )


def _releases(drawn) -> list[Release]:
    """What ``draw()`` returned, as a non-empty list of published releases."""
    releases = list(drawn) if isinstance(drawn, (list, tuple)) else [drawn]
    if not releases:
        raise ValueError("draw must return at least one release, got none")
    for release in releases:
        if not isinstance(release, Release):
            raise TypeError(
                f"draw must return a dpcore.release.Release or a list of them, got {type(release).__name__}"
            )
        if release.randomness is not Randomness.PUBLICATION:
            raise ValueError(
                f"only releases drawn with secure noise (dpcore.publish) enter the publication log, got one whose "
                f"randomness is {release.randomness.value}"
            )
    return releases


def _json(value) -> str:
    # allow_nan=False: a published number is finite (a mean is clipped, a count is a number); refuse anything else
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _value_json(release: Release) -> str:
    value = release.value
    try:
        return _json(list(value) if isinstance(value, tuple) else value)
    except ValueError:
        raise ValueError("released values must be finite numbers or a choice, got a value that is not") from None


def _facts_json(release: Release) -> str:
    return _json([{"name": f.name, "value": f.value, "source": f.source} for f in release.public])


class PublicationLog:
    """The publication log kept in the SQLite database at ``path`` (created with its folder if missing).

    Parameters
    ----------
    path : str or os.PathLike
        The database file; :func:`default_path` for the app's.

    Raises
    ------
    LogUnavailableError
        If the database cannot be opened or created.

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> from dpcore.publish import publish_count
    >>> folder = tempfile.TemporaryDirectory()
    >>> log = PublicationLog(pathlib.Path(folder.name) / "log.sqlite3")
    >>> log.set_budget("3f2a9c1b", 1.0, 1e-6, reason="agreed with the data owner")
    Budget(epsilon=1.0, delta=1e-06)
    >>> [r.query for r in log.publish("3f2a9c1b", "ages.csv", (0.5, 0.0), lambda: publish_count(np.ones(40), 0.5))]
    ['count']
    >>> log.spent("3f2a9c1b")
    Budget(epsilon=0.5, delta=0.0)
    >>> folder.cleanup()
    """

    def __init__(self, path):
        self._path = pathlib.Path(path)
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LogUnavailableError(f"the folder of the publication log cannot be created ({exc.strerror})") from exc
        with self._connect() as conn:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")  # kept in the file: set once, by its first opener
            if conn.execute("PRAGMA user_version").fetchone()[0] < _SCHEMA_VERSION:
                with self._transaction(conn):  # executescript would commit first: one statement at a time
                    for statement in _statements(_SCHEMA):
                        conn.execute(statement)
                    conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")

    @property
    def path(self) -> pathlib.Path:
        return self._path

    def __repr__(self) -> str:
        return f"PublicationLog({str(self._path)!r})"

    # -- connections ---------------------------------------------------------------------------------

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection of its own (autocommit: transactions are opened by :meth:`_transaction`), closed after."""
        try:
            conn = sqlite3.connect(self._path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
        except sqlite3.Error as exc:
            raise LogUnavailableError(f"the publication log cannot be opened ({exc})") from exc
        try:
            conn.execute("PRAGMA synchronous = FULL")  # a committed charge survives a power cut
            conn.execute("PRAGMA foreign_keys = ON")
            yield conn
        except sqlite3.Error as exc:
            raise LogUnavailableError(f"the publication log could not be read or written ({exc})") from exc
        finally:
            conn.close()

    @staticmethod
    @contextmanager
    def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
        """One write transaction: the write lock is taken at once (no other writer can read-then-write meanwhile),
        committed when the block ends, rolled back when it raises (anything, even KeyboardInterrupt)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as conn, self._transaction(conn):
            yield conn

    # -- reads inside a transaction ------------------------------------------------------------------

    @staticmethod
    def _budget_row(conn, fingerprint: str) -> Budget | None:
        row = conn.execute("SELECT epsilon, delta FROM budgets WHERE fingerprint = ?", (fingerprint,)).fetchone()
        return None if row is None else Budget(*row)

    @staticmethod
    def _new_budget(conn, fingerprint: str, budget: Budget, reason: str) -> Budget:
        now = _now()
        conn.execute(
            "INSERT INTO budgets (fingerprint, epsilon, delta, created) VALUES (?, ?, ?, ?)",
            (fingerprint, budget.epsilon, budget.delta, now),
        )
        conn.execute(
            "INSERT INTO budget_changes (fingerprint, time, epsilon, delta, reason) VALUES (?, ?, ?, ?, ?)",
            (fingerprint, now, budget.epsilon, budget.delta, reason),
        )
        return budget

    def _ensure_budget(self, conn, fingerprint: str) -> Budget:
        found = self._budget_row(conn, fingerprint)
        if found is not None:
            return found
        default = Budget(DEFAULT_EPSILON, DEFAULT_DELTA)
        return self._new_budget(conn, fingerprint, default, "the default budget, set on first use")

    @staticmethod
    def _spent(conn, fingerprint: str) -> Budget:
        # basic composition (Dwork & Roth 2014, Theorem 3.16): the ε's add up and the δ's add up; fsum, so the
        # total does not depend on the order of the rows or on SQLite's summation
        rows = conn.execute(
            "SELECT epsilon, delta FROM publications WHERE fingerprint = ? ORDER BY id", (fingerprint,)
        ).fetchall()
        return Budget(math.fsum(r[0] for r in rows), math.fsum(r[1] for r in rows))

    @staticmethod
    def _guarantee(conn, fingerprint: str) -> tuple[NeighbouringRelation, str] | None:
        row = conn.execute(
            "SELECT relation, unit FROM publications WHERE fingerprint = ? ORDER BY id LIMIT 1", (fingerprint,)
        ).fetchone()
        return None if row is None else (NeighbouringRelation(row[0]), row[1])

    # -- the budget ----------------------------------------------------------------------------------

    def budget(self, fingerprint: str) -> Budget:
        """The (ε, δ) budget of the data with this fingerprint; the default one is created on first use."""
        fingerprint = _check_text(fingerprint, "fingerprint", _MAX_FINGERPRINT, empty=False)
        with self._connect() as conn:
            found = self._budget_row(conn, fingerprint)
            if found is not None:
                return found
        with self._write() as conn:
            return self._ensure_budget(conn, fingerprint)

    def set_budget(
        self, fingerprint: str, epsilon: float, delta: float, *, reason: str = "", lower_only: bool = False
    ) -> Budget:
        """Set the (ε, δ) budget of the data with this fingerprint, and keep the change with its time and reason.

        A budget may be raised (a decision, kept in the log's history and its exports) or lowered,
        but never below what was already spent on the data: the publications are out, and a
        budget under them would say the data has more left than it has. With ``lower_only`` (the
        app's page: whoever opens it may ask), a raise of ε or δ is refused inside the same
        transaction; the operator raises with the command line (``python -m dpx_publish budget``).

        Parameters
        ----------
        fingerprint : str
        epsilon : float
            In (0, inf).
        delta : float
            In [0, 1).
        reason : str, default ""
            Why the budget is what it is, kept with the change.
        lower_only : bool, default False
            Refuse a new budget above the current one (in ε or δ); a dataset never seen has the default budget.

        Returns
        -------
        Budget
            The budget now.

        Raises
        ------
        ValueError
            If the new budget is below what was spent (in ε or in δ); the budget is unchanged.
        RaiseRefusedError
            (A ``ValueError``.) With ``lower_only``, if the new budget is above the current one; unchanged.
        """
        fingerprint = _check_text(fingerprint, "fingerprint", _MAX_FINGERPRINT, empty=False)
        new = _check_budget(epsilon, delta, "budget")
        reason = _check_text(reason, "reason", _MAX_TEXT)
        with self._write() as conn:
            old = self._ensure_budget(conn, fingerprint) if lower_only else self._budget_row(conn, fingerprint)
            if lower_only and (new.epsilon > old.epsilon or new.delta > old.delta):
                raise RaiseRefusedError(budget=old, asked=new)
            if old is None:
                return self._new_budget(conn, fingerprint, new, reason or "set before the first publication")
            spent = self._spent(conn, fingerprint)
            if not _fits(spent, new):
                raise ValueError(
                    f"the budget of this data cannot be set to {_words(new)}: {_words(spent)} was already spent "
                    "on it, and what was published cannot be taken back"
                )
            if new != old:
                conn.execute(
                    "UPDATE budgets SET epsilon = ?, delta = ? WHERE fingerprint = ?",
                    (new.epsilon, new.delta, fingerprint),
                )
                conn.execute(
                    "INSERT INTO budget_changes (fingerprint, time, epsilon, delta, previous_epsilon, previous_delta,"
                    " reason) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (fingerprint, _now(), new.epsilon, new.delta, old.epsilon, old.delta, reason),
                )
            return new

    def spent(self, fingerprint: str) -> Budget:
        """The (ε, δ) spent on the data with this fingerprint: by basic composition over every publication stored.

        The ε's add up and the δ's add up (Dwork & Roth 2014, Theorem 3.16), which is valid for any
        mix of mechanisms. The session ledger charges the tightest of several accountants, to teach
        how composition can be counted; this log is the conservative record of what is out.
        """
        fingerprint = _check_text(fingerprint, "fingerprint", _MAX_FINGERPRINT, empty=False)
        with self._connect() as conn:
            return self._spent(conn, fingerprint)

    def remaining(self, fingerprint: str) -> Budget:
        """Budget minus spent, each at least 0."""
        budget, spent = self.budget(fingerprint), self.spent(fingerprint)
        return Budget(max(0.0, budget.epsilon - spent.epsilon), max(0.0, budget.delta - spent.delta))

    def guarantee(self, fingerprint: str) -> tuple[NeighbouringRelation, str] | None:
        """The neighbouring relation and unit of privacy of what was published from this data (None before the first
        publication, which fixes them)."""
        fingerprint = _check_text(fingerprint, "fingerprint", _MAX_FINGERPRINT, empty=False)
        with self._connect() as conn:
            return self._guarantee(conn, fingerprint)

    # -- publishing ----------------------------------------------------------------------------------

    def publish(
        self,
        fingerprint: str,
        dataset_name: str,
        cost: tuple[float, float],
        draw: Callable[[], Release | list[Release]],
        label: str = "",
    ) -> list[Release]:
        """Charge a publication to the data's budget, then draw it, all or nothing, and return it only once charged.

        In one ``BEGIN IMMEDIATE`` transaction (concurrent publications on the same database wait
        their turn, so none reads a total another is about to change):

        1. what was spent plus ``cost`` is checked against the budget (a relative slack of 10⁻⁹):
           over it, :class:`PublicationBudgetError` is raised before anything is drawn;
        2. ``draw()`` is called;
        3. the releases are checked: published with secure noise, under the relation and unit of
           this data's earlier publications (:func:`cost_under`), and together (basic composition)
           costing no more than ``cost``;
        4. one row per release is written and the transaction committed.

        If any step raises, the transaction is rolled back: nothing is charged and nothing is
        returned, so nothing drawn can be shown.

        Parameters
        ----------
        fingerprint : str
            The dataset's fingerprint (what the budget is kept under).
        dataset_name : str
            Its name, for the log's readers.
        cost : (float, float)
            The (ε, δ) the publication costs, known before the noise is drawn: ε in (0, inf), δ in [0, 1).
        draw : callable
            Takes no argument and returns a :class:`~dpcore.release.Release` or a list of them
            (a call to :mod:`dpcore.publish`); called at most once, inside the transaction.
        label : str, default ""
            What was published, in words.

        Returns
        -------
        list of Release
            The releases, as drawn and stored.

        Raises
        ------
        PublicationBudgetError
            If the cost does not fit in what is left of the budget (nothing drawn).
        ValueError
            If the releases cost more than ``cost``, hold under another relation or unit than this
            data's publications, or were not drawn with secure noise (nothing charged).
        TypeError
            If ``draw`` is not callable or returns something else than releases.
        LogUnavailableError
            If the database cannot be written (nothing charged).
        """
        fingerprint = _check_text(fingerprint, "fingerprint", _MAX_FINGERPRINT, empty=False)
        dataset_name = _check_text(dataset_name, "dataset_name", _MAX_TEXT)
        label = _check_text(label, "label", _MAX_TEXT)
        cost = _check_cost(cost)
        if not callable(draw):
            raise TypeError(f"draw must be a function of no argument returning releases, got {type(draw).__name__}")
        with self._write() as conn:
            budget = self._ensure_budget(conn, fingerprint)
            spent = self._spent(conn, fingerprint)
            after = Budget(math.fsum((spent.epsilon, cost.epsilon)), math.fsum((spent.delta, cost.delta)))
            if not _fits(after, budget):
                raise PublicationBudgetError(budget=budget, spent=spent, asked=cost, total=after, label=label)
            releases = _releases(draw())
            relation, unit = self._guarantee(conn, fingerprint) or (releases[0].relation, releases[0].unit)
            costs = [cost_under(release, relation, unit) for release in releases]
            drawn = Budget(math.fsum(c.epsilon for c in costs), math.fsum(c.delta for c in costs))
            if not _fits(drawn, cost):
                raise ValueError(
                    f"the releases drawn cost {_words(drawn)}, more than the {_words(cost)} declared before the draw; "
                    "nothing was charged and nothing is shown"
                )
            batch = conn.execute("SELECT COALESCE(MAX(batch), 0) + 1 FROM publications").fetchone()[0]
            now, version = _now(), _app_version()
            conn.executemany(
                f"INSERT INTO publications ({_COLUMNS.removeprefix('id, ')}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        batch,
                        fingerprint,
                        dataset_name,
                        now,
                        label,
                        release.query,
                        release.mechanism,
                        None if math.isnan(release.noise_std) else float(release.noise_std),
                        c.epsilon,
                        c.delta,
                        release.relation.value,
                        release.unit,
                        release.randomness.value,
                        _value_json(release),
                        _json(list(release.labels)),
                        _facts_json(release),
                        version,
                    )
                    for release, c in zip(releases, costs)
                ],
            )
        return releases

    # -- reading and exporting -----------------------------------------------------------------------

    def _rows(self, fingerprint: str) -> list[sqlite3.Row]:
        fingerprint = _check_text(fingerprint, "fingerprint", _MAX_FINGERPRINT, empty=False)
        with self._connect() as conn:
            conn.row_factory = sqlite3.Row
            return conn.execute(
                f"SELECT {_COLUMNS} FROM publications WHERE fingerprint = ? ORDER BY id", (fingerprint,)
            ).fetchall()

    def releases(self, fingerprint: str) -> list[Release]:
        """Every release published from this data, oldest first, as stored (the published numbers and their label)."""
        return [_release(row) for row in self._rows(fingerprint)]

    def entries(self, fingerprint: str) -> pd.DataFrame:
        """One row per release published from this data, oldest first.

        Columns: ``#`` (the log's id), ``publication`` (releases published together share it),
        ``time (UTC)`` (ISO 8601), ``dataset``, ``label``, ``query``, ``mechanism``, ``epsilon``,
        ``delta`` (charged under the data's guarantee), ``neighbouring relation``, ``unit of privacy``
        (the release's own), ``holds under`` (the two in words: ``add/remove one person``), ``converted``
        (``k = 2`` when the charge is the release's group-privacy cost under the data's guarantee, else
        empty), ``randomness``, ``released labels`` and ``released values`` (JSON lists, one item per
        released number), ``public facts`` (JSON), ``app version``.
        """
        rows = self._rows(fingerprint)
        held = self.guarantee(fingerprint)
        return pd.DataFrame(
            {
                "#": [r["id"] for r in rows],
                "publication": [r["batch"] for r in rows],
                "time (UTC)": [r["created"] for r in rows],
                "dataset": [r["dataset"] for r in rows],
                "label": [r["label"] for r in rows],
                "query": [r["query"] for r in rows],
                "mechanism": [r["mechanism"] for r in rows],
                "epsilon": pd.Series([r["epsilon"] for r in rows], dtype="float64"),
                "delta": pd.Series([r["delta"] for r in rows], dtype="float64"),
                "neighbouring relation": [r["relation"] for r in rows],
                "unit of privacy": [r["unit"] for r in rows],
                "holds under": [NeighbouringRelation(r["relation"]).words(r["unit"]) for r in rows],
                "converted": [_converted(r, held) for r in rows],
                "randomness": [r["randomness"] for r in rows],
                "released labels": [r["labels"] for r in rows],
                "released values": [_json(list(_release(r).values)) for r in rows],
                "public facts": [r["public"] for r in rows],
                "app version": [r["app_version"] for r in rows],
            }
        )

    def by_unit(self, fingerprint: str) -> pd.DataFrame:
        """What was charged on this data per unit of privacy of the releases, in the order each unit first appears.

        Columns: ``unit`` (the releases' own), ``releases``, ``epsilon`` and ``delta`` (their charges
        under the data's guarantee, added up: basic composition, so the rows add up to :meth:`spent`),
        ``converted`` (``k = 2`` when they were charged by group privacy, else empty) and ``why`` (the
        conversion's reason, :func:`dpcore.neighbours.conversion`).
        """
        rows, held = self._rows(fingerprint), self.guarantee(fingerprint)
        groups: dict[str, list] = {}
        for r in rows:
            groups.setdefault(r["unit"], []).append(r)
        reasons = {
            unit: {_converted(r, held): _reason(r, held) for r in group if _converted(r, held)}
            for unit, group in groups.items()
        }
        return pd.DataFrame(
            {
                "unit": list(groups),
                "releases": [len(g) for g in groups.values()],
                "epsilon": pd.Series([math.fsum(r["epsilon"] for r in g) for g in groups.values()], dtype="float64"),
                "delta": pd.Series([math.fsum(r["delta"] for r in g) for g in groups.values()], dtype="float64"),
                "converted": [", ".join(reasons[u]) for u in groups],
                "why": ["; ".join(reasons[u].values()) for u in groups],
            }
        )

    def to_csv(self, fingerprint: str) -> bytes:
        """:meth:`entries` as CSV bytes a spreadsheet opens safely (:func:`explorer.export.to_safe_csv`: UTF-8 with a
        byte-order mark, text cells that would start a formula quoted)."""
        return to_safe_csv(self.entries(fingerprint))

    def to_json(self, fingerprint: str) -> str:
        """The log of this data as JSON: its budget and the history of its changes, what was spent (and how it is
        composed), the relation and unit it holds under, and every release with its privacy label. The data is named
        by its name only: the fingerprint (a hash of the file's contents) keys the log on the server and never
        leaves it."""
        fingerprint = _check_text(fingerprint, "fingerprint", _MAX_FINGERPRINT, empty=False)
        budget, spent, guarantee = self.budget(fingerprint), self.spent(fingerprint), self.guarantee(fingerprint)
        with self._connect() as conn:
            changes = conn.execute(
                "SELECT time, epsilon, delta, previous_epsilon, previous_delta, reason FROM budget_changes "
                "WHERE fingerprint = ? ORDER BY id",
                (fingerprint,),
            ).fetchall()
        rows = self._rows(fingerprint)
        document = {  # no fingerprint: a hash of the file is a function of the data, and this file is shared
            "budget": {"epsilon": budget.epsilon, "delta": budget.delta},
            "spent": {
                "epsilon": spent.epsilon,
                "delta": spent.delta,
                "composition": "basic: the epsilons add up and the deltas add up (Dwork & Roth 2014, Theorem 3.16)",
            },
            "neighbouring_relation": None if guarantee is None else guarantee[0].value,
            "unit_of_privacy": None if guarantee is None else guarantee[1],
            "charged_under": None if guarantee is None else guarantee[0].words(guarantee[1]),
            "by_unit": self.by_unit(fingerprint).to_dict(orient="records"),
            "budget_changes": [
                dict(zip(("time", "epsilon", "delta", "previous_epsilon", "previous_delta", "reason"), c))
                for c in changes
            ],
            "publications": [
                {
                    "id": r["id"],
                    "publication": r["batch"],
                    "time": r["created"],
                    "dataset": r["dataset"],
                    "label": r["label"],
                    "app_version": r["app_version"],
                    "released": [{"label": lab, "value": v} for lab, v in zip(rel.labels, rel.values)],
                    "privacy_label": rel.label(),
                }
                for r, rel in ((r, _release(r)) for r in rows)
            ],
        }
        return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)


def _statements(script: str) -> list[str]:
    """The SQL statements of ``script`` (a trigger's body holds semicolons: split where a statement is complete)."""
    statements, pending = [], ""
    for line in script.strip().splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    return statements


def _conversion_of(row, held):
    """How a stored row's own guarantee was charged under the data's (``held``: its relation and unit)."""
    return conversion(
        from_relation=NeighbouringRelation(row["relation"]),
        to_relation=held[0],
        from_unit=row["unit"],
        to_unit=held[1],
    )


def _converted(row, held) -> str:
    """``"k = 2"`` when a stored row was charged its group-privacy cost under the data's guarantee, else ``""``."""
    group = _conversion_of(row, held).group
    return f"k = {group}" if group > 1 else ""


def _reason(row, held) -> str:
    return _conversion_of(row, held).reason


def _release(row) -> Release:
    """A stored row as the :class:`~dpcore.release.Release` it was."""
    value = json.loads(row["value"])
    return Release(
        query=row["query"],
        value=tuple(value) if isinstance(value, list) else value,
        labels=tuple(json.loads(row["labels"])),
        mechanism=row["mechanism"],
        noise_std=math.nan if row["noise_std"] is None else row["noise_std"],
        epsilon=row["epsilon"],
        delta=row["delta"],
        relation=NeighbouringRelation(row["relation"]),
        unit=row["unit"],
        randomness=Randomness(row["randomness"]),
        public=tuple(PublicFact(**f) for f in json.loads(row["public"])),
    )
