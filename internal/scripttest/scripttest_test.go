//go:build linux

package scripttest

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const scriptDir = "../../cmd/mutate/testdata/script"

// The scripts' README names every command a script can use, and no other;
// and every group of scripts, with its scripts.
func TestReadme_NamesEveryCommandAndGroup(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(scriptDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	var listed []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z]+)[ `]").FindAllStringSubmatch(readme, -1) {
		listed = append(listed, m[1])
	}
	want := append(slices.Collect(maps.Keys(commands(""))), "mutate", "restrict")
	slices.Sort(want)
	slices.Sort(listed)
	if !slices.Equal(listed, want) {
		t.Errorf("README.md lists the commands %v, want %v", listed, want)
	}
	for group, names := range Groups {
		row := regexp.MustCompile("(?m)^\\| `cmd/mutate/scripts/" + group + "` \\| .*: (.*) \\|$").FindStringSubmatch(readme)
		if row == nil {
			t.Errorf("README.md has no row of group %s", group)
			continue
		}
		got := strings.Split(strings.ReplaceAll(row[1], "`", ""), ", ")
		if !slices.Equal(got, names) {
			t.Errorf("README.md's group %s holds %v, want %v", group, got, names)
		}
	}
}

// Every script runs in one package: its group's, or cmd/mutate's; every
// script a group names is there.
func TestScriptFiles_EachScriptOnce(t *testing.T) {
	all, err := filepath.Glob(filepath.Join(scriptDir, "*.txtar"))
	if err != nil || len(all) == 0 {
		t.Fatalf("no script in %s: %v", scriptDir, err)
	}
	var ran []string
	for _, group := range append(slices.Sorted(maps.Keys(Groups)), "") {
		files, err := scriptFiles(scriptDir, group)
		if err != nil {
			t.Fatalf("scriptFiles(%q): %v", group, err)
		}
		if group != "" && len(files) != len(Groups[group]) {
			t.Errorf("group %s runs %d scripts, names %d: %v", group, len(files), len(Groups[group]), files)
		}
		ran = append(ran, files...)
	}
	slices.Sort(ran)
	if !slices.Equal(ran, all) {
		t.Errorf("the packages run %v, want each of %v once", ran, all)
	}
	if _, err := scriptFiles(scriptDir, "nosuch"); err == nil || err.Error() != `no group of scripts "nosuch"` {
		t.Errorf("scriptFiles of an unknown group: %v", err)
	}
}
