"""dpcore: the differential-privacy mathematics behind the explorer.

Pure numpy/scipy/pandas; never imports streamlit. Every number the app shows is
computed here. Mechanisms are frozen dataclasses that carry their parameters and
derived constants; sampling functions take an explicit ``numpy.random.Generator``
(an int seed is accepted too).
"""

from dpcore.validation import as_generator
from dpcore.randomized_response import COIN_FLIP_EPSILON, GRR, coin_flip_response, coin_flip_rr
from dpcore.unary_encoding import OUE, SUE
from dpcore.ldp_mean import LDPMean
from dpcore.postprocess import project_to_histogram
