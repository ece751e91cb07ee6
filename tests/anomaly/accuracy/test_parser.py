"""Parser: every construct of seed 002's BNF in scope, the seed's examples, error positions."""

from __future__ import annotations

import pytest

from anomaly.accuracy import RuleSyntaxError, parse_rule
from anomaly.accuracy import nodes as n
from anomaly.accuracy.lexer import normalize
from tests.anomaly.accuracy.data import EXAMPLE_1, EXAMPLE_2


def mapping(text: str) -> str:
    """The canonical (fully parenthesised) rendering of a rule's mapping part."""
    return str(parse_rule(text).mapping)


# (rule, canonical rendering of its mapping): one or more cases per construct of the BNF.
CANONICAL = [
    # compare-opr, including the seed's "==" and SQL's "<>"
    ("$source.a = $target.a", "($source.a = $target.a)"),
    ("$source.a == $target.a", "($source.a = $target.a)"),
    ("$source.a != 1", "($source.a != 1)"),
    ("$source.a <> 1", "($source.a != 1)"),
    ("$source.a < 1", "($source.a < 1)"),
    ("$source.a > 1", "($source.a > 1)"),
    ("$source.a <= 1", "($source.a <= 1)"),
    ("$source.a >= 1", "($source.a >= 1)"),
    # logical operators and their spellings; NOT binds tighter than AND, AND than OR
    ("$source.a = 1 AND $source.b = 2", "(($source.a = 1) AND ($source.b = 2))"),
    ("$source.a = 1 && $source.b = 2", "(($source.a = 1) AND ($source.b = 2))"),
    ("$source.a = 1 or $source.b = 2", "(($source.a = 1) OR ($source.b = 2))"),
    ("$source.a = 1 || $source.b = 2", "(($source.a = 1) OR ($source.b = 2))"),
    ("NOT $source.a = 1", "(NOT ($source.a = 1))"),
    ("! $source.a = 1", "(NOT ($source.a = 1))"),
    ("not not $source.a = 1", "(NOT (NOT ($source.a = 1)))"),
    (
        "$source.a = 1 OR $source.b = 2 AND NOT $source.c = 3",
        "(($source.a = 1) OR (($source.b = 2) AND (NOT ($source.c = 3))))",
    ),
    (
        "($source.a = 1 OR $source.b = 2) AND $source.c = 3",
        "((($source.a = 1) OR ($source.b = 2)) AND ($source.c = 3))",
    ),
    ("(($source.a = 1))", "($source.a = 1)"),
    # range-opr and range-expr
    (
        "$source.page_id IN ('3214', '4312', '60821')",
        "($source.page_id IN ('3214', '4312', '60821'))",
    ),
    ("$source.a NOT IN (1)", "($source.a NOT IN (1))"),
    ("$source.a IN ()", "($source.a IN ())"),
    ("$source.a BETWEEN (10, 15)", "($source.a BETWEEN 10 AND 15)"),
    ("$source.a BETWEEN 10 AND 15", "($source.a BETWEEN 10 AND 15)"),
    ("$source.a NOT BETWEEN (1, 2)", "($source.a NOT BETWEEN 1 AND 2)"),
    ("$source.a BETWEEN (1) AND 2", "($source.a BETWEEN 1 AND 2)"),
    (
        "$source.a BETWEEN 1 AND 2 AND $source.b = 3",
        "(($source.a BETWEEN 1 AND 2) AND ($source.b = 3))",
    ),
    # math-expr: binary and unary operators, precedence, parentheses
    ("$source.price * $target.count = 1", "(($source.price * $target.count) = 1)"),
    (
        "$source.a + 2 * 3 - 4 / 5 % 6 = 0",
        "((($source.a + (2 * 3)) - ((4 / 5) % 6)) = 0)",
    ),
    ("($source.a + 1) * 2 = $target.b", "((($source.a + 1) * 2) = $target.b)"),
    ("-$source.a = +$target.b", "((-$source.a) = (+$target.b))"),
    ("- -1 = 1", "((--1) = 1)"),
    (
        '"hello" + " " + "world" + 123 = $source.s',
        "(((('hello' + ' ') + 'world') + 123) = $source.s)",
    ),
    # literals: strings (both quotes, escapes), numbers, times, booleans, null
    ("$source.s = 'it\\'s'", "($source.s = 'it\\'s')"),
    ('$source.s = "say \\"hi\\"\\n"', "($source.s = 'say \"hi\"\\n')"),
    ("$source.a = -43", "($source.a = -43)"),
    ("$source.a = 342309", "($source.a = 342309)"),
    ("$source.a = 1.5", "($source.a = 1.5)"),
    ("$source.a = 2.5e3", "($source.a = 2.5e3)"),
    ("$source.t = 24h", "($source.t = 24h)"),
    ("$source.t IN (7d, 3m, 800ms, 10s)", "($source.t IN (7d, 3m, 800ms, 10s))"),
    ("$source.f = TRUE AND $source.g = false", "(($source.f = true) AND ($source.g = false))"),
    ("$source.id != null", "($source.id != null)"),
    # selections: heads, fields, quoted fields, nesting, indexes, *, ranges, filters, functions
    ("${source}['__time'] = ${target}.__time", "($source.__time = $target.__time)"),
    ("$source['state'] = $target[\"state\"]", "($source.state = $target.state)"),
    ("$source['first name'] = 1", "($source['first name'] = 1)"),
    ("$source.a.b.c = $target.a.b.c", "($source.a.b.c = $target.a.b.c)"),
    ("$source.numList[3] = $source.numList[-1]", "($source.numList[3] = $source.numList[-1])"),
    ("$source.tags[1+2] = 1", "($source.tags[(1 + 2)] = 1)"),
    ("$source.tags[$source.first] = 1", "($source.tags[$source.first] = 1)"),
    ("$source.tags[(1 + 2) * 3] = 1", "($source.tags[((1 + 2) * 3)] = 1)"),
    ("$source.tags[(0, 3)] = $target.tags", "($source.tags[(0, 3)] = $target.tags)"),
    ("$source.tags[*] = $target.tags[*]", "($source.tags[*] = $target.tags[*])"),
    ("$source.json() = $target.json()", "($source.json() = $target.json())"),
    (
        "$target.json().mails['org' = 'apache'].names[*] = 1",
        "($target.json().mails['org' = 'apache'].names[*] = 1)",
    ),
    (
        "$source.man['age' > $source.graduate_age + 5].name = 1",
        "($source.man['age' > ($source.graduate_age + 5)].name = 1)",
    ),
    ("$source.list['id' != null].v = 1", "($source.list['id' != null].v = 1)"),
    ("$source.in.and.when = $target.not", "($source.in.and.when = $target.not)"),
]


