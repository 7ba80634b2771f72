"""The dataset a session works on: an uploaded table or a synthetic demo table.

:func:`load_csv` turns the bytes of an upload (CSV, gzip-compressed CSV,
Parquet, JSON; Excel when openpyxl is installed; the format is read from the
content, not the name) into a :class:`Dataset` (reading rules in
:mod:`explorer.csv_reader`), or refuses it with a
:class:`DatasetError` whose message is one plain sentence for the user;
:func:`load_demo` reads the synthetic demo tables in the repository's
``data/`` folder (made by ``data/make_datasets.py``).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from explorer.columns import MAX_CATEGORIES_FOR_ORACLES, profile
from explorer.csv_reader import (
    MAX_CELLS,
    MAX_COLUMNS,
    MAX_ROWS,
    MAX_UPLOAD_BYTES,
    NA_SPELLINGS,
    DatasetError,
    read_csv,
    read_path,
)

__all__ = [
    "DatasetError",
    "Dataset",
    "MAX_UPLOAD_BYTES",
    "MAX_COLUMNS",
    "MAX_ROWS",
    "MAX_CELLS",
    "NA_SPELLINGS",
    "DEMO_DATASETS",
    "load_csv",
    "load_demo",
    "DATA_FOLDER_VARIABLE",
    "SAMPLE_ROWS",
    "FOLDER_SUFFIXES",
    "data_folder",
    "folder_files",
    "file_in_folder",
    "file_fingerprint",
    "load_path",
]

#: The demo tables live in the repository's data/ folder, beside this package.
_DATA_DIR = Path(__file__).resolve().parent.parent / "data"

#: Demo datasets shipped in ``data/``: name -> (file name, one-line description).
DEMO_DATASETS = {
    "census": ("census.csv", "Census-like table, 32,561 synthetic people shaped on the 1994 US census extract"),
    "survey": ("survey.csv", "Student survey, 2,000 synthetic respondents with a sensitive yes/no question"),
    "visits": ("visits.csv", "Clinic visits, 19,520 synthetic visits by 3,000 patients (many rows per person)"),
}


@dataclass(frozen=True, eq=False)
class Dataset:
    """A loaded table and what was done to it while loading.

    Frozen so that it can be kept in ``st.session_state`` and passed around
    without being rebound by accident; treat ``frame`` as read-only too.
    Equality is identity (``eq=False``): two DataFrames have no single truth
    value, and identity hashing keeps the object usable as a dict key.

    Attributes
    ----------
    name : str
        The file name (or demo name) shown to the user.
    frame : pandas.DataFrame
        Cleaned table: unique string column names, numeric columns as
        ``int64``/``float64`` with finite values or NaN, other columns as
        strings with missing values as NaN.
    notes : tuple of str
        One sentence per thing done while loading (rows dropped, columns
        renamed, encoding used, ...), for display under the upload.
    demo : str or None
        The key in :data:`DEMO_DATASETS` of a demo table, None for an upload.
    path : str or None
        The file's path, for a file opened from the data folder (:func:`load_path`): an engine can compute exact
        aggregates over all its rows there.
    total_rows : int or None
        The rows in that file; more than ``len(frame)`` when :attr:`frame` is a seeded sample (:attr:`sampled`).
    sample_seed : int or None
        The seed of that sample.
    fingerprint : str
        The first 8 hex digits of the SHA-256 of the file's bytes: the key the
        server keeps a dataset's publication budget under
        (:mod:`explorer.publication_log`). Never in a link for an upload: it is
        a function of every row (:attr:`identity`).
    """

    name: str
    frame: pd.DataFrame
    notes: tuple[str, ...] = ()
    demo: str | None = None
    fingerprint: str = ""
    path: str | None = None
    total_rows: int | None = None
    sample_seed: int | None = None

    @property
    def sampled(self) -> bool:
        """Whether :attr:`frame` holds a seeded sample of the file's rows (a large file opened by path), not all."""
        return self.total_rows is not None and self.total_rows > len(self.frame)

    @property
    def identity(self) -> str:
        """What a link carries to say which data its numbers were computed on: ``name~fingerprint`` for a demo table
        (public synthetic data, whose version the fingerprint tells apart), ``name~`` for an upload.

        An upload's link carries its name only, nothing computed from its contents: a hash of the private file is a
        function of every row, which one who knows all rows but one could test candidates for the last row against
        (a keyed hash would not do either: the server that can check it would answer the same test to whoever opens
        the link there and uploads candidate files).
        """
        return f"{self.name}~{self.fingerprint if self.demo is not None else ''}"

    @property
    def n_rows(self) -> int:
        """Number of data rows."""
        return int(len(self.frame))

    def profile(self, max_categories: int = MAX_CATEGORIES_FOR_ORACLES) -> pd.DataFrame:
        """Column profile of :attr:`frame`; see :func:`profile`."""
        return profile(self.frame, max_categories=max_categories)


def load_csv(raw: bytes, name: str = "upload.csv", *, max_bytes: int = MAX_UPLOAD_BYTES) -> Dataset:
    """Read the bytes of an upload (CSV, gzip-compressed CSV, Parquet, JSON, Excel) into a :class:`Dataset`.

    Parameters
    ----------
    raw : bytes
        File contents (``bytes``, ``bytearray`` or ``memoryview``).
    name : str
        File name, kept as :attr:`Dataset.name`.
    max_bytes : int
        Size limit in bytes, must be in [1, inf); default :data:`MAX_UPLOAD_BYTES`.

    Returns
    -------
    Dataset
        The cleaned table, with a note for everything done beyond plain
        reading (:mod:`explorer.csv_reader` lists the rules).

    Raises
    ------
    DatasetError
        When the file cannot be used, with one sentence saying why.
    TypeError
        When ``raw`` is not bytes-like.
    """
    frame, notes = read_csv(raw, max_bytes=max_bytes)
    return Dataset(name=str(name), frame=frame, notes=notes, fingerprint=hashlib.sha256(bytes(raw)).hexdigest()[:8])


