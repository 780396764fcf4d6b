import unittest

from shop.orders import Order, OrderLine, checkout, sku_key
from shop.pricing import FlatRule


class OrderTest(unittest.TestCase):
    def test_total(self) -> None:
        order = Order(rules=[FlatRule(50)]).add(OrderLine("a1", 100, 3))
        self.assertEqual(order.total(), 250)

    def test_checkout(self) -> None:
        self.assertTrue(checkout([OrderLine("a1", 100, 10)]).endswith(" 900"))

    def test_sku_key(self) -> None:
        self.assertEqual(sku_key("  ab-1 "), "AB-1")


if __name__ == "__main__":
    unittest.main()
