"""Whose collections a web session sees and may change (`Shelf`), by how the app is served
(`sharing`: the address it listens on and `Settings.visitors`, EXPLORER_VISITORS).

- `OWNER_MODE` (auto, and the app listens on a loopback address: 127.0.0.1, ::1, localhost):
  whoever uses it sits at the owner's computer, so the web reads and changes the owner's
  collections (`Settings.data_dir`/collections/), as the command line does.
- `PRIVATE` (auto on any other address, or "private": an app behind a proxy on 127.0.0.1): each
  browser keeps its own collections, in collections/visitors/<SHA-256 of its key>/; its key is
  64 random hex digits that the browser keeps in its local storage and sends over the session's
  connection, never in a link or a page. A visitor sees their own collections and the owner's,
  read-only; nobody sees another visitor's. Limits: `VISITOR_LIMITS` per browser,
  `MAX_VISITORS` browsers.
- `SHARED` ("shared"): every visitor reads and changes the owner's collections (a lab keeping
  its reading lists together; the way before this existed), at most
  `SHARED_LIMITS.collections` of them made from the web.
"""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import Iterable
from pathlib import Path

from explorer.errors import CollectionError
from explorer.features.collections.names import name_key
from explorer.features.collections.records import MAX_PAPERS, Collection, clean_name
from explorer.features.collections.store import FOLDER, LOCK_WAIT, Catalog, Collections, Limits
from explorer.files import FolderLock, make_dirs

OWNER_MODE, PRIVATE, SHARED = "owner", "private", "shared"
VISITORS = "visitors"  # the visitors' folders, inside the owner's collections folder
VISITORS_LOCK = ".visitors.lock"
KEY_CHARS = 64  # a visitor's key: 256 random bits as hex
VISITOR_LIMITS = Limits(collections=100, papers=1_000)
SHARED_LIMITS = Limits(collections=1_000, papers=MAX_PAPERS)
MAX_VISITORS = 500  # browsers with collections on one server (at most 50,000 collections)
READ_ONLY = ("{name!r} is a collection of the server's owner: visitors can open it, not change "
             "it. Save the marked papers under a new name to keep your own copy.")
NO_KEY = ("Your browser has not given its key yet (it keeps your collections apart from other "
          "visitors'); wait a moment and try again. Browsers that block this site's storage "
          "cannot save collections.")


def is_loopback(address: str | None) -> bool:
    """True for an address only this computer can reach (127.0.0.0/8, ::1, localhost).
    None or "" is not: Streamlit then listens on every address."""
    if not address:
        return False
    if address.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def sharing(address: str | None, visitors: str = "auto") -> str:
    """OWNER_MODE, PRIVATE or SHARED for an app listening on `address` whose setting is
    `visitors` (Settings.visitors: auto, private or shared; see the module)."""
    if visitors in (PRIVATE, SHARED):
        return visitors
    if visitors != "auto":
        raise ValueError(f"visitors is auto, private or shared, not {visitors!r}")
    return OWNER_MODE if is_loopback(address) else PRIVATE


def valid_key(key: object) -> bool:
    """True for a visitor key as browsers make them: 64 lower-case hex digits."""
    return (isinstance(key, str) and len(key) == KEY_CHARS
            and all(c in "0123456789abcdef" for c in key))


def visitor_folder(data_dir: Path, key: str) -> Path:
    """The folder of the visitor whose browser holds `key` (a name from its hash: nothing a
    browser sends becomes a path, and the folder's name does not give the key away)."""
    if not valid_key(key):
        raise ValueError("a visitor key is 64 hex digits")
    digest = hashlib.sha256(key.encode("ascii")).hexdigest()[:32]
    return Path(data_dir) / FOLDER / VISITORS / digest


