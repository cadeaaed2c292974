package lease_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// childEnv selects a child-process role when the test binary re-executes
// itself; see process_test.go.
const childEnv = "FENCELAB_LEASE_CHILD"

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(runChild(role))
	}
	flag.Parse()
	if err := setRapidDefaults(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// setRapidDefaults makes the model test deterministic and keeps it from
// writing into the source tree, unless the flags were given explicitly:
// a fixed seed gives the same kill matrix on every run (pass -rapid.seed=0
// to explore new sequences), and no fail files are written under testdata.
// It runs 30 sequences instead of rapid's 100: at this seed, every mutant
// of the catalog, of the experiments and of -generate that the model test
// finds is found within its first 25 (pass -rapid.checks=100 for more),
// and the model test is most of the suite's time, which every mutant's run
// pays.
func setRapidDefaults() error {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	defaults := []struct{ name, value string }{
		{"rapid.seed", "1"},
		{"rapid.checks", "30"},
		{"rapid.nofailfile", "true"},
		{"rapid.shrinktime", "250ms"},
	}
	for _, d := range defaults {
		if set[d.name] || os.Getenv(envName(d.name)) != "" {
			continue
		}
		if err := flag.Set(d.name, d.value); err != nil {
			return fmt.Errorf("set -%s: %w", d.name, err)
		}
	}
	return nil
}

// envName maps "rapid.seed" to "RAPID_SEED", the variable rapid reads.
func envName(flagName string) string {
	return strings.ToUpper(strings.ReplaceAll(flagName, ".", "_"))
}
