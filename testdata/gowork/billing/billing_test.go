package billing

import "testing"

func TestInvoice(t *testing.T) {
	if got := Invoice([]Line{{UnitCents: 100, Qty: 10}, {UnitCents: 50, Qty: 1}}); got != 950 {
		t.Fatalf("Invoice = %d; want 950", got)
	}
}
