"""Evaluation: question sets, the four retrieval modes, metrics, an LLM judge, and stored batch runs.

* :mod:`core.evaluation.questions`: the ``questions.json`` format (load, validate, save);
* :mod:`core.evaluation.generator`: question sets built from a corpus's own structure;
* :mod:`core.evaluation.modes`: ``plain``, ``hierarchical``, ``contextual`` and ``hybrid`` retrieval;
* :mod:`core.evaluation.metrics`: recall@k, attribution, MRR, tokens, latency, answer match, intervals;
* :mod:`core.evaluation.judge`: pairwise judging in both orders on the GraphRAG criteria;
* :mod:`core.evaluation.runs`: batch runs stored in Postgres, listing, loading, CSV/JSON export.

No Streamlit here; the page (``pages/evaluation.py``) and the CLI (``python -m core eval``) are thin views.
"""

from core.evaluation.generator import generate_questions, generate_questions_from_store
from core.evaluation.judge import CRITERIA, Judge, PairJudgement, WinRate, win_rates
from core.evaluation.metrics import QuestionScore, aggregate, score_question
from core.evaluation.modes import ALL_MODES, DEFAULT_MODES, ModeRetrieval, ModeRunner, parse_modes
from core.evaluation.questions import (
    Question,
    QuestionSet,
    QuestionSetError,
    load_questions,
    parse_questions,
    save_questions,
)
from core.evaluation.runs import (
    EvalRun,
    RunInfo,
    cli_payload,
    delete_run,
    export_csv,
    export_json,
    list_runs,
    load_run,
    run_evaluation,
)

__all__ = [
    "ALL_MODES",
    "DEFAULT_MODES",
    "CRITERIA",
    "EvalRun",
    "Judge",
    "ModeRetrieval",
    "ModeRunner",
    "PairJudgement",
    "Question",
    "QuestionScore",
    "QuestionSet",
    "QuestionSetError",
    "RunInfo",
    "WinRate",
    "aggregate",
    "cli_payload",
    "delete_run",
    "export_csv",
    "export_json",
    "generate_questions",
    "generate_questions_from_store",
    "list_runs",
    "load_questions",
    "load_run",
    "parse_modes",
    "parse_questions",
    "run_evaluation",
    "save_questions",
    "score_question",
    "win_rates",
]
