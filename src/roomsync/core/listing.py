"""The one key of a listing: which property, which channel account, which listing.

Every layer keys a listing by :class:`ListingKey` and writes it ``ACCOUNT/LISTING``
(:func:`listing_text`), the property being the context it is read in (``--property``, the URL).
"""

from __future__ import annotations

from dataclasses import dataclass


def listing_text(account_id: str, listing_id: str) -> str:
    """The one text form of a listing within its property: ``ACCOUNT/LISTING`` (``2001/41000001``),
    as the CLI's ``--listing``, the admin API, the status, the reports and the metrics write it."""
    return f"{account_id}/{listing_id}"


@dataclass(frozen=True, order=True)
class ListingKey:
    """One listing of one property on the rental channel: the one key of a listing everywhere.

    Its text form is ``ACCOUNT/LISTING`` (:func:`listing_text`); the property is the context it is
    read in (``--property``, the URL), so :meth:`parse` is given it. Keys sort by property, account,
    listing.
    """

    property_id: str
    account_id: str
    listing_id: str

    @property
    def text(self) -> str:
        return listing_text(self.account_id, self.listing_id)

    def __str__(self) -> str:
        return self.text

    @classmethod
    def parse(cls, property_id: str, text: str) -> ListingKey:
        """The key written ``ACCOUNT/LISTING``; ValueError naming the text when it is not."""
        account, _, listing = text.strip().partition("/")
        if not account or not listing or "/" in listing:
            raise ValueError(f"listing {text!r}: write it as ACCOUNT/LISTING, e.g. 2001/41000001")
        return cls(property_id, account, listing)