@pytest.mark.parametrize(("rule", "expected"), CANONICAL, ids=[c[0] for c in CANONICAL])
def test_constructs_parse_to_the_expected_tree(rule: str, expected: str) -> None:
    assert mapping(rule) == expected
    # The canonical text is itself a rule with the same tree.
    assert mapping(expected) == expected


def test_node_types_and_positions() -> None:
    rule = parse_rule("$source.a[0]['k'].json() IN (1, -2) WHEN $target.b BETWEEN 1 AND 2")
    assert isinstance(rule.mapping, n.InList) and rule.mapping.items[1] == n.Literal(
        32, "number", -2, "-2"
    )
    selection = rule.mapping.operand
    assert isinstance(selection, n.Selection) and selection.head == "source"
    assert [type(s) for s in selection.steps] == [n.Field, n.Index, n.Field, n.Call]
    assert [s.pos for s in selection.steps] == [8, 10, 13, 18]
    assert isinstance(rule.when, n.Between) and rule.when.operand.sides() == {"target"}
    assert rule.mapping.sides() == {"source"}


def test_time_literals_are_milliseconds() -> None:
    rule = parse_rule("$source.t IN (7d, 24h, 3m, 10s, 800ms)")
    assert isinstance(rule.mapping, n.InList)
    values = [item.value for item in rule.mapping.items if isinstance(item, n.Literal)]
    assert values == [7 * 86_400_000, 24 * 3_600_000, 180_000, 10_000, 800]


def test_when_clause_and_if_guard() -> None:
    rule = parse_rule("IF ($source.t < $target.t) $source.id = $target.id WHEN $source.live = true")
    assert str(rule.guard) == "($source.t < $target.t)"
    assert str(rule.mapping) == "($source.id = $target.id)"
    assert str(rule.when) == "($source.live = true)"
    assert parse_rule("$source.id = $target.id").when is None


