"""Every downloadable snippet runs on the demo data and prints the numbers its page shows."""

from __future__ import annotations

import ast
import base64
import csv as csv_module
import io
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from explorer import export, releases, snippets
from explorer.columns import (
    condition_mask,
    encode_categories,
    is_numeric,
    numeric_values,
    parse_dates,
    period_codes,
)
from explorer.dataset import Dataset, load_csv
from explorer.export import SIMULATED_NOTE, SIMULATED_RELEASE
from explorer.features import prepare_features
from tests.apptest import PAGES, assert_clean, metric, open_page


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


#: The first line every snippet prints: what follows is simulated, not private (explorer.export's one sentence).
SAYS_SIMULATED = f"# {SIMULATED_NOTE}\n"


def run_snippet(code: str, tmp_path) -> str:
    """What ``code`` prints after its first line, which must say that the release is simulated, not private."""
    path = tmp_path / "snippet.py"
    path.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(SAYS_SIMULATED), done.stdout[:200]
    return done.stdout.removeprefix(SAYS_SIMULATED)


LABEL = ("mechanism", "epsilon", "delta", "neighbouring_relation", "unit_of_privacy")


def simulated_csv(data) -> pd.DataFrame:
    """A simulated release's file without the columns that say, on every row, that it is simulated and, where
    the view states it, the release's label (mechanism, ε, δ, relation, unit: dpcore.simulation.simulated)."""
    frame = csv(data)
    assert (frame.pop("randomness") == SIMULATED_NOTE).all()
    if "neighbouring_relation" in frame.columns:
        label = frame[list(LABEL)]
        assert label.nunique().max() == 1 and label["epsilon"].iloc[0] > 0  # one label, the same on every row
        unit = label["unit_of_privacy"].iloc[0]  # the relation is said for the unit: "add/remove one client"
        assert label["neighbouring_relation"].iloc[0] in (f"add/remove one {unit}", f"replace one {unit}")
        frame = frame.drop(columns=list(LABEL))
    return frame


def csv(data) -> pd.DataFrame:
    raw = data if isinstance(data, bytes) else data.encode()
    return pd.read_csv(io.BytesIO(raw), encoding="utf-8-sig")


@pytest.mark.parametrize(
    "link", [{"ldp_mechanism": "OUE"}, {"ldp_mechanism": "GRR", "ldp_project": "true", "ldp_epsilon": 0.5}]
)
def test_local_counts_snippet_prints_the_release_the_chart_shows(link, downloads, tmp_path):
    at = open_page("local", **link)
    assert_clean(at)
    page = simulated_csv(downloads[SIMULATED_RELEASE])
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
        assert metric(at, "Noisy answer (simulated, not private)") in (f"{printed[0]:,.0f}", f"{printed[0]:.4g}")


def test_most_common_snippet_prints_the_value_the_page_chose(downloads, tmp_path):
    at = open_page("central", cen_query="Most common value", cen_em_epsilon=0.01)
    assert_clean(at)
    # shown escaped: values never become Markdown
    shown = metric(at, "Chosen (simulated, not private)").replace("\\", "")
    assert run_snippet(downloads["Python snippet"], tmp_path).strip() == shown


def test_range_query_snippet_prints_the_svt_release(downloads, tmp_path):
    at = open_page("svt", svt_view="Range queries", svt_c=4, svt_epsilon=2)
    assert_clean(at)
    page = simulated_csv(downloads["Simulated SVT release (CSV), not private"])
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
    # the file: one block of rows per mechanism, each with its own label (tests/test_compare_files.py checks them)
    page = csv(downloads["Simulated releases (CSV), not private"])
    assert (page.pop("randomness") == SIMULATED_NOTE).all()
    printed = csv(run_snippet(downloads["Python snippet"], tmp_path))
    released = "noisy count" if query.startswith("Counts") else "noisy mean"
    per_mechanism = {name: page.loc[page["released by"] == name, released].tolist() for name in page["released by"]}
    if query.startswith("Counts"):
        assert {name: printed[name].tolist() for name in per_mechanism} == per_mechanism
    else:
        assert dict(zip(printed["mechanism"], printed["noisy mean"].map(lambda v: [v]))) == per_mechanism
    traces = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    traces = traces[1:] if query.startswith("Counts") else traces  # the counts chart starts with the grey truth
    shown = np.concatenate([chart_values(trace["y"]) for trace in traces])
    assert shown.tolist() == [v for values in per_mechanism.values() for v in values]


