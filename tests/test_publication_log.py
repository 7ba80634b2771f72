"""The publication log: persistent, shared, all or nothing, never over budget, never emptied."""

import io
import json
import math
import multiprocessing
import pathlib
import sqlite3
import struct
import time
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from dpcore.accounting import Budget, BudgetError
from dpcore.neighbours import ADD_REMOVE, REPLACE_ONE, UNIT_PERSON, RelationError
from dpcore.publish import (
    publish_category_counts,
    publish_count,
    publish_histogram,
    publish_mean,
    publish_most_common,
    publish_sum,
)
from dpcore.randomness import Randomness
from dpcore.release import UNIT_CLIENT
from explorer import publication_log
from explorer.publication_log import (
    DEFAULT_DELTA,
    DEFAULT_EPSILON,
    FILE_NAME,
    LogUnavailableError,
    PublicationBudgetError,
    PublicationLog,
    RaiseRefusedError,
    cost_under,
    default_path,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
FP = "3f2a9c1b"
AGES = np.array([23.0, 35.0, 41.0, 29.0, 52.0, 67.0, 38.0, 44.0, 31.0, 58.0] * 10)


@pytest.fixture
def log(tmp_path):
    return PublicationLog(tmp_path / "log.sqlite3")


def count_draw(epsilon):
    return lambda: publish_count(AGES, epsilon)


def rows(path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM publications").fetchone()[0]


# -- where it lives -------------------------------------------------------------------------------------


def test_the_default_path_honours_DPX_DATA_DIR(tmp_path, monkeypatch):
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path / "data" / "folder"))
    assert default_path() == tmp_path / "data" / "folder" / FILE_NAME
    assert (tmp_path / "data" / "folder").is_dir()  # created


def test_the_default_path_without_DPX_DATA_DIR_is_var_at_the_repository_root(monkeypatch):
    monkeypatch.delenv("DPX_DATA_DIR", raising=False)
    assert default_path() == ROOT / "var" / FILE_NAME
    assert (ROOT / "var").is_dir()
    assert "var/" in (ROOT / ".gitignore").read_text().splitlines()  # never committed


def test_a_folder_that_cannot_be_made_is_an_os_error(tmp_path):
    (tmp_path / "a file").write_text("")
    with pytest.raises(LogUnavailableError, match="cannot be created") as caught:
        PublicationLog(tmp_path / "a file" / "log.sqlite3")
    assert isinstance(caught.value, OSError)


def test_the_module_imports_no_streamlit():
    text = pathlib.Path(publication_log.__file__).read_text(encoding="utf-8")
    assert "import streamlit" not in text and "from streamlit" not in text


# -- the budget ---------------------------------------------------------------------------------------------


def test_the_default_budget_is_created_on_first_use_and_recorded(log):
    assert log.budget(FP) == (DEFAULT_EPSILON, DEFAULT_DELTA) == (5.0, 1e-5)
    assert log.spent(FP) == (0.0, 0.0) and log.remaining(FP) == (5.0, 1e-5)
    changes = json.loads(log.to_json(FP))["budget_changes"]
    assert [(c["epsilon"], c["delta"], c["previous_epsilon"]) for c in changes] == [(5.0, 1e-5, None)]
    assert "default" in changes[0]["reason"]


def test_a_budget_can_be_raised_or_lowered_but_never_below_what_was_spent(log):
    log.set_budget(FP, 1.0, 1e-6, reason="agreed with the data owner")  # before any use: no default
    (release,) = log.publish(FP, "ages.csv", (0.6, 0.0), count_draw(0.6))
    spent = log.spent(FP).epsilon
    assert spent == release.epsilon <= 0.6  # the release's own ε is charged (the lattice's ε is at most the one asked)
    assert log.set_budget(FP, 2.0, 1e-6, reason="a second release round") == (2.0, 1e-6)
    assert log.set_budget(FP, spent, 0.0) == (spent, 0.0)  # down to what was spent, exactly
    with pytest.raises(ValueError, match=r"cannot be set to ε = 0\.5, δ = 0: ε = 0\.59\d*, δ = 0 was already spent"):
        log.set_budget(FP, 0.5, 0.0)
    assert log.budget(FP) == (spent, 0.0)  # unchanged by the refusal
    changes = json.loads(log.to_json(FP))["budget_changes"]
    assert [(c["epsilon"], c["previous_epsilon"], c["reason"]) for c in changes] == [
        (1.0, None, "agreed with the data owner"),
        (2.0, 1.0, "a second release round"),
        (spent, 2.0, ""),
    ]
    log.set_budget(FP, spent, 0.0)  # no change, no history line
    assert len(json.loads(log.to_json(FP))["budget_changes"]) == 3