def test_seed_example_1() -> None:
    rule = parse_rule(EXAMPLE_1)
    parts = n.conjuncts(rule.mapping)
    fields = ["user_id", "first_name", "last_name", "address", "email", "phone", "post_code"]
    assert [str(p) for p in parts] == [f"($source.{f} = $target.{f})" for f in fields]


def test_seed_example_2() -> None:
    rule = parse_rule(EXAMPLE_2)
    assert str(rule.guard) == "(($source.__time + 24h) <= $target.__time)"
    url, tracker = n.conjuncts(rule.mapping)
    assert str(url) == (
        "($source.json().seeds.json().url = "
        "$target.json().groups[0].attrsList['name' = 'URL'].values[0])"
    )
    assert isinstance(tracker, n.Compare)
    target = tracker.right
    assert isinstance(target, n.Selection)
    kinds = [type(step).__name__ for step in target.steps]
    assert kinds == [
        "Call", "Field", "Index", "Field", "Filter", "Field", "Index", "Call", "Field", "Field",
    ]  # fmt: skip


def test_normalize_keeps_tokens_and_literals() -> None:
    assert normalize("\n $source.a   =\t'x  y'  AND\n$target.b>1 ") == (
        "$source.a = 'x  y' AND $target.b>1"
    )
    spread = EXAMPLE_2.replace(" AND ", "\n   AND ").replace("= ", "=\t")
    assert normalize(spread) == EXAMPLE_2
    assert str(parse_rule(spread)) == str(parse_rule(EXAMPLE_2))


# (rule, message fragment, 1-based column the caret points at)
ERRORS = [
    ("$source.a = ", "expected a value", 13),
    ("$source.a", "expected a comparison", 10),
    ("$source.a = 1 $target.b", "expected AND, OR, WHEN or end of rule, found '$target'", 15),
    ("$src.a = 1", "unknown data source '$src'", 1),
    ("$source.a = 'abc", "unterminated string", 13),
    ("$source.a = 24x", "invalid number or time literal '24x'", 13),
    ("$source.a = 1.5h", "invalid number or time literal '1.5h'", 13),
    ("$source.a = 1 # comment", "unexpected character '#'", 15),
    ("$source. = 1", "expected a field name after '.'", 10),
    ("$source.a[1, 2] = 1", "only one item per [...]", 12),
    ("$source.a[1 = 1", "expected ']'", 13),
    ("($source.a = 1", "expected ')'", 15),
    ("$source.a = (1 + 2", "expected ')'", 19),
    ("$source.a IN 1", "expected '(' starting a list of values", 14),
    ("$source.a IN (1 2)", "expected ',' or ')'", 17),
    ("$source.a BETWEEN (1, 2, 3)", "BETWEEN needs two bounds (low, high), got 3", 19),
    ("$source.a BETWEEN 1 OR 2", "expected AND between the two bounds", 21),
    ("$source.a = 1 WHEN", "expected a value", 19),
    ("$source.a = 1 WHEN $source.b = 1 WHEN", "expected AND, OR or end of rule", 34),
    ("IF $source.a = 1", "expected '(' after IF", 4),
    ("$source.a === $target.a", "expected a value", 13),
    ("$source.a = 1 AND", "expected a value", 18),
    ("$source.a.json(", "expected a value", 16),
]


@pytest.mark.parametrize(("rule", "message", "column"), ERRORS, ids=[e[0] for e in ERRORS])
def test_syntax_errors_point_at_the_column(rule: str, message: str, column: int) -> None:
    with pytest.raises(RuleSyntaxError) as caught:
        parse_rule(rule)
    error = caught.value
    assert message in error.message
    assert error.column == column, (error.column, str(error))
    _, shown, caret = str(error).splitlines()
    assert shown == f"  {rule.rstrip()}"
    assert caret == "  " + " " * (column - 1) + "^"


def test_error_on_a_later_line_of_a_multiline_rule() -> None:
    rule = "$source.id = $target.id\n  AND $source.x = = 1"
    with pytest.raises(RuleSyntaxError) as caught:
        parse_rule(rule)
    assert (caught.value.line, caught.value.column) == (2, 19)
    assert str(caught.value).splitlines()[1:] == [
        "    AND $source.x = = 1",
        "                    ^",
    ]
    assert caught.value.one_line().startswith("expected a value")
    assert "at line 2, column 19 of rule: $source.id = $target.id AND $source.x = = 1" in (
        caught.value.one_line()
    )
