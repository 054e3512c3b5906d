"""Evaluation: run a question set in several retrieval modes, chart the metrics, drill into one question.

Thin view over ``core.evaluation``: no SQL and no prompt text here. Document and question text is untrusted:
it is shown in dataframes, as code, or escaped (``escape_markdown``); never as HTML.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.evaluation import (
    ALL_MODES,
    CRITERIA,
    DEFAULT_MODES,
    EvalRun,
    Judge,
    QuestionSetError,
    cli_payload,
    export_csv,
    export_json,
    generate_questions_from_store,
    list_runs,
    load_questions,
    load_run,
    run_evaluation,
)
from core.evaluation.mode_names import MODE_BLURBS, mode_label
from core.llm import LLMError
from core.progress import Progress
from core.store import StoreError
from core.text import escape_markdown
from views import charts, ui

ui.route_through_app()  # a deep link on a fresh server: drawn through app.py (views/ui.py)

SOURCES = ("Gold questions (data/questions.json)", "Generated from this collection", "Upload a JSON file")
MAX_UI_K = 20

st.title("Evaluation")
st.caption(
    "Run a question set in several retrieval modes and measure what each context holds: the gold answer "
    "(recall@k), the gold heading path (attribution), how early the answer is ranked (MRR), its size in tokens, "
    "and latency. With an LLM configured, a judge compares the answers pairwise, in both orders."
)
store = ui.require_documents()
collection = ui.current_collection()
url = ui.db_url()


@st.cache_data(show_spinner=False, ttl=60)
def _generated(collection_name: str, n_documents: int) -> dict:
    # Keyed by the document count so that ingesting more documents regenerates the set.
    return generate_questions_from_store(ui.store(collection_name)).as_dict()


# -- inputs -----------------------------------------------------------------------------------------------------

source = st.radio("Question set", SOURCES, horizontal=True, key="eval_source")
questions = None
try:
    if source == SOURCES[0]:
        questions = load_questions(ui.QUESTIONS_FILE)
    elif source == SOURCES[1]:
        questions = load_questions(_generated(collection, len(store.documents())))
        if not questions.questions:
            st.warning("This collection states no defaults, key : value items or table rows to ask about.")
    else:
        upload = st.file_uploader("Question set (JSON)", type=["json"], key="eval_upload",
                                  help="The format is described in data/README.md.")
        if upload is not None:
            questions = load_questions(upload.getvalue(), name=upload.name.rsplit(".", 1)[0])
except QuestionSetError as exc:
    st.error(f"The question set cannot be used: {escape_markdown(str(exc))}")
    questions = None

if questions is not None:
    st.caption(f"**{escape_markdown(questions.name)}**: {len(questions)} questions. "
               f"{escape_markdown(questions.description[:300])}")

with st.form("eval_form"):
    modes = st.multiselect("Modes", list(ALL_MODES), default=list(DEFAULT_MODES), key="eval_modes",
                           format_func=lambda m: f"{m}: {mode_label(m)}",
                           help="; ".join(f"{m}: {b}" for m, b in MODE_BLURBS.items()))
    left, middle = st.columns(2)
    k = left.slider("k (hits per question)", 1, MAX_UI_K, 4, key="eval_k")
    limit = middle.number_input("Questions (0 = all)", min_value=0, max_value=10_000, value=0, step=5,
                                key="eval_limit")
    build_contextual = st.checkbox("Build or update the contextual index first (the contextual mode needs it; "
                                   "embeds every element again with its heading path)", key="eval_build_contextual")
    has_llm = ui.settings().has_llm
    judge_on = st.checkbox("Judge answer pairs with the LLM (each pair twice, positions swapped)",
                           key="eval_judge", disabled=not has_llm)
    if not has_llm:
        st.caption("The judge needs an LLM: set `OPENAI_API_KEY` (and `OPENAI_BASE_URL` for a local server). "
                   "Retrieval metrics and the extractive answer match need none.")
    submitted = st.form_submit_button("Run evaluation", type="primary", disabled=questions is None)

if submitted and questions is not None:
    if not modes:
        st.warning("Pick at least one mode.")
    else:
        subset = questions.subset(limit=int(limit)) if limit else questions
        bar = st.progress(0.0, text="Preparing…")

        def on_progress(step: Progress) -> None:
            bar.progress(step.fraction, text=f"{step.done}/{step.total} · {escape_markdown(step.message[:80])}")

        try:
            judge = Judge.from_settings(ui.settings()) if judge_on and has_llm else None
            run = run_evaluation(store, subset, modes=modes, k=int(k), progress=on_progress, judge=judge,
                                 build_contextual=build_contextual)
        except (ValueError, StoreError, LLMError) as exc:
            st.error(f"The evaluation failed: {escape_markdown(str(exc))}")
        else:
            bar.progress(1.0, text=f"Done: {len(subset)} questions × {len(modes)} modes")
            st.session_state["eval_run_id"] = run.run_id
            st.session_state["eval_view"] = run.run_id

# -- stored runs ------------------------------------------------------------------------------------------------

runs = list_runs(url, collection)
if not runs:
    st.info("No evaluation runs for this collection yet: pick a question set and click **Run evaluation**.")
    st.stop()

labels = {
    r.run_id: f"{r.started_at:%Y-%m-%d %H:%M:%S} · {r.question_set} · {r.n_questions} q · k={r.k} · "
              f"{', '.join(r.modes)}{' · judged' if r.judged else ''} · {r.status}"
    for r in runs
}
if st.session_state.get("eval_view") not in labels:
    st.session_state["eval_view"] = runs[0].run_id
with st.expander(f"Stored runs of **{escape_markdown(collection)}** ({len(runs)})"):
    st.dataframe(
        pd.DataFrame([
            {"started": r.started_at, "question set": r.question_set, "questions": r.n_questions, "k": r.k,
             "modes": ", ".join(r.modes), "judged": r.judged, "status": r.status,
             **{f"{m} recall": (r.summary.get("modes", {}).get(m) or {}).get("recall") for m in ALL_MODES},
             **{f"{m} attribution": (r.summary.get("modes", {}).get(m) or {}).get("attribution") for m in ALL_MODES}}
            for r in runs
        ]),
        hide_index=True, width="stretch",
    )
view_id = st.selectbox("Run", list(labels), format_func=labels.__getitem__, key="eval_view")
run: EvalRun | None = load_run(url, view_id)
if run is None:
    st.warning("That run no longer exists.")
    st.stop()
if run.status != "done":
    st.warning(f"This run is {run.status}: {escape_markdown(run.error or 'no error recorded')}. "
               "Its numbers cover the questions finished before it stopped.")

# -- aggregates and charts --------------------------------------------------------------------------------------

payload = cli_payload(run)
st.subheader("Per mode")
summary = pd.DataFrame([{"mode": m, "as on Compare": mode_label(m), **{k_: v for k_, v in payload[m].items()}}
                        for m in run.modes])
# Readable headers ("hit_recall" → "Hit recall", "latency_ms_p50" → "Latency ms p50") and two decimals.
summary.columns = ["MRR" if c == "mrr" else c.replace("_", " ").capitalize() for c in summary.columns]
st.dataframe(summary, hide_index=True, width="stretch",
             column_config={c: st.column_config.NumberColumn(c, format="%.2f")
                            for c in summary.columns if pd.api.types.is_float_dtype(summary[c])})  # fmt: skip
frame = pd.DataFrame([{**r.flat(), "position": r.position} for r in run.results])

if not frame.empty:
    st.plotly_chart(charts.metric_bars(run.modes, run.aggregates), key="eval_metrics_chart")
    left, right = st.columns(2)
    left.plotly_chart(charts.distribution(frame, run.modes, "context_tokens", "Context tokens per question",
                                          "tokens"), key="eval_tokens_chart")  # fmt: skip
    right.plotly_chart(charts.distribution(frame, run.modes, "latency_ms", "Retrieval latency per question", "ms"),
                       key="eval_latency_chart")  # fmt: skip

judge = run.summary.get("judge")
if judge:
    st.subheader("LLM judge: win rates")
    st.caption(f"{escape_markdown(judge.get('label') or '')}. Win rate of the second mode over the first; ties "
               "count half; each pair judged in both orders; 95% Wilson intervals. Invalid verdicts are excluded "
               "and counted.")
    st.plotly_chart(charts.judge_win_rates(judge, CRITERIA), key="eval_judge_chart")
    st.dataframe(pd.DataFrame(judge["win_rates"]), hide_index=True, width="stretch")

# -- per question ----------------------------------------------------------------------------------------------

st.subheader("Per question")
if frame.empty:
    st.info("This run has no results.")
    st.stop()


def _mark(value) -> str:
    return "–" if value is None or pd.isna(value) else ("✓" if value else "✗")


table = frame.pivot_table(index=["position", "question_id", "question"], columns="mode",
                          values=["recall", "attribution"], aggfunc="first")
rows = []
for (_position, question_id, question), values in table.iterrows():
    row = {"id": question_id, "question": question}
    for mode in run.modes:
        row[f"{mode} recall"] = _mark(values.get(("recall", mode)))
        row[f"{mode} attribution"] = _mark(values.get(("attribution", mode)))
    rows.append(row)
per_question = pd.DataFrame(rows)
event = st.dataframe(per_question, hide_index=True, width="stretch", key="eval_table",
                     on_select="rerun", selection_mode="single-row")
selected = getattr(getattr(event, "selection", None), "rows", None) or []
ids = list(per_question["id"])
if selected:
    st.session_state["eval_question"] = ids[selected[0]]
question_id = st.selectbox("Inspect a question (or select a row above)", ids, key="eval_question",
                           format_func=lambda i: f"{i} · {per_question.set_index('id').loc[i, 'question'][:90]}")

picked = [r for r in run.results if r.question_id == question_id]
if picked:
    gold = picked[0].details.get("gold") or {}
    st.markdown(f"**{escape_markdown(picked[0].question)}**")
    st.caption("Gold answers: " + escape_markdown(" | ".join(gold.get("answers") or []) or "–")
               + " · gold path: " + escape_markdown(" › ".join(gold.get("gold_path") or []) or "–"))
    # Two modes per row, so plain | hierarchical line up, then contextual | hybrid.
    cells = [(index, row, column) for start in range(0, len(picked), 2)
             for index, row, column in zip(range(start, start + 2), picked[start : start + 2], st.columns(2),
                                           strict=False)]
    for index, row, column in cells:
        with column:
            s = row.score
            st.markdown(f"**{row.mode}** · recall {_mark(s.recall)} · attribution {_mark(s.attribution)} · "
                        f"first hit rank {s.first_hit_rank or '–'} · {s.context_tokens} tokens · "
                        f"{s.latency_ms:.0f} ms")
            st.caption("Extractive answer: " + escape_markdown(row.answer[:300] or "–"))
            if row.details.get("llm_answer") is not None:
                st.caption("LLM answer: " + escape_markdown(str(row.details.get("llm_answer"))[:500]))
            with st.expander(f"{row.mode} context", expanded=index < 2):
                st.code(row.context or "(empty)", language="markdown", wrap_lines=True)

# -- export ----------------------------------------------------------------------------------------------------

left, right = st.columns(2)
left.download_button("Download results (CSV)", data=export_csv(run), file_name=f"eval-{run.run_id[:8]}.csv",
                     mime="text/csv", key="eval_csv")
right.download_button("Download run (JSON)", data=export_json(run), file_name=f"eval-{run.run_id[:8]}.json",
                      mime="application/json", key="eval_json")
