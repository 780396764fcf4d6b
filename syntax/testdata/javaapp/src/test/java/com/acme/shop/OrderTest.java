package com.acme.shop;

class OrderTest {
    void total() {
        Order order = Order.discounted(10);
        order.add(new Order.Line("a1", 100, 3));
        assert order.total() == 270;
    }
}
