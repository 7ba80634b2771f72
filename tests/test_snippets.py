"""Every downloadable snippet runs on the demo data and prints the numbers its page shows."""

from __future__ import annotations

import ast
import base64
import io
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from tests.apptest import assert_clean, metric, open_page


@pytest.fixture
def downloads(monkeypatch):
    """Every download button's label and data, as the page offered them during the runs."""
    offered: dict[str, object] = {}
    original = DeltaGenerator.download_button

    def record(self, label, data, *args, **kwargs):
        offered[label] = data
        return original(self, label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", record)
    monkeypatch.setattr(st, "download_button", lambda *a, **k: record(st._main, *a, **k))
    return offered


def chart_values(y) -> np.ndarray:
    """A Plotly trace's values, also when Plotly sent them as a typed array (``{"dtype", "bdata"}``)."""
    if isinstance(y, dict):
        return np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"])
    return np.asarray(y, dtype=float)


def run_snippet(code: str, tmp_path) -> str:
    path = tmp_path / "snippet.py"
    path.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def csv(data) -> pd.DataFrame:
    raw = data if isinstance(data, bytes) else data.encode()
    return pd.read_csv(io.BytesIO(raw), encoding="utf-8-sig")


@pytest.mark.parametrize(
    "link", [{"ldp_mechanism": "OUE"}, {"ldp_mechanism": "GRR", "ldp_project": "true", "ldp_epsilon": 0.5}]
)
def test_local_counts_snippet_prints_the_release_the_chart_shows(link, downloads, tmp_path):
    at = open_page("local", **link)
    assert_clean(at)
    page = csv(downloads["Release (CSV)"])
    printed = csv(run_snippet(downloads["Python snippet"], tmp_path))
    assert printed["value"].astype(str).tolist() == page.iloc[:, 0].astype(str).tolist()
    assert printed["noisy count"].tolist() == page["noisy count"].tolist()  # the same draws, to the last bit
    bars = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    assert chart_values(bars[1]["y"]).tolist() == page["noisy count"].tolist()  # the chart's noisy bars


CENTRAL = [
    {"cen_query": "Count"},
    {"cen_query": "Sum", "cen_mechanism": "Gaussian"},
    {"cen_query": "Mean", "cen_split": 0.3},
    {"cen_query": "Histogram", "cen_bins": 7, "cen_mechanism": "Gaussian", "cen_delta": "1e-06"},
]


@pytest.mark.parametrize("link", CENTRAL, ids=[c["cen_query"] for c in CENTRAL])
def test_central_snippet_prints_the_noisy_answer_the_page_shows(link, downloads, tmp_path):
    at = open_page("central", **link)
    assert_clean(at)
    page = csv(downloads["Teaching table (CSV)"])
    printed = np.array(ast.literal_eval(run_snippet(downloads["Python snippet"], tmp_path)))
    assert printed.tolist() == page["noisy"].tolist()
    if link["cen_query"] != "Histogram":
        assert metric(at, "Noisy answer (one release)") in (f"{printed[0]:,.0f}", f"{printed[0]:.4g}")


def test_most_common_snippet_prints_the_value_the_page_chose(downloads, tmp_path):
    at = open_page("central", cen_query="Most common value", cen_em_epsilon=0.01)
    assert_clean(at)
    shown = metric(at, "Chosen (one release)").replace("\\", "")  # shown escaped: values never become Markdown
    assert run_snippet(downloads["Python snippet"], tmp_path).strip() == shown


def test_range_query_snippet_prints_the_svt_release(downloads, tmp_path):
    at = open_page("svt", svt_view="Range queries", svt_c=4, svt_epsilon=2)
    assert_clean(at)
    page = csv(downloads["SVT release (CSV)"])
    printed = csv(run_snippet(downloads["Python snippet"], tmp_path))
    pd.testing.assert_frame_equal(printed, page)
    assert printed["passed SVT"].sum() == int(metric(at, "Queries passed: SVT / naive").split(" / ")[0])


def test_a_snippet_on_an_upload_reads_the_uploaded_file():
    from explorer import snippets
    from explorer.dataset import load_csv

    code = snippets.most_common(load_csv(b"a\nx\n", "mine.csv"), "a", 1.0, [1, 2])
    assert "load_csv(open('mine.csv', 'rb').read(), 'mine.csv')" in code and "load_demo" not in code.split("\n\n\n")[-1]


@pytest.mark.parametrize("query", ["Counts of a category", "Mean of a number"])
def test_compare_snippet_prints_the_releases_the_chart_shows(query, downloads, tmp_path):
    at = open_page("compare", cmp_query=query, cmp_epsilon=0.5)
    assert_clean(at)
    page = csv(downloads["Releases (CSV)"])
    printed = csv(run_snippet(downloads["Python snippet"], tmp_path))
    numbers = page.select_dtypes("number").columns
    assert printed.select_dtypes("number").to_numpy().tolist() == page[numbers].to_numpy().tolist()
    traces = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    traces = traces[1:] if query.startswith("Counts") else traces  # the counts chart starts with the grey truth
    shown = np.concatenate([chart_values(trace["y"]) for trace in traces])
    assert shown.tolist() == page[numbers].to_numpy().T.ravel().tolist()


@pytest.mark.parametrize(
    "link",
    [
        {"cen_query": "Count where…", "cen_where_column": "age", "cen_where_condition": "≥", "cen_where_value_age": 50},
        {"cen_query": "Count where…", "cen_where_column": "occupation", "cen_where_value_occupation": "Sales"},
        {"cen_query": "Category counts", "cen_category_column": "race", "cen_mechanism": "Gaussian"},
    ],
    ids=["age>=50", "occupation=Sales", "category-counts"],
)
def test_central_count_snippets_print_the_published_counts(link, downloads, tmp_path):
    at = open_page("central", **link)
    assert_clean(at)
    page = csv(downloads["Teaching table (CSV)"])
    printed = np.array(ast.literal_eval(run_snippet(downloads["Python snippet"], tmp_path)))
    assert printed.tolist() == page["noisy"].tolist()
    assert csv(downloads["Release (CSV)"]).iloc[:, -1].tolist() == page["noisy"].tolist()  # the release, without truth


def test_local_mean_snippet_prints_the_estimate_the_page_shows(downloads, tmp_path):
    at = open_page("local", ldp_view="Mean of a number", ldpm_epsilon=2)
    assert_clean(at)
    printed = float(run_snippet(downloads["Python snippet"], tmp_path))
    assert printed == csv(downloads["Release (CSV)"])["noisy mean"].iloc[0]
    assert metric(at, "One LDP estimate") == f"{printed:,.3f}"


def test_svt_walk_and_automatic_mean_snippets_print_the_releases(downloads, tmp_path):
    at = open_page("svt", svt_epsilon=0.5)
    assert_clean(at)
    assert float(run_snippet(downloads["Python snippet"], tmp_path)) == float(
        metric(at, "Chosen bound, one release (AboveThreshold)")
    )
    at = open_page("svt", svt_view="Automatic mean", svt_epsilon=2)
    assert_clean(at)
    mean, bound = map(float, run_snippet(downloads["Python snippet"], tmp_path).split())
    release = csv(downloads["Release (CSV)"])
    assert (mean, bound) == (release["noisy_mean"].iloc[0], release["bound"].iloc[0])


LEARNING = [
    {},
    {"lrn_ngd_clipping": "example", "lrn_ngd_epsilon": 0.5, "lrn_ngd_accounting": "RDP"},
    {"lrn_view": "DP-SGD", "lrn_sgd_part": "Training run", "lrn_sgd_batch": 512},
    {"lrn_view": "Federated averaging", "lrn_fed_clients": "occupation", "lrn_fed_rate": 0.5},
    {"lrn_view": "Federated averaging", "lrn_fed_m": 100},
]


@pytest.mark.parametrize(
    "link", LEARNING, ids=["noisy GD", "noisy GD, example clipping", "DP-SGD", "FedAvg by column", "FedAvg"]
)
def test_learning_snippet_prints_the_released_weights_and_epsilon(link, downloads, tmp_path):
    at = open_page("learning", **link)
    assert_clean(at)
    page = csv(downloads["Release: weights and ε (CSV)"])
    printed = csv(run_snippet(downloads["Python snippet"], tmp_path))
    pd.testing.assert_frame_equal(printed, page)  # the same weights, to the last bit, and the same (ε, δ)
    eps = page.set_index("parameter")["value"]["epsilon"]
    shown = [m.value for m in at.metric if m.label in ("ε spent (PLD)", "Client-level ε (PLD)")]
    assert shown == [f"{eps:.4g}"] if shown else any(f"ε = {eps:.4g}" in m.value for m in at.markdown)
