use crate::money::Cents;

/// One line of an order.
#[derive(Debug, Clone)]
pub struct Line {
    pub sku: String,
    pub cents: Cents,
    pub qty: u32,
}

impl Line {
    /// A line of qty items at cents each.
    pub fn new(sku: &str, cents: Cents, qty: u32) -> Line {
        Line { sku: sku.to_string(), cents, qty }
    }

    /// The line's price.
    pub fn subtotal(&self) -> Cents {
        self.cents * Cents::from(self.qty)
    }
}

#[cfg(test)]
mod line_test;
