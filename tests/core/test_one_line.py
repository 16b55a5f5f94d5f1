"""User text on one line (app.core.one_line): every run of control characters, line separators and spaces
is one space, the ends trimmed."""

from __future__ import annotations

import pytest

from app.core.one_line import one_line


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Kettle", "Kettle"),
        ("Kettle\r\nBcc: x@example.com", "Kettle Bcc: x@example.com"),
        ("a\x00b\x07c\x1bd\x7fe", "a b c d e"),
        ("a\x85b\x9fc", "a b c"),  # C1, NEL among them
        ("a\u2028b\u2029c", "a b c"),  # Unicode line and paragraph separators
        ("a \r\n \t b", "a b"),  # one space for the whole run, spaces around it included
        ("  \n padded \t ", "padded"),
        ("a\ud800b", "a b"),  # a lone surrogate has no UTF-8 form
        ("\r\n\t", ""),
        ("café \u2013 naïve 🙂", "café \u2013 naïve 🙂"),  # printable text stays as it is
        ("a\u00a0b", "a\u00a0b"),  # a no-break space breaks no line
    ],
)
def test_unsafe_runs_become_one_space(value: str, expected: str) -> None:
    assert one_line(value) == expected


def test_the_result_has_no_control_character_and_encodes() -> None:
    value = "".join(chr(code) for code in range(0x00, 0xA0)) + "\u2028end\udfff"
    line = one_line(value)
    assert not any(ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F for char in line)
    line.encode("utf-8")
    assert line.endswith("end")
