package elements

import (
	"strings"
	"testing"
)

// The HTML report inlines JS in a <script> element, which a "</script"
// inside it would end early and a "<script" inside an HTML comment would
// keep open: an upgrade that brings either needs escaping first.
func TestJS_InlinesSafely(t *testing.T) {
	if len(JS) < 100_000 || !strings.Contains(JS, "mutation-test-report-app") {
		t.Fatalf("JS (%d bytes) is not the component's bundle", len(JS))
	}
	for _, bad := range []string{"</script", "<script"} {
		if i := strings.Index(strings.ToLower(JS), bad); i >= 0 {
			t.Errorf("JS holds %q at byte %d", bad, i)
		}
	}
}
