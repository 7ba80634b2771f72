"""Smoke test of app.py: every page runs cleanly on the demo data and on an uploaded CSV."""

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest import PAGES, ROOT, assert_clean, open_page

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


def test_app_pages_holds_only_page_scripts_named_by_their_url_paths_and_there_is_no_pages_folder():
    # A folder named pages/ beside app.py would switch on Streamlit's legacy page discovery on a fresh
    # server (every file served at its stem until a run calls st.navigation); app_pages/ is only read
    # through app.py's st.navigation, so no private Streamlit flag is touched.
    assert not (ROOT / "pages").exists()
    source = (ROOT / "app.py").read_text()
    pages = re.findall(r'st\.Page\("app_pages/(\w+)\.py".*?(?:url_path="(\w*)")?\)', source)
    assert len(pages) == len(PAGES)
    for stem, url in pages:
        assert url == stem or (stem == "home" and url == ""), f"app_pages/{stem}.py is served at /{url}"
    assert sorted(p.name for p in (ROOT / "app_pages").iterdir() if p.name != "__pycache__") == sorted(
        f"{stem}.py" for stem, _ in pages
    )
    for path in [ROOT / "app.py", ROOT / "tests" / "apptest.py", *(ROOT / "explorer").glob("*.py")]:
        assert "pages_manager" not in path.read_text() and "_getframe" not in path.read_text(), path


@pytest.mark.parametrize("page", ["local", "central", "svt", "compare"])
def test_a_dataset_with_no_fitting_column_gets_a_sentence(page):
    only_ids = ("id\n" + "\n".join(f"user-{i:04d}" for i in range(200)) + "\n").encode()
    at = open_page("data")
    at.file_uploader(key="data_upload").upload("ids.csv", only_ids, "text/csv").run()
    at.switch_page(PAGES[page]).run()
    assert_clean(at)
    assert any("This dataset has no" in i.value for i in at.info), [i.value for i in at.info]


def test_a_fresh_servers_first_run_and_deep_link_with_streamlits_own_page_manager():
    # AppTest builds Streamlit's real page manager for every run, as a fresh server's first run would:
    # "/" and a deep link are drawn through app.py's navigation, inside the frame.
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert_clean(at)
    assert at.title[0].value == "DP Explorer"
    at.switch_page(PAGES["accountant"]).run()
    assert_clean(at)
    assert at.title[0].value == "Privacy accountant"
    assert "census.csv" in " ".join(t.value for t in at.sidebar.text)  # drawn inside the frame


def test_a_link_names_its_data_and_says_so_when_this_tab_has_other_data():
    import hashlib

    at = open_page("local")
    census = "census.csv~" + hashlib.sha256((ROOT / "data" / "census.csv").read_bytes()).hexdigest()[:8]
    assert at.query_params["data"] == census
    assert not at.warning  # a link made on the demo opens on the demo
    fingerprint = hashlib.sha256(UPLOAD).hexdigest()[:8]
    at = open_page("local", data="mine.csv~")  # a link made on an upload (its name only), opened in a new tab
    (warning,) = [w.value for w in at.warning]
    assert "made on **mine\\.csv**" in warning and "census\\.csv" in warning and "by its name only" in warning
    at.switch_page(PAGES["data"]).run()
    at.file_uploader(key="data_upload").upload("mine.csv", UPLOAD, "text/csv").run()
    at.switch_page(PAGES["local"]).run()
    assert_clean(at)
    assert not at.warning and at.query_params["data"] == "mine.csv~"  # nothing computed from the file's contents
    assert fingerprint not in at.query_params["data"]
