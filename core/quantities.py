"""Values as quantities with units, parsed by ``pint``, so values stated in different units compare: 1.9 kg < 2400 g,
"2년" < "3 years", 512 KiB < 1 MiB.

A value is read as the numbers it states with the word after each (``pint`` decides whether that word is a
unit): "0.8 kg" is one quantity, "0 to 40 °C" a range, "DisplayPort 165Hz, HDMI 144Hz" two qualified quantities
(a question naming "HDMI" takes that one). Korean unit words (년, 개월, 시간, 분, 초, 일, 개, 원, and the metric
units written out: 킬로그램, 미터, 리터, ...) are defined in the registry as the units they name. A value with no
number ("O", "X", "utf8") is not a quantity: it is listed, never ranked. "1e3 kg" is 1000 kg: a number may carry an
exponent.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache

import pint

from core.textnorm import ENGLISH_STOP_WORDS

__all__ = ["Measured", "comparable", "is_unit", "measure", "registry"]

# Korean unit words and the units they name; "개" (pieces) and "원" (won) are their own dimensions.
_KOREAN_UNITS = (
    "년 = year", "개월 = month", "주 = week", "일 = day", "시간 = hour", "분 = minute", "초 = second",
    "개 = count", "원 = [currency_won]",
    "그램 = gram", "킬로그램 = kilogram", "밀리그램 = milligram", "톤 = metric_ton",
    "미터 = meter", "킬로미터 = kilometer", "센티미터 = centimeter", "밀리미터 = millimeter",
    "리터 = liter", "밀리리터 = milliliter", "와트 = watt", "킬로와트 = kilowatt", "볼트 = volt", "암페어 = ampere",
    "헤르츠 = hertz", "바이트 = byte", "킬로바이트 = kilobyte", "메가바이트 = megabyte", "기가바이트 = gigabyte",
    "테라바이트 = terabyte",
)
# pint's longest unit name is 41 characters; a longer word is no unit, and parsing one costs time quadratic in
# its length (pint tries every prefix and suffix split).
_MAX_UNIT_CHARS = 48
# A number (1,000 · 0.8 · -10 · 1.2e3) and the word right after it, which pint may or may not know as a unit.
_NUMBER = re.compile(r"(?<![\w.])(?P<num>[-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-−]?\d+(?:\.\d+)?(?:[eE][-+−]?\d+)?)\s*"
                     r"(?P<unit>(?:[°µμ]?[A-Za-z\uac00-\ud7a3]+(?:[/·][A-Za-z²³]+)?[²³]?)?)")
_RANGE = re.compile(r"^\s*°?\s*~\s*$")
_RANGE_WORD = re.compile(r"\s*(?:\bto\b|~|–|부터)\s*")
_UNIT_WORD = re.compile(r"[°µμ]?[A-Za-z\uac00-\ud7a3]+(?:/[A-Za-z]+)?")
_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def registry() -> pint.UnitRegistry:
    """The unit registry (built once: pint's definitions take ~100 ms to load)."""
    with _LOCK:
        units = pint.UnitRegistry(autoconvert_offset_to_baseunit=True)
        for definition in _KOREAN_UNITS:
            units.define(definition)
        return units


@dataclass(frozen=True)
class Measured:
    """A value read as a quantity: ``low`` and ``high`` (equal unless the value states a range), in one unit."""

    low: pint.Quantity
    high: pint.Quantity
    text: str  # the part of the value it was read from

    def key(self, direction: str) -> float:
        """The magnitude that ranks this value, in base units: a range ranks by its high end for a maximum and
        by its low end for a minimum."""
        quantity = self.high if direction == "max" else self.low
        return float(quantity.to_base_units().magnitude)


def _quantity(number: str, unit: str) -> pint.Quantity | None:
    units = registry()
    value = float(number.replace(",", "").replace("−", "-"))
    if not unit or len(unit) > _MAX_UNIT_CHARS:
        return units.Quantity(value)
    try:
        return units.Quantity(value, units.parse_units(unit.replace("μ", "µ")))
    except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError, AttributeError, TypeError,
            ValueError, AssertionError):
        return units.Quantity(value)  # a word after the number that is no unit ("2 (HDMI 2.1)", "5 W x 2")


def _segments(value: str, prefer: frozenset[str]) -> list[str]:
    """The value's comma-separated parts; those naming a word of ``prefer`` ("HDMI") first."""
    parts = [p.strip() for p in re.split(r"[,;]\s+", value) if p.strip()]
    if len(parts) < 2 or not prefer:
        return [value]
    named = [p for p in parts if prefer & {w.casefold() for w in re.findall(r"[\w-]+", p)}]
    return named or [value]


def measure(value: str, prefer: frozenset[str] = frozenset()) -> Measured | None:
    """``value`` as a quantity (or a range), or ``None`` when it states no number."""
    text = _segments(value, prefer)[0]
    found = list(_NUMBER.finditer(_RANGE_WORD.sub(" ~ ", text)))
    text = _RANGE_WORD.sub(" ~ ", text)
    if not found:
        return None
    first = found[0]
    low = _quantity(first.group("num"), first.group("unit"))
    if low is None:
        return None
    high = low
    if len(found) > 1 and _RANGE.match(text[first.end() : found[1].start()]):
        second = found[1]
        high_q = _quantity(second.group("num"), second.group("unit") or first.group("unit"))
        if not first.group("unit") and second.group("unit"):
            low = _quantity(first.group("num"), second.group("unit"))
        if high_q is not None and low is not None and comparable(low, high_q):
            high = high_q
    return Measured(low, high, text)


def comparable(a: pint.Quantity, b: pint.Quantity) -> bool:
    return a.dimensionality == b.dimensionality


@lru_cache(maxsize=4096)
def is_unit(word: str) -> bool:
    """Whether pint reads ``word`` as a unit ("MiB", "ms", "kg", "년"), not as a plain word ("for", "and")."""
    if not word or len(word) > _MAX_UNIT_CHARS or word.casefold() in ENGLISH_STOP_WORDS or \
            not _UNIT_WORD.fullmatch(word):
        return False
    try:
        units = registry().parse_units(word.replace("μ", "µ"))
    except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError, AttributeError, TypeError,
            ValueError, AssertionError):
        return False
    # Bytes are dimensionless in pint, as are unit-less numbers: a named unit is what counts.
    return str(units) != "dimensionless"
