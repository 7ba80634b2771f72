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

from explorer import releases
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
    page = csv(downloads["Noisy result (CSV)"])
    printed = np.array(ast.literal_eval(run_snippet(downloads["Python snippet"], tmp_path)))
    assert printed.tolist() == page["noisy"].tolist()
    if link["cen_query"] != "Histogram":
        assert metric(at, "Noisy answer (one release)") in (f"{printed[0]:,.0f}", f"{printed[0]:.4g}")


def test_most_common_snippet_prints_the_value_the_page_chose(downloads, tmp_path):
    at = open_page("central", cen_query="Most common value", cen_em_epsilon=0.01)
    assert_clean(at)
    assert run_snippet(downloads["Python snippet"], tmp_path).strip() == metric(at, "Chosen (one release)")


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


def test_the_snippet_imports_are_the_release_modules_imports():
    import inspect

    source = inspect.getsource(releases)
    header = source[source.index("import numpy") : source.index("__all__")]
    names = sorted(n.strip(" ,()\n") for n in header.split("from dpcore import")[1].split(",") if n.strip(" ,()\n"))
    declared = releases.IMPORTS.split("from dpcore import")[1]
    assert sorted(n.strip(" ,()\n") for n in declared.split(",") if n.strip(" ,()\n")) == names


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