@pytest.mark.parametrize(
    "link",
    [
        {"cen_query": "Count where…", "cen_where_column": "age", "cen_where_condition": "≥", "cen_where_value_age": 50},
        {"cen_query": "Count where…", "cen_where_column": "occupation", "cen_where_value_occupation": "Sales"},
        {"cen_query": "Category counts", "cen_category_column": "race", "cen_mechanism": "Gaussian"},
        {
            "cen_query": "Count where…",
            "cen_where_column": "occupation",
            "cen_where_value_occupation": "Sales",
            "cen_where_and": "true",
            "cen_where2_column": "age",
            "cen_where2_condition": "<",
            "cen_where2_value_age": 30,
        },
        {"cen_query": "Two-way table", "cen_table_rows": "race", "cen_table_columns": "sex", "cen_epsilon": 0.5},
    ],
    ids=["age>=50", "occupation=Sales", "category-counts", "two-conditions", "two-way-table"],
)
def test_central_count_snippets_print_the_published_counts(link, downloads, tmp_path):
    at = open_page("central", **link)
    assert_clean(at)
    page = csv(downloads["Teaching table (CSV)"])
    printed = np.array(ast.literal_eval(run_snippet(downloads["Python snippet"], tmp_path)))
    assert printed.tolist() == page["noisy"].tolist()
    assert (
        simulated_csv(downloads[SIMULATED_RELEASE]).iloc[:, -1].tolist() == page["noisy"].tolist()
    )  # the release, without truth


def test_quantile_snippet_prints_the_value_the_page_released_and_carries_no_secret(downloads, tmp_path):
    at = open_page("central", cen_query="Quantile", cen_q=0.9, cen_epsilon=0.5)
    assert_clean(at)
    code = downloads["Python snippet"]
    page = simulated_csv(downloads[SIMULATED_RELEASE])
    printed = float(run_snippet(code, tmp_path))
    assert printed == page["released"][0]  # the same draw, to the last bit
    assert metric(at, "Released (simulated, not private)") in (f"{printed:,.0f}", f"{printed:.4g}")
    # a simulation's seed and the view's settings only: no publication, no secure noise, no session or log
    body = code.split('"""', 2)[2]  # past the header, which says how to publish instead
    assert "quantile(values, 0.9, " in code and "SecureGenerator" not in code and "publish" not in body
    assert "session" not in code and "DPX_DATA_DIR" not in code


def test_local_mean_snippet_prints_the_estimate_the_page_shows(downloads, tmp_path):
    at = open_page("local", ldp_view="Mean of a number", ldpm_epsilon=2)
    assert_clean(at)
    printed = float(run_snippet(downloads["Python snippet"], tmp_path))
    assert printed == simulated_csv(downloads[SIMULATED_RELEASE])["noisy mean"].iloc[0]
    assert metric(at, "One LDP estimate (simulated, not private)") == f"{printed:,.3f}"


def test_svt_walk_and_automatic_mean_snippets_print_the_releases(downloads, tmp_path):
    at = open_page("svt", svt_epsilon=0.5)
    assert_clean(at)
    assert float(run_snippet(downloads["Python snippet"], tmp_path)) == float(
        metric(at, "Chosen bound, simulated (AboveThreshold)")
    )
    at = open_page("svt", svt_view="Automatic mean", svt_epsilon=2)
    assert_clean(at)
    mean, bound = map(float, run_snippet(downloads["Python snippet"], tmp_path).split())
    release = simulated_csv(downloads[SIMULATED_RELEASE])
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
    page = simulated_csv(downloads["Simulated release: weights and ε (CSV), not private"])
    printed = csv(run_snippet(downloads["Python snippet"], tmp_path))
    pd.testing.assert_frame_equal(printed, page)  # the same weights, to the last bit, and the same (ε, δ)
    eps = page.set_index("parameter")["value"]["epsilon"]
    shown = [m.value for m in at.metric if m.label in ("ε spent (PLD)", "Client-level ε (PLD)")]
    assert shown == [f"{eps:.4g}"] if shown else any(f"ε = {eps:.4g}" in m.value for m in at.markdown)


