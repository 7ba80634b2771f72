"""Tests for dpx_publish: the package of a published plan and the command line, run as a user would run them."""

import io
import json
import math
import os
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpcore.plan import Plan, Statistic, allocate
from dpcore.plan_release import publish_plan, simulate_plan
from dpx_publish.cli import EXIT_REFUSED, main
from dpx_publish.package import FILES, build_package
from explorer.publication_log import PublicationLog

ROOT = Path(__file__).resolve().parents[1]
EDU = ["HS-grad", "Some-college", "Bachelors", "Masters", "Doctorate"]
HOSTILE = '<script>alert("x")</script><img src="http://example.com/x.png">'


def _plan(**changes):
    plan = {
        "version": 1,
        "title": "Adult: education and age",
        "unit": {"identifier": None},
        "total": {"epsilon": 1.0, "delta": 0},
        "policy": "equal",
        "confidence": 0.95,
        "statistics": [
            {
                "name": "count per education",
                "kind": "counts",
                "column": "education",
                "domain": [*EDU, "=HYPERLINK(1)"],
                "other": True,
                "provenance": HOSTILE,
                "target": 20,
            },
            {
                "name": "mean age",
                "kind": "mean",
                "column": "age",
                "lower": 17,
                "upper": 90,
                "planned_n": 2000,
                "provenance": "UCI Adult codebook",
                "target": 2,
            },
        ],
    }
    plan.update(changes)
    return plan


@pytest.fixture
def files(tmp_path):
    rows = [f"{EDU[i % 5]},{17 + (i * 7) % 70}" for i in range(2_000)]
    data = tmp_path / "adult.csv"
    data.write_text("education,age\n" + "\n".join(rows) + "\n")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(_plan()))
    return tmp_path, plan, data


def _publish(tmp_path, plan, data, out="release.zip", capsys=None):
    code = main(["publish", str(plan), str(data), "--out", str(tmp_path / out), "--log", str(tmp_path / "log.db")])
    return code


