"""The calendar routes' own request dependencies. Only route modules import it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from app.api.dependencies import repository
from app.calendar.repository import CalendarRepository

CalendarRepo = Annotated[CalendarRepository, Depends(repository(CalendarRepository))]
