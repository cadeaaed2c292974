package harness

import (
	"context"
	"os"
	"testing"

	"github.com/fencelab/fencelab/internal/sandbox"

	"github.com/fencelab/fencelab/internal/gotest"
)

func TestMain(m *testing.M) {
	sandbox.Init() // the init of the sandboxes the tests run binaries in
	// The tests' runs are cached where they cannot meet a user's; Go's own
	// build cache stays where it is.
	env, err := gotest.Env(context.Background(), "", "GOCACHE")
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "harness-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("GOCACHE", env["GOCACHE"])
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
