"""The `warranty` command."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings, get_settings
from app.core.private_files import keep_files_private
from app.models.enums import Role

if TYPE_CHECKING:
    from app.core.db import CommitHooks

Sessions = async_sessionmaker[AsyncSession]


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    if args.workers > 1 and get_settings().is_sqlite:
        print(
            f"error: --workers {args.workers} needs PostgreSQL "
            "(WARRANTY_DATABASE_URL=postgresql+asyncpg://...). On the embedded SQLite database each worker "
            "would run a hub of its own, and a subscriber would miss the events published by the other "
            "workers; run one worker.",
            file=sys.stderr,
        )
        return 2

    uvicorn.run(
        "app.main:app",
        host=args.host,
        port=args.port,
        workers=args.workers,
        # X-Forwarded-For is the app's to read, by WARRANTY_TRUSTED_PROXIES (app/api/client_address.py).
        proxy_headers=False,
        timeout_graceful_shutdown=args.graceful_shutdown,
    )
    return 0


def _migrate(_args: argparse.Namespace) -> int:
    from app.core.migrate import upgrade

    applied = upgrade(get_settings().database_url)
    if applied:
        print(f"applied migration(s) {', '.join(applied)}: the database is at the newest schema")
    else:
        print("nothing to do: the database is already at the newest schema")
    return 0


@asynccontextmanager
async def _sessions(settings: Settings, hooks: CommitHooks | None = None) -> AsyncIterator[Sessions]:
    """Sessions on an engine of their own, disposed of when the command ends."""
    from app.core.db import create_engine, create_sessionmaker

    engine = create_engine(settings)
    try:
        yield create_sessionmaker(engine, hooks)
    finally:
        await engine.dispose()


async def _create_user(args: argparse.Namespace) -> int:
    from app.core.security import PasswordHasher
    from app.users.repository import UserRepository
    from app.users.service import create_user

    settings = get_settings()
    if args.password is None:
        args.password = _prompt_password()
        if args.password is None:
            return 2
    if len(args.password) < 8:
        print("error: the password needs at least 8 characters", file=sys.stderr)
        return 2
    async with _sessions(settings) as sessions, sessions() as session, session.begin():
        users = UserRepository(session)
        password_hash = await PasswordHasher(settings).hash(args.password)
        user = await create_user(
            email=args.email, name=args.name, password_hash=password_hash, roles=args.role, users=users
        )
        print(f"created user {user.id} <{user.email}> with roles {', '.join(user.roles)}")
    return 0


def _prompt_password() -> str | None:
    """Asked twice on the terminal, never echoed, so it stays out of the shell history."""
    import getpass

    password = getpass.getpass("Password: ")
    if password != getpass.getpass("Password (again): "):
        print("error: the passwords do not match", file=sys.stderr)
        return None
    return password


async def _worker(_args: argparse.Namespace) -> int:
    import signal

    from app.core.db import CommitHooks
    from app.notifications.push import push_sender
    from app.worker_assembly import build_worker

    settings = get_settings()
    hooks = CommitHooks()
    pusher = push_sender(settings)
    async with _sessions(settings, hooks) as sessions:
        worker = build_worker(settings, sessions, pusher=pusher)
        # Wakes on this process's own commits (the daily expiry alerts); the API's are found by polling.
        hooks.wake_outbox = worker.wake
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, worker.stop)
        print("outbox worker running; Ctrl-C stops it", file=sys.stderr)
        try:
            await worker.run_forever()
        finally:
            await pusher.aclose()
    return 0


async def _send_expiry_alerts(_args: argparse.Namespace) -> int:
    from app.products.expiry_alerts import send_expiry_alerts

    settings = get_settings()
    async with _sessions(settings) as sessions:
        alerted = await send_expiry_alerts(sessions, settings)
    # Enqueued only: a running worker (in the app or `warranty worker`) sends them.
    print(f"expiry alerts recorded for {alerted} product(s)")
    return 0


async def _copy_files_to_bucket(args: argparse.Namespace) -> int:
    from app.storage.s3_storage import S3Storage, s3_store
    from app.storage.storage_copy import copy_folder

    settings = get_settings()
    if settings.storage_url is None:
        print("error: set WARRANTY_STORAGE_URL=s3://bucket/prefix (the bucket to copy into)", file=sys.stderr)
        return 2
    folder = args.source or settings.data_dir / "files"
    if not folder.is_dir():
        print(f"error: {folder} is not a folder", file=sys.stderr)
        return 2
    tally = await copy_folder(folder, S3Storage(s3_store(settings)))
    print(
        f"copied {tally.copied} file(s) from {folder} to {settings.storage_url}; "
        f"{tally.present} already there; {tally.skipped} skipped (not a stored file's name)"
    )
    return 0


def _ending_at_once(code: int) -> NoReturn:
    """Exits without the interpreter's teardown. obstore's runtime threads may still be finishing the last
    call as Python finalizes, which aborts the process (SIGABRT, about 1 run in 6 under load); a command
    whose last step was a bucket call has nothing else to clean up."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="warranty", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the HTTP server (uvicorn)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--graceful-shutdown", type=int, default=10, help="seconds open streams get to finish")
    serve.set_defaults(run=_serve)

    migrate = commands.add_parser("migrate", help="upgrade the database schema to the newest migration")
    migrate.set_defaults(run=_migrate)

    create_user = commands.add_parser("create-user", help="create a user (the first admin comes from here)")
    create_user.add_argument("--email", required=True)
    create_user.add_argument(
        "--password", help="asked on the terminal when absent (keeps it out of the shell history)"
    )
    create_user.add_argument("--name", required=True)
    create_user.add_argument(
        "--role", action="append", choices=[role.value for role in Role], default=[], help="may repeat"
    )
    create_user.set_defaults(run=lambda args: asyncio.run(_create_user(args)))

    worker = commands.add_parser(
        "worker", help="deliver queued emails and pushes (and the daily expiry alerts)"
    )
    worker.set_defaults(run=lambda args: asyncio.run(_worker(args)))

    expiry = commands.add_parser(
        "send-expiry-alerts", help="queue today's warranty expiry alerts (idempotent)"
    )
    expiry.set_defaults(run=lambda args: asyncio.run(_send_expiry_alerts(args)))

    copy_files = commands.add_parser(
        "copy-files-to-bucket",
        help="copy the data folder's files into WARRANTY_STORAGE_URL's bucket (idempotent)",
    )
    copy_files.add_argument(
        "--from", dest="source", type=Path, help="the folder to copy (default: $WARRANTY_DATA_DIR/files)"
    )
    copy_files.set_defaults(run=lambda args: _ending_at_once(asyncio.run(_copy_files_to_bucket(args))))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    keep_files_private()  # the database `migrate` creates, the .eml files `worker` writes: 0600
    try:
        return int(args.run(args))
    except Exception as exc:  # a clear line for the operator, not a traceback
        from app.errors import AppError

        if isinstance(exc, AppError):
            print(f"error: {exc.message}", file=sys.stderr)
            return 1
        raise


if __name__ == "__main__":
    sys.exit(main())
