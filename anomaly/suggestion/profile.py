"""ColumnProfile: the single-column statistics the suggestion rules read.

The rules are those of Schelter et al., PVLDB 2018, §3.3.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from anomaly.analyzers.base import INTEGRAL_TYPES, is_numeric

INTEGRAL, FRACTIONAL, BOOLEAN, STRING, UNKNOWN = (
    "Integral", "Fractional", "Boolean", "String", "Unknown"
)  # fmt: skip
NUMERIC = (INTEGRAL, FRACTIONAL)


def detected_type(types: Iterable[str]) -> str:
    """The one type all non-null values of a text column fit, from the types seen (Deequ's rule).

    Integral values fit Fractional; any other mix (or one String value) is String.

    >>> detected_type({"Integral", "Fractional"})
    'Fractional'
    >>> detected_type({"Boolean", "Integral"}), detected_type(())
    ('String', 'Unknown')
    """
    seen = set(types) - {UNKNOWN}
    if not seen:
        return UNKNOWN
    if STRING in seen or (BOOLEAN in seen and seen & set(NUMERIC)):
        return STRING
    if BOOLEAN in seen:
        return BOOLEAN
    return FRACTIONAL if FRACTIONAL in seen else INTEGRAL


def schema_type(spark_type: str) -> str:
    """The profile type of a typed (non-string) Spark column.

    >>> schema_type("bigint"), schema_type("decimal(10,2)"), schema_type("timestamp")
    ('Integral', 'Fractional', 'String')
    """
    whole_decimal = spark_type.startswith("decimal(") and spark_type.endswith(",0)")
    if spark_type in INTEGRAL_TYPES or whole_decimal:
        return INTEGRAL
    if is_numeric(spark_type):
        return FRACTIONAL
    return BOOLEAN if spark_type == "boolean" else STRING


@dataclass(frozen=True)
class ColumnProfile:
    """What the profiling passes learned about one column.

    `data_type` is inferred from the values for string columns, else taken from the schema.
    Numeric summaries exist for numeric columns, `histogram` (value text -> count, nulls left
    out) for columns whose approximate distinct count is within the low-cardinality threshold.

    Examples
    --------
    >>> p = ColumnProfile("age", "string", INTEGRAL, rows=10, non_null=8, approx_distinct=7)
    >>> p.completeness, p.inferred, p.is_numeric
    (0.8, True, True)
    """

    column: str
    spark_type: str
    data_type: str
    rows: int
    non_null: int
    approx_distinct: float
    types_seen: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    mean: float | None = None
    stddev: float | None = None
    quartiles: tuple[float, float, float] | None = None
    histogram: Mapping[str, int] | None = None

    @property
    def completeness(self) -> float:
        """Fraction of rows with a value (NaN when there are no rows)."""
        return self.non_null / self.rows if self.rows else float("nan")

    @property
    def inferred(self) -> bool:
        """Whether a string column's values all parse as a more specific type."""
        return self.spark_type == "string" and self.data_type not in (STRING, UNKNOWN)

    @property
    def is_numeric(self) -> bool:
        """Whether the column holds (or its text parses as) numbers."""
        return self.data_type in NUMERIC
