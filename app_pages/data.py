"""Data: choose a demo table, upload a file or open one from a local data folder; see a profile of every column."""

import pandas as pd
import streamlit as st

from explorer import dataset, frame, state, unit
from explorer.markup import md, number


def choose_dataset() -> None:
    left, right = st.columns([1, 1.3])
    with left:
        st.subheader("Demo data (synthetic)")
        for key, (_, description) in dataset.DEMO_DATASETS.items():
            if st.button(f"Use {key}", key=f"demo_{key}", help=description):
                state.activate(state.cached_demo(key))
            st.caption(description)
    with right:
        st.subheader("Upload a file")
        upload = st.file_uploader(
            f"CSV (or gzipped CSV), Parquet or JSON, up to {dataset.MAX_UPLOAD_BYTES / 2**20:g} MiB; CSV in UTF-8, "
            "UTF-16 or Latin-1, with commas, semicolons, tabs or pipes.",
            type=["csv", "tsv", "txt", "gz", "parquet", "json", "jsonl", "xlsx"],
            key=state.UPLOAD_WIDGET,
            help="The file stays in this browser session only; nobody else sees it.",
        )
        if upload is not None and state.take_upload(upload.file_id, upload.name, upload.getvalue) is not None:
            st.success(f"Loaded {md(upload.name)}.")  # kept with the session only
        open_from_folder()
        if state.upload_error():
            st.error(state.upload_error())


def open_from_folder() -> None:
    """A local install's data folder (named by an environment variable): its files listed, one opened by name."""
    folder = dataset.data_folder()
    if folder is None:  # a shared server: uploads only
        return
    st.subheader("Open from the data folder")
    names = dataset.folder_files(folder)
    if not names:
        st.caption(f"The data folder {md(str(folder))} has no CSV, Parquet or JSON file.")
        return
    name = st.selectbox(
        f"Files in {md(str(folder))} (no size limit; above {dataset.SAMPLE_ROWS:,} rows a seeded sample is used)",
        names,
        key="data_folder_file",
    )
    st.caption(f"{md(name)}: {_size(folder / name)}")
    if st.button("Open", key="data_folder_open"):
        try:
            with st.spinner("Reading the file…"):
                state.activate(dataset.load_path(folder, name, seed=state.seed()))  # kept with the session only
            st.success(f"Opened {md(name)}.")
        except dataset.DatasetError as exc:
            state.set_upload_error(f"{md(name)} was not opened: {md(exc)} The previous dataset is still active.")


def _size(path) -> str:
    """A file's size in kB or MB, or a dash when it has gone since the listing."""
    try:
        size = path.stat().st_size
    except OSError:
        return "—"
    if size < 1e3:
        return f"{size} bytes"
    return f"{size / 1e3:,.1f} kB" if size < 1e6 else f"{size / 1e6:,.1f} MB"


def shown_profile(profile: pd.DataFrame) -> pd.DataFrame:
    """The profile as the page shows it: a text column's min and max blank (not "None"), numbers as the pages write
    them, and no note column (the table fits the page at 1400 pixels; a note beyond its right edge went unseen, so
    :func:`shown_notes` lists the notes under it)."""
    shown = profile.copy()
    # a column of whole numbers within 1000-2999 reads as years: 2007, never "2,007" (penguins.csv's year column)
    years = [
        not (pd.isna(lo) or pd.isna(hi))
        and float(lo).is_integer()
        and float(hi).is_integer()
        and 1000 <= lo <= hi <= 2999
        for lo, hi in zip(shown["min"], shown["max"])
    ]
    for bound in ("min", "max"):
        shown[bound] = [
            "" if pd.isna(v) else f"{int(v)}" if year else number(float(v)) for v, year in zip(shown[bound], years)
        ]
    return shown.drop(columns="note", errors="ignore")


def table_height(rows: int) -> int:
    """Pixels for a table to show its header and every row, up to 30 (adult.csv's 15 columns: 5 were hidden)."""
    return 35 * (min(rows, 30) + 1) + 3


def shown_notes(profile: pd.DataFrame) -> pd.DataFrame:
    """The columns that have a note and their note (why a column fits no mechanism, how it is counted)."""
    if "note" not in profile:
        return pd.DataFrame({"column": [], "note": []})
    noted = profile["note"].astype(bool)
    return profile.loc[noted, ["column", "note"]].reset_index(drop=True)


def show_profile() -> None:
    ds = state.dataset()
    st.subheader(f"{md(ds.name)}: {(ds.total_rows or ds.n_rows):,} rows × {ds.frame.shape[1]:,} columns")
    if ds.sampled:
        st.info(
            f"Rows used: {ds.n_rows:,} of {ds.total_rows:,} (a seeded sample, seed {ds.sample_seed}; simulated views "
            "only). The profile below, and every view that needs rows, are computed on these rows."
        )
    for note in ds.notes:
        st.caption(md(note))
    profile = state.profile()
    st.dataframe(
        shown_profile(profile),
        hide_index=True,
        key="data_profile",
        height=table_height(len(profile)),
        column_config={  # in pixels: the table fits the page at 1400 pixels (a long list of top values is cut; min/max hold 1,484,705)
            "column": st.column_config.TextColumn("column", width=140),  # penguins' flipper_length_mm cut at 120
            "kind": st.column_config.TextColumn("kind", width=90),
            "missing": st.column_config.NumberColumn("missing", width=65, format="localized"),  # 1,836 as min/max
            "distinct": st.column_config.NumberColumn("distinct", width=65, format="localized"),
            "min": st.column_config.TextColumn("min", width=80),
            "max": st.column_config.TextColumn("max", width=80),
            "top_values": st.column_config.TextColumn("top values", width=185),
            "fits": st.column_config.TextColumn("fits", width=220),
        },
    )
    notes = shown_notes(profile)
    if len(notes):
        st.markdown(f"**Notes** on {len(notes):,} column(s)")
        st.dataframe(
            notes,
            hide_index=True,
            key="data_notes",
            column_config={"column": st.column_config.TextColumn("column", width=120)},
        )
    st.markdown("**Preview** (first 20 rows)")
    st.dataframe(ds.frame.head(20), hide_index=True)


def render() -> None:
    st.title("Data")
    choose_dataset()
    show_profile()
    unit.section()


frame.run_page(render)
