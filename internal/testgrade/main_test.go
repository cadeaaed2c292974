package testgrade

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	ChildMain() // CheckBounded's process is this test binary
	os.Exit(m.Run())
}
