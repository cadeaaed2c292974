package shop

import "testing"

func TestTotal_NoDiscountBelowTheThreshold(t *testing.T) {
	if got := Total([]Line{{"a", 4999, 2}}); got != 9998 {
		t.Fatalf("Total = %d, want 9998", got)
	}
}

func TestTotal_DiscountFromTheThreshold(t *testing.T) {
	if got := Total([]Line{{"a", 5000, 2}}); got != 9000 {
		t.Fatalf("Total = %d, want 9000", got)
	}
}

func TestCount(t *testing.T) {
	if got := Count(3); got != 3 {
		t.Fatalf("Count(3) = %d, want 3", got)
	}
}

// A weak test: only a negative total.
func TestRefund(t *testing.T) {
	if got := Refund(-5); got != 0 {
		t.Fatalf("Refund(-5) = %d, want 0", got)
	}
}
