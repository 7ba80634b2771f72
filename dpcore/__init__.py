"""dpcore: the differential-privacy mathematics behind the explorer.

Pure numpy/scipy/pandas; never imports streamlit. Every number the app shows is
computed here. Mechanisms are frozen dataclasses that carry their parameters and
derived constants; sampling functions take an explicit ``numpy.random.Generator``
(an int seed is accepted too).
"""

from dpcore import accounting, audit
from dpcore.discrete import DiscreteGaussian, DiscreteLaplace
from dpcore.exponential import exponential_error_bound, exponential_mechanism, exponential_probabilities
from dpcore.gaussian import Gaussian, analytic_gaussian_sigma, classic_gaussian_sigma, gaussian_delta, gaussian_epsilon
from dpcore.laplace import Laplace
from dpcore.lattice import LatticeMechanism, LatticeRelease, lattice_mechanism, safe_release
from dpcore.ldp_mean import LDPMean
from dpcore.postprocess import project_to_histogram
from dpcore.queries import MeanResult, QueryResult, dp_count, dp_histogram, dp_mean, dp_sum
from dpcore.randomized_response import COIN_FLIP_EPSILON, GRR, coin_flip_response, coin_flip_rr
from dpcore.svt import (
    AutoMeanResult,
    SVTScales,
    above_threshold,
    above_threshold_trials,
    auto_mean,
    choose_clipping_bound,
    clipping_queries,
    naive_clipping_bound,
    naive_range_query,
    range_query_svt,
    sparse,
    sparse_trials,
    svt_noise_scales,
)
from dpcore.unary_encoding import OUE, SUE
from dpcore.validation import as_generator

__all__ = [
    "as_generator",
    "COIN_FLIP_EPSILON",
    "GRR",
    "coin_flip_response",
    "coin_flip_rr",
    "OUE",
    "SUE",
    "LDPMean",
    "project_to_histogram",
    "Laplace",
    "Gaussian",
    "analytic_gaussian_sigma",
    "classic_gaussian_sigma",
    "gaussian_delta",
    "gaussian_epsilon",
    "exponential_error_bound",
    "exponential_mechanism",
    "exponential_probabilities",
    "MeanResult",
    "QueryResult",
    "dp_count",
    "dp_histogram",
    "dp_mean",
    "dp_sum",
    "AutoMeanResult",
    "SVTScales",
    "above_threshold",
    "above_threshold_trials",
    "auto_mean",
    "choose_clipping_bound",
    "clipping_queries",
    "naive_clipping_bound",
    "naive_range_query",
    "range_query_svt",
    "sparse",
    "sparse_trials",
    "svt_noise_scales",
    "accounting",
    "audit",
    "DiscreteLaplace",
    "DiscreteGaussian",
    "LatticeMechanism",
    "LatticeRelease",
    "lattice_mechanism",
    "safe_release",
]
