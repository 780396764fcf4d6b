use shop_core::orders::Status;
use shop_core::pricing::Rule;
use shop_core::{checkout, money, welcome, Order};

#[test]
fn checkout_applies_the_rule() {
    let mut order = Order::new(7);
    order.add("book", 1500, 2);
    let rule = welcome();
    let total = checkout(&order, &rule);
    assert_eq!(total, 2500);
    assert_eq!(rule.apply(1000), 500);
    assert_eq!(money::format(total), "25.00 EUR");
    order.pay(1);
    assert_eq!(order.status, Status::Paid { at: 1 });
    assert!(order.describe().starts_with("order 7"));
}
