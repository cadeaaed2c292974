package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/generated.md lists the generated mutants of lease that survive its
// suite twice: as the output of the command that CI runs and compares
// (a survivor that is not listed there fails CI), and in a table that
// says why no test can kill each. The two lists must name the same
// mutants, so that no survivor goes without a reason.
func TestLeaseSurvivors_EachHasAReason(t *testing.T) {
	const file = "../../docs/generated.md"
	cmds, err := commandsOf(file)
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	found := false
	for _, c := range cmds {
		if !strings.HasPrefix(c.script, "go tool mutate run -generate -pkg ./lease ") || c.sample == nil {
			continue
		}
		found = true
		for _, line := range c.sample {
			if strings.Contains(line, "...") || strings.Contains(line, "…") {
				t.Fatalf("%s: the survivors' sample has a wildcard (%q): it must list every survivor", c.sampleAt, line)
			}
			if id, _, ok := strings.Cut(line, " "); ok {
				shown = append(shown, id)
			}
		}
	}
	if !found {
		t.Fatalf("%s: no sample of go tool mutate run -generate -pkg ./lease", file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// A row of the table: | `id` | equivalent or out of reach | reason |
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\| (equivalent|out of reach) \\| (.+) \\|$")
	var reasoned []string
	for _, m := range row.FindAllStringSubmatch(string(data), -1) {
		if len(strings.Fields(m[3])) < 5 {
			t.Errorf("%s: the reason for %s is %q: say why no test can kill it", file, m[1], m[3])
		}
		reasoned = append(reasoned, m[1])
	}
	slices.Sort(shown)
	slices.Sort(reasoned)
	if !slices.Equal(shown, reasoned) {
		t.Fatalf("%s: the survivors shown are %v, the mutants with a reason %v; want the same", file, shown, reasoned)
	}
}
