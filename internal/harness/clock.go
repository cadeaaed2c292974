package harness

import (
	"sync"
	"time"

	"github.com/fencelab/fencelab/internal/report"
)

// phaseClock adds up the wall clock of a run's phases, by name, in the
// order they first start. One phase runs at a time: a phase ends when the
// next starts.
type phaseClock struct {
	mu    sync.Mutex
	start time.Time
	cpu   time.Duration // cpuTime at the clock's start; -1 if not measured
	cur   string
	since time.Time
	order []string
	took  map[string]time.Duration
}

// newPhaseClock returns a clock whose run started at start (now, if zero),
// in the phase "load" until the next.
func newPhaseClock(start time.Time) *phaseClock {
	now := time.Now()
	if start.IsZero() || start.After(now) {
		start = now
	}
	c := &phaseClock{start: start, took: map[string]time.Duration{}, cpu: -1}
	if cpu, ok := cpuTime(); ok {
		c.cpu = cpu
	}
	c.enterAt("load", start)
	return c
}

// enter ends the current phase and starts the phase name.
func (c *phaseClock) enter(name string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.enterAt(name, time.Now())
}

func (c *phaseClock) enterAt(name string, now time.Time) {
	if c.cur != "" {
		c.took[c.cur] += now.Sub(c.since)
	}
	if _, ok := c.took[name]; !ok {
		c.order = append(c.order, name)
		c.took[name] = 0
	}
	c.cur, c.since = name, now
}

// stop ends the current phase and returns the whole run's wall clock and
// each phase's.
func (c *phaseClock) stop() (seconds float64, phases []report.Phase) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	c.took[c.cur] += now.Sub(c.since)
	c.since = now
	phases = make([]report.Phase, len(c.order))
	for i, name := range c.order {
		phases[i] = report.Phase{Name: name, Seconds: c.took[name].Seconds()}
	}
	return now.Sub(c.start).Seconds(), phases
}

// cpuSince returns the CPU time of the run since the clock started (see
// cpuTime), which the load phase, before it, does not count; ok is false
// where it is not measured.
func (c *phaseClock) cpuSince() (time.Duration, bool) {
	now, ok := cpuTime()
	if !ok || c.cpu < 0 {
		return 0, false
	}
	return now - c.cpu, true
}

// phase starts a phase of the run: the progress shows it (format, args),
// and the report's phases time it as name.
func (cfg config) phase(name, format string, args ...any) {
	cfg.clock.enter(name)
	cfg.Progress.Phase(format, args...)
}
