//! Pricing rules.

use crate::money::{percent_of, Cents as Price};
use crate::orders::*;

/// A rule turns a price into a final price.
pub trait Rule {
    /// Applies the rule to a price.
    fn apply(&self, price: Price) -> Price;

    /// Names the rule.
    fn name(&self) -> String {
        String::from("rule")
    }
}

/// Takes a percentage off.
pub struct Percent(pub u8);

/// Takes a fixed amount off, never below zero.
pub struct Flat {
    pub off: Price,
}

impl Rule for Percent {
    fn apply(&self, price: Price) -> Price {
        price - percent_of(price, self.0)
    }

    fn name(&self) -> String {
        format!("{}% off", self.0)
    }
}

impl Rule for Flat {
    fn apply(&self, price: Price) -> Price {
        price.saturating_sub(self.off)
    }
}

/// The rule that leaves the lowest price for an order.
pub fn best<'a>(order: &Order, rules: &'a [Box<dyn Rule>]) -> Option<&'a dyn Rule> {
    let total = order.total();
    rules.iter().map(|r| r.as_ref()).min_by_key(|r| r.apply(total))
}

/// A price read as a number or as its bytes.
#[repr(C)]
pub union Raw {
    pub cents: u64,
    pub bytes: [u8; 8],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_takes_off() {
        assert_eq!(Percent(10).apply(1000), 900);
    }

    #[test]
    fn best_picks_the_lowest() {
        let mut o = Order::new(1);
        o.add("a", 1000, 1);
        let rules: Vec<Box<dyn Rule>> = vec![Box::new(Percent(10)), Box::new(Flat { off: 300 })];
        let r = best(&o, &rules).unwrap();
        assert_eq!(r.apply(o.total()), 700);
        assert_eq!(r.name(), "rule");
    }
}
