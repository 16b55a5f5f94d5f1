"""Products as CSV (docs/api.md §13): the export's columns and cells, and the import's rows read back into
the create schema's fields."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from pydantic import ValidationError

from app.api.error_handlers import field_problems
from app.core.clock import iso_utc
from app.errors import ValidationFailed
from app.products import service
from app.products.schemas import ProductCreate, ProductOut

# The export's columns, in order: the product as the API shows it (ProductOut), flat.
EXPORT_COLUMNS = (
    "id", "name", "brand", "category", "purchaseDate", "warrantyPeriodMonths", "warrantyEndsOn",
    "warrantyExpiresAt", "warrantyStatus", "store", "price", "serialNumber", "hasActiveClaim", "createdAt",
    "updatedAt",
)  # fmt: skip
# What the import reads: the create fields but `householdId` (imported products are the importer's own,
# unshared: shares are made one product at a time, each checked). The export's other columns are the
# service's own and are skipped, so an exported file imports again as it is.
IMPORT_COLUMNS = tuple(
    field.alias or name for name, field in ProductCreate.model_fields.items() if name != "household_id"
)
COMPUTED_COLUMNS = frozenset(EXPORT_COLUMNS) - frozenset(IMPORT_COLUMNS)
KNOWN_COLUMNS = frozenset(IMPORT_COLUMNS) | COMPUTED_COLUMNS
# Far more than the known columns (each may be named once): the header's length is checked before its names.
MAX_COLUMNS = 100
_ATTRIBUTES = {field.alias or name: name for name, field in ProductOut.model_fields.items()}

# A cell a spreadsheet would read as a formula (OWASP, "CSV Injection") starts with one of these; the
# export prefixes it with a single quote, which spreadsheets show as text and do not display.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_INTEGER = re.compile(r"^[+-]?\d{1,9}$")
_NUMBER = re.compile(r"^[+-]?\d{1,15}(\.\d{1,15})?$")
INTEGER_FIELDS = frozenset({"warrantyPeriodMonths"})
NUMBER_FIELDS = frozenset({"price"})


def neutralized(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return iso_utc(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return f"{value:.2f}"
    if isinstance(value, str):
        return neutralized(value)
    return str(value)


def export_lines(products: Sequence[ProductOut], *, header: bool) -> bytes:
    """CSV lines (CRLF, RFC 4180 quoting) of these products, after the header row when `header`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    if header:
        writer.writerow(EXPORT_COLUMNS)
    for product in products:
        writer.writerow([_cell(getattr(product, _ATTRIBUTES[column])) for column in EXPORT_COLUMNS])
    return buffer.getvalue().encode()


class CsvProblem(ValueError):
    """The file as a whole cannot be read (not its rows): details.fields.file says why."""


def _value(column: str, raw: str) -> Any:
    """A cell as the create schema takes it: text as sent (the schema trims), numbers as numbers when
    they look like one (else the schema says what is wrong), and the export's quote before a formula
    character taken off again."""
    if raw.startswith("'") and raw[1:].startswith(FORMULA_STARTS):
        raw = raw[1:]
    text = raw.strip()
    if column in INTEGER_FIELDS and _INTEGER.match(text):
        return int(text)
    if column in NUMBER_FIELDS and _NUMBER.match(text):
        return float(text) if "." in text else int(text)
    return raw


def _records(text: str) -> Iterator[list[str]]:
    first_line = text.split("\n", 1)[0]
    # Spreadsheets set to a decimal comma save with semicolons.
    delimiter = ";" if ";" in first_line and "," not in first_line else ","
    try:
        yield from csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    except csv.Error as error:
        raise CsvProblem(f"is not valid CSV ({error})") from None


def read_products(data: bytes, max_rows: int) -> tuple[list[dict[str, Any]], dict[str, dict[str, str]]]:
    """The create fields of every row, or each invalid row's problems by its row number as a spreadsheet
    shows it (the header is row 1). Raises CsvProblem for a file that cannot be read at all."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CsvProblem("is not UTF-8 text") from None
    records = _records(text)
    header = _header(next(records, []))
    valid: list[dict[str, Any]] = []
    problems: dict[str, dict[str, str]] = {}
    for number, record in enumerate(records, start=2):
        if not any(cell.strip() for cell in record):
            continue  # a blank line, as spreadsheets leave at the end
        if len(valid) + len(problems) == max_rows:
            raise CsvProblem(f"has more than {max_rows} rows")
        try:
            valid.append(_row(header, record))
        except ValidationError as error:
            problems[str(number)] = field_problems(error.errors())
        except ValidationFailed as error:  # a rule that spans fields (app.products.service)
            problems[str(number)] = (error.details or {}).get("fields", {})
        except CsvProblem as error:
            problems[str(number)] = {"row": str(error)}
    if not valid and not problems:
        raise CsvProblem("has no product rows")
    return valid, problems


def _header(record: list[str]) -> list[str]:
    """The column names of the first row, once they are known columns, each named once."""
    # Each known column at most once, so a longer header is refused by its length before any name is read.
    if len(record) > MAX_COLUMNS:
        raise CsvProblem(f"has {len(record)} columns; at most {MAX_COLUMNS} are read")
    header = [name.strip() for name in record]
    if not any(header):
        raise CsvProblem("is empty: the first row names the columns")
    unknown = [name for name in header if name not in KNOWN_COLUMNS]
    if unknown:  # a few of them, each cut short: the answer does not echo the header back
        shown = ", ".join(name if len(name) <= 40 else name[:40] + "..." for name in unknown[:10])
        more = f", ... ({len(unknown)} in all; " if len(unknown) > 10 else " ("
        raise CsvProblem(f"has unknown columns: {shown}{more}known: {', '.join(IMPORT_COLUMNS)})")
    repeated = sorted(name for name, count in Counter(header).items() if count > 1)
    if repeated:
        raise CsvProblem(f"names a column twice: {', '.join(repeated)}")
    return header


def _row(header: list[str], record: list[str]) -> dict[str, Any]:
    if len(record) > len(header):
        raise CsvProblem(f"has {len(record)} cells; the header names {len(header)} columns")
    values = {
        column: _value(column, raw)
        for column, raw in zip(header, record, strict=False)
        if column in IMPORT_COLUMNS and raw.strip()
    }
    return service.create_fields(ProductCreate.model_validate(values))
