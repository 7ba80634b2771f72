"""dpcore: the differential-privacy mathematics behind the explorer.

Pure numpy/scipy/pandas; never imports streamlit. Every number the app shows is
computed here. Mechanisms are frozen dataclasses that carry their parameters and
derived constants; sampling functions take an explicit ``numpy.random.Generator``
(an int seed is accepted too).
"""

from dpcore import accounting, audit, learning
from dpcore.accounting import BudgetError, BudgetLedger, PureDP
from dpcore.clipping import (
    LADDER_CANDIDATES,
    AutoMeanResult,
    auto_mean,
    choose_clipping_bound,
    clipping_queries,
    evenly_spaced_candidates,
    naive_clipping_bound,
    one_two_five_ladder,
)
from dpcore.contributions import ROW_PER_PERSON, ContributionBounds, PrivacyUnit, bound_contributions
from dpcore.discrete import DiscreteGaussian, DiscreteLaplace
from dpcore.empirical import empirical_error_bound
from dpcore.exponential import (
    exponential_epsilon_for_accuracy,
    exponential_error_bound,
    exponential_mechanism,
    exponential_probabilities,
)
from dpcore.gaussian import (
    Gaussian,
    GaussianCalibration,
    analytic_gaussian_epsilon,
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    gaussian_delta,
)
from dpcore.groupby import GroupByResult, dp_person_count, dp_person_mean, dp_person_sum, group_by, publish_group_by
from dpcore.laplace import Laplace, laplace_sum_pdf
from dpcore.lattice import LatticeDraw, LatticeMechanism, lattice_draw, lattice_mechanism
from dpcore.ldp_mean import LDPMean
from dpcore.neighbours import (
    ADD_REMOVE,
    REPLACE_ONE,
    UNIT_CLIENT,
    UNIT_PERSON,
    UNIT_RECORD,
    NeighbouringRelation,
    RelationError,
)
from dpcore.partition_selection import (
    GaussianThresholding,
    LaplaceThresholding,
    OptimalSelection,
    PartitionSelection,
)
from dpcore.postprocess import project_to_histogram
from dpcore.quantiles import (
    ExponentialQuantile,
    QuantileIntervals,
    QuantileResult,
    dp_median,
    dp_quantile,
    quantile_epsilon_for_accuracy,
    quantile_score_sensitivity,
)
from dpcore.queries import (
    MeanBudget,
    MeanResult,
    QueryResult,
    clipped_sum_sensitivity,
    dp_category_counts,
    dp_count,
    dp_count_matching,
    dp_histogram,
    dp_mean,
    dp_sum,
    mean_epsilon_for_accuracy,
    split_mean_budget,
)
from dpcore.randomized_response import COIN_FLIP_EPSILON, GRR, coin_flip_response, coin_flip_rr
from dpcore.svt import (
    AboveThresholdScales,
    SVTScales,
    above_threshold,
    above_threshold_scales,
    above_threshold_trials,
    naive_range_query,
    naive_scale,
    range_query_svt,
    sparse,
    sparse_scales,
    sparse_trials,
    svt_epsilon_for_accuracy,
    svt_noise_scales,
)
from dpcore.unary_encoding import OUE, SUE
from dpcore.validation import as_generator

__all__ = [
    # validation
    "as_generator",
    # neighbouring relations
    "NeighbouringRelation",
    "ADD_REMOVE",
    "REPLACE_ONE",
    "UNIT_RECORD",
    "UNIT_CLIENT",
    "UNIT_PERSON",
    "RelationError",
    # the unit of privacy: persons with many rows, group-bys, partition selection
    "ContributionBounds",
    "PrivacyUnit",
    "ROW_PER_PERSON",
    "bound_contributions",
    "dp_person_count",
    "dp_person_sum",
    "dp_person_mean",
    "GroupByResult",
    "group_by",
    "publish_group_by",
    "PartitionSelection",
    "OptimalSelection",
    "LaplaceThresholding",
    "GaussianThresholding",
    # local model
    "COIN_FLIP_EPSILON",
    "GRR",
    "coin_flip_response",
    "coin_flip_rr",
    "OUE",
    "SUE",
    "LDPMean",
    "project_to_histogram",
    # central model: noise
    "Laplace",
    "laplace_sum_pdf",
    "Gaussian",
    "GaussianCalibration",
    "analytic_gaussian_sigma",
    "analytic_gaussian_epsilon",
    "classic_gaussian_sigma",
    "gaussian_delta",
    "exponential_error_bound",
    "exponential_epsilon_for_accuracy",
    "exponential_mechanism",
    "exponential_probabilities",
    # central model: queries
    "MeanBudget",
    "MeanResult",
    "QueryResult",
    "clipped_sum_sensitivity",
    "dp_count",
    "dp_histogram",
    "dp_mean",
    "dp_sum",
    "dp_count_matching",
    "dp_category_counts",
    "mean_epsilon_for_accuracy",
    "split_mean_budget",
    "empirical_error_bound",
    # central model: quantiles and the median
    "ExponentialQuantile",
    "QuantileIntervals",
    "QuantileResult",
    "dp_quantile",
    "dp_median",
    "quantile_epsilon_for_accuracy",
    "quantile_score_sensitivity",
    # sparse vector technique
    "AboveThresholdScales",
    "SVTScales",
    "above_threshold",
    "above_threshold_scales",
    "above_threshold_trials",
    "naive_range_query",
    "naive_scale",
    "range_query_svt",
    "sparse",
    "sparse_scales",
    "sparse_trials",
    "svt_noise_scales",
    "svt_epsilon_for_accuracy",
    # clipping bounds
    "LADDER_CANDIDATES",
    "AutoMeanResult",
    "auto_mean",
    "choose_clipping_bound",
    "clipping_queries",
    "evenly_spaced_candidates",
    "naive_clipping_bound",
    "one_two_five_ladder",
    # accounting
    "accounting",
    "learning",
    "BudgetError",
    "BudgetLedger",
    "PureDP",
    "audit",
    "DiscreteLaplace",
    "DiscreteGaussian",
    "LatticeMechanism",
    "LatticeDraw",
    "lattice_mechanism",
    "lattice_draw",
]
