"""Customer accounts. Its quote only looks like shop.pricing.quote."""

from dataclasses import dataclass


@dataclass
class User:
    id: str
    months: int


def quote(base_cents: int, months: int) -> int:
    """Return a credit quota, with a 10% bonus from ten months on."""
    total = base_cents * months
    if months >= 10:
        total += total // 10
    return total


def credit_for(user: User) -> int:
    return quote(500, user.months)
