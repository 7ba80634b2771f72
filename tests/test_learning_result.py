import math

import numpy as np
import pandas as pd
import pytest

from dpcore.learning import Baseline, TrainingResult, majority_baseline


def _result(weights, fit_intercept=True, clip=None, clipping=None):
    return TrainingResult(
        method="test",
        weights=weights,
        fit_intercept=fit_intercept,
        history=pd.DataFrame(),
        epsilon=1.0,
        delta=1e-5,
        privacy=pd.DataFrame({"method": ["exact"], "epsilon": [1.0]}),
        details={"sigma": 2.0},
        clip=clip,
        clipping=clipping,
    )


def test_majority_baseline_predicts_the_commoner_training_label():
    assert majority_baseline([1, 1, 0], [0, 0, 1, 1, 1]) == Baseline(label=1, accuracy=0.6)
    assert majority_baseline([0, 1]) == Baseline(label=0, accuracy=0.5)  # a tie goes to 0
    assert majority_baseline(np.array([True, False, False])).label == 0


@pytest.mark.parametrize(
    "args, message",
    [(([],), "y_train must contain at least one label, got none"), (([0, 1], []), "y_test must contain at least one")],
)
def test_majority_baseline_refuses_empty_labels(args, message):
    with pytest.raises(ValueError, match=message):
        majority_baseline(*args)


def test_predictions_follow_the_sign_of_the_score():
    r = _result([2.0, -1.0, 0.5])  # z = 2 x1 - x2 + 0.5
    X = np.array([[0.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    np.testing.assert_allclose(r.decision_function(X), [0.5, -0.5, -1.5])
    assert r.predict(X).tolist() == [1, 0, 0]
    np.testing.assert_allclose(r.predict_proba(X), 1 / (1 + np.exp(-np.array([0.5, -0.5, -1.5]))), rtol=1e-15)
    assert r.accuracy(X, [1, 0, 1]) == pytest.approx(2 / 3)
    assert r.coef.tolist() == [2.0, -1.0] and r.intercept == 0.5 and r.draws is None


def test_draws_predict_row_by_row():
    r = _result([[1.0, 0.0], [-1.0, 0.0]], fit_intercept=False)
    X = np.array([[1.0, 5.0], [-2.0, 0.0]])
    assert r.predict(X).tolist() == [[1, 0], [0, 1]]
    assert r.accuracy(X, [1, 0]).tolist() == [1.0, 0.0]
    assert r.draws == 2 and r.intercept.tolist() == [0.0, 0.0]


def test_result_is_read_only():
    r = _result([1.0, 2.0])
    with pytest.raises(ValueError):
        r.weights[0] = 3.0
    with pytest.raises(TypeError):
        r.details["sigma"] = 3.0
    with pytest.raises(AttributeError):
        r.epsilon = math.inf


def test_predict_checks_the_number_of_features():
    with pytest.raises(ValueError, match=r"X must have 1 feature column\(s\) like the training data, got 2"):
        _result([1.0, 2.0]).predict([[1.0, 2.0]])