def test_lower_only_refuses_a_raise_and_changes_nothing_the_operator_may_raise(log):
    """The page asks lower_only (anyone on a shared server reaches it); the command line, the operator's, may raise.
    About 0.1 s."""
    for epsilon, delta in [(DEFAULT_EPSILON * 2, DEFAULT_DELTA), (DEFAULT_EPSILON, DEFAULT_DELTA * 2)]:
        with pytest.raises(RaiseRefusedError, match=r"can only be lowered here.*python -m dpx_publish budget") as err:
            log.set_budget(FP, epsilon, delta, reason="more, please", lower_only=True)  # never seen: the default
        assert err.value.budget == (DEFAULT_EPSILON, DEFAULT_DELTA) and err.value.asked == (epsilon, delta)
        assert isinstance(err.value, ValueError)
    assert log.budget(FP) == (DEFAULT_EPSILON, DEFAULT_DELTA)
    assert [c["reason"] for c in json.loads(log.to_json(FP))["budget_changes"]] == [
        "the default budget, set on first use"
    ]
    lower = DEFAULT_EPSILON / 2
    assert log.set_budget(FP, lower, DEFAULT_DELTA, reason="a smaller round", lower_only=True) == (lower, DEFAULT_DELTA)
    last = json.loads(log.to_json(FP))["budget_changes"][-1]
    assert (last["epsilon"], last["previous_epsilon"], last["reason"]) == (lower, DEFAULT_EPSILON, "a smaller round")
    assert log.set_budget(FP, lower, DEFAULT_DELTA, lower_only=True) == (lower, DEFAULT_DELTA)  # the same: allowed
    assert log.set_budget(FP, 8.0, DEFAULT_DELTA, reason="the operator") == (8.0, DEFAULT_DELTA)


@pytest.mark.parametrize(
    ("epsilon", "delta", "error"),
    [(0.0, 1e-6, ValueError), (math.inf, 1e-6, ValueError), (1.0, 1.0, ValueError), (1.0, -1e-9, ValueError)],
)
def test_a_budget_out_of_range_is_refused(log, epsilon, delta, error):
    with pytest.raises(error, match="budget"):
        log.set_budget(FP, epsilon, delta)


def test_budgets_are_kept_per_fingerprint(log):
    log.set_budget("aaaa0000", 1.0, 0.0)
    log.publish("aaaa0000", "a.csv", (1.0, 0.0), count_draw(1.0))
    assert log.spent("bbbb1111") == (0.0, 0.0)
    assert log.publish("bbbb1111", "b.csv", (1.0, 0.0), count_draw(1.0))
    with pytest.raises(BudgetError):
        log.publish("aaaa0000", "a.csv", (0.1, 0.0), count_draw(0.1))


# -- persistence ---------------------------------------------------------------------------------------------


def publish_a_few(log) -> list:
    out = []
    out += log.publish(FP, "ages.csv", (0.5, 0.0), count_draw(0.5), label="how many")
    out += log.publish(FP, "ages.csv", (0.5, 0.0), lambda: publish_histogram(AGES, 4, 20, 70, 0.5), label="ages")
    out += log.publish(FP, "ages.csv", (1.0, 0.0), lambda: publish_mean(AGES, 18, 90, 1.0), label="mean age")
    out += log.publish(
        FP, "ages.csv", (0.5, 1e-6), lambda: publish_sum(AGES, 0, 100, 0.5, mechanism="gaussian", delta=1e-6)
    )
    out += log.publish(FP, "ages.csv", (0.2, 0.0), lambda: publish_most_common([0, 1, 1], ["a", "b"], 0.2))
    return out


def test_the_log_survives_a_restart(tmp_path):
    path = tmp_path / "log.sqlite3"
    first = PublicationLog(path)
    published = publish_a_few(first)
    spent, entries, as_json = first.spent(FP), first.entries(FP), first.to_json(FP)
    del first
    again = PublicationLog(path)  # a new server process opens the same file
    assert again.spent(FP) == spent
    assert spent.epsilon == pytest.approx(2.7, rel=1e-12) and 0 < spent.delta <= 1e-6
    pd.testing.assert_frame_equal(again.entries(FP), entries)
    assert again.to_json(FP) == as_json
    assert again.releases(FP) == published  # every field, the published numbers exactly


