"""Price rules and quotes, in cents."""

from typing import Iterable


class PriceRule:
    """A rule that turns a price in cents into a final price."""

    def apply(self, cents: int) -> int:
        """Return the price after the rule; the base rule changes nothing."""
        return cents


class FlatRule(PriceRule):
    """Takes a fixed amount off."""

    def __init__(self, off_cents: int) -> None:
        self.off_cents = off_cents

    def apply(self, cents: int) -> int:
        return max(0, cents - self.off_cents)


class PercentRule(PriceRule):
    """Takes a percentage off."""

    def __init__(self, percent: int) -> None:
        self.percent = percent

    def apply(self, cents: int) -> int:
        return round(cents * (100 - self.percent) / 100)


def quote(unit_cents: int, qty: int, rules: Iterable[PriceRule] = ()) -> int:
    """Price qty units at unit_cents each, then apply every rule in order."""
    total = unit_cents * qty
    for rule in rules:
        total = rule.apply(total)
    return total