# --------------------------------------------------------------------------- names and values from a hostile CSV
# A snippet is code the user runs, and its column names and values come from whoever wrote the CSV file. Every
# builder gets names and values holding each piece below; the snippet runs in a sandboxed interpreter beside the
# uploaded file and must print the release, and nothing else may happen: no file written (the payloads write one).

HOSTILE_PIECES = {
    "newline": 'nl\nopen("PWNED_NL", "w").write("1")\n#',
    "carriage return": 'cr\ropen("PWNED_CR", "w").write("1")\r#',
    "CRLF": 'crlf\r\nopen("PWNED_CRLF", "w").write("1")\r\n#',
    "quotes": "it's \"quoted\" '",
    "backslashes": "c:\\new\\ \\",
    "hash": "a # b",
    "triple single quotes": "'''; open('PWNED_TS', 'w').write('1'); '''",
    "triple double quotes": '"""; open("PWNED_TD", "w").write("1"); """',
    "line separator": 'ls\u2028open("PWNED_LS", "w").write("1")\u2028#',
    "paragraph separator": 'ps\u2029open("PWNED_PS", "w").write("1")\u2029#',
    "form feed": 'ff\x0copen("PWNED_FF", "w").write("1")\x0c#',
    "payload": 'x\nopen("PWNED", "w").write("1")\n#',
}
EVIL = " ".join(HOSTILE_PIECES.values())
TEXT, NUMBER, TARGET = "text " + EVIL, "number " + EVIL, "target " + EVIL
DATE = "date " + EVIL
CATEGORIES = ("a " + EVIL, "b " + EVIL, "plain")
LABELS = ("yes " + EVIL, "no " + EVIL)
#: The upload's file name, which the snippet opens (a file name may hold anything but "/" and NUL, in 255 bytes).
FILE_NAME = 'up\nopen("PWNED_FILE", "w").write("1")\n#\r\u2028\'"\\ #.csv'
SEED = [7, 11]
#: The variables that fix how many threads numpy's BLAS uses: the snippet computes as this process does.
THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def table_csv(rows: list[list]) -> bytes:
    """CSV bytes quoted as a spreadsheet writes them (quotes doubled, line breaks inside quoted fields)."""
    out = io.StringIO(newline="")
    csv_module.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue().encode("utf-8")


def hostile_upload() -> tuple[bytes, Dataset]:
    """A table whose column names and text values hold every hostile piece, read as an upload is."""
    rng = np.random.default_rng(0)
    rows = [[TEXT, NUMBER, TARGET, DATE]]
    for i in range(240):
        number = int(rng.integers(0, 100))
        day = f"{2022 + i % 3}-{i % 12 + 1:02d}-{i % 28 + 1:02d}"
        rows.append([CATEGORIES[i % 3], number, LABELS[int(number + rng.integers(0, 40) < 70)], day])
    raw = table_csv(rows)
    return raw, load_csv(raw, FILE_NAME)


def files_under(root) -> set:
    return {p.relative_to(root) for p in root.rglob("*")}


def run_sandboxed(code: str, raw: bytes, name: str, tmp_path) -> tuple[subprocess.CompletedProcess, set]:
    """Run ``code`` as a user runs a downloaded file, beside the upload; the process and the files it made.

    Isolated mode (no environment variables of Python's, no user site, no script directory on the path), no
    bytecode written, a minimal environment, a fresh working directory holding the upload, a timeout. The
    output is kept as bytes, so that a carriage return it prints is not read as a newline.
    """
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir(parents=True)
    (sandbox / name).write_bytes(raw)
    (sandbox / "snippet.py").write_bytes(code.encode("utf-8"))  # as downloaded: no newline translation
    before = files_under(tmp_path)
    env = {"PATH": os.defpath, "HOME": str(sandbox), "LC_ALL": "C.UTF-8"}
    env |= {k: os.environ[k] for k in THREADS if k in os.environ}
    done = subprocess.run(
        [sys.executable, "-I", "-B", "-X", "utf8", "snippet.py"], cwd=sandbox, env=env, capture_output=True, timeout=120
    )
    return done, files_under(tmp_path) - before


