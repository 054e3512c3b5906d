"""Evaluation: question sets, the four retrieval modes, metrics, an LLM judge, and stored batch runs.

* :mod:`core.evaluation.questions`: the ``questions.json`` format (load, validate, save);
* :mod:`core.evaluation.generator`: question sets built from a corpus's own structure;
* :mod:`core.evaluation.modes`: ``plain``, ``hierarchical``, ``contextual`` and ``hybrid`` retrieval;
* :mod:`core.evaluation.metrics`: recall@k, attribution, MRR, tokens, latency, answer match, intervals;
* :mod:`core.evaluation.judge`: pairwise judging in both orders on the GraphRAG criteria;
* :mod:`core.evaluation.runs`: batch runs stored in Postgres, listing, loading, CSV/JSON export.

No Streamlit here; the page (``pages/evaluation.py``) and the CLI (``python -m core eval``) are thin views.

The names below are imported on first use (PEP 562), so ``python -m core eval`` checks its arguments
(:mod:`core.evaluation.mode_names`) before the retrieval pipeline and the database driver are loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from core.evaluation.generator import (
        generate_questions,
        generate_questions_from_store,
    )
    from core.evaluation.judge import (
        CRITERIA,
        Judge,
        PairJudgement,
        WinRate,
        win_rates,
    )
    from core.evaluation.metrics import (
        QuestionScore,
        aggregate,
        score_question,
    )
    from core.evaluation.mode_names import (
        ALL_MODES,
        DEFAULT_MODES,
        parse_modes,
    )
    from core.evaluation.modes import (
        ModeRetrieval,
        ModeRunner,
    )
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

_WHERE: dict[str, str] = {
    "generate_questions": "core.evaluation.generator",
    "generate_questions_from_store": "core.evaluation.generator",
    "CRITERIA": "core.evaluation.judge",
    "Judge": "core.evaluation.judge",
    "PairJudgement": "core.evaluation.judge",
    "WinRate": "core.evaluation.judge",
    "win_rates": "core.evaluation.judge",
    "QuestionScore": "core.evaluation.metrics",
    "aggregate": "core.evaluation.metrics",
    "score_question": "core.evaluation.metrics",
    "ALL_MODES": "core.evaluation.mode_names",
    "DEFAULT_MODES": "core.evaluation.mode_names",
    "parse_modes": "core.evaluation.mode_names",
    "ModeRetrieval": "core.evaluation.modes",
    "ModeRunner": "core.evaluation.modes",
    "Question": "core.evaluation.questions",
    "QuestionSet": "core.evaluation.questions",
    "QuestionSetError": "core.evaluation.questions",
    "load_questions": "core.evaluation.questions",
    "parse_questions": "core.evaluation.questions",
    "save_questions": "core.evaluation.questions",
    "EvalRun": "core.evaluation.runs",
    "RunInfo": "core.evaluation.runs",
    "cli_payload": "core.evaluation.runs",
    "delete_run": "core.evaluation.runs",
    "export_csv": "core.evaluation.runs",
    "export_json": "core.evaluation.runs",
    "list_runs": "core.evaluation.runs",
    "load_run": "core.evaluation.runs",
    "run_evaluation": "core.evaluation.runs",
}

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


__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
