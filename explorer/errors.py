"""One exception family for conditions a user can fix; each message says how."""


class ExplorerError(Exception):
    """A problem the user can fix. The message says what happened and what to do."""


class CorpusError(ExplorerError):
    """An input file is missing or malformed."""


class ModelNotFoundError(ExplorerError):
    """The requested model is neither installed nor a local folder."""


class IndexMissingError(ExplorerError):
    """There is no index where one was expected."""


class IndexInvalidError(ExplorerError):
    """An index exists but is corrupted, truncated or does not match."""


class UnknownPaperError(ExplorerError):
    """A paper id is not in the index."""


class CollectionError(ExplorerError):
    """A saved collection is missing, already exists, or its file cannot be read."""


class DraftError(ExplorerError):
    """A draft given to "what did I miss" is empty, too long, or not text."""


class UnknownTopicError(ExplorerError):
    """A topic id is not in the index."""


class ThresholdError(ExplorerError):
    """A similarity threshold (or count) that this index cannot answer for."""


class UnknownFacetError(ExplorerError):
    """A filter names a field or a value that the index's facets do not have."""
