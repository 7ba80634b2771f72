"""Smoke test of app.py: every page runs cleanly on the demo data and on an uploaded CSV."""

import numpy as np
import pytest
from apptest import PAGES, assert_clean, open_page

UPLOAD = (
    "colour,score,hours,answer\n"
    + "\n".join(
        f"{c},{s},{h},{a}"
        for c, s, h, a in zip(
            np.random.default_rng(0).choice(["red", "green", "blue", "grey"], 400),
            np.random.default_rng(1).integers(1, 6, 400),
            np.random.default_rng(2).integers(0, 60, 400),
            np.random.default_rng(3).choice(["yes", "no"], 400),
        )
    )
).encode()


@pytest.mark.parametrize("page", list(PAGES))
def test_page_runs_on_demo_data(page):
    assert_clean(open_page(page))


@pytest.mark.parametrize("page", [p for p in PAGES if p not in ("home", "data")])
def test_page_runs_on_an_uploaded_csv(page):
    at = open_page("data")
    at.file_uploader(key="data_upload").upload("mine.csv", UPLOAD, "text/csv").run()
    assert "mine.csv" in " ".join(t.value for t in at.sidebar.text)
    at.switch_page(PAGES[page]).run()
    assert_clean(at)
    assert "mine.csv" in " ".join(t.value for t in at.sidebar.text)


def test_sessions_do_not_share_data():
    a = open_page("data")
    a.file_uploader(key="data_upload").upload("mine.csv", UPLOAD, "text/csv").run()
    b = open_page("data")
    assert "census.csv" in " ".join(t.value for t in b.sidebar.text)


def test_no_page_url_equals_its_file_name():
    # Streamlit's legacy pages/ discovery (used on a session's first run because pages/ exists)
    # would run a file whose stem equals the URL path on its own, without app.py's frame.
    import pathlib
    import re

    source = (pathlib.Path(__file__).resolve().parents[1] / "app.py").read_text()
    pages = re.findall(r'st\.Page\("pages/(\w+)\.py".*?(?:url_path="(\w*)")?\)', source)
    assert len(pages) == len(PAGES)
    for stem, url in pages:
        assert url != stem, f"pages/{stem}.py is served at /{url}"


@pytest.mark.parametrize("page", ["local", "central", "svt", "compare"])
def test_a_dataset_with_no_fitting_column_gets_a_sentence(page):
    only_ids = ("id\n" + "\n".join(f"user-{i:04d}" for i in range(200)) + "\n").encode()
    at = open_page("data")
    at.file_uploader(key="data_upload").upload("ids.csv", only_ids, "text/csv").run()
    at.switch_page(PAGES[page]).run()
    assert_clean(at)
    assert any("This dataset has no" in i.value for i in at.info), [i.value for i in at.info]
