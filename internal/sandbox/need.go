package sandbox

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// NeedEnv lists, comma-separated, the tiers that a CI run (CI=true)
// requires: a test of one of them fails there, rather than skip, where
// the tier is missing. .ci/run requires both; a CI of another's (GitHub's
// ubuntu-latest refuses namespaces) requires none, and a test of a
// missing tier skips there.
const NeedEnv = "MUTATE_TEST_SANDBOXES"

// Need skips tb where there are no sandboxes of tier, and fails it there
// when CI=true and NeedEnv names the tier, or no tier at all is available:
// CI runs the isolated path, and a test of it must not pass there by
// skipping. Every test that needs a sandbox calls it.
func Need(tb testing.TB, tier Tier) {
	tb.Helper()
	err := Check(tier)
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		if slices.Contains(strings.Split(os.Getenv(NeedEnv), ","), string(tier)) {
			tb.Fatalf("CI=true, %s=%s and no %s sandbox here: %v", NeedEnv, os.Getenv(NeedEnv), tier, err)
		}
		if !slices.ContainsFunc(Tiers, func(t Tier) bool { return Check(t) == nil }) {
			tb.Fatalf("CI=true and no sandbox of any tier here: %s: %v", tier, err)
		}
	}
	tb.Skipf("no %s sandbox here: %v", tier, err)
}
