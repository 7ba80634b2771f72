"""The Learning page's Publish section: a model from declared features, one secure draw, charged before it is shown.

The three attacks of issue 18, run against the page's publication path at T = 1, where the published
coefficients are ``−η γ (m + Z) / n̂``: the released sum ``γ (m + Z)`` is read back exactly from the coefficients
and the released noisy count, so each attack's estimate of the true rounded sum ``m`` is compared with it in
grid steps. Recomputing the noise from the link's seed, combining publications at ε and ε/2, and subtracting two
publications of the same settings each leave noise of the stated law (its χ² statistic between the quantiles at
10⁻⁶ and 1 − 10⁻⁶), never the truth.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2

from dpcore.learning.logistic import LogisticDesign
from dpcore.learning.published import lattice_gd_noise, lattice_gradient_descent, rounded_gradient_sum
from explorer import publishing, state
from explorer.dataset import load_demo
from explorer.features import CategoricalDeclaration, NumericDeclaration, declared_features
from tests.apptest import open_page

CENSUS = load_demo("census")
SEED = 2017  # the sidebar's default seed
TAIL = 1e-6  # a χ² check fails by chance with probability 2e-6
RACES = ("White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other")
FEATURES = ["age", "hours-per-week", "sex", "race"]
SCHEMA = [
    NumericDeclaration("age", 17, 90),
    NumericDeclaration("hours-per-week", 1, 99),
    CategoricalDeclaration("sex", ("Female", "Male")),
    CategoricalDeclaration("race", RACES),
]
NAMES = ("age", "hours-per-week", "sex=Female", "sex=Male", *(f"race={r}" for r in RACES), "(intercept)")
CLIP, ETA = 2.0, 2.0  # the view's defaults of C and the step size
DELTA = 1e-7  # three publications fit the log's default budget (ε = 5, δ = 1e-5)
LINK = {
    "lrn_ngd_iterations": 1,
    "lrn_ngd_epsilon": 1,
    "lrn_ngd_delta": DELTA,
    "lrn_pub_positive_income": ">50K",
    "lrn_pub_lower_age": "17",
    "lrn_pub_upper_age": "90",
    "lrn_pub_lower_hours-per-week": "1",
    "lrn_pub_upper_hours-per-week": "99",
    "lrn_pub_domain_sex": "Female\nMale",
    "lrn_pub_domain_race": "\n".join(RACES),
}
SHOWN = "_published_lrn_pub"  # where explorer.publishing keeps what it showed, in the session


@pytest.fixture(autouse=True)
def own_log(tmp_path, monkeypatch):
    """Each test publishes to a log of its own (the default budget, ε = 5, per dataset)."""
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path))
    return tmp_path


def _open(**link):
    at = open_page("learning", **{**LINK, **link})
    at.multiselect(key="lrn_pub_features").set_value(FEATURES).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _publish(at):
    at.button(key="lrn_pub_publish").click().run()
    assert not at.exception, [e.value for e in at.exception]
    fingerprint, _, releases, _ = at.session_state[SHOWN]
    return releases[0]


def _spent(at) -> float:
    ds = at.session_state[state.DATASET]
    return publishing.publication_log().spent(ds.fingerprint or ds.identity).epsilon


def _truth():
    """The true rounded gradient sum at w = 0, in grid steps, and the grid: what a T = 1 publication releases."""
    f = declared_features(CENSUS.frame, "income", ">50K", SCHEMA)
    grid = lattice_gd_noise(1.0, DELTA, 1, CLIP, len(NAMES)).grid
    return f, rounded_gradient_sum(LogisticDesign(f.X, f.y, clip=CLIP), np.zeros(len(NAMES)), grid), grid


def _steps(weights, noisy_count: int, grid: float) -> np.ndarray:
    """``m + Z`` in grid steps from T = 1 coefficients ``w = −η γ (m + Z) / n̂``: integers, read back exactly."""
    steps = -np.asarray(weights) * max(noisy_count, 1) / ETA / grid
    assert np.allclose(steps, np.rint(steps), rtol=0, atol=1e-6)
    return np.rint(steps)


def _released_noise(release, m, grid) -> np.ndarray:
    count = int({f.name: f for f in release.public}["number of rows (noisy count)"].value.replace(",", ""))
    return _steps(release.values, count, grid) - m


def _chi2(statistic: float, dof: int) -> bool:
    return chi2.ppf(TAIL, dof) < statistic < chi2.ppf(1 - TAIL, dof)


# --------------------------------------------------------------------------- declarations


def test_a_missing_declaration_is_named_in_one_sentence_and_nothing_can_be_published():
    at = open_page("learning", lrn_pub_features="age", lrn_pub_domain_sex="Female\nMale")
    button = at.button(key="lrn_pub_publish")
    assert button.disabled
    said = [i.value.replace("\\", "") for i in at.info if "To publish" in i.value]
    assert said == [
        "To publish, declare the value of income that is label 1 and the bounds of age first: it must come from "
        "what you know about the data, not from this file."
    ]
    at.text_input(key="lrn_pub_positive_income").set_value(">50K").run()
    at.number_input(key="lrn_pub_lower_age").set_value(17.0).run()
    said = [i.value.replace("\\", "") for i in at.info if "To publish" in i.value]
    assert said == [
        "To publish, declare the bounds of age first: it must come from what you know about the data, not from "
        "this file."
    ]
    at.number_input(key="lrn_pub_upper_age").set_value(90.0).run()
    assert not at.button(key="lrn_pub_publish").disabled
    assert not [i for i in at.info if "To publish" in i.value]


# --------------------------------------------------------------------------- the flow


def test_publishing_charges_the_log_and_shows_the_declared_coefficients_alone():
    at = _open()
    assert "ε = 1, δ = 1e-07" in at.button(key="lrn_pub_publish").label  # the cost, said before the click
    before = _spent(at)
    release = _publish(at)
    assert _spent(at) == pytest.approx(before + 1.0)  # charged in full, to the log that outlives the session
    assert release.labels == NAMES and release.is_publication
    assert release.relation.value == "add/remove one record" and release.epsilon <= 1.0
    box = [e for e in at.expander if e.label.startswith("Publish a logistic regression predicting income")]
    assert len(box) == 1
    tables = [d.value for d in box[0].dataframe]
    assert len(tables) == 1 and list(tables[0].columns) == ["label", "released value"]  # the coefficients only
    assert tables[0]["label"].tolist() == list(NAMES)
    assert not box[0].metric  # no accuracy, nothing measured on the private rows beside them
    assert any("add/remove one record" in s.value for s in box[0].success)
    at.run()  # a rerun shows what was published, never a new draw
    assert at.session_state[SHOWN][2][0].values == release.values
    assert _spent(at) == pytest.approx(before + 1.0)


def test_over_the_budget_nothing_is_drawn_and_nothing_shown(monkeypatch):
    from dpcore import publish

    calls = []
    original = publish.publish_logistic_regression
    monkeypatch.setattr(publish, "publish_logistic_regression", lambda *a, **k: calls.append(1) or original(*a, **k))
    at = _open(lrn_ngd_epsilon=10)  # the log's default budget is ε = 5
    at.button(key="lrn_pub_publish").click().run()
    assert any("Not published" in w.value and "budget" in w.value for w in at.warning), [w.value for w in at.warning]
    assert not calls and SHOWN not in at.session_state


# --------------------------------------------------------------------------- the three attacks


def test_attack_seed_subtraction_and_two_publications_recover_nothing():
    """Rerunning the publication's own algorithm with every seed the link and session offer gives other noise; two
    publications of the same settings (and the same link in a new tab) differ by two independent noises."""
    f, m, grid = _truth()
    noise = lattice_gd_noise(1.0, DELTA, 1, CLIP, len(NAMES))
    p, n_param = len(NAMES), noise.sigma2_units
    at = _open(seed=SEED)
    first = _released_noise(_publish(at), m, grid)
    second = _released_noise(_publish(at), m, grid)  # publishing again: a new draw and a new charge
    third = _released_noise(_publish(_open(seed=SEED)), m, grid)  # the same link in another tab
    for z in (first, second, third):  # each is noise of the stated law around the truth, never the truth
        assert _chi2(float(np.sum(z**2)) / n_param, p)
    for a, b in ((first, second), (first, third), (second, third)):
        assert _chi2(float(np.sum((a - b) ** 2)) / (2 * n_param), p)
    # attack 1: the attacker reruns the publication with the seeds a link, a snippet or the session could carry
    salts = ("learning-ngd", "learning-split", "lrn_pub", "publish")
    seeds = [[SEED, sum(map(ord, s))] for s in salts] + [[SEED], SEED, 0]
    for seed in seeds:
        run = lattice_gradient_descent(
            f.X,
            f.y,
            epsilon=1.0,
            delta=DELTA,
            iterations=1,
            clip=CLIP,
            rng=np.random.default_rng(seed),
            learning_rate=ETA,
        )
        guessed = _steps(run.weights, run.noisy_count, grid) - m  # the noise this seed would have drawn
        # the attacker's truth, (m + Z) − Z_seed, is off by Z − Z_seed: two independent noises, never zero
        assert _chi2(float(np.sum((first - guessed) ** 2)) / (2 * n_param), p), seed


def test_attack_epsilon_doubling_recovers_nothing():
    """If the noise at ε/2 were the noise at ε scaled by k = σ(ε/2)/σ(ε), (k·r₁ − r₂)/(k − 1) would be the truth."""
    _, m, grid = _truth()
    low, high = (lattice_gd_noise(e, DELTA, 1, CLIP, len(NAMES)) for e in (0.5, 1.0))
    assert low.grid == high.grid == grid
    at = _open()
    z1 = _released_noise(_publish(at), m, grid)
    at.select_slider(key="lrn_ngd_epsilon").set_value(0.5).run()
    z2 = _released_noise(_publish(at), m, grid)
    k = (low.sigma2_units / high.sigma2_units) ** 0.5
    combination = (k * z1 - z2) / (k - 1)  # the attacker's estimate minus the truth, in grid steps
    variance = (k * k * high.sigma2_units + low.sigma2_units) / (k - 1) ** 2
    assert _chi2(float(np.sum(combination**2)) / variance, len(NAMES))
    assert _chi2(float(np.sum(z2**2)) / low.sigma2_units, len(NAMES))  # the second has the noise of ε/2


# --------------------------------------------------------------------------- a wide file (issue 23)


def _wide(columns: int = 45, rows: int = 200) -> bytes:
    """``columns`` text columns of 3 values, an identifier, a constant column and a 0/1 target."""
    rng = np.random.default_rng(0)
    names = ["id", "same", *(f"c{i}" for i in range(columns)), "label"]
    cells = np.column_stack(
        [
            [f"p{i}" for i in range(rows)],
            np.full(rows, "x"),
            *(rng.choice(["a", "b", "c"], rows) for _ in range(columns)),
            rng.integers(0, 2, rows).astype(str),
        ]
    )
    return (",".join(names) + "\n" + "".join(",".join(r) + "\n" for r in cells)).encode()


def test_a_wide_file_preselects_the_simulations_columns_and_declares_at_most_the_cap():
    from explorer.learning_publish import MAX_DECLARED
    from tests.apptest import PAGES

    at = open_page("data")
    at.file_uploader(key="data_upload").upload("wide.csv", _wide(), "text/csv").run()
    at.switch_page(PAGES["learning"]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    chosen = at.multiselect(key="lrn_pub_features").value
    assert chosen == [f"c{i}" for i in range(MAX_DECLARED)]  # not the identifier, not the constant column
    kinds = [w for w in at.selectbox if (w.key or "").startswith("lrn_pub_kind_")]
    assert len(kinds) == MAX_DECLARED
    said = " ".join(c.value.replace("\\", "") for c in at.caption)
    assert f"the first {MAX_DECLARED} of the 45 columns the simulation above trains on" in said
    assert f"at most {MAX_DECLARED} features" in said


def test_a_link_choosing_more_features_than_the_cap_is_held_to_it_and_the_missing_ones_are_counted():
    from explorer.learning_publish import MAX_DECLARED
    from tests.apptest import PAGES

    link = {"lrn_pub_features": [f"c{i}" for i in range(MAX_DECLARED + 5)]}
    at = open_page("data")
    at.query_params["lrn_pub_features"] = link["lrn_pub_features"]
    at.file_uploader(key="data_upload").upload("wide.csv", _wide(), "text/csv").run()
    at.switch_page(PAGES["learning"]).run()
    assert not at.exception, [e.value for e in at.exception]
    kinds = [w for w in at.selectbox if (w.key or "").startswith("lrn_pub_kind_")]
    assert len(kinds) <= MAX_DECLARED and len(at.multiselect(key="lrn_pub_features").value) <= MAX_DECLARED
    assert at.button(key="lrn_pub_publish").disabled
    (said,) = [i.value.replace("\\", "") for i in at.info if "To publish" in i.value]
    assert said == (
        "To publish, declare the value of label that is label 1, the categories of c0, the categories of c1, the "
        f"categories of c2 and the bounds or categories of {len(kinds) - 3} more features first: it must come from "
        "what you know about the data, not from this file."
    )