def load_demo(name: str) -> Dataset:
    """Load a synthetic demo table from the repository's ``data/`` folder.

    Parameters
    ----------
    name : str
        One of the keys of :data:`DEMO_DATASETS` (``"census"``, ``"survey"``).

    Returns
    -------
    Dataset
        The table, with a first note saying that it is synthetic.
    """
    if name not in DEMO_DATASETS:
        raise ValueError(f"name must be one of {', '.join(map(repr, DEMO_DATASETS))}, got {name!r}")
    file_name, description = DEMO_DATASETS[name]
    dataset = load_csv((_DATA_DIR / file_name).read_bytes(), file_name)
    note = f"{description}. SYNTHETIC demo data made by data/make_datasets.py: no real person is in it."
    return Dataset(
        name=file_name, frame=dataset.frame, notes=(note, *dataset.notes), demo=name, fingerprint=dataset.fingerprint
    )


#: The environment variable naming a local install's data folder: its files can be opened by path, with no upload
#: size limit (unset on a shared server, which keeps the upload limit).
DATA_FOLDER_VARIABLE = "DPX_DATA_FOLDER"
#: Most rows of a file over the upload limit opened by path kept for the views that need rows: a larger table is
#: sampled, seeded (:func:`explorer.csv_reader.read_path`). Opening a 10⁷-row Parquet file then takes about 1.1 s of
#: CPU (4 s with 10⁶ rows kept; benchmarks/bench_data.py measures it), a simulation's sampling error on 200,000 rows is small
#: beside the noise it shows, and the Learning page trains on at most 125,000 rows.
SAMPLE_ROWS = 200_000
#: The files a data folder lists (compared lower-case).
FOLDER_SUFFIXES = (".csv", ".tsv", ".txt", ".gz", ".parquet", ".pq", ".json", ".jsonl", ".ndjson")
#: Most files a data folder lists (the first by name).
MAX_LISTED_FILES = 500


def data_folder() -> Path | None:
    """The data folder named by :data:`DATA_FOLDER_VARIABLE`, resolved; None when it is unset, empty or not a folder."""
    named = os.environ.get(DATA_FOLDER_VARIABLE, "").strip()
    if not named:
        return None
    folder = Path(named).expanduser().resolve()
    return folder if folder.is_dir() else None


def folder_files(folder: Path) -> list[str]:
    """The names of the data files directly in ``folder`` (:data:`FOLDER_SUFFIXES`), sorted, at most
    :data:`MAX_LISTED_FILES`; a symbolic link leading outside the folder is not listed."""
    names = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name.startswith(".") or not entry.name.lower().endswith(FOLDER_SUFFIXES):
            continue
        try:
            file_in_folder(folder, entry.name)
        except DatasetError:
            continue
        names.append(entry.name)
        if len(names) == MAX_LISTED_FILES:
            break
    return names


def file_in_folder(folder: Path, name: str) -> Path:
    """The file ``name`` directly in ``folder``, or a :class:`DatasetError` in one sentence when ``name`` is not a
    file's name in that folder (a path, ``..``, a symbolic link leading out of it, a file that is not there)."""
    name = str(name)
    root = Path(folder).resolve()
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name or Path(name).is_absolute():
        raise DatasetError("Only a file directly in the data folder can be opened, not a path.")
    target = (root / name).resolve()
    if target.parent != root:
        raise DatasetError("The file leads outside the data folder, so it cannot be opened.")
    if not target.is_file():
        raise DatasetError("The data folder has no such file.")
    return target


def file_fingerprint(path: Path) -> str:
    """The first 8 hex digits of the SHA-256 of the file's bytes, read in blocks (memory does not follow its size)."""
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:8]


def load_path(folder: Path, name: str, *, seed: int, sample_rows: int | None = None) -> Dataset:
    """Open the file ``name`` of the data folder ``folder`` (no upload size limit) into a :class:`Dataset`.

    Parameters
    ----------
    folder : pathlib.Path
        The data folder (:func:`data_folder`).
    name : str
        A file name listed by :func:`folder_files`; anything else is refused (:func:`file_in_folder`).
    seed : int
        Seed of the sample kept when the file has more than ``sample_rows`` rows, must be in [0, 2**31).
    sample_rows : int, optional
        Most rows kept, must be in [1, inf); :data:`SAMPLE_ROWS` by default.

    Returns
    -------
    Dataset
        With :attr:`Dataset.path` and :attr:`Dataset.total_rows` set; a seeded sample when the file is larger.

    Raises
    ------
    DatasetError
        When the name is not a file of the folder or the file cannot be used, with one sentence saying why.
    """
    path = file_in_folder(folder, name)
    rows = SAMPLE_ROWS if sample_rows is None else sample_rows
    frame, notes, total = read_path(path, sample_rows=rows, seed=seed)
    sampled = total > len(frame)
    return Dataset(
        name=str(name),
        frame=frame,
        notes=notes,
        fingerprint=file_fingerprint(path),
        path=str(path),
        total_rows=int(total),
        sample_seed=int(seed) if sampled else None,
    )
