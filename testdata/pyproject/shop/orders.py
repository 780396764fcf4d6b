"""Orders priced with shop.pricing."""

from dataclasses import dataclass, field
from typing import List

from shop import pricing
from shop.pricing import PercentRule, PriceRule

HEADER_WIDTH = 32
HEADER = "Reçu 𝄞 " + str(HEADER_WIDTH)  # the clef is two UTF-16 code units


@dataclass
class OrderLine:
    sku: str
    unit_cents: int
    qty: int


@dataclass
class Order:
    rules: List[PriceRule] = field(default_factory=list)
    lines: List[OrderLine] = field(default_factory=list)

    def add(self, line: OrderLine) -> "Order":
        self.lines.append(line)
        return self

    def line_price(self, line: OrderLine) -> int:
        """Lowest-level method: calls pricing.quote."""
        return pricing.quote(line.unit_cents, line.qty, self.rules)

    def subtotal(self) -> int:
        """Calls line_price (depth 1)."""
        return sum(self.line_price(line) for line in self.lines)

    def total(self) -> int:
        """Calls subtotal (depth 2)."""
        return self.subtotal()


def checkout(lines: List[OrderLine]) -> str:
    """Calls Order.total (depth 3)."""
    order = Order(rules=[PercentRule(10)])
    for line in lines:
        order.add(line)
    return f"{HEADER} {order.total()}"


def sku_key(sku: str) -> str:
    """Normalise a SKU; only the tests call it."""
    return sku.strip().upper()
