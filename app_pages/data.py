"""Data: choose a demo table or upload a CSV; see a profile of every column."""

import streamlit as st

from explorer import dataset, frame, state, uploads
from explorer.markup import md


def choose_dataset() -> None:
    left, right = st.columns([1, 1.3])
    with left:
        st.subheader("Demo data (synthetic)")
        for key, (_, description) in dataset.DEMO_DATASETS.items():
            if st.button(f"Use {key}", key=f"demo_{key}", help=description):
                state.activate(state.cached_demo(key))
            st.caption(description)
    with right:
        st.subheader("Upload a CSV")
        upload = st.file_uploader(
            f"CSV up to {dataset.MAX_UPLOAD_BYTES / 2**20:g} MiB; UTF-8, UTF-16 or Latin-1; comma, semicolon, tab or pipe.",
            type=["csv", "tsv", "txt"],
            key="data_upload",
            help="The file stays in this browser session only; nobody else sees it.",
        )
        if upload is not None and state.new_upload(upload.file_id):
            uploads.release_older(upload.file_id)  # files replaced or left behind: no widget uses them
            try:
                state.activate(state.read_upload(upload.getvalue(), upload.name))  # kept with the session only
                st.success(f"Loaded {md(upload.name)}.")
            except dataset.DatasetError as exc:
                uploads.release(upload.file_id)  # Streamlit would keep a refused file until the session ends
                state.set_upload_error(
                    f"{md(upload.name)} was not loaded: {md(exc)} The previous dataset is still active."
                )
        if state.upload_error():
            st.error(state.upload_error())


def show_profile() -> None:
    ds = state.dataset()
    st.subheader(f"{md(ds.name)}: {ds.n_rows:,} rows × {ds.frame.shape[1]:,} columns")
    for note in ds.notes:
        st.caption(md(note))
    st.dataframe(
        state.profile(),
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


frame.run_page(render)
