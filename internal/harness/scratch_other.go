//go:build !linux

package harness

// roomy reports whether dir is a good scratch directory; only Linux's
// /dev/shm is used, elsewhere the system's temporary directory is.
func roomy(string) bool { return false }

// killInside does nothing: finding processes by their directory needs
// Linux's /proc.
func killInside(string) {}

// passableDir reports true here: there are no sandboxes of users of their
// own.
func passableDir(string) bool { return true }
