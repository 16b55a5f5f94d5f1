"""The scale data sets, written straight in SQL (generate_series) into a migrated PostgreSQL database.

Both sets have the same shape: one admin, a few suppliers, customers owning the products, one claim per
product for the first products, the claims' messages alternating between customer and supplier (all but
each claim's last three read by their recipient), and one claim with a long conversation and a long
real-time history. Only the sizes differ.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from app.derived.count_triggers import FILL_FACET_COUNTS

# Any valid Argon2id hash: the benchmark signs its own access tokens and never logs in.
PASSWORD_HASH = "$argon2id$v=19$m=1024,t=1,p=1$c2NhbGUtc2FsdA$3E0rtjmcW2e3o2T+yVOtQ6ZzK0iQ1Hm1Qmq5X8zWq6Q"
BRANDS = ["Bosch", "Miele", "Sony", "Apple", "Dyson", "Philips", "Samsung", "LG"]
CATEGORIES = ["Kitchen", "Audio", "Phone", "Garden"]
TABLES = (
    "users",
    "products",
    "claims",
    "messages",
    "message_reads",
    "events",
    "households",
    "household_members",
    "organizations",
    "organization_brands",
    "organization_members",
)
BUSY_CLAIM = 1  # the claim with the long conversation (the oldest claim)
REPLAY_EVENTS = 2_000  # the busy claim's real-time history, alike in both sets


@dataclass(frozen=True)
class Size:
    users: int
    suppliers: int
    products: int
    claims: int
    messages: int  # in all, the busy claim's included
    busy_messages: int
    other_events: int  # history of other topics, around the busy claim's
    households: int  # each with an owner, a member and a viewer among the customers
    organizations: int  # the first one with BIG_ORGANIZATION agents, the others with AGENTS each
    agents: int  # per organisation but the first

    @property
    def agent_users(self) -> int:
        return BIG_ORGANIZATION + (self.organizations - 1) * self.agents

    @property
    def per_claim(self) -> int:
        return (self.messages - self.busy_messages) // (self.claims - 1)


SIZES = {
    "small": Size(100, 5, 1_000, 1_000, 11_000, 1_000, 2_000, 200, 10, 5),
    "large": Size(20_000, 200, 1_000_000, 200_000, 5_100_000, 100_000, 200_000, 100_000, 500, 10),
}
SHARED_EVERY = 10  # every tenth product is shared with a household of its owner
BIG_ORGANIZATION = 200  # agents of organisation 1, which handles the first brand


def first_customer(size: Size) -> int:
    return size.suppliers + 2  # 1 is the admin, then the suppliers


def owner_of(size: Size, product_id: int) -> int:
    """The customer owning a product (the SQL below says the same)."""
    return first_customer(size) + product_id % (size.users - size.suppliers - 1)


async def seed(connection: asyncpg.Connection, size: Size) -> dict[str, int]:
    """Fill the (migrated, empty) database; answers the row counts written."""
    customers = size.users - size.suppliers - 1
    first = first_customer(size)
    await connection.execute("SET synchronous_commit = off")
    await connection.execute("SET maintenance_work_mem = '512MB'")
    # Bulk load: secondary indexes built once at the end, triggers (row counts, foreign keys) off.
    indexes = await connection.fetch(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = ANY($1)"
        " AND indexname NOT IN (SELECT conname FROM pg_constraint)",
        list(TABLES),
    )
    for index in indexes:
        await connection.execute(f'DROP INDEX "{index["indexname"]}"')
    await connection.execute("SET session_replication_role = replica")
    await connection.execute(
        """
        INSERT INTO users (id, email, name, password_hash, roles, notifications_enabled,
                           email_notifications_enabled, created_at, updated_at)
        SELECT n, 'user' || n || '@scale.example', 'User ' || n, $1,
               (CASE WHEN n = 1 THEN '["ROLE_USER", "ROLE_ADMIN"]'
                     WHEN n <= $2::int + 1 THEN '["ROLE_USER", "ROLE_SUPPLIER"]'
                     ELSE '["ROLE_USER"]' END)::json,
               true, true, now() - ($3::int - n) * interval '1 minute', now()
        FROM generate_series(1, $3::int) AS n
        """,
        PASSWORD_HASH,
        size.suppliers,
        size.users,
    )
    await connection.execute(
        """
        INSERT INTO products (id, owner_id, name, brand, category, store, purchase_date,
                              warranty_period_months, warranty_expires_on, price, serial_number,
                              created_at, updated_at)
        SELECT n, $1::int + n % $2::int, 'Product ' || n,
               ($3::text[])[1 + n % 8], ($4::text[])[1 + (n / 8) % 4],
               'Scale Store', d, m, (d + make_interval(months => m))::date, (n % 1000) + 0.99,
               'SN' || lpad(n::text, 8, '0'), now() - ($5::int - n) * interval '1 second', now()
        FROM generate_series(1, $5::int) AS n,
             LATERAL (SELECT date '2022-01-01' + ((n::bigint * 7919) % 1400)::int AS d,
                             (ARRAY[12, 24, 36])[1 + n % 3] AS m) AS p
        """,
        first,
        customers,
        BRANDS,
        CATEGORIES,
        size.products,
    )
    await connection.execute(
        """
        INSERT INTO claims (id, product_id, customer_id, supplier_id, status, description, search_text,
                            created_at, updated_at)
        SELECT n, n, $1::int + n % $2::int, 2 + n % $3::int,
               (ARRAY['open', 'in_progress', 'resolved', 'closed'])[1 + n % 4],
               d.text, lower(p.name || chr(10) || d.text),
               now() - ($4::int - n) * interval '10 seconds', now()
        FROM generate_series(1, $4::int) AS n
        JOIN products AS p ON p.id = n
        CROSS JOIN LATERAL (SELECT 'Claim ' || n || ': it stopped working.' AS text) AS d
        """,
        first,
        customers,
        size.suppliers,
        size.claims,
    )
    await _households(connection, size)
    await _messages(connection, size)
    await _mark_read(connection)
    await _organizations(connection, size)  # after the conversations: half the claims lose their supplier
    await _events(connection, size)
    await connection.execute("SET session_replication_role = DEFAULT")
    for index in indexes:
        await connection.execute(index["indexdef"])
    await _fill_counts(connection)
    await connection.execute(
        """
        DO $$ DECLARE t text; BEGIN
          FOREACH t IN ARRAY ARRAY['users', 'products', 'claims', 'households', 'organizations'] LOOP
            EXECUTE format('SELECT setval(pg_get_serial_sequence(%L, ''id''), (SELECT max(id) FROM %I))',
                           t, t);
          END LOOP;
        END $$
        """
    )
    counts = {}
    for table in TABLES:
        counts[table] = await connection.fetchval(f"SELECT count(*) FROM {table}")
    return counts


def household_of(size: Size, product_id: int) -> int | None:
    """The household a product is shared with (the SQL below says the same), or None."""
    if product_id % SHARED_EVERY:
        return None
    customers = size.users - size.suppliers - 1
    return product_id % customers or customers


def member_of(size: Size, household: int) -> int:
    """A user who is a `member` (not the owner) of the household (the SQL below says the same)."""
    customers = size.users - size.suppliers - 1
    return first_customer(size) + (household * 7 + 1) % customers


def agent_of(size: Size, organization: int) -> int:
    """The first agent of an organisation (its users follow the seeded users)."""
    if organization == 1:
        return size.users + 1
    return size.users + BIG_ORGANIZATION + (organization - 2) * size.agents + 1


async def _households(connection: asyncpg.Connection, size: Size) -> None:
    """Households 1..N: household h is owned by customer h (mod the customers), with a member and a viewer
    further along; every tenth product is shared with the household numbered after its owner."""
    customers = size.users - size.suppliers - 1
    first = first_customer(size)
    await connection.execute(
        """
        INSERT INTO households (id, name, created_at, updated_at)
        SELECT h, 'Household ' || h, now(), now() FROM generate_series(1, $1::int) AS h
        """,
        size.households,
    )
    await connection.execute(
        """
        INSERT INTO household_members (household_id, user_id, role, joined_at)
        SELECT h, $2::int + (h * k.step + k.shift) % $3::int, k.role, now()
        FROM generate_series(1, $1::int) AS h,
             (VALUES (1, 0, 'owner'), (7, 1, 'member'), (13, 2, 'viewer')) AS k (step, shift, role)
        ON CONFLICT DO NOTHING
        """,
        size.households,
        first,
        customers,
    )
    await connection.execute(
        f"""
        UPDATE products SET household_id = h
        FROM (SELECT id AS product_id, CASE WHEN id % $1::int = 0 THEN $1::int ELSE id % $1::int END AS h
              FROM products WHERE id % {SHARED_EVERY} = 0) AS shared
        WHERE products.id = shared.product_id AND h <= $2::int
        """,
        customers,
        size.households,
    )


async def _organizations(connection: asyncpg.Connection, size: Size) -> None:
    """Organisations 1..N with their agent users (appended after the seeded users; each first agent a
    manager); organisation k < 9 handles the k-th brand, so every claim is routed, the first brand's to the
    big organisation."""
    await connection.execute(
        """
        INSERT INTO organizations (id, name, email, created_at, updated_at)
        SELECT o, 'Organisation ' || o, NULL, now(), now() FROM generate_series(1, $1::int) AS o
        """,
        size.organizations,
    )
    await connection.execute(
        """
        INSERT INTO organization_brands (key, organization_id, name)
        SELECT lower(coalesce(($2::text[])[o], 'brand ' || o)), o, coalesce(($2::text[])[o], 'Brand ' || o)
        FROM generate_series(1, $1::int) AS o
        """,
        size.organizations,
        BRANDS,
    )
    await connection.execute(
        """
        INSERT INTO users (id, email, name, password_hash, roles, notifications_enabled,
                           email_notifications_enabled, created_at, updated_at)
        SELECT $1::int + n, 'agent' || n || '@scale.example', 'Agent ' || n, $2,
               '["ROLE_USER", "ROLE_SUPPLIER"]'::json, true, true, now(), now()
        FROM generate_series(1, $3::int) AS n
        """,
        size.users,
        PASSWORD_HASH,
        size.agent_users,
    )
    await connection.execute(
        """
        INSERT INTO organization_members (user_id, organization_id, role, joined_at)
        SELECT $1::int + n, o, CASE WHEN n = first_of THEN 'manager' ELSE 'agent' END, now()
        FROM generate_series(1, $2::int) AS n,
             LATERAL (SELECT CASE WHEN n <= $3::int THEN 1
                                  ELSE 2 + (n - $3::int - 1) / $4::int END AS o) AS a,
             LATERAL (SELECT CASE WHEN o = 1 THEN 1
                                  ELSE $3::int + (o - 2) * $4::int + 1 END AS first_of) AS f
        """,
        size.users,
        size.agent_users,
        BIG_ORGANIZATION,
        size.agents,
    )
    # Routed by brand; half of each organisation's claims assigned to one of its agents.
    await connection.execute(
        """
        UPDATE claims AS c SET organization_id = b.organization_id,
               supplier_id = CASE WHEN (c.id / 8) % 2 = 0 THEN m.user_id END
        FROM products AS p, organization_brands AS b,
             LATERAL (SELECT user_id FROM organization_members
                      WHERE organization_id = b.organization_id ORDER BY user_id LIMIT 1) AS m
        WHERE p.id = c.product_id AND b.key = lower(p.brand)
        """
    )
    await _deadlines(connection)


async def _deadlines(connection: asyncpg.Connection) -> None:
    """Every routed claim's deadlines (contract 17.8) at the organisations' defaults, without business
    hours: assigned claims answered after two hours, resolved and closed ones resolved after three days;
    `next_due_at` the soonest open one (the queue's `sort=due`)."""
    await connection.execute(
        """
        INSERT INTO claim_deadlines (claim_id, started_at, organization_id, next_due_at,
                                     first_response_due_at, first_responded_at, first_response_minutes,
                                     resolution_due_at, resolved_at, resolution_minutes,
                                     resolution_running_since)
        SELECT c.id, c.created_at, c.organization_id,
               CASE WHEN d.done THEN timestamptz '9999-12-31 00:00+00'
                    WHEN c.supplier_id IS NULL THEN d.first_due ELSE d.resolution_due END,
               d.first_due,
               CASE WHEN c.supplier_id IS NOT NULL THEN c.created_at + interval '2 hours' END,
               CASE WHEN c.supplier_id IS NOT NULL THEN 120 END,
               d.resolution_due,
               CASE WHEN d.done THEN c.created_at + interval '3 days' END,
               CASE WHEN d.done THEN 4320 END,
               CASE WHEN NOT d.done THEN c.created_at END
        FROM claims AS c,
             LATERAL (SELECT c.created_at + interval '1 day' AS first_due,
                             c.created_at + interval '5 days' AS resolution_due,
                             c.status IN ('resolved', 'closed') AS done) AS d
        WHERE c.organization_id IS NOT NULL
        """
    )


async def _messages(connection: asyncpg.Connection, size: Size) -> None:
    """Each claim's conversation starts at its creation, one message a minute (the busy one a second).
    Where the schema keeps a recipient's first read on the message, it is written here too."""
    kept = await connection.fetchval(
        "SELECT count(*) FROM information_schema.columns"
        " WHERE table_name = 'messages' AND column_name = 'recipient_read_at'"
    )
    column, value = (
        ("", "")
        if not kept
        else (", recipient_read_at", ", CASE WHEN i <= n - 3 THEN at + interval '5 minutes' END")
    )
    await connection.execute(
        f"""
        INSERT INTO messages (claim_id, sender_id, body, created_at{column})
        SELECT id, CASE WHEN i % 2 = 0 THEN customer_id ELSE supplier_id END,
               'Message ' || i || ' about claim ' || id || '.', at{value}
        FROM (SELECT c.*, CASE WHEN c.id = $1::int THEN $2::int ELSE $3::int END AS n FROM claims AS c) AS c,
             LATERAL generate_series(1, n) AS i,
             LATERAL (SELECT c.created_at + i * CASE WHEN c.id = $1::int THEN interval '1 second'
                                                    ELSE interval '1 minute' END AS at) AS t
        ORDER BY id, i
        """,
        BUSY_CLAIM,
        size.busy_messages,
        size.per_claim,
    )


async def _mark_read(connection: asyncpg.Connection) -> None:
    """Every message but each claim's last three is read by its recipient (the other participant)."""
    await connection.execute(
        """
        INSERT INTO message_reads (message_id, user_id, read_at)
        SELECT m.id, CASE WHEN m.sender_id = c.customer_id THEN c.supplier_id ELSE c.customer_id END,
               m.created_at + interval '5 minutes'
        FROM messages AS m JOIN claims AS c ON c.id = m.claim_id
        JOIN (SELECT claim_id, max(id) AS newest FROM messages GROUP BY claim_id) AS last
          ON last.claim_id = m.claim_id
        WHERE m.id <= last.newest - 3
        """
    )


async def _events(connection: asyncpg.Connection, size: Size) -> None:
    """The busy claim's long history, spread among other claims' events."""
    await connection.execute(
        """
        INSERT INTO events (topic, payload, created_at)
        SELECT CASE WHEN n % $1::int = 0 THEN 'claims/' || $2::int || '/messages'
                    ELSE 'claims/' || (2 + n % 997) || '/messages' END,
               '{"type":"new_message","message":{"id":"' || n || '","message":"event ' || n || '"}}',
               now() - interval '1 hour' + n * interval '1 millisecond'
        FROM generate_series(1, $3::int) AS n
        ORDER BY n
        """,
        (REPLAY_EVENTS + size.other_events) // REPLAY_EVENTS,
        BUSY_CLAIM,
        REPLAY_EVENTS + size.other_events,
    )


async def _fill_counts(connection: asyncpg.Connection) -> None:
    """The row counts the triggers keep (off while loading), where the schema has them."""
    if not await connection.fetchval("SELECT to_regclass('row_counts') IS NOT NULL"):
        return
    counted = {
        "'products'": "products",
        "'claims'": "claims",
        "'claims:' || status": "claims",
        "'messages'": "messages",
        "'messages:unread'": "messages WHERE recipient_read_at IS NULL",
    }
    await connection.execute("DELETE FROM row_counts")
    await connection.execute(
        "INSERT INTO row_counts (name, slot, n) SELECT 'claim:' || claim_id || ':messages', id % 4, count(*)"
        " FROM messages GROUP BY 1, 2"
    )
    for name, source in counted.items():
        await connection.execute(
            f"INSERT INTO row_counts (name, slot, n) SELECT {name}, id % 16, count(*) FROM {source}"
            " GROUP BY 1, 2"
        )
    if await connection.fetchval("SELECT to_regclass('product_expiry_counts') IS NOT NULL"):
        await connection.execute("DELETE FROM product_expiry_counts")
        for statement in FILL_FACET_COUNTS:
            await connection.execute(statement)