class Shelf:
    """The collections one web session sees: `own` (where it saves; None while a visitor's
    browser has not given its key) and `owners` (the owner's, read-only; None when `own` is
    the owner's folder). A name means the session's own collection first, then the owner's."""

    def __init__(self, own: Collections | None, owners: Collections | None = None) -> None:
        self.own, self.owners = own, owners

    @classmethod
    def of(cls, data_dir: Path, mode: str, key: str | None = None, wait: float = LOCK_WAIT
           ) -> Shelf:
        """The shelf of a session of an app in `mode` whose browser gave `key` (PRIVATE)."""
        owners = Collections(Path(data_dir) / FOLDER, wait)
        if mode == OWNER_MODE:
            return cls(owners)
        if mode == SHARED:
            return cls(Collections(owners.folder, wait, SHARED_LIMITS))
        own = Collections(visitor_folder(data_dir, key), wait, VISITOR_LIMITS) \
            if valid_key(key) else None
        return cls(own, owners)

    @property
    def waiting(self) -> bool:
        """True while a visitor's own collections are not known (the browser's key)."""
        return self.own is None

    def catalog(self) -> Catalog:
        """The session's own collections, then the owner's that no own one hides; problems of
        its own files only (the owner's are the owner's to fix)."""
        own = self.own.catalog() if self.own else Catalog((), ())
        if self.owners is None:
            return own
        taken = {entry.key for entry in own.entries}
        shared = tuple(e for e in self.owners.catalog().entries if e.key not in taken)
        return Catalog(own.entries + shared, own.problems, frozenset(e.name for e in shared))

    def read_only(self, name: str) -> bool:
        """True when `name` is an owner's collection that this session may not change."""
        return self.owners is not None and not self._owns(name)

    def get(self, name: str) -> Collection:
        """The collection `name`: the session's own, else the owner's."""
        if self.owners is None or self._owns(name):
            return self._writable().get(name)
        return self.owners.get(name)

    def writable(self, name: str) -> Collections:
        """The store that may change `name`; CollectionError when it is the owner's."""
        if self.read_only(name):
            raise CollectionError(READ_ONLY.format(name=name))
        return self._writable()

    def create(self, name: str, paper_ids: Iterable[str]) -> Collection:
        """A new collection of this session's; a visitor may not take a name of the owner's
        (CollectionError), nor open a new space on a server holding `MAX_VISITORS`."""
        store = self._writable()
        self._check_free(name)
        if self.owners is not None and not store.folder.is_dir():
            _open_space(store.folder, store.wait)
        return store.create(name, paper_ids)

    def rename(self, name: str, new_name: str, revision: int | None = None,
               uid: str | None = None) -> Collection:
        """Rename a collection of this session's (not to a name of the owner's)."""
        store = self.writable(name)
        self._check_free(new_name)
        return store.rename(name, new_name, revision, uid)

    def _check_free(self, name: str) -> None:
        """CollectionError when a visitor gives a name of an owner's collection."""
        if self.owners is None:
            return
        cleaned = clean_name(name)
        if any(e.key == name_key(cleaned) for e in self.owners.catalog().entries):
            raise CollectionError(f"The server's owner has a collection named {cleaned!r}; "
                                  "pick another name for yours.")

    def _owns(self, name: str) -> bool:
        if self.own is None:
            return False
        key = name_key(clean_name(name, strict=False))
        return any(entry.key == key for entry in self.own.catalog().entries)

    def _writable(self) -> Collections:
        if self.own is None:
            raise CollectionError(NO_KEY)
        return self.own


def _open_space(folder: Path, wait: float) -> None:
    """Make a visitor's folder, unless the server already keeps MAX_VISITORS."""
    root = folder.parent
    with FolderLock(root, wait, name=VISITORS_LOCK):
        if folder.is_dir():
            return
        count = sum(1 for path in root.iterdir() if path.is_dir())
        if count >= MAX_VISITORS:
            raise CollectionError(
                f"This server already keeps collections for {MAX_VISITORS} browsers, so it "
                "cannot keep yours. Ask the server's owner to make room; meanwhile the Share "
                "link keeps the marked papers.")
        make_dirs(folder)
