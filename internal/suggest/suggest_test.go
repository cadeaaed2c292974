package suggest

import "testing"

func TestClosest(t *testing.T) {
	ids := []string{"claim-boundary", "renew-expired", "complete-twice", "release-resets-fence"}
	tests := []struct {
		word, want string
	}{
		{"claim-bondary", "claim-boundary"},
		{"renew-expird", "renew-expired"},
		{"Complete-Twice", "complete-twice"},
		{"release-reset-fence", "release-resets-fence"},
		{"claim-bound", "claim-boundary"},
		{"something-else", ""},
		{"x", ""},
	}
	for _, tc := range tests {
		if got := Closest(tc.word, ids); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func TestHint(t *testing.T) {
	if got, want := Hint("TestClaim_ReassignsAtExactExpiri", []string{"TestClaim_ReassignsAtExactExpiry"}), ` (did you mean "TestClaim_ReassignsAtExactExpiry"?)`; got != want {
		t.Errorf("Hint() = %q, want %q", got, want)
	}
	if got := Hint("zzz", []string{"TestClaim_ReassignsAtExactExpiry"}); got != "" {
		t.Errorf("Hint(far) = %q, want empty", got)
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
	}
	for _, tc := range tests {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
