//go:build !unix

package gotest

import (
	"context"
	"errors"
)

// lockKept cannot lock where flock is not available: binaries are then
// not kept.
func lockKept(context.Context, string) (func(), error) { return nil, errors.ErrUnsupported }

// removeKept leaves everything: nothing is kept.
func removeKept(string) error { return nil }