def test_two_tabs_on_the_same_file_see_one_total(tmp_path):
    path = tmp_path / "log.sqlite3"
    tab1, tab2 = PublicationLog(path), PublicationLog(path)
    tab1.set_budget(FP, 2.0, 0.0)
    for i in range(4):
        (tab1 if i % 2 == 0 else tab2).publish(FP, "ages.csv", (0.5, 0.0), count_draw(0.5), label=f"tab {i % 2 + 1}")
        assert tab1.spent(FP) == tab2.spent(FP) == (0.5 * (i + 1), 0.0)
    with pytest.raises(PublicationBudgetError, match=r"ε = 2\.5.*over its budget of ε = 2"):
        tab2.publish(FP, "ages.csv", (0.5, 0.0), count_draw(0.5))
    assert list(tab1.entries(FP)["label"]) == ["tab 1", "tab 2", "tab 1", "tab 2"]
    pd.testing.assert_frame_equal(tab1.entries(FP), tab2.entries(FP))


# -- parallel writers ------------------------------------------------------------------------------------------

WRITERS, ATTEMPTS, BUDGET, COST = 4, 6, 1.0, 0.1  # floor(1.0 / 0.1) = 10 of the 24 attempts fit


def _writer(path, barrier, results, pause):
    log = PublicationLog(path)

    def draw():
        time.sleep(pause)  # a slow draw: widens the window in which another writer could read a stale total
        return publish_count(AGES, COST)

    done = refused = failed = 0
    for _ in range(ATTEMPTS):
        barrier.wait()  # every writer starts each attempt together
        try:
            log.publish(FP, "ages.csv", (COST, 0.0), draw)
            done += 1
        except BudgetError:
            refused += 1
        except Exception:  # noqa: BLE001 - counted, and the test asserts there are none
            failed += 1
    results.put((done, refused, failed))


def run_writers(path, pause=0.01) -> list[tuple[int, int, int]]:
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(WRITERS), ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(path, barrier, results, pause)) for _ in range(WRITERS)]
    for p in procs:
        p.start()
    out = [results.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=10)
        assert p.exitcode == 0
    return out


def test_parallel_writers_never_overspend(tmp_path):
    path = tmp_path / "log.sqlite3"
    PublicationLog(path).set_budget(FP, BUDGET, 0.0)
    start = time.perf_counter()
    out = run_writers(path)
    assert time.perf_counter() - start < 20
    done, refused, failed = (sum(column) for column in zip(*out))
    assert failed == 0
    assert done == math.floor(BUDGET / COST) == 10  # exactly what fits (ten of ε/10 make the budget, with the slack)
    assert refused == WRITERS * ATTEMPTS - done
    assert rows(path) == done  # a refused publication leaves no row
    log = PublicationLog(path)
    assert log.spent(FP).epsilon == pytest.approx(BUDGET, rel=1e-12)
    assert log.spent(FP).epsilon <= BUDGET * (1 + 1e-9)


@contextmanager
def _no_transaction(conn):
    yield  # each statement commits on its own: read the total, draw, write, with nothing held in between


def test_parallel_writers_do_overspend_without_the_transaction(tmp_path, monkeypatch):
    # the negative control of the test above: with the check and the write in separate transactions, writers
    # that read the same total each add to it
    monkeypatch.setattr(PublicationLog, "_transaction", staticmethod(_no_transaction))
    path = tmp_path / "log.sqlite3"
    PublicationLog(path).set_budget(FP, BUDGET, 0.0)
    out = run_writers(path, pause=0.02)
    assert sum(done for done, _, _ in out) > math.floor(BUDGET / COST)
    assert rows(path) > 10


# -- all or nothing -------------------------------------------------------------------------------------------


def test_a_draw_that_raises_charges_nothing(log):
    def draw():
        raise RuntimeError("the draw failed")

    with pytest.raises(RuntimeError, match="the draw failed"):
        log.publish(FP, "ages.csv", (0.5, 0.0), draw)
    assert log.spent(FP) == (0.0, 0.0) and log.entries(FP).empty


def test_an_interrupted_draw_charges_nothing(log):
    def draw():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        log.publish(FP, "ages.csv", (0.5, 0.0), draw)
    assert log.spent(FP) == (0.0, 0.0)
    log.publish(FP, "ages.csv", (0.5, 0.0), count_draw(0.5))  # the lock was released
    assert log.spent(FP) == (0.5, 0.0)


