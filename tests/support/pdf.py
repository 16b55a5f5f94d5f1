"""The smallest PDF the uploads take: a receipt, a message attachment, an emailed file."""

from __future__ import annotations

PDF_BYTES = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
