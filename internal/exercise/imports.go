package exercise

import "strings"

// What a learner's test file may import: the rule Tests.Imports widens,
// which the tests assignment's checks (package testgrade) and hand-outs
// (package handout) read here.

// StandardImports are the standard packages a learner's test file may
// import (Tests.Imports widens them for an exercise),
// each for what a contract test needs. None of them reads the file
// system, the process's environment or arguments, or memory it was not
// handed: what each reaches beyond its arguments is said beside it.
var StandardImports = []string{
	"testing",                  // the test's own name, flags that every run shares, a TempDir in the run's TMPDIR
	"testing/quick",            // random values
	"testing/synctest",         // a bubble of fake time
	"context", "errors", "fmt", // fmt: Print writes stdout; Scan reads stdin, which is empty in every run
	"strings", "strconv", "bytes", "unicode", "unicode/utf8", "unicode/utf16",
	"bufio", "io", // readers and writers of values the test holds
	"sort", "slices", "maps", "iter", "cmp",
	"sync", "sync/atomic",
	"time", // the clock, timers, and the zone database for time.Local
	"math", "math/bits", "math/big", "math/cmplx", "math/rand", "math/rand/v2",
	"path", // pure: Join, Base, Clean; no file system
	"regexp",
	"container/heap", "container/list", "container/ring",
	"encoding/json", "encoding/hex", "encoding/base64", "encoding/binary",
	"hash/fnv", "hash/crc32",
}

// refused says why the packages that reach what a test must not are not
// among StandardImports, by path or by a path's prefix (ending in "/").
var refused = []struct{ path, why string }{
	{"C", "cgo runs C code, which reads any memory"},
	{"unsafe", "it reads and writes any memory: the binary's strings, the process's environment"},
	{"os", "it reads the environment, files and the test binary itself"},
	{"os/", "it reaches the process, its signals, programs or the system's users"},
	{"io/ioutil", "it reads and lists files"},
	{"path/filepath", "its Glob, Walk and EvalSymlinks list directories and read links (path joins paths without touching the file system)"},
	{"syscall", "it makes any system call"},
	{"golang.org/x/sys/", "it makes any system call"},
	{"runtime", "it reads the process's state: its callers' files, its memory"},
	{"runtime/", "it reads the process's state: the binary's build settings, its memory, its profiles"},
	{"debug/", "it reads binaries: their symbols, their build settings"},
	{"plugin", "it loads code"},
	{"embed", "it embeds files"},
	{"reflect", "it reads unexported fields, and hands out pointers as unsafe.Pointer without importing unsafe"},
	{"flag", "it reads the test binary's command line"},
	{"net", "it reaches the network"},
	{"net/", "it reaches the network"},
	{"mime", "it reads the system's MIME files"},
	{"go/build", "it reads the file system and the environment"},
	{"text/template", "its ParseFiles and ParseGlob read files"},
	{"html/template", "its ParseFiles and ParseGlob read files"},
	{"internal/", "it is the standard library's own"},
}

// RefusedImport says why a learner's test file may not import the
// package at path, whatever an exercise allows; "" if nothing refuses it.
func RefusedImport(path string) string {
	for _, r := range refused {
		if path == r.path || strings.HasSuffix(r.path, "/") && strings.HasPrefix(path, r.path) {
			return r.why
		}
	}
	return ""
}
