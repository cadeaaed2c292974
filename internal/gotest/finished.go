package gotest

import (
	"math/rand/v2"
	"os"
	"slices"

	"github.com/google/pprof/profile"
)

// finishedRate returns the memory profile rate of a run: near the
// runtime's own (512 KiB) and of no other run, so that the heap profile its
// testing package writes at the end names the run.
func finishedRate() int {
	return 512<<10 + 1 + rand.IntN(64<<10)
}

// heapSamples are the sample types of the heap profile the testing package
// writes (-test.memprofile).
var heapSamples = []string{"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"}

// finished reports whether path holds the heap profile that the testing
// package writes once its run is over, sampled at rate: a run's proof that
// the testing package finished it. Code under test can still write such a
// profile itself, at the path its binary's flags name, with the rate they
// name; a file it only creates is no proof.
func finished(path string, rate int) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil || p.Period != int64(rate) {
		return false
	}
	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type)
	}
	return slices.Equal(types, heapSamples)
}
