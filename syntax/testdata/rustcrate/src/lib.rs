//! Shop core: orders, money and pricing rules.

/// Converts whole euros into cents.
macro_rules! euros {
    ($e:expr) => {
        ($e as u64) * 100
    };
}

pub mod money;
pub mod orders;
pub mod pricing;

pub use orders::Order;

/// Version of the crate's data format.
pub const FORMAT: u32 = 2;

/// Totals an order after applying a rule.
pub fn checkout(order: &Order, rule: &dyn pricing::Rule) -> money::Cents {
    let total = order.total();
    rule.apply(total)
}

/// A welcome discount of five euros.
pub fn welcome() -> pricing::Flat {
    pricing::Flat { off: euros!(5) }
}