def table_printed(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False) + "\n"


def counts_printed(result) -> str:
    """A central release as its snippet prints it: rounded by explorer.export's one rule, as the page shows it."""
    std = result.approx_std if hasattr(result, "approx_std") else result.mechanism.std
    return f"{np.atleast_1d(export.rounded(result.noisy_value, std, result.query)).tolist()}\n"


def codes_of(ds: Dataset, column: str):
    codes, labels, _ = encode_categories(ds.frame[column])
    return codes, labels


def values_of(ds: Dataset, column: str) -> np.ndarray:
    return numeric_values(ds.frame[column])[0]


def model_case(method: str, settings: dict, target: str, label: dict, features: tuple):
    """A private_model case: the snippet, and what the release function prints when called here."""

    def printed(ds: Dataset) -> str:
        f = prepare_features(ds.frame, target, **label, features=list(features), rng=np.random.default_rng([3, 5]))
        _, weights = releases.private_model(
            method, f.X_train, f.y_train, f.feature_names, settings, SEED, draws=2, X_test=f.X_test, y_test=f.y_test
        )
        return table_printed(weights)

    return lambda ds: snippets.private_model(ds, target, label, features, (3, 5), method, settings, SEED, 2), printed


NGD = {"epsilon": 1.0, "delta": 1e-5, "iterations": 3, "clip": 1.0, "learning_rate": 1.0, "accounting": "rdp"}
SGD = {"noise_multiplier": 1.0, "sampling_rate": 0.2, "steps": 4, "clip": 1.0, "delta": 1e-5, "history_every": 2}
FED = {"rounds": 2, "client_rate": 1.0, "local_steps": 1, "clip": 1.0, "noise_multiplier": 1.0, "delta": 1e-5}
SVT_SEEDS = [[1, 2], [3, 4], [5, 6]]

#: Two of Compare's quantile mechanisms, by the names the page shows (explorer.compare_quantiles.MECHANISMS).
QUANTILE_MECHANISMS = ["Exponential mechanism (central)", "Laplace histogram's CDF (central)"]

