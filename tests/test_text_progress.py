from core.progress import Progress, no_progress
from core.text import clip, first_line


def test_first_line_of_an_error_and_of_a_blank_error():
    assert first_line(ValueError("bad thing\nsecond line")) == "bad thing"
    assert first_line(KeyError()) == "KeyError"
    assert first_line("x" * 500, limit=10) == "x" * 10


def test_clip_collapses_whitespace_and_cuts_at_a_word():
    assert clip("a  b\n c", 10) == "a b c"
    assert clip("alpha beta gamma delta", 12) == "alpha beta…"
    assert clip("alpha beta gamma delta", 12, at_word=False) == "alpha beta …"
    assert len(clip("x" * 100, 20)) == 20


def test_progress_fraction_and_description():
    p = Progress("embed", 3, 4, "file.md")
    assert p.fraction == 0.75
    assert p.describe() == "embed 3/4: file.md"
    assert Progress("map", 0, 0).fraction == 1.0
    assert no_progress(p) is None
