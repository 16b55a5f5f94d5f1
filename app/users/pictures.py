"""Profile pictures: stored under one storage folder; the user row keeps the generated file name, which is
also the last segment of the picture's public path."""

from __future__ import annotations

import re

from fastapi import UploadFile
from sqlalchemy.ext.asyncio import AsyncSession

from app.changes.dispatch import record
from app.changes.events import UserChanged
from app.config import Settings
from app.errors import NotFound
from app.models import User
from app.storage.files import KINDS, FileKind, read_upload
from app.storage.storage import Storage, delete_after_commit, discard_on_rollback
from app.users.picture_copy import clean_copy

FOLDER = "avatars"
ALLOWED = {"jpg", "png", "gif", "webp"}
# Exactly what `Storage.save` generates: nothing else ever reaches the file system.
_FILENAME = re.compile(r"^[a-f0-9]{32}\.(jpg|png|gif|webp)$")
# Clients that do not know the type send these; then the bytes alone decide.


def picture_key(filename: str) -> str:
    return f"{FOLDER}/{filename}"


def picture_kind(filename: str) -> FileKind:
    """The kind of a requested picture by its name; 404 for any name this service cannot have made."""
    match = _FILENAME.match(filename)
    if match is None:
        raise NotFound("No such profile picture.")
    return KINDS[match.group(1)]


async def replace_picture(
    session: AsyncSession, storage: Storage, settings: Settings, user: User, upload: UploadFile
) -> str:
    """Check and store the upload as the user's picture; the previous file goes once this commits.
    Answers the new file name."""
    data, kind = await read_upload(
        upload,
        allowed=ALLOWED,
        max_size=settings.max_profile_picture_size,
        max_pixels=settings.max_profile_picture_pixels,
    )
    data = await clean_copy(data, kind.extension, settings.max_profile_picture_pixels)  # no EXIF, no GPS
    # Lock the row and read the current picture: of two uploads at once, the later one removes the
    # earlier one's file instead of both removing the same old file and leaving one behind.
    await session.refresh(user, attribute_names=["profile_picture"], with_for_update=True)
    key = await storage.save(FOLDER, data, kind.extension)
    discard_on_rollback(session, storage, key)
    previous = user.profile_picture
    user.profile_picture = key.removeprefix(f"{FOLDER}/")
    await record(session, UserChanged(user.id))
    if previous:
        delete_after_commit(session, storage, [picture_key(previous)])
    return user.profile_picture
