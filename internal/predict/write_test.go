package predict

import "testing"

// A message is cut after its first lines with a count of the rest; one
// line more is shown, not counted.
func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"a\nb", "a\nb"},
		{"a\nb\nc", "a\nb\nc"},
		{"a\nb\nc\nd", "a\nb\n… 2 more lines (-json has them all)"},
	} {
		if got := truncate(tc.in, 2); got != tc.want {
			t.Errorf("truncate(%q, 2) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
