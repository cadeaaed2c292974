package harness

import "testing"

// A test can lower the memory bound of a blind run's builds, never raise
// it: what is not a number of MiB below the bound leaves it as it is.
func TestBlindLimits_TheEnvironmentOnlyLowersTheMemoryBound(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want int64
	}{
		{"", 2 << 30},
		{"256", 256 << 20},
		{"4096", 2 << 30},
		{"0", 2 << 30},
		{"-5", 2 << 30},
		{"256MiB", 2 << 30},
		{"9007199254740993", 2 << 30},
	} {
		t.Setenv(BlindBuildMemoryEnv, tc.env)
		got := blindLimits()
		if got.Memory != tc.want {
			t.Errorf("%s=%q: memory bound %d, want %d", BlindBuildMemoryEnv, tc.env, got.Memory, tc.want)
		}
		if got.Wall != blindBuildLimits.Wall || got.CPU != blindBuildLimits.CPU || got.FileSize != blindBuildLimits.FileSize {
			t.Errorf("%s=%q changed another bound: %+v", BlindBuildMemoryEnv, tc.env, got)
		}
	}
}