def _unzip(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


def _spent(tmp_path, data) -> tuple[float, float]:
    import hashlib

    fingerprint = hashlib.sha256(data.read_bytes()).hexdigest()[:8]
    return tuple(PublicationLog(tmp_path / "log.db").spent(fingerprint))


def test_publishing_twice_gives_fresh_noise_same_structure_and_two_charges(files):
    tmp_path, plan, data = files
    assert _publish(tmp_path, plan, data, "one.zip") == 0
    assert _publish(tmp_path, plan, data, "two.zip") == 0
    one, two = _unzip(tmp_path / "one.zip"), _unzip(tmp_path / "two.zip")
    assert list(one) == list(two) == list(FILES)
    a = pd.read_csv(io.BytesIO(one["release.csv"]), encoding="utf-8-sig")
    b = pd.read_csv(io.BytesIO(two["release.csv"]), encoding="utf-8-sig")
    assert list(a.columns) == list(b.columns)
    assert a[["statistic", "label"]].equals(b[["statistic", "label"]])
    assert not a["released value"].equals(b["released value"])
    assert _spent(tmp_path, data) == pytest.approx((2.0, 0.0))


def test_release_csv_is_spreadsheet_safe_and_holds_published_numbers_only(files):
    tmp_path, plan, data = files
    assert _publish(tmp_path, plan, data) == 0
    table = pd.read_csv(io.BytesIO(_unzip(tmp_path / "release.zip")["release.csv"]), encoding="utf-8-sig")
    assert "'=HYPERLINK(1)" in set(table["label"])  # neutralised: a spreadsheet shows it as text
    assert list(table.columns) == ["statistic", "label", "released value", "expected error (±)", "error unit"]
    truth = pd.read_csv(data)
    mean = table.loc[table["statistic"] == "mean age", "released value"].iloc[0]
    assert mean != truth["age"].mean()


def test_report_states_every_parameter(files):
    tmp_path, plan, data = files
    assert _publish(tmp_path, plan, data) == 0
    report = json.loads(_unzip(tmp_path / "release.zip")["report.json"])
    assert report["unit_of_privacy"]["unit"] == "record"
    assert report["neighbouring_relation"] == "add/remove one record"
    assert report["total"]["epsilon"] == pytest.approx(1.0) and report["total"]["delta"] == 0.0
    assert "basic composition" in report["accountant"]
    assert report["software"]["version"] and report["created"]
    assert len(report["publication_id"]) == 16 and "fingerprint" not in report["dataset"]
    assert report["publication_log"].endswith("log.db")
    for s in report["statistics"]:
        assert s["epsilon"] == pytest.approx(0.5) and s["delta"] == 0.0
        assert "Laplace, scale b" in " ".join(s["noise"]) and "lattice" in s["mechanism"]
        assert s["expected_error"] > 0
        assert all(f["source"] in ("declared", "fixed", "relation", "released") for f in s["public_facts"])
    facts = {f["name"]: f for f in report["statistics"][1]["public_facts"]}
    assert {"clipping bounds", "planned number of records (for the expected error only)"} <= set(facts)
    planned = facts["planned number of records (for the expected error only)"]
    assert planned["value"] == "2,000" and planned["source"] == "declared" and planned["from"] == "UCI Adult codebook"
    assert report["statistics"][0]["provenance"] == HOSTILE
    mean = report["statistics"][1]
    (count,) = mean["released_count"]  # the mean's denominator, released with it (2,000 rows)
    assert abs(count - 2_000) < 100 and mean["error_at_released_count"][0] > 0
    assert f"at the released count of {count:,} records" in mean["error_at_released_count_in_words"]


#: Simulated publications of a plan, and the tolerance of a 95% coverage over them: 4 binomial standard deviations
#: (±0.0087 at 10⁴; a false alarm per proportion about 6·10⁻⁵).
TRIALS = 10_000
COVERAGE_TOL = 4 * math.sqrt(0.95 * 0.05 / TRIALS)


def _stated_and_simulated(plan, table, seed: int):
    """report.json of one publication of ``plan`` on ``table`` (secure noise, as published), and the errors of
    :data:`TRIALS` seeded simulated publications of it (simulated, not private)."""
    allocation = allocate(plan)
    release = publish_plan(allocation, table)
    with zipfile.ZipFile(io.BytesIO(build_package(release))) as z:
        report = json.loads(z.read("report.json"))
    return report, simulate_plan(allocation, table, seed, TRIALS).errors()


def _adult_plan(n: int) -> Plan:
    census = pd.read_csv(ROOT / "data" / "census.csv")
    levels = tuple(sorted(census["education"].dropna().unique()))  # the codebook's levels (the demo's, all present)
    return Plan(
        (
            Statistic("count per education", "counts", column="education", domain=levels),
            Statistic("mean age", "mean", column="age", lower=17, upper=90, planned_n=n),
        ),
        epsilon=1.0,
    ), census


def test_the_reports_errors_match_ten_thousand_simulated_publications_of_the_adult_plan():
    """Issue 21: counts per education level and the mean age at ε = 1 on the census demo (32,561 rows), simulated
    10⁴ times (seeded: simulated, not private): each count's stated 95% error covers 95% of its errors within
    sampling error (it is the noise's own quantile); the mean's, stated at the planned n and at the released count,
    is a bound over every table within the declared bounds, so it covers at least 95% (98% here: the mean age 38.6
    is far from the worst case, 90). ~3 s."""
    plan, census = _adult_plan(32_561)
    report, errors = _stated_and_simulated(plan, census, seed=2021)
    counts, mean = report["statistics"]
    coverage = (errors[0] <= counts["expected_error"]).mean(axis=0)
    assert len(coverage) == 16 and np.all(np.abs(coverage - 0.95) <= COVERAGE_TOL), coverage
    for stated in (mean["expected_error"], *mean["error_at_released_count"]):
        assert (errors[1] <= stated).mean() >= 0.95 - COVERAGE_TOL
    assert "at most" in mean["expected_error_in_words"] and "whatever the values" in mean["expected_error_in_words"]
    assert "at most" not in counts["expected_error_in_words"]  # an exact quantile, not a bound


def test_a_means_stated_error_is_reached_at_the_worst_case_table():
    """The mean's stated error puts the mean at the bound of largest magnitude: on a table whose mean is 89.5 of
    [17, 90] (half the ages 90, half 89; no clipping within reach of the noise) it covers 95% of the errors within
    sampling error, at the planned n (the table's size) and at the released count. ~2 s."""
    plan, census = _adult_plan(32_561)
    worst = pd.DataFrame({"education": census["education"], "age": np.where(np.arange(len(census)) % 2, 89, 90)})
    report, errors = _stated_and_simulated(plan, worst, seed=2022)
    mean = report["statistics"][1]
    for stated in (mean["expected_error"], *mean["error_at_released_count"]):
        assert abs((errors[1] <= stated).mean() - 0.95) <= COVERAGE_TOL


def test_report_html_is_self_contained_and_escapes_user_strings(files):
    tmp_path, plan, data = files
    assert _publish(tmp_path, plan, data) == 0
    page = _unzip(tmp_path / "release.zip")["report.html"].decode()
    assert "<script" not in page and "<img" not in page and "<link" not in page
    assert "&lt;script&gt;" in page
    assert "src=" not in page.replace("src=&quot;", "")  # the only src is the escaped one
    assert "default-src 'none'" in page


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda p: p["statistics"][1].update(column="salary"), "column 'salary', which the data does not have"),
        (lambda p: p["statistics"][0].pop("domain"), "declared domain"),
        (lambda p: p.update(policy="accuracy", total={"epsilon": 0.01, "delta": 0}), "below the"),
        (lambda p: p["statistics"][0].update(kind="histogram"), "declared bounds"),
    ],
)
def test_a_bad_plan_gets_one_sentence_nothing_charged_nothing_written(files, capsys, change, words):
    tmp_path, plan, data = files
    content = _plan()
    change(content)
    plan.write_text(json.dumps(content))
    assert _publish(tmp_path, plan, data) == EXIT_REFUSED
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err and "Traceback" not in err
    assert not (tmp_path / "release.zip").exists()
    if (tmp_path / "log.db").exists():
        assert _spent(tmp_path, data) == (0.0, 0.0)


