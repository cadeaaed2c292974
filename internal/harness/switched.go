package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/text"
)

// switchedBuild is the test binary of the switched package, and its run
// with no mutant active.
type switchedBuild struct {
	sw       *mutation.Switched // by the mutants' ids
	bin      string             // "" when no mutant could be switched
	inactive *gotest.Result
	err      error // a harness error
	// names are the names the binary knows each mutant by, by id, and
	// none the name that activates none of them: in a blind run opaque
	// values of this run (see switchNames); otherwise the ids, and "".
	names map[string]string
	none  string
}

func (sb *switchedBuild) switched(id string) bool {
	return sb != nil && sb.bin != "" && slices.Contains(sb.sw.Included, id)
}

// env returns the environment that makes the binary run as the mutant
// id, or as the reference when id is "".
func (sb *switchedBuild) env(id string) []string {
	name := sb.none
	if id != "" {
		name = sb.names[id]
	}
	return []string{mutation.SwitchEnv + "=" + name}
}

// ids returns the ids of the mutants the binary knows by names, in order;
// a name it does not know is left out.
func (sb *switchedBuild) ids(names []string) []string {
	idOf := make(map[string]string, len(sb.names))
	for id, name := range sb.names {
		idOf[name] = id
	}
	var ids []string
	for _, name := range names {
		if id, ok := idOf[name]; ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// switchNames returns the mutants of a switched build as the build names
// them, and those names by id (see switchedBuild.names). A blind run's
// binary holds a learner's test: nothing in it or in its environment may
// name a mutant, so each gets a random name of this run, and the
// reference one more that names none; all have the same length, so that
// no run's environment is longer than another's.
func switchNames(cfg config) (ms []*mutation.Mutant, names map[string]string, none string, err error) {
	names = map[string]string{}
	if !cfg.Blind {
		for _, m := range cfg.Mutants {
			names[m.ID] = m.ID
		}
		return cfg.Mutants, names, "", nil
	}
	used := map[string]bool{}
	opaque := func() (string, error) {
		for {
			var b [16]byte
			if _, err := rand.Read(b[:]); err != nil {
				return "", err
			}
			if name := "m" + hex.EncodeToString(b[:]); !used[name] {
				used[name] = true
				return name, nil
			}
		}
	}
	for _, m := range cfg.Mutants {
		c := *m
		if c.ID, err = opaque(); err != nil {
			return nil, nil, "", err
		}
		names[m.ID] = c.ID
		ms = append(ms, &c)
	}
	none, err = opaque()
	return ms, names, none, err
}

// byID returns sw, made with the names of names (by id), with the ids
// instead in what the run reads of it.
func byID(sw *mutation.Switched, names map[string]string) *mutation.Switched {
	ids := map[string]string{}
	for id, name := range names {
		ids[name] = id
	}
	rename := func(list []string) []string {
		out := make([]string, len(list))
		for i, name := range list {
			out[i] = ids[name]
		}
		return out
	}
	c := *sw
	c.Included, c.Reached, c.Constants = rename(sw.Included), rename(sw.Reached), rename(sw.Constants)
	c.Excluded = map[string]string{}
	for name, why := range sw.Excluded {
		c.Excluded[ids[name]] = why
	}
	return &c
}

// buildSwitched builds one test binary with every mutant switched in but
// those of invalid, which are not valid Go; the mutants it cannot switch
// are marked for coverage (see mutation.Package.Switch). When the build
// fails, the mutants whose switches or marks the compiler's messages point
// at are left out, or unmarked, and the build is tried again; only when
// no message points at a switch does every mutant get a build of its own.
func buildSwitched(ctx context.Context, cfg config, p *prepared, invalid map[string]string) *switchedBuild {
	ms, names, none, err := switchNames(cfg)
	if err != nil {
		return &switchedBuild{err: fmt.Errorf("switched build: %w", err)}
	}
	// Everything below is in the build's names.
	exclude, noMark := map[string]string{}, map[string]bool{}
	for id := range invalid {
		exclude[names[id]] = "not valid Go on its own"
		noMark[names[id]] = true
	}
	for attempt := 0; ; attempt++ {
		sw, err := p.Package.Switch(ms, exclude, noMark)
		if err != nil {
			return &switchedBuild{err: fmt.Errorf("switched build: %w", err)}
		}
		if len(sw.Marked()) == 0 {
			return &switchedBuild{sw: byID(sw, names), names: names, none: none}
		}
		bin, err := p.build(ctx, cfg, filepath.Join(p.tmp, "switch", strconv.Itoa(attempt)), sw.Files, true)
		if err == nil {
			return &switchedBuild{sw: byID(sw, names), bin: bin, names: names, none: none}
		}
		var be *gotest.BuildError
		if !errors.As(err, &be) {
			return &switchedBuild{err: fmt.Errorf("switched build: %w", err)}
		}
		blamed := map[string]bool{}
		for _, m := range compileError.FindAllStringSubmatch(be.Output, -1) {
			line, _ := strconv.Atoi(m[2])
			for _, id := range sw.Blame(m[1], line) {
				blamed[id] = true
			}
		}
		if len(blamed) == 0 && len(sw.Constants) > 0 {
			// A constant made a variable is used where Go needs a
			// constant: those mutants get builds of their own, where it
			// stays one.
			for _, id := range sw.Constants {
				exclude[id] = "its constant, which the switched build makes a variable, is used where Go needs a constant"
			}
			continue
		}
		if len(blamed) == 0 {
			// Nothing to blame but the switching itself.
			for _, id := range sw.Marked() {
				if _, ok := exclude[id]; !ok {
					exclude[id] = "the switched build does not compile: " + text.FirstLine(be.Output)
				}
				noMark[id] = true
			}
			continue
		}
		for id := range blamed {
			if slices.Contains(sw.Included, id) {
				exclude[id] = "its switched form does not compile"
			} else {
				noMark[id] = true
			}
		}
	}
}

// runInactive runs the switched binary with no mutant active.
func runInactive(ctx context.Context, cfg config, p *prepared, sb *switchedBuild, limit time.Duration) (*gotest.Result, error) {
	res, err := runReference(ctx, cfg, p, "the switched build's run with no mutant active", sb.bin, sb.env(""), nil, limits{wall: limit}, nil)
	if err != nil {
		return nil, fmt.Errorf("switched build, no mutant active: %w", err)
	}
	return res, nil
}

// checkInactive compares the run of the switched binary with no mutant
// active with the plain baseline: it must pass exactly like it, or no result
// of the switched build can be trusted.
func checkInactive(cfg config, b *Baseline) error {
	res := b.switched.inactive
	if res == nil {
		return nil
	}
	if res.TimedOut {
		return fmt.Errorf("the switched build with no mutant active timed out, where the reference passed")
	}
	want, got := b.Result.Names(), res.Names()
	if !passed(res) || !slices.Equal(got, want) {
		var why []string
		for _, name := range res.Failed() {
			why = append(why, name+" failed")
		}
		for _, name := range want {
			if !slices.Contains(got, name) {
				why = append(why, name+" did not run")
			}
		}
		return fmt.Errorf("the switched build with no mutant active does not pass like the reference (%s)", strings.Join(why, ", "))
	}
	cfg.Progress.Printf("switched build, no mutant active: %s passed (%.1fs)", text.Count(len(res.Tests), "test", "tests"), res.Wall)
	return nil
}
