//! Orders and their lines.

mod line;

pub use self::line::Line;
use crate::money::{self, Cents};

/// The state an order is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Open,
    Paid { at: u64 },
    Cancelled(String),
}

/// An order: its lines and its status.
#[derive(Debug)]
pub struct Order {
    pub id: u32,
    lines: Vec<Line>,
    pub status: Status,
}

impl Order {
    /// A new open order with no lines.
    pub fn new(id: u32) -> Self {
        Order { id, lines: Vec::new(), status: Status::Open }
    }

    /// Adds a line.
    pub fn add(&mut self, sku: &str, cents: Cents, qty: u32) -> &mut Self {
        self.lines.push(Line::new(sku, cents, qty));
        self
    }

    /// The sum of the lines.
    pub fn total(&self) -> Cents {
        self.lines.iter().map(|l| l.subtotal()).sum()
    }

    /// Marks an open order paid.
    pub fn pay(&mut self, at: u64) {
        if self.is_open() {
            self.status = Status::Paid { at };
        }
    }

    fn is_open(&self) -> bool {
        self.status == Status::Open
    }

    /// A one-line summary.
    pub fn describe(&self) -> String {
        let total = self.total();
        format!("order {}: {} ({})", self.id, crate::money::format(total), money::CURRENCY)
    }
}