#: Each case: the snippet built on the hostile upload, and what the same release function prints in this process.
HOSTILE_CASES = {
    "local_counts": (
        lambda ds: snippets.local_counts(ds, TEXT, "OUE", 1.0, SEED, True),
        lambda ds: table_printed(releases.local_counts(*codes_of(ds, TEXT), "OUE", 1.0, SEED, valid_histogram=True)),
    ),
    "local_mean": (
        lambda ds: snippets.local_mean(ds, NUMBER, 0.0, 100.0, 1.0, SEED),
        lambda ds: f"{releases.local_mean(values_of(ds, NUMBER), 0.0, 100.0, 1.0, SEED)}\n",
    ),
    "central_query histogram": (
        lambda ds: snippets.central_query(
            ds, NUMBER, "histogram", 1.0, SEED, noise="gaussian", delta=1e-6, lower=0.0, upper=90.0, bins=6
        ),
        lambda ds: counts_printed(
            releases.central_query(
                values_of(ds, NUMBER), "histogram", 1.0, SEED, "gaussian", 1e-6, lower=0.0, upper=90.0, bins=6
            )
        ),
    ),
    "central_query mean": (
        lambda ds: snippets.central_query(
            ds, NUMBER, "mean", 1.0, SEED, noise="laplace", delta=None, lower=0.0, upper=90.0, split=0.3
        ),
        lambda ds: counts_printed(
            releases.central_query(values_of(ds, NUMBER), "mean", 1.0, SEED, lower=0.0, upper=90.0, split=0.3)
        ),
    ),
    "count_matching text": (
        lambda ds: snippets.count_matching(ds, TEXT, "is", CATEGORIES[1], 1.0, SEED, "laplace", None),
        lambda ds: counts_printed(
            releases.count_matching(condition_mask(ds.frame[TEXT], "is", CATEGORIES[1]), 1.0, SEED, "laplace", None)
        ),
    ),
    "count_matching number": (
        lambda ds: snippets.count_matching(ds, NUMBER, "≥", 50.0, 1.0, SEED, "gaussian", 1e-6),
        lambda ds: counts_printed(
            releases.count_matching(condition_mask(ds.frame[NUMBER], "≥", 50.0), 1.0, SEED, "gaussian", 1e-6)
        ),
    ),
    "category_counts": (
        lambda ds: snippets.category_counts(ds, TEXT, 1.0, SEED, "gaussian", 1e-6),
        lambda ds: counts_printed(releases.category_counts(*codes_of(ds, TEXT), 1.0, SEED, "gaussian", 1e-6)),
    ),
    "count_matching two conditions": (
        lambda ds: snippets.count_matching(
            ds, TEXT, "is", CATEGORIES[1], 1.0, SEED, "laplace", None, second=(NUMBER, "≥", 50.0)
        ),
        lambda ds: counts_printed(
            releases.count_matching_all(
                [condition_mask(ds.frame[TEXT], "is", CATEGORIES[1]), condition_mask(ds.frame[NUMBER], "≥", 50.0)],
                1.0,
                SEED,
                "laplace",
                None,
            )
        ),
    ),
    "two_way_table": (
        lambda ds: snippets.two_way_table(ds, TEXT, TARGET, 1.0, SEED, "gaussian", 1e-6),
        lambda ds: counts_printed(
            releases.two_way_table(codes_of(ds, TEXT)[0], codes_of(ds, TARGET)[0], (3, 2), 1.0, SEED, "gaussian", 1e-6)
        ),
    ),
    "period_counts": (
        lambda ds: snippets.period_counts(ds, DATE, "month", 2022, 2023, 1.0, SEED, "laplace", None),
        lambda ds: counts_printed(
            releases.category_counts(*period_codes(parse_dates(ds.frame[DATE]), "month", 2022, 2023), 1.0, SEED)
        ),
    ),
    "quantile": (
        lambda ds: snippets.quantile(ds, NUMBER, 0.5, 0.0, 100.0, 1.0, SEED),
        lambda ds: f"{releases.quantile(values_of(ds, NUMBER), 0.5, 0.0, 100.0, 1.0, SEED).noisy_value}\n",
    ),
    "most_common": (
        lambda ds: snippets.most_common(ds, TEXT, 1.0, SEED),
        lambda ds: f"{releases.most_common(*codes_of(ds, TEXT), 1.0, SEED)}\n",
    ),
    "range_queries": (
        lambda ds: snippets.range_queries(ds, NUMBER, np.float64(0.0), np.float64(99.0), 12, 20.0, 3, 1.0, SVT_SEEDS),
        lambda ds: table_printed(
            releases.range_queries(values_of(ds, NUMBER), 0.0, 99.0, 12, 20.0, 3, 1.0, SVT_SEEDS)[
                ["range", "passed SVT", "SVT answer"]
            ]
        ),
    ),
    "clipping_bound": (
        lambda ds: snippets.clipping_bound(ds, NUMBER, 128.0, 8, 1.0, SEED),
        lambda ds: f"{releases.clipping_bound(values_of(ds, NUMBER), 128.0, 8, 1.0, SEED)}\n",
    ),
    "automatic_mean": (
        lambda ds: snippets.automatic_mean(ds, NUMBER, 128.0, np.int64(8), 1.0, SEED),
        lambda ds: "{0.noisy_value} {0.bound}\n".format(
            releases.automatic_mean(values_of(ds, NUMBER), 128.0, 8, 1.0, SEED)
        ),
    ),
    "compare_counts": (
        lambda ds: snippets.compare_counts(ds, TEXT, releases.COUNT_MECHANISMS, 1.0, 1e-6, SEED, "replace one record"),
        lambda ds: table_printed(
            releases.compare_counts(
                *codes_of(ds, TEXT), releases.COUNT_MECHANISMS, 1.0, 1e-6, SEED, "replace one record"
            )
        ),
    ),
    "compare_means": (
        lambda ds: snippets.compare_means(ds, NUMBER, 0.0, 90.0, releases.MEAN_MECHANISMS, 1.0, 1e-6, SEED),
        lambda ds: table_printed(
            releases.compare_means(values_of(ds, NUMBER), 0.0, 90.0, list(releases.MEAN_MECHANISMS), 1.0, 1e-6, SEED)
        ),
    ),
    "compare_quantiles": (
        lambda ds: snippets.compare_quantiles(ds, NUMBER, 0.5, 0.0, 90.0, 20, QUANTILE_MECHANISMS, 1.0, 1e-6, SEED),
        lambda ds: table_printed(
            releases.compare_quantiles(values_of(ds, NUMBER), 0.5, 0.0, 90.0, 20, QUANTILE_MECHANISMS, 1.0, 1e-6, SEED)
        ),
    ),
    "private_model noisy GD": model_case(
        "noisy gradient descent", NGD, TARGET, {"positive": LABELS[0]}, (NUMBER, TEXT)
    ),
    "private_model DP-SGD": model_case("DP-SGD", SGD, TARGET, {"positive": LABELS[0]}, (NUMBER, TEXT)),
    "private_model FedAvg by column": model_case(
        "DP-FedAvg", FED | {"clients": TEXT}, TARGET, {"positive": LABELS[0]}, (NUMBER, TEXT)
    ),
    "private_model FedAvg, threshold label": model_case(
        "DP-FedAvg", FED | {"clients": 3}, NUMBER, {"threshold": 50.0}, (TEXT, TARGET)
    ),
}