def test_a_draw_that_costs_more_than_declared_is_rolled_back(log):
    with pytest.raises(ValueError, match=r"cost ε = 1, δ = 0, more than the ε = 0\.5, δ = 0 declared"):
        log.publish(FP, "ages.csv", (0.5, 0.0), count_draw(1.0))
    with pytest.raises(ValueError, match="more than"):  # δ counts too
        log.publish(FP, "ages.csv", (0.5, 0.0), lambda: publish_count(AGES, 0.5, mechanism="gaussian", delta=1e-6))
    two = lambda: [publish_count(AGES, 0.5), publish_count(AGES, 0.5)]  # noqa: E731
    with pytest.raises(ValueError, match="more than"):  # a list is charged in full
        log.publish(FP, "ages.csv", (0.5, 0.0), two)
    assert log.spent(FP) == (0.0, 0.0) and log.entries(FP).empty
    assert log.publish(FP, "ages.csv", (1.0, 0.0), two)  # declared in full, accepted
    assert log.spent(FP) == (1.0, 0.0) and len(log.entries(FP)) == 2


def test_a_publication_over_budget_is_refused_before_anything_is_drawn(log):
    log.set_budget(FP, 1.0, 1e-6)
    log.publish(FP, "ages.csv", (0.8, 0.0), count_draw(0.8))
    calls = []

    def draw():
        calls.append(1)
        return publish_count(AGES, 0.3)

    with pytest.raises(PublicationBudgetError) as caught:
        log.publish(FP, "ages.csv", (0.3, 0.0), draw, label="one too many")
    exc = caught.value
    assert calls == []  # the cost was checked before the noise was drawn
    assert isinstance(exc, BudgetError) and isinstance(exc, ValueError)
    assert exc.total.epsilon == pytest.approx(1.1) and exc.budget == (1.0, 1e-6) and exc.spent == (0.8, 0.0)
    assert str(exc).startswith("this publication would bring what was spent on this data to ε = 1.1, δ = 0, over")
    assert "nothing was drawn and nothing was charged" in str(exc)
    with pytest.raises(PublicationBudgetError):  # δ is a budget too
        log.publish(FP, "ages.csv", (0.1, 2e-6), draw)
    assert log.spent(FP) == (0.8, 0.0)
    log.publish(FP, "ages.csv", (0.2, 1e-6), lambda: publish_count(AGES, 0.2))  # the rest fits exactly
    assert calls == [] and log.remaining(FP).epsilon == pytest.approx(0.0, abs=1e-12)


def test_a_simulated_release_never_enters_the_log(log):
    simulated = replace(publish_count(AGES, 0.5), randomness=Randomness.SIMULATION)
    with pytest.raises(ValueError, match="only releases drawn with secure noise"):
        log.publish(FP, "ages.csv", (0.5, 0.0), lambda: simulated)
    with pytest.raises(TypeError, match="Release"):
        log.publish(FP, "ages.csv", (0.5, 0.0), lambda: 3.0)
    with pytest.raises(ValueError, match="at least one release"):
        log.publish(FP, "ages.csv", (0.5, 0.0), lambda: [])
    assert log.entries(FP).empty


@pytest.mark.parametrize(
    ("cost", "error"), [((0.0, 0.0), ValueError), ((1.0, 1.0), ValueError), (1.0, TypeError), ("ab", TypeError)]
)
def test_a_cost_out_of_range_is_refused(log, cost, error):
    with pytest.raises(error, match="cost"):
        log.publish(FP, "ages.csv", cost, count_draw(0.5))