def test_over_the_logs_budget_is_refused_before_the_draw(files, capsys):
    tmp_path, plan, data = files
    plan.write_text(json.dumps(_plan(total={"epsilon": 3.0, "delta": 0})))
    assert _publish(tmp_path, plan, data, "one.zip") == 0
    assert _publish(tmp_path, plan, data, "two.zip") == EXIT_REFUSED  # 3 + 3 > the log's default budget of 5
    assert "over its budget" in capsys.readouterr().err
    assert not (tmp_path / "two.zip").exists()
    assert _spent(tmp_path, data) == pytest.approx((3.0, 0.0))


def test_invalid_json_and_missing_file(files, capsys):
    tmp_path, plan, data = files
    plan.write_text("{not json")
    assert _publish(tmp_path, plan, data) == EXIT_REFUSED
    assert "not valid JSON (line 1" in capsys.readouterr().err
    assert main(["plan", str(tmp_path / "nope.json")]) == EXIT_REFUSED
    assert "cannot be read" in capsys.readouterr().err


def test_plan_command_reads_no_data(files, capsys):
    _, plan, _ = files
    assert main(["plan", str(plan)]) == 0
    out = capsys.readouterr().out
    assert "total ε = 1" in out and "count per education: ε = 0.5" in out


def _run(args, cwd, env=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_command_line_and_the_packaged_script_in_fresh_processes(files):
    tmp_path, plan, data = files
    log = str(tmp_path / "log.db")
    first = _run(["-m", "dpx_publish", "publish", str(plan), str(data), "--out", "first.zip", "--log", log], tmp_path)
    assert first.returncode == 0, first.stderr
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(tmp_path / "first.zip") as z:
        z.extractall(unpacked)
    again = _run([str(unpacked / "rerun_plan.py"), str(data), "--out", "again.zip", "--log", log], tmp_path)
    assert again.returncode == 0, again.stderr
    one, two = _unzip(tmp_path / "first.zip"), _unzip(tmp_path / "again.zip")
    assert json.loads(one["plan.json"]) == json.loads(two["plan.json"])
    assert one["release.csv"] != two["release.csv"]
    bad = _run(["-m", "dpx_publish", "publish", str(plan), str(tmp_path / "none.csv"), "--out", "x.zip"], tmp_path)
    assert bad.returncode == EXIT_REFUSED and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def _have_browser() -> bool:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    from tests.browser import chromium_path

    return chromium_path() is not None


@pytest.mark.browser
@pytest.mark.skipif(not _have_browser(), reason="needs Debian's chromium and Playwright's Python client")
def test_report_opens_in_a_browser_with_no_request_leaving_the_machine(files):
    from tests.browser import launch_browser

    tmp_path, plan, data = files
    assert _publish(tmp_path, plan, data) == 0
    with zipfile.ZipFile(tmp_path / "release.zip") as z:
        z.extractall(tmp_path / "package")
    report = tmp_path / "package" / "report.html"
    requests = []
    with launch_browser() as browser:
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.on("request", lambda r: requests.append(r.url))
        page.goto(report.as_uri())
        page.wait_for_load_state("networkidle")
        text = page.inner_text("body")
        artifacts = ROOT / "test-artifacts" / "browser"
        artifacts.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(artifacts / "dpx_publish_report.png"), full_page=True)
    assert requests == [report.as_uri()]
    assert HOSTILE in text  # shown as text, not run or loaded
    assert "Privacy label" in text and "count per education" in text