@pytest.fixture(scope="module")
def hostile():
    """The hostile upload's bytes and Dataset, checked to hold the hostile names and values unchanged."""
    raw, ds = hostile_upload()
    assert list(ds.frame.columns) == [TEXT, NUMBER, TARGET, DATE]  # the names survived the reader, every piece in them
    assert set(ds.frame[TEXT]) == set(CATEGORIES) and set(ds.frame[TARGET]) == set(LABELS)
    assert is_numeric(ds.frame[NUMBER]) and ds.name == FILE_NAME
    return raw, ds


def test_every_snippet_builder_meets_the_hostile_upload():
    assert {name.split(" ")[0] for name in HOSTILE_CASES} == set(snippets.__all__)


def test_every_snippet_says_it_reproduces_a_simulated_release_and_how_to_publish_instead(hostile):
    """Every builder (HOSTILE_CASES covers snippets.__all__, above); each case runs in the test below and prints
    SAYS_SIMULATED first. Builds only: about 0.1 s."""
    _, ds = hostile
    for case, (build, _) in HOSTILE_CASES.items():
        code = build(ds)
        header = ast.get_docstring(ast.parse(code))
        assert header.startswith("Reproduce a SIMULATED DP Explorer release"), case
        assert SIMULATED_NOTE[1:] in header and "not private" in header, case  # explorer.export's one sentence
        assert "Publish section" in header and "python -m dpx_publish publish plan.json data.csv" in header, case
        assert code.count("print('#', SIMULATED_NOTE)") == 1, case


