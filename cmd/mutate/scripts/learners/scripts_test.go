//go:build linux

// Package learners runs the scripts of learners' files (scripttest.Groups):
// test files and prediction files graded, a class's, the autograders'
// recipes. They are in cmd/mutate/testdata/script.
package learners

import (
	"testing"

	"github.com/fencelab/fencelab/internal/scripttest"
)

func TestMain(m *testing.M) { scripttest.Main(m) }

func TestScripts(t *testing.T) { scripttest.Run(t, "learners") }
