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


def create_count_triggers(bind: Connection) -> None:
    """The triggers that keep `row_counts` (again, after a SQLite table rebuild)."""
    if bind.dialect.name == "postgresql":
        for statement in (*_PG_DROP, *_PG_FUNCTIONS):
            bind.exec_driver_sql(statement)
        return
    for name, (event, statements) in _SQLITE_TRIGGERS.items():
        bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
        bind.exec_driver_sql(f"CREATE TRIGGER {name} {event} BEGIN {' '.join(statements)} END")


def drop_count_triggers(bind: Connection) -> None:
    if bind.dialect.name == "postgresql":
        for statement in _PG_DROP:
            bind.exec_driver_sql(statement)
        return
    for name in _SQLITE_TRIGGERS:
        bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")


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
