//go:build linux

// Package isolation runs the scripts of sandboxes (scripttest.Groups):
// what a mutant's or a learner's code can reach in either tier, and what a
// loaded machine changes. They are in cmd/mutate/testdata/script.
package isolation

import (
	"testing"

	"github.com/fencelab/fencelab/internal/scripttest"
)

func TestMain(m *testing.M) { scripttest.Main(m) }

func TestScripts(t *testing.T) { scripttest.Run(t, "isolation") }