def test_a_locked_database_is_an_os_error_and_charges_nothing(log, monkeypatch):
    monkeypatch.setattr(publication_log, "BUSY_TIMEOUT_SECONDS", 0.05)
    holder = sqlite3.connect(log.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    try:
        with pytest.raises(LogUnavailableError, match="could not be read or written"):
            log.publish(FP, "ages.csv", (0.5, 0.0), count_draw(0.5))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert log.spent(FP) == (0.0, 0.0)


# -- one relation per dataset ------------------------------------------------------------------------------------


def test_cost_under_converts_by_group_privacy_or_refuses_in_one_sentence():
    release = publish_count(AGES, 0.5)
    assert cost_under(release, ADD_REMOVE, "record") == Budget(0.5, 0.0)
    assert cost_under(release, REPLACE_ONE, "record") == Budget(1.0, 0.0)  # a replacement: a removal and an addition
    with pytest.raises(RelationError, match="one client"):  # a record-level guarantee says nothing of a client
        cost_under(release, ADD_REMOVE, UNIT_CLIENT)
    local = replace(release, relation=REPLACE_ONE)
    with pytest.raises(RelationError, match="may reveal the number of records"):
        cost_under(local, ADD_REMOVE, "record")


def test_the_first_publication_fixes_the_relation_and_the_rest_are_converted_or_refused(log):
    log.publish(FP, "ages.csv", (0.5, 0.0), count_draw(0.5))
    assert log.guarantee(FP) == (ADD_REMOVE, "record")
    other = replace(publish_count(AGES, 0.5), relation=REPLACE_ONE)
    with pytest.raises(RelationError, match="replace one record.*add/remove one record"):
        log.publish(FP, "ages.csv", (0.5, 0.0), lambda: other)
    assert log.spent(FP) == (0.5, 0.0)  # refused: nothing charged
    assert log.guarantee("fresh000") is None
    log.publish("fresh000", "b.csv", (0.5, 0.0), lambda: other)  # the first publication fixes the relation
    assert log.guarantee("fresh000") == (REPLACE_ONE, "record")
    with pytest.raises(ValueError, match="more than the"):  # an add/remove count costs 2 × 0.5 under replace-one
        log.publish("fresh000", "b.csv", (0.5, 0.0), lambda: publish_count(AGES, 0.5))
    log.publish("fresh000", "b.csv", (1.0, 0.0), lambda: publish_count(AGES, 0.5))
    assert log.spent("fresh000").epsilon == pytest.approx(0.5 + 2 * publish_count(AGES, 0.5).epsilon)


def test_each_row_keeps_its_unit_and_the_totals_per_unit_add_up_to_what_was_spent(log):
    # a person-level count on a log kept per record (its first publication): remove the person, add them back
    # changed, so twice its ε (dpcore.neighbours.conversion, k = 2); a record-level count as it is
    person = replace(publish_count(AGES, 0.5), unit=UNIT_PERSON)
    log.publish(FP, "ages.csv", (0.25, 0.0), count_draw(0.25))
    log.publish(FP, "ages.csv", (1.0, 0.0), lambda: person)
    log.publish(FP, "ages.csv", (0.25, 0.0), count_draw(0.25))
    entries = log.entries(FP)
    assert entries["holds under"].tolist() == [
        "add/remove one record",
        "add/remove one person",
        "add/remove one record",
    ]
    assert entries["unit of privacy"].tolist() == ["record", UNIT_PERSON, "record"]
    assert entries["converted"].tolist() == ["", "k = 2", ""]
    assert entries["epsilon"].tolist() == [0.25, 2 * person.epsilon, 0.25]
    totals = log.by_unit(FP)
    assert totals["unit"].tolist() == ["record", UNIT_PERSON] and totals["releases"].tolist() == [2, 1]
    assert totals["epsilon"].tolist() == [0.5, 2 * person.epsilon] and totals["converted"].tolist() == ["", "k = 2"]
    assert "remove that person and add them back changed" in totals["why"].iloc[1] and totals["why"].iloc[0] == ""
    assert math.fsum(totals["epsilon"]) == log.spent(FP).epsilon  # basic composition: the parts add up
    document = json.loads(log.to_json(FP))
    assert [u["unit"] for u in document["by_unit"]] == ["record", UNIT_PERSON]
    assert document["charged_under"] == "add/remove one record"
    assert log.by_unit("fresh000").empty


def test_a_log_kept_per_person_charges_person_releases_as_they_are_and_refuses_a_record_release(log):
    person = replace(publish_count(AGES, 0.5), unit=UNIT_PERSON)
    log.publish(FP, "ages.csv", (0.5, 0.0), lambda: person)
    log.publish(FP, "ages.csv", (0.5, 0.0), lambda: person)
    assert log.guarantee(FP) == (ADD_REMOVE, UNIT_PERSON) and log.spent(FP) == (1.0, 0.0)
    with pytest.raises(RelationError) as info:  # a release carries no bound on rows per person
        log.publish(FP, "ages.csv", (0.5, 0.0), count_draw(0.5))
    assert "says nothing about a person with many rows" in str(info.value) and "\n" not in str(info.value)
    assert log.spent(FP) == (1.0, 0.0)
    assert log.entries(FP)["holds under"].tolist() == ["add/remove one person"] * 2
    assert log.by_unit(FP)["converted"].tolist() == [""]


# -- exports --------------------------------------------------------------------------------------------------------


def test_the_csv_export_round_trips_and_is_spreadsheet_safe(log):
    published = publish_a_few(log)
    log.publish(FP, "ages.csv", (0.1, 0.0), count_draw(0.1), label='=HYPERLINK("http://x")')
    published += log.releases(FP)[-1:]
    data = log.to_csv(FP)
    assert data.startswith(b"\xef\xbb\xbf")  # Excel reads the accents
    back = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig")
    assert len(back) == len(published) == 6
    assert list(back["epsilon"]) == [r.epsilon for r in published]
    assert list(back["delta"]) == [r.delta for r in published]
    assert [tuple(json.loads(v)) for v in back["released values"]] == [r.values for r in published]
    assert [tuple(json.loads(v)) for v in back["released labels"]] == [r.labels for r in published]
    assert list(back["query"]) == [r.query for r in published]
    assert back["label"].iloc[-1] == '\'=HYPERLINK("http://x")'  # shown as text, never run
    assert set(back["neighbouring relation"]) == {"add/remove one record"}


def test_the_json_export_round_trips(log):
    published = publish_a_few(log)
    document = json.loads(log.to_json(FP))
    assert document["budget"] == {"epsilon": 5.0, "delta": 1e-5}
    assert document["spent"]["epsilon"] == math.fsum(r.epsilon for r in published)
    assert document["spent"]["delta"] == math.fsum(r.delta for r in published)
    assert "basic" in document["spent"]["composition"]
    assert document["neighbouring_relation"] == "add/remove one record" and document["unit_of_privacy"] == "record"
    entries = document["publications"]
    assert [e["privacy_label"] for e in entries] == [r.label() for r in published]
    assert [tuple(x["value"] for x in e["released"]) for e in entries] == [r.values for r in published]
    assert [e["publication"] for e in entries] == [1, 2, 3, 4, 5]
    assert all(e["time"].endswith("+00:00") for e in entries)  # UTC


def test_an_empty_log_exports_headers_and_an_empty_list(log):
    back = pd.read_csv(io.BytesIO(log.to_csv(FP)), encoding="utf-8-sig")
    assert back.empty and {"epsilon", "delta", "released values", "time (UTC)"} <= set(back.columns)
    assert json.loads(log.to_json(FP))["publications"] == []


# -- nothing is deleted, nothing private is stored ------------------------------------------------------------------


def test_no_method_deletes_and_the_database_refuses_deletion(log):
    names = [n for n in dir(PublicationLog) if not n.startswith("_")]
    assert not [n for n in names if any(w in n for w in ("delete", "remove", "reset", "clear", "drop", "empty"))]
    log.publish(FP, "ages.csv", (0.5, 0.0), count_draw(0.5))
    with sqlite3.connect(log.path) as conn:
        for statement in (
            "DELETE FROM publications",
            "UPDATE publications SET epsilon = 0",
            "DELETE FROM budgets",
            "DELETE FROM budget_changes",
        ):
            with pytest.raises(sqlite3.DatabaseError, match="keeps"):
                conn.execute(statement)
    assert log.spent(FP) == (0.5, 0.0)


def test_only_the_published_numbers_are_stored(log):
    secret = 987654.321  # a value of the data, clipped away by the declared bounds
    values = np.append(AGES, secret)
    published = log.publish(FP, "ages.csv", (1.0, 0.0), lambda: publish_sum(values, 0, 100, 1.0), label="sum")
    published += log.publish(
        FP, "ages.csv", (1.0, 0.0), lambda: publish_category_counts([0, 1, 1, 2], ["x", "y", "z"], 1.0)
    )
    assert log.releases(FP) == published  # what was returned is what was stored, and the other way round
    assert all(r.randomness is Randomness.PUBLICATION for r in published)
    blob = b"".join(p.read_bytes() for p in log.path.parent.glob(log.path.name + "*"))  # the file and its WAL
    assert b"987654" not in blob and struct.pack("<d", secret) not in blob and struct.pack(">d", secret) not in blob
    with sqlite3.connect(log.path) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(publications)")}
    assert not {c for c in columns if "true" in c or "truth" in c or "noise" == c}


def test_the_downloaded_log_carries_no_hash_of_the_data(tmp_path):
    log = PublicationLog(tmp_path / "log.sqlite3")
    fingerprint = "1a2b3c4d"
    log.set_budget(fingerprint, 1.0, 1e-6, reason="test")
    assert fingerprint not in log.to_json(fingerprint)