def test_a_plan_whose_source_says_a_fact_was_read_from_the_data_is_not_published(files, capsys):
    tmp_path, plan_path, data_path = files
    plan = _plan()
    plan["statistics"][0]["provenance"] = "Categories read from this file's values: not private"
    plan_path.write_text(json.dumps(plan))
    assert _publish(tmp_path, plan_path, data_path) == 2
    assert "read from the data" in capsys.readouterr().err
    assert not (tmp_path / "release.zip").exists()
    if (tmp_path / "log.db").exists():  # opened, never charged
        with sqlite3.connect(tmp_path / "log.db") as conn:
            assert conn.execute("SELECT COUNT(*) FROM publications").fetchone()[0] == 0


# --------------------------------------------------------------------------- the budget command (issue 18)
# Raising a dataset's publication budget is the operator's act, on the server: `python -m dpx_publish budget`.
# The app's page may only lower it (tests/test_page_publication_budget.py). Each test below takes about 0.1 s.


def _budget(data, *options, log=None) -> int:
    return main(["budget", str(data), *options, *(["--log", str(log)] if log else [])])


def test_budget_command_sets_the_budget_the_app_charges_and_says_the_old_and_the_new(files, capsys, monkeypatch):
    from explorer.dataset import load_csv
    from explorer.publication_log import DEFAULT_DELTA, DEFAULT_EPSILON, FILE_NAME

    tmp_path, _, data = files
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path / "server"))  # no --log: the log in the app's data folder
    assert _budget(data, "--epsilon", "8", "--reason", "a second release round") == 0
    said = capsys.readouterr().out
    old = f"ε = {DEFAULT_EPSILON:.6g}, δ = {DEFAULT_DELTA:.3g}"
    assert f"was {old} and is now ε = 8, δ = {DEFAULT_DELTA:.3g}" in said
    log = PublicationLog(tmp_path / "server" / FILE_NAME)
    fingerprint = load_csv(data.read_bytes(), data.name).fingerprint  # the key the app keeps an upload's budget under
    assert tuple(log.budget(fingerprint)) == (8.0, DEFAULT_DELTA)
    change = json.loads(log.to_json(fingerprint))["budget_changes"][-1]
    assert (change["reason"], change["previous_epsilon"], change["epsilon"]) == (
        "a second release round",
        DEFAULT_EPSILON,
        8.0,
    )
    assert _budget(data, "--epsilon", "2", "--delta", "1e-6", "--reason", "lowered") == 0  # and lowered, δ too
    assert tuple(log.budget(fingerprint)) == (2.0, 1e-6)
    assert "is now ε = 2, δ = 1e-06" in capsys.readouterr().out


def test_budget_command_never_goes_below_what_was_spent(files, capsys):
    tmp_path, plan, data = files
    assert _publish(tmp_path, plan, data) == 0  # the plan spends ε = 1
    assert _budget(data, "--epsilon", "0.5", "--reason", "r", log=tmp_path / "log.db") == EXIT_REFUSED
    assert "already spent" in capsys.readouterr().err
    assert _spent(tmp_path, data) == pytest.approx((1.0, 0.0))


@pytest.mark.parametrize(
    "options, said",
    [
        (("--epsilon", "0"), "--epsilon must be in (0, inf), got 0.0."),
        (("--epsilon", "-1"), "--epsilon must be in (0, inf), got -1.0."),
        (("--epsilon", "nan"), "--epsilon must be in (0, inf), got nan."),
        (("--epsilon", "lots"), "--epsilon must be a number, got 'lots'."),
        (("--epsilon", "3", "--delta", "1"), "--delta must be in [0, 1), got 1.0."),
    ],
    ids=["zero", "negative", "nan", "text", "delta 1"],
)
def test_budget_command_refuses_bad_numbers_in_one_sentence_with_exit_code_2(options, said, files, capsys):
    tmp_path, _, data = files
    assert _budget(data, *options, "--reason", "r", log=tmp_path / "log.db") == EXIT_REFUSED
    err = capsys.readouterr().err
    assert err == said + "\n"  # one sentence, no traceback
    assert not (tmp_path / "log.db").exists()  # refused before the log was opened


def test_budget_command_refuses_a_missing_file_or_reason_in_one_sentence_with_exit_code_2(files, capsys):
    tmp_path, _, data = files
    for target, reason, said in [
        (tmp_path / "nope.csv", "r", "The data file '{}' cannot be read (No such file or directory)."),
        (tmp_path, "r", "The data file '{}' cannot be read (Is a directory)."),
        (data, "  ", "--reason must say why the budget changes (the log keeps it with the change), got ''."),
    ]:
        assert _budget(target, "--epsilon", "3", "--reason", reason, log=tmp_path / "log.db") == EXIT_REFUSED
        assert capsys.readouterr().err == said.format(target) + "\n"
    assert not (tmp_path / "log.db").exists()
