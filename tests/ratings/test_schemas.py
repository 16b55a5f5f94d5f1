"""The report's wire shape: camelCase, `from`, and `byScore` keyed "1" to "5"; a rating's score is a whole
number 1 to 5, never a string or a fraction."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.ratings.report import Agent, Figures, RatingFigures, Report
from app.ratings.schemas import RatingCreate, report_out


def test_the_report_as_sent() -> None:
    ratings = RatingFigures(2, 3.5, {"1": 0, "2": 1, "3": 0, "4": 0, "5": 1})
    figures = Figures(ratings=ratings)
    body = report_out("2026-11-01", "2026-11-30", Report(Figures(), [(Agent(9, "Sam"), figures)]))
    sent = body.model_dump(by_alias=True)
    assert sent["from"] == "2026-11-01" and sent["to"] == "2026-11-30"
    assert sent["firstResponse"] == {"medianMinutes": None, "met": 0, "missed": 0}
    assert sent["agents"][0]["agentId"] == 9
    assert sent["agents"][0]["ratings"] == {
        "count": 2,
        "mean": 3.5,
        "byScore": {"1": 0, "2": 1, "3": 0, "4": 0, "5": 1},
    }


@pytest.mark.parametrize("score", [0, 6, "3", 2.5, True, None])
def test_a_score_is_a_whole_number_from_1_to_5(score: object) -> None:
    with pytest.raises(ValidationError):
        RatingCreate.model_validate({"score": score})
    assert RatingCreate.model_validate({"score": 3, "comment": "Fine."}).comment == "Fine."
