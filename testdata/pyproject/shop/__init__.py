"""A small shop: prices, orders and users."""
