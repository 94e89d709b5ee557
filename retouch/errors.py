"""Domain errors of the image pipeline."""

from __future__ import annotations

__all__ = ["BadImageError"]


class BadImageError(ValueError):
    """The input cannot be processed: undecodable, unsupported, a decompression bomb or too large.

    The message is Italian and meant for the seller (it is shown in the UI as the job's error).
    The Temporal activity maps this type, by name, to a non-retryable failure: retrying the same bytes
    can never succeed.
    """

    DEFAULT_MESSAGE = "Impossibile leggere l'immagine: formato non supportato o file danneggiato"

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.DEFAULT_MESSAGE)
