package gotest

import (
	"os"
	"testing"

	"github.com/fencelab/fencelab/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Init() // the init of the sandboxes the tests run binaries in
	// As mutate does: what the tests' test binaries leave running comes
	// back to this process (Linux only).
	_ = BecomeSubreaper()
	dir, err := os.MkdirTemp("", "gotest-fixture-")
	if err != nil {
		panic(err)
	}
	// Sandboxes that root starts run their programs as nobody, who
	// reads the fixture's binary from here.
	if err := os.Chmod(dir, 0o755); err != nil {
		panic(err)
	}
	fixtureDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
