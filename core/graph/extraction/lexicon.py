"""Word lists of entity extraction: role words, institution and place suffixes, words that are never names."""

from __future__ import annotations

from functools import lru_cache

ROLE_KEYS = frozenset(
    {
        "원장", "실장", "본부장", "소장", "센터장", "대표", "대표이사", "회장", "사장", "팀장", "부장", "교수",
        "책임자", "담당자", "연구원장", "소장대행", "ceo", "cto", "cfo", "director", "manager", "author", "authors",
        "maintainer", "maintainers", "contact", "lead", "head", "president", "founder", "chair", "owner", "editor",
    }
)  # fmt: skip

ORG_SUFFIXES_KO: tuple[str, ...] = (
    "연구원", "연구소", "대학교", "대학", "학과", "센터", "관제소", "관측소", "본부", "연구실", "개발실", "협회",
    "재단", "공사", "위원회", "주식회사", "회사", "포털", "학회", "(주)", "사무소", "지사", "은행", "병원", "연구기관",
)  # fmt: skip
LOC_SUFFIXES_KO: tuple[str, ...] = ("광역시", "특별시", "시", "도", "군", "구", "로", "길", "동", "읍", "면")
ORG_SUFFIXES_EN = frozenset(
    {
        "inc", "ltd", "co", "corp", "corporation", "company", "institute", "university", "college", "foundation",
        "association", "agency", "center", "centre", "laboratory", "laboratories", "lab", "labs", "group",
        "organization", "organisation", "society", "council", "department", "ministry", "bank", "observatory",
        "consortium", "llc", "gmbh", "project",
    }
)  # fmt: skip

STOP_NAMES = frozenset(
    {
        "true", "false", "none", "null", "yes", "no", "ok", "todo", "note", "notes", "warning", "tip", "info",
        "example", "examples", "fixme", "xxx", "n/a", "na", "etc", "eg", "ie", "the", "a", "an", "o", "x",
        "기준", "이상", "이하", "경우", "사용", "정도", "이후", "이전", "관련", "가능", "필요", "내용", "방법", "기본",
        "전체", "일부", "부분", "다음", "참고", "주의",
    }
)  # fmt: skip

# Sentence-initial words that are capitalised only because they start the sentence.
IMPERATIVES = frozenset(
    {
        "add", "allow", "apply", "ask", "avoid", "build", "call", "change", "check", "choose", "click", "close",
        "configure", "connect", "copy", "create", "define", "delete", "disable", "download", "enable", "ensure",
        "enter", "find", "follow", "get", "go", "hold", "install", "keep", "let", "load", "make", "move", "note",
        "open", "pass", "place", "plug", "press", "read", "remove", "replace", "return", "run", "see", "select",
        "send", "set", "start", "stop", "switch", "take", "try", "turn", "update", "upgrade", "use", "visit", "wait",
        "write", "learn", "like", "unlike", "since", "unless", "although", "because", "however", "also", "then",
        "instead", "otherwise", "today", "currently", "previously", "optionally", "additionally", "finally",
    }
)  # fmt: skip
MONTHS_DAYS = frozenset(
    {
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
        "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    }
)  # fmt: skip
# Role words that name the person next to them in running Korean text ("원장 서도윤", "서도윤 원장").
SENTENCE_ROLES = frozenset(
    {"원장", "실장", "본부장", "소장", "센터장", "대표이사", "회장", "사장", "팀장", "부장", "교수", "박사", "연구원장"}
)
# Words that may join the capitalised words of one English name ("Bank of Korea", "Research and Development").
CONNECTORS = frozenset({"of", "for", "and", "&", "de", "du", "von", "van", "der", "la", "le"})


@lru_cache(maxsize=1)
def english_stop_words() -> frozenset[str]:
    try:
        from spacy.lang.en.stop_words import STOP_WORDS  # ships with spaCy itself, no model needed

        return frozenset(w.casefold() for w in STOP_WORDS)
    except Exception:  # pragma: no cover - spaCy is present here, but keep working without it
        return frozenset({"the", "a", "an", "this", "that", "these", "those", "if", "when", "in", "on", "for"})
