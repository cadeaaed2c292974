package progress

import (
	"regexp"
	"strings"
	"testing"
)

// Where stderr is not a terminal, each phase is one line and status
// updates print nothing.
func TestReporter_OneLinePerPhaseInALog(t *testing.T) {
	var b strings.Builder
	r := New(&b, false)
	r.Phase("building %s", "the test binary")
	r.Status("downloading example.com/m v1.0.0")
	r.Phase("baseline ./p")
	r.Status("3 tests done")
	r.Printf("baseline ./p: %d tests passed", 7)
	r.Done()
	want := "mutate: building the test binary\nmutate: baseline ./p\nmutate: baseline ./p: 7 tests passed\n"
	if got := b.String(); got != want {
		t.Fatalf("output = %q, want %q", got, want)
	}
}

// On a terminal the phase is one line redrawn in place, with its status
// and elapsed time; printed lines stay above it, and Done removes it.
// (The redraw every second is off here, so that the output is exact.)
func TestReporter_LiveLineOnATerminal(t *testing.T) {
	var b strings.Builder
	r := &Reporter{w: &b, live: true}
	r.Phase("baseline ./p")
	r.Status("%d tests done", 3)
	r.Printf("downloading modules")
	r.Done()
	const clear = "\r\x1b[K"
	want := regexp.MustCompile(`^` + regexp.QuoteMeta(clear) + `mutate: baseline \./p \(\d+s\)` +
		regexp.QuoteMeta(clear) + `mutate: baseline \./p: 3 tests done \(\d+s\)` +
		regexp.QuoteMeta(clear) + `mutate: downloading modules\n` +
		regexp.QuoteMeta(clear) + `mutate: baseline \./p: 3 tests done \(\d+s\)` +
		regexp.QuoteMeta(clear) + `$`)
	if got := b.String(); !want.MatchString(got) {
		t.Fatalf("output = %q, want it to match %s", got, want)
	}
}

func TestReporter_QuietAndNilPrintNothing(t *testing.T) {
	var b strings.Builder
	for _, r := range []*Reporter{New(&b, true), New(nil, false)} {
		r.Phase("x")
		r.Status("y")
		r.Printf("z")
		r.Done()
	}
	if b.Len() != 0 {
		t.Fatalf("output = %q, want none", b.String())
	}
}

func TestReporter_LiveLineNeverWraps(t *testing.T) {
	var b strings.Builder
	r := &Reporter{w: &b, live: true}
	r.Phase("%s", strings.Repeat("é", 200))
	r.Done()
	line := strings.Split(b.String(), "\r\x1b[K")[1]
	if n := len([]rune(line)); n > 100 || !strings.HasSuffix(line, "…") {
		t.Fatalf("live line of %d runes: %q; want at most 100, cut with …", n, line)
	}
}
