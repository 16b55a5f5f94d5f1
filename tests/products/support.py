"""Helpers of the products tests: real file bytes."""

from __future__ import annotations

PDF_BYTES = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
