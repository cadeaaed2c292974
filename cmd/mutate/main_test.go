//go:build linux

package main

import (
	"testing"

	"github.com/fencelab/fencelab/internal/scripttest"
)

func TestMain(m *testing.M) { scripttest.Main(m) }

// TestScripts runs the scripts in testdata/script that no group of
// scripttest.Groups takes: the mutate command end to end, on package
// lease ($MODROOT) and on small fixture modules.
func TestScripts(t *testing.T) { scripttest.Run(t, "") }
