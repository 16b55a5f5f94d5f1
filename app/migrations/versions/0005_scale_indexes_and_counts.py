"""Scale: indexes in the order of each list, a recipient's first read kept on the message, exact row counts.

- Indexes for the admin lists' orders and filters (products, claims, messages, users), so a page reads
  its rows down an index instead of sorting a table.
- `messages.recipient_read_at`: when a recipient first read the message (filled from the read rows).
- `row_counts`: exact counts of products, claims (and per status), messages (and unread ones), and each
  claim's messages (`claim:<id>:messages`, 4 slots), kept by triggers in the writing transaction,
  cascaded deletes included, and filled from the tables here.

A SQLite table rebuilt later (batch mode) loses its triggers: such a migration must call
`create_count_triggers()` of this module again.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24 11:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.core.types

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

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


def create_count_triggers() -> None:
    """The triggers that keep `row_counts` (again, after a SQLite table rebuild)."""
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        for statement in (*_PG_DROP, *_PG_FUNCTIONS):
            bind.exec_driver_sql(statement)
        return
    for name, (event, statements) in _SQLITE_TRIGGERS.items():
        bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
        bind.exec_driver_sql(f"CREATE TRIGGER {name} {event} BEGIN {' '.join(statements)} END")


def _drop_count_triggers() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        for statement in _PG_DROP:
            bind.exec_driver_sql(statement)
        return
    for name in _SQLITE_TRIGGERS:
        bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")


def _fill_counts() -> None:
    """The counts of the rows already there."""
    counted = {
        "'products'": "products",
        "'claims'": "claims",
        "'claims:' || status": "claims",
        "'messages'": "messages",
        "'messages:unread'": "messages WHERE recipient_read_at IS NULL",
    }
    op.execute("DELETE FROM row_counts")
    op.execute(
        "INSERT INTO row_counts (name, slot, n)"
        # '\\:' is a colon, not a bound parameter.
        f" SELECT 'claim:' || claim_id || '\\:messages', id % {CLAIM_SLOTS}, count(*)"
        " FROM messages GROUP BY 1, 2"
    )
    for name, source in counted.items():
        op.execute(
            f"INSERT INTO row_counts (name, slot, n) SELECT {name}, id % {SLOTS}, count(*) FROM {source}"
            " GROUP BY 1, 2"
        )


def upgrade() -> None:
    op.create_table(
        "row_counts",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("n", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", "slot", name=op.f("pk_row_counts")),
    )
    with op.batch_alter_table("messages") as batch_op:
        batch_op.add_column(
            sa.Column("recipient_read_at", app.core.types.UtcDateTime(timezone=True), nullable=True)
        )
    # A recipient: the claim's customer or supplier, other than the sender.
    op.execute(
        """
        UPDATE messages SET recipient_read_at = (
          SELECT min(r.read_at) FROM message_reads AS r JOIN claims AS c ON c.id = messages.claim_id
          WHERE r.message_id = messages.id
            AND (r.user_id = c.customer_id OR r.user_id = c.supplier_id)
            AND (messages.sender_id IS NULL OR r.user_id <> messages.sender_id))
        WHERE EXISTS (SELECT 1 FROM message_reads AS r WHERE r.message_id = messages.id)
        """
    )
    with op.batch_alter_table("messages") as batch_op:
        batch_op.create_index("ix_messages_created_id", ["created_at", "id"], unique=False)
        batch_op.create_index(
            "ix_messages_sender_created_id", ["sender_id", "created_at", "id"], unique=False
        )
        batch_op.create_index(
            "ix_messages_claim_unread_created_id",
            ["claim_id", "created_at", "id"],
            unique=False,
            sqlite_where=sa.text("recipient_read_at IS NULL"),
            postgresql_where=sa.text("recipient_read_at IS NULL"),
        )
        batch_op.create_index(
            "ix_messages_unread_created_id",
            ["created_at", "id"],
            unique=False,
            sqlite_where=sa.text("recipient_read_at IS NULL"),
            postgresql_where=sa.text("recipient_read_at IS NULL"),
        )
        batch_op.drop_index("ix_messages_sender_id")
    with op.batch_alter_table("claims") as batch_op:
        batch_op.create_index("ix_claims_created_id", ["created_at", "id"], unique=False)
        batch_op.create_index("ix_claims_status_created_id", ["status", "created_at", "id"], unique=False)
    with op.batch_alter_table("products") as batch_op:
        batch_op.create_index("ix_products_created_id", ["created_at", "id"], unique=False)
        batch_op.create_index("ix_products_name_id", [sa.text("lower(name)"), "id"], unique=False)
        for column in ("brand", "category"):
            batch_op.create_index(
                f"ix_products_{column}_created_id",
                [sa.text(f"lower({column})"), "created_at", "id"],
                unique=False,
            )
    with op.batch_alter_table("users") as batch_op:
        batch_op.create_index("ix_users_created_id", ["created_at", "id"], unique=False)
    _fill_counts()
    create_count_triggers()


def downgrade() -> None:
    _drop_count_triggers()
    with op.batch_alter_table("users") as batch_op:
        batch_op.drop_index("ix_users_created_id")
    with op.batch_alter_table("products") as batch_op:
        batch_op.drop_index("ix_products_category_created_id")
        batch_op.drop_index("ix_products_brand_created_id")
        batch_op.drop_index("ix_products_name_id")
        batch_op.drop_index("ix_products_created_id")
    with op.batch_alter_table("claims") as batch_op:
        batch_op.drop_index("ix_claims_status_created_id")
        batch_op.drop_index("ix_claims_created_id")
    with op.batch_alter_table("messages") as batch_op:
        batch_op.create_index("ix_messages_sender_id", ["sender_id"], unique=False)
        batch_op.drop_index("ix_messages_unread_created_id")
        batch_op.drop_index("ix_messages_claim_unread_created_id")
        batch_op.drop_index("ix_messages_sender_created_id")
        batch_op.drop_index("ix_messages_created_id")
        batch_op.drop_column("recipient_read_at")
    op.drop_table("row_counts")
