//! Amounts of money.

/// An amount in cents.
pub type Cents = u64;

/// The currency everything is priced in.
pub static CURRENCY: &str = "EUR";

/// Formats an amount for display.
pub fn format(c: Cents) -> String {
    format!("{}.{:02} {}", c / 100, c % 100, CURRENCY)
}

/// Percent of an amount, rounded down.
pub fn percent_of(c: Cents, pct: u8) -> Cents {
    c * u64::from(pct) / 100
}