@pytest.mark.parametrize("case", HOSTILE_CASES)
def test_a_snippet_on_a_hostile_upload_prints_the_release_and_runs_nothing_else(case, hostile, tmp_path):
    raw, ds = hostile
    build, printed = HOSTILE_CASES[case]
    code = build(ds)
    done, created = run_sandboxed(code, raw, FILE_NAME, tmp_path)
    assert not created, created  # no marker file, nor anything else
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.decode("utf-8") == SAYS_SIMULATED + printed(ds)  # simulated: the release, and nothing more
    for char in "\r\x0c\u2028\u2029":  # every line break but the snippet's own \n is escaped in a literal
        assert char not in code
    calls = [n.func.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    assert calls.count("open") == 1  # the upload read by _load; the payloads' open(...) stayed inside literals


# The three reproductions of the security review, each on the Central DP page's "Count where…" view: the
# downloaded snippet runs as it must, and the old form of its condition line (the column and value in a raw
# comment), built here by hand, runs the payload: the upload kept it and this test would have caught the bug.
PAYLOAD = 'x\nopen("PWNED", "w").write("1")\n#'
REPORTED = {
    "newline in a column name": ("city" + PAYLOAD, "Paris", [["city" + PAYLOAD, "n"], ["Paris", 1], ["Lyon", 2]]),
    "newline in a value": ("city", "Paris" + PAYLOAD, [["city", "n"], ["Paris" + PAYLOAD, 1], ["Lyon", 2]]),
    "carriage return in a value": (
        "city",
        "Paris" + PAYLOAD.replace("\n", "\r"),
        [["city", "n"], ["Paris" + PAYLOAD.replace("\n", "\r"), 1], ["Lyon", 2]],
    ),
}


@pytest.mark.parametrize("report", REPORTED)
def test_the_reported_count_where_snippets_run_no_code_from_the_csv(report, downloads, tmp_path):
    column, value, rows = REPORTED[report]
    raw = table_csv(rows + [["Lyon", 3], ["Nice", 4]] * 20)
    at = open_page("data")
    at.file_uploader(key="data_upload").upload("cities.csv", raw, "text/csv").run()
    at.switch_page(PAGES["central"]).run()
    at.radio(key="cen_query").set_value("Count where…").run()
    at.selectbox(key="cen_where_column").set_value(column).run()
    at.selectbox(key=f"cen_where_value_{column}").set_value(value).run()
    assert_clean(at)
    code = downloads["Python snippet"]
    done, created = run_sandboxed(code, raw, "cities.csv", tmp_path / "safe")
    assert done.returncode == 0 and not created, (created, done.stderr.decode()[-2000:])
    page = csv(downloads["Teaching table (CSV)"])
    assert ast.literal_eval(done.stdout.decode("utf-8")) == page["noisy"].tolist()

    line = f"mask = condition_mask(ds.frame[{column!r}], 'is', {value!r})"
    assert line + "\n" in code
    unsafe = code.replace(line, f"{line}  # {column} is {value}")  # the old form
    _, created = run_sandboxed(unsafe, raw, "cities.csv", tmp_path / "unsafe")
    assert created == {pathlib.Path("sandbox/PWNED")}


def test_a_snippet_writes_every_value_as_a_literal_that_reads_back():
    from explorer.snippets import _literal

    for piece in [*HOSTILE_PIECES.values(), EVIL, FILE_NAME, "\x85\x1c\x1d\x1e\x0b\t\x00"]:
        text = _literal(piece)
        assert ast.literal_eval(text) == piece and text.isprintable()  # no raw line break of any kind
        assert not any(c in text for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
    assert _literal(np.float64(0.5)) == "0.5" and _literal(np.int64(3)) == "3" and _literal(np.str_("a")) == "'a'"
    assert _literal(np.array([1, 2])) == "[1, 2]" and _literal(np.bool_(True)) == "True"
    assert _literal({"clients": "a\nb", "rounds": (1, None)}) == "{'clients': 'a\\nb', 'rounds': (1, None)}"

    class Sly(str):
        def __repr__(self):
            return "__import__('os').system('x')"

    for refused in (Sly("a"), {1, 2}, b"a", pd.Timestamp(0), object(), [1, object()]):
        with pytest.raises(TypeError, match="must be a str, int, float, bool or None"):
            _literal(refused)
    for refused in (float("nan"), float("inf"), [1.0, -np.inf]):
        with pytest.raises(ValueError, match="must be finite"):
            _literal(refused)
    with pytest.raises(ValueError, match="option must be one of"):
        snippets.central_query(load_csv(b"a\n1\n"), "a", "count", 1.0, SEED, **{"noise=0)\nopen('x','w')#": 1})
