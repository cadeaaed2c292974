package sandbox

import (
	"os"
	"testing"
)

// Need skips tb where there are no namespaces for a sandbox, and fails it
// there when CI=true: CI runs the isolated path, and a test of it must
// not pass there by skipping. Every test that needs a sandbox calls it.
func Need(tb testing.TB) {
	tb.Helper()
	if ok, why := Available(); !ok {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true and no namespaces for the sandboxes: %s", why)
		}
		tb.Skipf("no sandbox here: %s", why)
	}
}
