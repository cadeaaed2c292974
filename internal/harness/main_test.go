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

// skipShort skips, under -short, a test that builds and runs the test
// binaries of a module several times over: go test ./... runs it, and
// the fake runner's tests (run_test.go, confirm_test.go) cover the same
// logic in the everyday lane.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs real test binaries several times: the full lane's (go test ./...)")
	}
}
