"""Write the SYNTHETIC demo datasets ``census.csv``, ``survey.csv`` and ``visits.csv`` next to this script.

Run ``python data/make_datasets.py`` from the repository root. Both tables are
drawn from a fixed seed, so the files are reproducible byte for byte; no row
describes a real person.

``census.csv`` is shaped on the published marginals of the 1994 US census
extract known as UCI "Adult" (Becker and Kohavi, 1996,
https://archive.ics.uci.edu/dataset/2/adult): 32,561 rows, age mean about
38.6 (sd 13.6, range 17-90), 67% male, 85% White, 70% Private workclass,
hours-per-week mode 40, capital-gain nonzero for about 8% with a top code of
99999, and about 24% earning >50K. Marital status depends on age band,
occupation on education band and sex, and income on education, age, hours,
marriage and sex (a logistic model whose intercept is solved for the 24%);
capital gains and losses are more frequent above 50K. Missing workclass,
occupation and native-country cells (written empty) appear at the published
rates.

``survey.csv`` is 2,000 students answering "Have you ever cheated on an
exam?" (``cheated_on_exam``, yes/no, about 23% yes, more likely for students
who study less), with age group, faculty, a 1-5 satisfaction score and hours
studied per week.

``visits.csv`` is about 19,500 clinic visits in 2024 by 3,000 patients (``patient_id``), with heavy-tailed visits
per patient (half come once, a few dozen over a hundred times): the demo of a unit of privacy that is a person with
many rows. Its ``visit_date`` column is a date.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from scipy.special import expit

SEED = 2017
HERE = Path(__file__).resolve().parent

EDUCATION = {  # name: (education-num, share in the extract)
    "Preschool": (1, 0.0016),
    "1st-4th": (2, 0.0052),
    "5th-6th": (3, 0.0102),
    "7th-8th": (4, 0.0198),
    "9th": (5, 0.0158),
    "10th": (6, 0.0287),
    "11th": (7, 0.0361),
    "12th": (8, 0.0133),
    "HS-grad": (9, 0.3225),
    "Some-college": (10, 0.2239),
    "Assoc-voc": (11, 0.0424),
    "Assoc-acdm": (12, 0.0328),
    "Bachelors": (13, 0.1645),
    "Masters": (14, 0.0529),
    "Prof-school": (15, 0.0177),
    "Doctorate": (16, 0.0127),
}
WORKCLASS = {
    "Private": 0.697,
    "Self-emp-not-inc": 0.078,
    "Local-gov": 0.0643,
    "State-gov": 0.0399,
    "Self-emp-inc": 0.0343,
    "Federal-gov": 0.0295,
    "Without-pay": 0.0004,
    "Never-worked": 0.0002,
    None: 0.0564,
}
MARITAL = [
    "Never-married",
    "Married-civ-spouse",
    "Divorced",
    "Separated",
    "Widowed",
    "Married-spouse-absent",
    "Married-AF-spouse",
]
MARITAL_BY_AGE = {  # upper age of band: shares in MARITAL order, read off the extract
    24: [0.879, 0.085, 0.016, 0.013, 0.001, 0.006, 0.001],
    34: [0.430, 0.413, 0.104, 0.035, 0.003, 0.014, 0.001],
    49: [0.147, 0.575, 0.204, 0.041, 0.016, 0.015, 0.001],
    64: [0.065, 0.640, 0.178, 0.028, 0.075, 0.014, 0.000],
    90: [0.065, 0.560, 0.091, 0.013, 0.259, 0.011, 0.001],
}
OCCUPATION = [
    "Adm-clerical",
    "Craft-repair",
    "Exec-managerial",
    "Farming-fishing",
    "Handlers-cleaners",
    "Machine-op-inspct",
    "Other-service",
    "Priv-house-serv",
    "Prof-specialty",
    "Protective-serv",
    "Sales",
    "Tech-support",
    "Transport-moving",
    "Armed-Forces",
]
OCCUPATION_BY_EDUCATION = {  # upper education-num of band: shares in OCCUPATION order, read off the extract
    8: [0.046, 0.179, 0.028, 0.068, 0.101, 0.129, 0.219, 0.018, 0.015, 0.009, 0.092, 0.005, 0.091, 0.0003],
    9: [0.137, 0.193, 0.081, 0.041, 0.061, 0.103, 0.129, 0.005, 0.023, 0.022, 0.107, 0.016, 0.083, 0.0003],
    10: [0.189, 0.128, 0.130, 0.026, 0.039, 0.046, 0.115, 0.002, 0.063, 0.030, 0.149, 0.040, 0.042, 0.0003],
    12: [0.154, 0.157, 0.126, 0.028, 0.022, 0.041, 0.082, 0.003, 0.132, 0.035, 0.107, 0.085, 0.029, 0.0003],
    13: [0.098, 0.044, 0.264, 0.015, 0.010, 0.013, 0.035, 0.001, 0.288, 0.019, 0.156, 0.044, 0.012, 0.0003],
    16: [0.031, 0.012, 0.231, 0.006, 0.002, 0.004, 0.009, 0.001, 0.615, 0.006, 0.061, 0.018, 0.005, 0.0003],
}
# Share among women / share among men for each occupation in the extract (e.g. Adm-clerical .255 / .059).
OCCUPATION_FEMALE_RATIO = np.array([4.3, 0.12, 0.84, 0.16, 0.29, 0.79, 2.5, 20.0, 1.2, 0.29, 1.1, 1.25, 0.13, 0.1])
RACE = {"White": 0.8543, "Black": 0.0959, "Asian-Pac-Islander": 0.0319, "Amer-Indian-Eskimo": 0.0096, "Other": 0.0083}
COUNTRY = {
    "United-States": 0.8959,
    "Mexico": 0.0197,
    "Philippines": 0.0061,
    "Germany": 0.0042,
    "Canada": 0.0037,
    "Puerto-Rico": 0.0035,
    "El-Salvador": 0.0033,
    "India": 0.0031,
    "Cuba": 0.0029,
    "England": 0.0028,
    "Jamaica": 0.0025,
    "China": 0.0023,
    "Italy": 0.0023,
    "Dominican-Republic": 0.0022,
    "Vietnam": 0.0021,
    "Guatemala": 0.0020,
    "Japan": 0.0019,
    "Poland": 0.0019,
    "Columbia": 0.0018,
    None: 0.0179,
}
HOURS = {40: 0.467, 50: 0.087, 45: 0.056, 60: 0.045, 35: 0.040, 20: 0.038, 30: 0.035, 55: 0.021, 25: 0.021, 48: 0.016}


def _choice(rng: np.random.Generator, options: dict, n: int) -> np.ndarray:
    """``n`` draws from ``options`` (value: weight), weights renormalised."""
    values = np.array(list(options), dtype=object)
    p = np.array(list(options.values()), dtype=float)
    return values[rng.choice(len(values), size=n, p=p / p.sum())]


def _rows_choice(rng: np.random.Generator, probs: np.ndarray) -> np.ndarray:
    """One category index per row of ``probs`` (rows need not be normalised)."""
    cdf = np.cumsum(probs, axis=1)
    return (rng.random(len(probs))[:, None] * cdf[:, -1:] < cdf).argmax(axis=1)


def make_census(seed: int = SEED, n: int = 32_561) -> pd.DataFrame:
    """A synthetic census-like table shaped on the UCI Adult marginals (see the module docstring)."""
    rng = np.random.default_rng(seed)
    male = rng.random(n) < 0.6692
    # Age: 17 + floor(Gamma(shape 2.6, scale 8.5)) has mean about 38.6 and sd 13.7, right-skewed like the extract.
    age = np.minimum(17 + np.floor(rng.gamma(2.6, 8.5, size=n)), 90).astype(int)

    names = np.array(list(EDUCATION), dtype=object)
    ed_p = np.array([share for _, share in EDUCATION.values()])
    ed_index = rng.choice(len(names), size=n, p=ed_p / ed_p.sum())
    young = (age < 21) & (ed_index > 9)
    ed_index[young] = 9  # nobody under 21 has finished a degree: cap at Some-college
    education, ed_num = names[ed_index], ed_index + 1

    bands = np.array(list(MARITAL_BY_AGE))
    marital_p = np.array(list(MARITAL_BY_AGE.values()))[np.searchsorted(bands, age)]
    marital = np.array(MARITAL, dtype=object)[_rows_choice(rng, marital_p)]
    married = marital == "Married-civ-spouse"

    workclass = _choice(rng, WORKCLASS, n)
    ed_bands = np.array(list(OCCUPATION_BY_EDUCATION))
    occ_p = np.array(list(OCCUPATION_BY_EDUCATION.values()))[np.searchsorted(ed_bands, ed_num)]
    # Multipliers m_male = 1 / (0.67 + 0.33 r), m_female = r * m_male keep each share's average near 1.
    m_male = 1 / (0.67 + 0.33 * OCCUPATION_FEMALE_RATIO)
    occ_p = occ_p * np.where(male[:, None], m_male, OCCUPATION_FEMALE_RATIO * m_male)
    occupation = np.array(OCCUPATION, dtype=object)[_rows_choice(rng, occ_p)]
    occupation[pd.isna(workclass) | (workclass == "Never-worked")] = None

    hours = _choice(rng, HOURS, n).astype(int)
    other = rng.random(n) < 1 - sum(HOURS.values())
    hours[other] = np.clip(np.rint(rng.normal(40, 14, other.sum())), 1, 99)
    part_time = ((age < 22) | (age > 66)) & (rng.random(n) < 0.6)
    hours[part_time] = np.clip(np.rint(rng.normal(26, 11, part_time.sum())), 1, 99)
    hours[~male & (rng.random(n) < 0.15)] -= 10  # fewer paid hours for women on average, as in the extract
    hours = np.clip(hours, 1, 99)

    score = (
        0.45 * (ed_num - 10) + 0.035 * (hours - 40) + 0.045 * (np.minimum(age, 55) - 38) + 2.4 * married + 1.2 * male
    )
    intercept = brentq(lambda a: expit(a + score).mean() - 0.2408, -20, 20)
    rich = rng.random(n) < expit(intercept + score)

    gain_p, loss_p = np.where(rich, 0.214, 0.042), np.where(rich, 0.099, 0.030)
    gain = np.where(rng.random(n) < gain_p, np.clip(np.rint(rng.lognormal(np.log(7300), 0.85, n)), 114, 41310), 0)
    gain[(gain > 0) & (rng.random(n) < 0.059)] = 99999  # the extract's top code
    loss = np.where(rng.random(n) < loss_p, np.clip(np.rint(rng.normal(1870, 380, n)), 155, 4356), 0)

    return pd.DataFrame(
        {
            "age": age,
            "workclass": workclass,
            "education": education,
            "education-num": ed_num,
            "marital-status": marital,
            "occupation": occupation,
            "race": _choice(rng, RACE, n),
            "sex": np.where(male, "Male", "Female"),
            "capital-gain": gain.astype(int),
            "capital-loss": loss.astype(int),
            "hours-per-week": hours,
            "native-country": _choice(rng, COUNTRY, n),
            "income": np.where(rich, ">50K", "<=50K"),
        }
    )


def make_survey(seed: int = SEED, n: int = 2_000) -> pd.DataFrame:
    """A synthetic student survey with the sensitive question "Have you ever cheated on an exam?"."""
    rng = np.random.default_rng(seed + 1)
    age_group = _choice(rng, {"18-20": 0.42, "21-23": 0.36, "24-26": 0.13, "27+": 0.09}, n)
    faculty = _choice(
        rng, {"Arts": 0.18, "Business": 0.20, "Engineering": 0.19, "Law": 0.08, "Medicine": 0.10, "Science": 0.25}, n
    )
    # Hours studied per week: Gamma(shape 3, scale 5) has mean 15, clipped to [0, 70].
    hours = np.clip(np.rint(rng.gamma(3.0, 5.0, n)), 0, 70).astype(int)
    satisfaction = 1 + _rows_choice(rng, np.tile([0.08, 0.17, 0.30, 0.32, 0.13], (n, 1)))
    # Cheating is rarer for students who study more: logit falls by 0.06 per weekly hour (about 23% overall).
    cheated = rng.random(n) < expit(-0.35 - 0.06 * hours)
    return pd.DataFrame(
        {
            "age_group": age_group,
            "faculty": faculty,
            "satisfaction": satisfaction,
            "study_hours_per_week": hours,
            "cheated_on_exam": np.where(cheated, "yes", "no"),
        }
    )


CLINICS = {
    "Northside": 0.22,
    "Riverside": 0.18,
    "Old Town": 0.16,
    "Harbour": 0.12,
    "Hillcrest": 0.11,
    "Airport": 0.08,
    "University": 0.08,
    "Lakeside": 0.05,
}
REASONS = {"check-up": 0.34, "prescription": 0.22, "injury": 0.12, "chronic care": 0.18, "test": 0.10, "vaccine": 0.04}


def make_visits(seed: int = SEED, persons: int = 3_000) -> pd.DataFrame:
    """Synthetic clinic visits in 2024, many rows per person: the demo table of the unit of privacy.

    Rows per person are heavy-tailed: ``min(Zipf(1.9), 400)`` visits (half the patients come once, a few hundred
    times), so a row-level guarantee says little about a patient. Each visit has a date in 2024 (frequent visitors'
    visits spread over the year), a clinic (each patient mostly uses one), a reason (chronic care more likely for
    frequent visitors), its minutes and its cost.
    """
    rng = np.random.default_rng(seed + 2)
    visits = np.minimum(rng.zipf(1.9, size=persons), 400)
    person = np.repeat(np.arange(persons), visits)
    n = person.size
    home = _choice(rng, CLINICS, persons)
    clinic = np.where(rng.random(n) < 0.8, home[person], _choice(rng, CLINICS, n))
    reasons = np.array(list(REASONS), dtype=object)
    reason_p = np.tile(np.array(list(REASONS.values())), (n, 1))
    frequent = visits[person] >= 20
    reason_p[frequent, 3] *= 4.0  # chronic care
    reason = reasons[_rows_choice(rng, reason_p)]
    day = rng.integers(0, 366, size=n)  # 2024 is a leap year
    date = (np.datetime64("2024-01-01") + day.astype("timedelta64[D]")).astype(str)
    minutes = np.clip(np.rint(rng.gamma(2.0, 12.0, size=n)), 5, 240).astype(int)
    cost = np.round(25.0 + 1.6 * minutes + rng.lognormal(2.5, 1.0, size=n), 2)
    order = np.lexsort((person, date))
    return pd.DataFrame(
        {
            "patient_id": np.char.add("P", np.char.zfill(person.astype(str), 5))[order],
            "visit_date": date[order],
            "clinic": clinic[order],
            "reason": reason[order],
            "minutes": minutes[order],
            "cost": cost[order],
        }
    )


def main() -> None:
    """Write the three CSV files next to this script."""
    make_census().to_csv(HERE / "census.csv", index=False, lineterminator="\n")
    make_survey().to_csv(HERE / "survey.csv", index=False, lineterminator="\n")
    make_visits().to_csv(HERE / "visits.csv", index=False, lineterminator="\n")


if __name__ == "__main__":
    main()
