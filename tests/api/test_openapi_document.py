"""The OpenAPI document says what the service does, so that clients generated from it work unchanged
(tests/clients generates one and type-checks it; .ci/schemathesis fuzzes the service against it)."""

from __future__ import annotations

import re

from tests.api.support import Document, by_id, operations, query


def test_operation_ids_are_short_unique_names(spec: Document) -> None:
    ids = [op["operationId"] for _path, _method, op in operations(spec)]
    assert len(ids) == len(set(ids))
    assert [i for i in ids if not re.fullmatch(r"[a-z][A-Za-z0-9]{2,29}", i)] == []
    assert by_id(spec, "createClaim") and by_id(spec, "listClaims") and by_id(spec, "subscribe")


def test_integer_query_parameters_are_integers_with_their_bounds(spec: Document) -> None:
    pages = [
        query(op, "page")
        for _p, _m, op in operations(spec)
        if any(p["name"] == "page" for p in op.get("parameters", []))
    ]
    assert len(pages) >= 8
    for operation in (op for _p, _m, op in operations(spec)):
        for parameter in operation.get("parameters", []):
            if parameter["in"] == "query" and parameter["name"] == "page":
                assert parameter["schema"]["type"] == "integer" and parameter["schema"]["minimum"] == 1
            if parameter["in"] == "query" and parameter["name"] == "limit":
                schema = parameter["schema"]
                assert (schema["type"], schema["minimum"], schema["maximum"]) == ("integer", 1, 100)


def test_fixed_vocabularies_are_enums(spec: Document) -> None:
    products = by_id(spec, "listProducts")
    assert query(products, "sort")["schema"]["enum"] == [
        "name",
        "brand",
        "purchaseDate",
        "warrantyExpiresAt",
        "createdAt",
    ]
    assert query(products, "order")["schema"]["enum"] == ["asc", "desc"]
    sorts = query(products, "sort")["schema"]["enum"]
    for other in ("adminListProducts", "exportProducts"):  # the same sort, wherever products are sorted
        assert query(by_id(spec, other), "sort")["schema"]["enum"] == sorts
    warranty = ["active", "expiring_soon", "expired", "void"]
    assert query(products, "warrantyStatus")["schema"]["anyOf"][0]["enum"] == warranty
    assert spec["components"]["schemas"]["ProductOut"]["properties"]["warrantyStatus"]["enum"] == warranty
    status = query(by_id(spec, "listClaims"), "status")["schema"]["anyOf"][0]
    assert status["enum"] == ["open", "in_progress", "resolved", "closed"]
    platform = spec["components"]["schemas"]["DeviceTokenIn"]["properties"]["platform"]
    assert platform["enum"] == ["ios", "android", "web"]


def test_non_integer_path_ids_are_documented_as_400(spec: Document) -> None:
    for _path, _method, operation in operations(spec):
        integer_path = any(
            p["in"] == "path" and p["schema"].get("type") == "integer"
            for p in operation.get("parameters", [])
        )
        if integer_path:
            assert "400" in operation["responses"], operation["operationId"]


def test_downloads_and_empty_answers_have_their_real_media_types(spec: Document) -> None:
    for operation_id in ("downloadAttachment", "downloadReceipt", "getProfilePicture"):
        content = by_id(spec, operation_id)["responses"]["200"]["content"]
        assert "application/json" not in content and "image/png" in content
    assert "application/pdf" in by_id(spec, "downloadReceipt")["responses"]["200"]["content"]
    assert "content" not in by_id(spec, "forgotPassword")["responses"]["202"]


def test_email_fields_of_requests_have_the_email_format(spec: Document) -> None:
    schemas = spec["components"]["schemas"]
    body = by_id(spec, "register")["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit(
        "/", 1
    )[1]
    assert schemas[body]["properties"]["email"]["format"] == "email"
    login = by_id(spec, "login")["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit(
        "/", 1
    )[1]
    assert schemas[login]["properties"]["email"]["format"] == "email"


def test_fields_a_patch_refuses_as_null_are_not_nullable_in_the_document(spec: Document) -> None:
    properties = spec["components"]["schemas"]["WebhookUpdate"]["properties"]
    assert "anyOf" not in properties["url"] and properties["url"]["type"] == "string"
    assert "anyOf" not in properties["events"] and properties["events"]["type"] == "array"
    assert {"type": "null"} in properties["description"]["anyOf"]  # null clears the description


def test_request_strings_say_they_hold_no_nul(spec: Document) -> None:
    schemas = spec["components"]["schemas"]
    assert schemas["UserRegister"]["properties"]["password"]["pattern"] == "^[^\\u0000]*$"
    assert "pattern" not in schemas["ProductOut"]["properties"]["name"]  # answers are not requests
    # Stripped before its minLength is checked: whitespace alone is not a description.
    description = schemas["ClaimCreate"]["properties"]["description"]
    assert description["pattern"] == "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"


def test_path_and_query_strings_say_they_hold_no_nul(spec: Document) -> None:
    """The middleware refuses U+0000 anywhere in the path or query with 400: a generated client (or a
    fuzzer) must be told, or a schema-valid `?category=%00` is a surprise."""
    export = spec["paths"]["/api/products/export.csv"]["get"]
    category = next(p for p in export["parameters"] if p["name"] == "category")
    assert {"type": "string", "pattern": "^[^\\u0000]*$"}.items() <= category["schema"]["anyOf"][0].items()
    order = next(p for p in export["parameters"] if p["name"] == "order")
    assert "pattern" not in order["schema"]  # an enum says more already
