"""Data: choose a demo table or upload a CSV; see a profile of every column."""

import streamlit as st

from dpcore import data
from pages import ui


def choose_dataset() -> None:
    left, right = st.columns([1, 1.3])
    with left:
        st.subheader("Demo data (synthetic)")
        for key, (_, description) in data.DEMO_DATASETS.items():
            if st.button(f"Use {key}", key=f"demo_{key}", help=description):
                ui.activate(ui.load_demo(key))
            st.caption(description)
    with right:
        st.subheader("Upload a CSV")
        upload = st.file_uploader(
            f"CSV up to {data.MAX_UPLOAD_BYTES / 1e6:g} MB; UTF-8, UTF-16 or Latin-1; comma, semicolon, tab or pipe.",
            type=["csv", "tsv", "txt"],
            key="data_upload",
            help="The file stays in this browser session only; nobody else sees it.",
        )
        if upload is not None and st.session_state.get("_last_upload") != upload.file_id:
            st.session_state["_last_upload"] = upload.file_id
            try:
                ui.activate(ui.load_upload(upload.getvalue(), upload.name))
                st.success(f"Loaded {ui.md(upload.name)}.")
            except data.DatasetError as exc:
                st.session_state["_upload_error"] = (
                    f"{ui.md(upload.name)} was not loaded: {ui.md(exc)} The previous dataset is still active."
                )
        if st.session_state.get("_upload_error"):
            st.error(st.session_state["_upload_error"])


def show_profile() -> None:
    ds = ui.dataset()
    st.subheader(f"{ui.md(ds.name)}: {ds.n_rows:,} rows × {ds.frame.shape[1]:,} columns")
    for note in ds.notes:
        st.caption(ui.md(note))
    st.dataframe(
        ui.profile(),
        hide_index=True,
        key="data_profile",
        column_config={
            "top_values": st.column_config.TextColumn("top values"),
            "fits": st.column_config.TextColumn("fits"),
        },
    )
    st.markdown("**Preview** (first 20 rows)")
    st.dataframe(ds.frame.head(20), hide_index=True)


def render() -> None:
    st.title("Data")
    choose_dataset()
    show_profile()


ui.run_page(render)
