"""The database triggers that keep `row_counts` exact (migration 0003): every insert and delete of a
product, claim or message, a claim's status change and a message's first read by a recipient add to the
counts in the writing transaction, cascaded deletes included. A count is the sum of its slots (the row's
id modulo SLOTS), so writers of different rows do not queue on one counter row."""

from __future__ import annotations

from sqlalchemy import Connection, inspect

SLOTS = 16
CLAIM_SLOTS = 4  # a claim's own message count: messages of one claim are few writers at a time

# PostgreSQL: one function adds to a count's slot; one trigger function per table says what a row counts in.
_PG_FUNCTIONS = [
    """
CREATE FUNCTION row_count_add(counter text, slot bigint, delta bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO row_counts (name, slot, n) VALUES (counter, slot % 16, delta)
  ON CONFLICT (name, slot) DO UPDATE SET n = row_counts.n + EXCLUDED.n
$$
""",
    """
CREATE FUNCTION count_products() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN PERFORM row_count_add('products', NEW.id, 1);
  ELSE PERFORM row_count_add('products', OLD.id, -1);
  END IF;
  RETURN NULL;
END $$
""",
    """
CREATE FUNCTION count_claims() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    PERFORM row_count_add('claims:' || OLD.status, OLD.id, -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM row_count_add('claims:' || NEW.status, NEW.id, 1);
  END IF;
  IF TG_OP = 'INSERT' THEN PERFORM row_count_add('claims', NEW.id, 1);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM row_count_add('claims', OLD.id, -1);
    DELETE FROM row_counts WHERE name = 'claim:' || OLD.id || ':messages';
  END IF;
  RETURN NULL;
END $$
""",
    """
CREATE FUNCTION count_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM row_count_add('messages', NEW.id, 1);
    PERFORM row_count_add('claim:' || NEW.claim_id || ':messages', NEW.id % 4, 1);
    IF NEW.recipient_read_at IS NULL THEN PERFORM row_count_add('messages:unread', NEW.id, 1); END IF;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM row_count_add('messages', OLD.id, -1);
    PERFORM row_count_add('claim:' || OLD.claim_id || ':messages', OLD.id % 4, -1);
    IF OLD.recipient_read_at IS NULL THEN PERFORM row_count_add('messages:unread', OLD.id, -1); END IF;
  ELSIF (OLD.recipient_read_at IS NULL) <> (NEW.recipient_read_at IS NULL) THEN
    PERFORM row_count_add('messages:unread', NEW.id,
                          CASE WHEN NEW.recipient_read_at IS NULL THEN 1 ELSE -1 END);
  END IF;
  RETURN NULL;
END $$
""",
    """
CREATE TRIGGER products_count AFTER INSERT OR DELETE ON products
  FOR EACH ROW EXECUTE FUNCTION count_products()
""",
    """
CREATE TRIGGER claims_count AFTER INSERT OR DELETE OR UPDATE OF status ON claims
  FOR EACH ROW EXECUTE FUNCTION count_claims()
""",
    """
CREATE TRIGGER messages_count AFTER INSERT OR DELETE OR UPDATE OF recipient_read_at ON messages
  FOR EACH ROW EXECUTE FUNCTION count_messages()
""",
]

_PG_DROP = [
    "DROP TRIGGER IF EXISTS messages_count ON messages",
    "DROP TRIGGER IF EXISTS claims_count ON claims",
    "DROP TRIGGER IF EXISTS products_count ON products",
    "DROP FUNCTION IF EXISTS count_messages()",
    "DROP FUNCTION IF EXISTS count_claims()",
    "DROP FUNCTION IF EXISTS count_products()",
    "DROP FUNCTION IF EXISTS row_count_add(text, bigint, bigint)",
]


def _sqlite_add(name: str, row: str, delta: str, when: str = "1", slots: int = SLOTS) -> str:
    return (
        f"INSERT INTO row_counts (name, slot, n) SELECT {name}, {row}.id % {slots}, {delta} WHERE {when}"
        " ON CONFLICT (name, slot) DO UPDATE SET n = n + excluded.n;"
    )


