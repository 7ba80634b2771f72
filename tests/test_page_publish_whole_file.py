"""The Publish page on a file opened from the data folder: the plan is designed on the seeded sample, published from
every row of the file (DuckDB, :mod:`dpx_publish.source`), and the log charged once under the file's fingerprint."""

from __future__ import annotations

import duckdb
import pytest

from dpx_publish import source
from explorer import dataset, publishing, state
from explorer.dataset import DATA_FOLDER_VARIABLE
from tests.apptest import PAGES, assert_clean, open_page

ROWS = 40_000
SAMPLE = 5_000
EDU = ["HS-grad", "Some-college", "Bachelors", "Masters", "Doctorate"]


@pytest.fixture()
def opened(tmp_path, monkeypatch):
    """The Publish page of a session that opened a 40,000-row Parquet file of the data folder (a 5,000-row sample)."""
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path / "log"))  # this test's own publication log
    folder = tmp_path / "data"
    folder.mkdir()
    duckdb.sql(
        f"COPY (SELECT i // 2 AS pid, CASE WHEN i % 5 = 3 THEN ' Masters ' ELSE "
        f"['HS-grad', 'Some-college', 'Bachelors', 'Masters', 'Doctorate'][1 + i % 5] END AS education, "
        f"17 + i % 70 AS age FROM range({ROWS}) t(i)) TO '{folder / 'people.parquet'}' (FORMAT parquet)"
    )
    monkeypatch.setenv(DATA_FOLDER_VARIABLE, str(folder))
    monkeypatch.setattr(dataset, "SAMPLE_ROWS", SAMPLE)
    at = open_page("data")
    at.selectbox(key="data_folder_file").set_value("people.parquet")
    at.button(key="data_folder_open").click().run()
    assert at.session_state[state.DATASET].sampled
    at.switch_page(PAGES["publish"]).run()
    at.selectbox(key="pub_cat_0").select("education").run()
    at.text_area(key="pub_domain_0").input("\n".join(EDU)).run()
    at.selectbox(key="pub_num_1").select("age").run()
    at.number_input(key="pub_lower_1").set_value(17).run()
    at.number_input(key="pub_upper_1").set_value(90).run()
    return at, folder


def _captured(monkeypatch) -> list:
    found = []
    real = source.publish_from_aggregates

    def spy(allocation, aggregates):
        found.append([a.copy() for a in aggregates])
        return real(allocation, aggregates)

    monkeypatch.setattr(source, "publish_from_aggregates", spy)
    return found


def test_a_sampled_file_is_published_from_every_row_and_the_log_charged_once(opened, monkeypatch):
    at, folder = opened
    assert_clean(at)
    said = " ".join(c.value for c in at.caption).replace("\\", "")
    assert f"every row of the file ({ROWS:,} rows)" in said and f"seeded sample of {SAMPLE:,} rows" in said
    assert not [i for i in at.info if i.value.startswith("Nothing is published")]
    found = _captured(monkeypatch)
    at.button(key="pub_publish").click().run()
    assert_clean(at)
    assert at.success and "ε = 1" in at.success[0].value
    (counts, mean) = found[0]
    assert counts["rows"].tolist() == [ROWS // 5] * 5  # every row, " Masters " stripped as the app strips it
    assert mean["rows"].tolist() == [ROWS] and mean["total"].iloc[0] == sum(17 + i % 70 for i in range(ROWS))
    fingerprint, package = at.session_state["_pub_package"]
    assert fingerprint == dataset.file_fingerprint(folder / "people.parquet")
    log = publishing.publication_log()
    assert log.spent(fingerprint)[0] == pytest.approx(1.0) and len(log.entries(fingerprint)) == 1
    shown = [d.value for d in at.dataframe][1:]
    assert [list(t["label"]) for t in shown] == [EDU, ["mean"]]


def test_a_file_changed_since_it_was_opened_is_not_published(opened):
    at, folder = opened
    duckdb.sql(
        f"COPY (SELECT 1 AS pid, 'Masters' AS education, 30 AS age) TO '{folder / 'people.parquet'}' (FORMAT parquet)"
    )
    at.button(key="pub_publish").click().run()
    assert not at.success and "has changed since it was opened" in " ".join(w.value for w in at.warning)
    fingerprint = at.session_state[state.DATASET].fingerprint
    assert publishing.publication_log().spent(fingerprint) == (0.0, 0.0)


def test_a_quantile_is_refused_on_a_sampled_file_before_anything_is_read(opened):
    at, _ = opened
    at.selectbox(key="pub_kind_1").select("quantile").run()
    said = " ".join(i.value for i in at.info)
    assert "quantile, which needs every row" in said
    assert at.button(key="pub_publish").disabled
