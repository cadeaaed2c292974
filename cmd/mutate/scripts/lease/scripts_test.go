//go:build linux

// Package lease runs the scripts of lease's own mutants
// (scripttest.Groups): the gate on its catalog in both tiers, its wheats
// and its chaffs. They are in cmd/mutate/testdata/script.
package lease

import (
	"testing"

	"github.com/fencelab/fencelab/internal/scripttest"
)

func TestMain(m *testing.M) { scripttest.Main(m) }

func TestScripts(t *testing.T) { scripttest.Run(t, "lease") }
