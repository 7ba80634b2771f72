"""What additive noise mechanisms share: drawing noise and adding it to answers.

:class:`~dpcore.laplace.Laplace` and :class:`~dpcore.gaussian.Gaussian` differ in
their law; both simulate ``values + noise`` from a seeded generator, vectorised over trials (what is
published is drawn by :mod:`dpcore.publish`, on a lattice, from a secure generator).
"""

from __future__ import annotations

import numpy as np

from dpcore.validation import as_generator, check_numeric_array, check_sample_size, check_trials

__all__ = ["AdditiveNoise"]


def _release_values(values, name: str = "values") -> np.ndarray:
    """Return ``values`` as a finite float64 array of the same shape (NaN and inf refused)."""
    shape = np.shape(values)
    arr, _ = check_numeric_array(values, name)
    return arr.reshape(shape)


class AdditiveNoise:
    """Mixin: ``sample`` and ``simulate`` from the subclass's ``_draw(rng, shape)``."""

    def _draw(self, rng: np.random.Generator, shape):
        raise NotImplementedError

    def sample(self, rng, size=None):
        """Draw noise of shape ``size`` (a float when ``size`` is None)."""
        check_sample_size(size)
        out = self._draw(as_generator(rng), () if size is None else size)
        return float(out) if size is None else out

    def simulate(self, values, rng, trials: int | None = None):
        """Simulate ``values + noise`` from a seeded generator, each entry with independent noise (not a publication:
        :mod:`dpcore.publish` draws what is published, from a secure generator).

        Parameters
        ----------
        values : float or array_like
            True answers; finite numbers (NaN and infinities are refused).
        rng : numpy.random.Generator or int
            Source of randomness.
        trials : int, optional
            When given, ``trials`` independent releases stacked on a new leading
            axis: the result has shape ``(trials,) + np.shape(values)``.

        Returns
        -------
        float or numpy.ndarray
            A float for a scalar ``values`` and ``trials=None``, otherwise an array.
        """
        arr = _release_values(values)
        rng = as_generator(rng)
        if trials is None:
            out = arr + self._draw(rng, arr.shape)
            return float(out) if out.ndim == 0 else out
        trials = check_trials(trials, per_trial=arr.size)
        return arr + self._draw(rng, (trials,) + arr.shape)
