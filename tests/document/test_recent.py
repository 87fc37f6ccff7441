"""document/recent.Recent: a value made once for each of the last few objects, by identity."""

from __future__ import annotations

from mineru_tui.document.recent import Recent


def test_the_same_object_gets_the_value_made_the_first_time():
    made = []
    recent = Recent(keep=2)
    a = ["a"]
    first = recent.get(a, lambda o: made.append(o) or object())
    assert recent.get(a, lambda o: made.append(o) or object()) is first
    assert made == [a]


def test_an_equal_object_is_not_the_same_object():
    recent = Recent(keep=2)
    a, b = ["x"], ["x"]
    assert recent.get(a, lambda o: 1) == 1
    assert recent.get(b, lambda o: 2) == 2  # equal, not identical: made again


def test_the_key_tells_two_values_of_one_object_apart():
    recent = Recent(keep=4)
    t = object()
    assert recent.get(t, lambda o: "plain", "") == "plain"
    assert recent.get(t, lambda o: "prefixed", "images/") == "prefixed"
    assert recent.get(t, lambda o: "again", "") == "plain"


def test_only_the_last_keep_are_remembered():
    recent = Recent(keep=2)
    a, b, c = object(), object(), object()
    for o in (a, b, c):
        recent.get(o, lambda o: id(o))
    calls = []
    recent.get(a, lambda o: calls.append("a") or 0)  # a went when c came
    recent.get(c, lambda o: calls.append("c") or 0)  # c is still there
    assert calls == ["a"]
