"""The publication budget on the Accountant page: anyone may lower it, with a reason; raising is the operator's act.

On a shared server whoever opens the page could otherwise raise a dataset's cap and the cap would limit nothing:
the page answers a higher value with one sentence naming the command whoever runs the server types
(``python -m dpx_publish budget``), and the log itself refuses the raise (``lower_only``).
"""

from __future__ import annotations

import json
import shlex

import numpy as np
import pandas as pd
import pytest

from dpcore.publish import publish_count
from dpx_publish.cli import main
from explorer.dataset import Dataset
from explorer.publication_log import DEFAULT_DELTA, DEFAULT_EPSILON, PublicationLog, default_path
from explorer.publishing import budget_command
from tests.apptest import ROOT, assert_clean, open_page


@pytest.fixture(autouse=True)
def own_log(tmp_path, monkeypatch):
    """Each test keeps its publication log in a folder of its own (the default budget per dataset)."""
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path))
    return tmp_path


def _log(at) -> tuple[PublicationLog, str]:
    ds = at.session_state["dataset"]
    return PublicationLog(default_path()), ds.fingerprint or ds.identity


def _changes(log: PublicationLog, fingerprint: str) -> list[dict]:
    return json.loads(log.to_json(fingerprint))["budget_changes"]


def _said_about_raising(at) -> list[str]:
    return [i.value.replace("\\", "") for i in at.info if "whoever runs the server" in i.value]


def _summary(at) -> str:
    return " ".join(c.value.replace("\\", "") for c in at.caption if "of its publication budget" in c.value)


def test_the_page_refuses_a_raise_in_one_sentence_with_the_exact_command_and_changes_nothing(monkeypatch):
    """About 10 s (three runs of the app). The command in the sentence, run as it stands from the repository, sets the
    budget the page then shows: the operator's path, end to end."""
    at = open_page("accountant")
    log, fingerprint = _log(at)
    before = _changes(log, fingerprint)
    asked = DEFAULT_EPSILON * 2
    at.text_input(key="pub_budget_reason").set_value("more, please").run()
    at.number_input(key="pub_budget_epsilon").set_value(asked).run()
    assert_clean(at)
    (said,) = _said_about_raising(at)  # one sentence
    assert said.startswith("This page can only lower the budget") and said.endswith(" on the same file.")
    assert said.count(": ") == 1 and "; " not in said
    assert at.button(key="pub_set_budget").disabled
    assert log.budget(fingerprint) == (DEFAULT_EPSILON, DEFAULT_DELTA) and _changes(log, fingerprint) == before

    command = said[said.index("python -m dpx_publish budget") : -len(" on the same file.")]
    words = shlex.split(command)
    assert (
        words[:4] == ["python", "-m", "dpx_publish", "budget"] and float(words[words.index("--epsilon") + 1]) == asked
    )
    monkeypatch.chdir(ROOT)  # the operator, in the repository (a demo table's file is in its data/ folder)
    assert main([*words[3:-1], "the data owner agreed"]) == 0
    at.run()
    assert_clean(at)
    assert log.budget(fingerprint) == (asked, DEFAULT_DELTA)
    assert f"of its publication budget ε = {asked:g}" in _summary(at)  # the page shows the operator's budget
    assert not _said_about_raising(at) and _changes(log, fingerprint)[-1]["reason"] == "the data owner agreed"


def test_lowering_on_the_page_needs_a_reason_and_is_kept_in_the_log_with_it():
    """About 10 s."""
    at = open_page("accountant")
    log, fingerprint = _log(at)
    lower = DEFAULT_EPSILON / 2
    at.number_input(key="pub_budget_epsilon").set_value(lower).run()
    at.button(key="pub_set_budget").click().run()  # no reason yet: refused in one sentence, unchanged
    (refused,) = [w.value for w in at.warning if w.value.startswith("Not changed")]
    assert "Why (kept in the log)" in refused and log.budget(fingerprint) == (DEFAULT_EPSILON, DEFAULT_DELTA)
    at.text_input(key="pub_budget_reason").set_value("a smaller release round").run()
    at.button(key="pub_set_budget").click().run()
    assert_clean(at)
    assert log.budget(fingerprint) == (lower, DEFAULT_DELTA)
    last = _changes(log, fingerprint)[-1]
    assert (last["epsilon"], last["previous_epsilon"], last["reason"]) == (
        lower,
        DEFAULT_EPSILON,
        "a smaller release round",
    )
    assert f"of its publication budget ε = {lower:g}" in _summary(at)
    # never below what was spent: refused in one sentence, unchanged
    ones = np.ones(50)
    log.publish(fingerprint, "census.csv", (1.0, 0.0), lambda: publish_count(ones, 1.0))
    at.number_input(key="pub_budget_epsilon").set_value(0.5).run()
    at.button(key="pub_set_budget").click().run()
    (refused,) = [w.value.replace("\\", "") for w in at.warning if w.value.startswith("Not changed")]
    assert "already spent" in refused and log.budget(fingerprint) == (lower, DEFAULT_DELTA)


def test_the_command_names_the_file_the_operator_fingerprints_shell_quoted():
    """A data-folder file by its path, a demo table by its file in data/, an upload by its name. About 0.01 s."""
    frame = pd.DataFrame({"a": [1]})
    name = "it's a file; rm -rf ~.csv"
    cases = [
        (Dataset(name=name, frame=frame, fingerprint="0"), name),
        (Dataset(name="big.parquet", frame=frame, path=f"/srv/data/{name}"), f"/srv/data/{name}"),
        (Dataset(name="census.csv", frame=frame, demo="census"), "data/census.csv"),
    ]
    for ds, file in cases:
        words = shlex.split(budget_command(ds, 7.5))
        assert words[:5] == ["python", "-m", "dpx_publish", "budget", file]
        assert words[5:] == ["--epsilon", "7.5", "--reason", "..."]