# SQLite: one trigger per event (no procedural language); the same counts as on PostgreSQL.
_SQLITE_TRIGGERS = {
    "products_count_insert": ("AFTER INSERT ON products", [_sqlite_add("'products'", "NEW", "1")]),
    "products_count_delete": ("AFTER DELETE ON products", [_sqlite_add("'products'", "OLD", "-1")]),
    "claims_count_insert": (
        "AFTER INSERT ON claims",
        [_sqlite_add("'claims'", "NEW", "1"), _sqlite_add("'claims:' || NEW.status", "NEW", "1")],
    ),
    "claims_count_delete": (
        "AFTER DELETE ON claims",
        [
            _sqlite_add("'claims'", "OLD", "-1"),
            _sqlite_add("'claims:' || OLD.status", "OLD", "-1"),
            "DELETE FROM row_counts WHERE name = 'claim:' || OLD.id || ':messages';",
        ],
    ),
    "claims_count_status": (
        "AFTER UPDATE OF status ON claims",
        [
            _sqlite_add("'claims:' || OLD.status", "OLD", "-1"),
            _sqlite_add("'claims:' || NEW.status", "NEW", "1"),
        ],
    ),
    "messages_count_insert": (
        "AFTER INSERT ON messages",
        [
            _sqlite_add("'messages'", "NEW", "1"),
            _sqlite_add("'claim:' || NEW.claim_id || ':messages'", "NEW", "1", slots=CLAIM_SLOTS),
            _sqlite_add("'messages:unread'", "NEW", "1", "NEW.recipient_read_at IS NULL"),
        ],
    ),
    "messages_count_delete": (
        "AFTER DELETE ON messages",
        [
            _sqlite_add("'messages'", "OLD", "-1"),
            _sqlite_add("'claim:' || OLD.claim_id || ':messages'", "OLD", "-1", slots=CLAIM_SLOTS),
            _sqlite_add("'messages:unread'", "OLD", "-1", "OLD.recipient_read_at IS NULL"),
        ],
    ),
    "messages_count_read": (
        "AFTER UPDATE OF recipient_read_at ON messages",
        [
            _sqlite_add(
                "'messages:unread'",
                "NEW",
                "CASE WHEN NEW.recipient_read_at IS NULL THEN 1 ELSE -1 END",
                "(OLD.recipient_read_at IS NULL) <> (NEW.recipient_read_at IS NULL)",
            )
        ],
    ),
}


SqliteTriggers = dict[str, tuple[str, list[str]]]


def _create(bind: Connection, pg_drop: list[str], pg_create: list[str], sqlite: SqliteTriggers) -> None:
    if bind.dialect.name == "postgresql":
        for statement in (*pg_drop, *pg_create):
            bind.exec_driver_sql(statement)
        return
    for name, (event, statements) in sqlite.items():
        bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
        bind.exec_driver_sql(f"CREATE TRIGGER {name} {event} BEGIN {' '.join(statements)} END")


def _drop(bind: Connection, pg_drop: list[str], sqlite: SqliteTriggers) -> None:
    postgres = bind.dialect.name == "postgresql"
    for statement in pg_drop if postgres else [f"DROP TRIGGER IF EXISTS {name}" for name in sqlite]:
        bind.exec_driver_sql(statement)


def create_count_triggers(bind: Connection) -> None:
    """The triggers that keep `row_counts` (again, after a SQLite table rebuild)."""
    _create(bind, _PG_DROP, _PG_FUNCTIONS, _SQLITE_TRIGGERS)


def drop_count_triggers(bind: Connection) -> None:
    _drop(bind, _PG_DROP, _SQLITE_TRIGGERS)


def ensure_count_triggers(bind: Connection) -> None:
    """After a migration run on SQLite: the triggers again, where the schema has the counts (a later
    migration that rebuilt one of the tables dropped them with it)."""
    if bind.dialect.name != "sqlite":
        return
    schema = inspect(bind)
    if "row_counts" not in schema.get_table_names():
        return
    if "recipient_read_at" in {column["name"] for column in schema.get_columns("messages")}:
        create_count_triggers(bind)
    if "product_expiry_counts" in schema.get_table_names():
        create_facet_triggers(bind)


# Product facets (migration 0008): a count per brand and per category (`products:brand:<lower(brand)>`,
# `products:category:<lower(category)>`, the filters' own comparison) and per expiry day
# (`product_expiry_counts`), so a brand, category or warranty-status filter's total is a few rows summed.
# From migration 0013 a voided warranty counts in `products:void` instead of on its expiry day.
FACET_SLOTS = 4
_FACETS = {"brand": "products:brand:", "category": "products:category:"}


def _pg_expiry(row: str, delta: str, voidable: bool) -> str:
    """A product counts on its expiry day; once warranties can be voided (migration 0013), a voided one
    counts in `products:void` instead."""
    expiry = f"PERFORM product_expiry_add({row}.warranty_expires_on, {row}.id, {delta});"
    if not voidable:
        return expiry
    void = f"PERFORM row_count_add('products:void', {row}.id % 4, {delta});"
    return f"IF {row}.warranty_voided_at IS NULL THEN {expiry} ELSE {void} END IF;"


