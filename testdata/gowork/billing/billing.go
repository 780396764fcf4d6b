// Package billing builds invoices from priced lines.
package billing

import "example.com/pricing"

// Line is one invoice line.
type Line struct {
	UnitCents int
	Qty       int
}

// Invoice totals lines with pricing.Quote.
func Invoice(lines []Line) int {
	sum := 0
	for _, l := range lines {
		sum += pricing.Quote(l.UnitCents, l.Qty)
	}
	return sum
}
