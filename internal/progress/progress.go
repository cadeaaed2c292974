// Package progress tells the person waiting on a long command what it is
// doing, on stderr.
//
// A command goes through phases ("building the test binaries", "baseline
// ./stock", "mutants"). When stderr is a terminal, the current phase is one
// live line, redrawn as its status changes and once a second with the time
// it has taken so far; lines printed with Printf stay above it. Anywhere
// else (a CI log, a file), each phase is one line when it starts, and
// status updates are not printed. A nil *Reporter prints nothing.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// prefix starts every line.
const prefix = "mutate: "

// width bounds the live line, so that it never wraps on an ordinary
// terminal (a wrapped line cannot be redrawn in place).
const width = 100

// Reporter prints progress to one writer.
type Reporter struct {
	w     io.Writer
	live  bool
	every time.Duration // how often the live line is redrawn; 0 for never

	mu     sync.Mutex
	phase  string    // the current phase, "" for none
	status string    // the detail of the current phase
	since  time.Time // when the phase started
	shown  bool      // a live line is on the screen
	stop   chan struct{}
}

// New returns a Reporter that writes to w: live lines if w is a terminal.
// It returns nil, which prints nothing, if w is nil or quiet is set.
func New(w io.Writer, quiet bool) *Reporter {
	if w == nil || quiet {
		return nil
	}
	return &Reporter{w: w, live: IsTerminal(w), every: time.Second}
}

// IsTerminal reports whether w is a terminal that takes colour and
// cursor movement.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Phase starts a phase: a line of its own, or the live line.
func (r *Reporter) Phase(format string, args ...any) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.phase, r.status, r.since = fmt.Sprintf(format, args...), "", time.Now()
	if !r.live {
		fmt.Fprintf(r.w, "%s%s\n", prefix, r.phase)
		return
	}
	if r.stop == nil && r.every > 0 {
		r.stop = make(chan struct{})
		go r.tick(r.stop)
	}
	r.draw()
}

// Status sets the detail of the current phase, shown on the live line
// only.
func (r *Reporter) Status(format string, args ...any) {
	if r == nil || !r.live {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = fmt.Sprintf(format, args...)
	r.draw()
}

// Printf prints a line that stays: above the live line on a terminal.
func (r *Reporter) Printf(format string, args ...any) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clear()
	fmt.Fprintf(r.w, "%s%s\n", prefix, fmt.Sprintf(format, args...))
	if r.live && r.phase != "" {
		r.draw()
	}
}

// Done ends the current phase and removes the live line.
func (r *Reporter) Done() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clear()
	r.phase, r.status = "", ""
	if r.stop != nil {
		close(r.stop)
		r.stop = nil
	}
}

func (r *Reporter) tick(stop chan struct{}) {
	t := time.NewTicker(r.every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			r.mu.Lock()
			if r.phase != "" {
				r.draw()
			}
			r.mu.Unlock()
		}
	}
}

// draw shows the live line; r.mu is held.
func (r *Reporter) draw() {
	line := prefix + r.phase
	if r.status != "" {
		line += ": " + r.status
	}
	line += fmt.Sprintf(" (%ds)", int(time.Since(r.since).Seconds()))
	if runes := []rune(line); len(runes) > width {
		line = string(runes[:width-1]) + "…"
	}
	fmt.Fprintf(r.w, "\r\x1b[K%s", line)
	r.shown = true
}

// clear removes the live line; r.mu is held.
func (r *Reporter) clear() {
	if r.shown {
		fmt.Fprint(r.w, "\r\x1b[K")
		r.shown = false
	}
}

// GoLines returns a function that shows, of the lines the go command
// writes to stderr, those in which it downloads a module: on a cold module
// cache they are the first minutes of a run.
func (r *Reporter) GoLines() func(string) {
	var once sync.Once
	return func(line string) {
		if mod, ok := strings.CutPrefix(line, "go: downloading "); ok {
			once.Do(func() { r.Printf("downloading modules") })
			r.Status("downloading %s", mod)
		}
	}
}