def _pg_facet_functions(voidable: bool) -> list[str]:
    columns = "brand, category, warranty_expires_on" + (", warranty_voided_at" if voidable else "")
    void_changed = (
        "OR (OLD.warranty_voided_at IS NULL) <> (NEW.warranty_voided_at IS NULL)" if voidable else ""
    )
    return [
        """
CREATE FUNCTION product_expiry_add(day date, slot bigint, delta bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO product_expiry_counts (day, slot, n) VALUES (day, slot % 4, delta)
  ON CONFLICT (day, slot) DO UPDATE SET n = product_expiry_counts.n + EXCLUDED.n
$$
""",
        f"""
CREATE FUNCTION count_product_facets() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    PERFORM row_count_add('products:brand:' || lower(OLD.brand), OLD.id % 4, -1);
    PERFORM row_count_add('products:category:' || lower(OLD.category), OLD.id % 4, -1);
    {_pg_expiry("OLD", "-1", voidable)}
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM row_count_add('products:brand:' || lower(NEW.brand), NEW.id % 4, 1);
    PERFORM row_count_add('products:category:' || lower(NEW.category), NEW.id % 4, 1);
    {_pg_expiry("NEW", "1", voidable)}
  END IF;
  RETURN NULL;
END $$
""",
        """
CREATE TRIGGER products_facets AFTER INSERT OR DELETE ON products
  FOR EACH ROW EXECUTE FUNCTION count_product_facets()
""",
        f"""
CREATE TRIGGER products_facets_change AFTER UPDATE OF {columns} ON products
  FOR EACH ROW
  WHEN (lower(OLD.brand) IS DISTINCT FROM lower(NEW.brand)
        OR lower(OLD.category) IS DISTINCT FROM lower(NEW.category)
        OR OLD.warranty_expires_on IS DISTINCT FROM NEW.warranty_expires_on
        {void_changed})
  EXECUTE FUNCTION count_product_facets()
""",
    ]


_PG_FACET_DROP = [
    "DROP TRIGGER IF EXISTS products_facets_change ON products",
    "DROP TRIGGER IF EXISTS products_facets ON products",
    "DROP FUNCTION IF EXISTS count_product_facets()",
    "DROP FUNCTION IF EXISTS product_expiry_add(date, bigint, bigint)",
]


def _sqlite_facets(row: str, delta: str, voidable: bool) -> list[str]:
    counts = [
        _sqlite_add(f"'{prefix}' || lower({row}.{column})", row, delta, slots=FACET_SLOTS)
        for column, prefix in _FACETS.items()
    ]
    not_void = f"{row}.warranty_voided_at IS NULL" if voidable else "1"
    expiry = (
        f"INSERT INTO product_expiry_counts (day, slot, n) SELECT {row}.warranty_expires_on,"
        f" {row}.id % {FACET_SLOTS}, {delta} WHERE {not_void}"
        " ON CONFLICT (day, slot) DO UPDATE SET n = n + excluded.n;"
    )
    if not voidable:
        return [*counts, expiry]
    void = _sqlite_add("'products:void'", row, delta, f"{row}.warranty_voided_at IS NOT NULL", FACET_SLOTS)
    return [*counts, expiry, void]


def _sqlite_facet_triggers(voidable: bool) -> SqliteTriggers:
    columns = "brand, category, warranty_expires_on" + (", warranty_voided_at" if voidable else "")
    return {
        "products_facets_insert": ("AFTER INSERT ON products", _sqlite_facets("NEW", "1", voidable)),
        "products_facets_delete": ("AFTER DELETE ON products", _sqlite_facets("OLD", "-1", voidable)),
        "products_facets_change": (
            f"AFTER UPDATE OF {columns} ON products",
            [*_sqlite_facets("OLD", "-1", voidable), *_sqlite_facets("NEW", "1", voidable)],
        ),
    }


# The facet counts of the products already there (the triggers keep them from then on).
FILL_FACET_COUNTS = [
    *(
        f"INSERT INTO row_counts (name, slot, n) SELECT '{prefix}' || lower({column}),"
        f" id % {FACET_SLOTS}, count(*) FROM products GROUP BY 1, 2"
        for column, prefix in _FACETS.items()
    ),
    "INSERT INTO product_expiry_counts (day, slot, n)"
    f" SELECT warranty_expires_on, id % {FACET_SLOTS}, count(*) FROM products GROUP BY 1, 2",
]


def fill_facet_counts(bind: Connection) -> None:
    for statement in FILL_FACET_COUNTS:
        bind.exec_driver_sql(statement)


def create_facet_triggers(bind: Connection) -> None:
    """The facet triggers for the schema at hand: with voidable warranties (migration 0013) or without."""
    voidable = "warranty_voided_at" in {column["name"] for column in inspect(bind).get_columns("products")}
    _create(bind, _PG_FACET_DROP, _pg_facet_functions(voidable), _sqlite_facet_triggers(voidable))


def drop_facet_triggers(bind: Connection) -> None:
    _drop(bind, _PG_FACET_DROP, _sqlite_facet_triggers(voidable=False))  # the same trigger names
