package exercise

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A diff as git prints it with --src-prefix=a/ --dst-prefix=b/ and no
// context: a changed file, a new one, a deleted one (whose lines are no
// one's), and a name that git quotes.
func TestParseDiff(t *testing.T) {
	out := strings.Join([]string{
		"diff --git a/price/price.go b/price/price.go",
		"index 1111111..2222222 100644",
		"--- a/price/price.go",
		"+++ b/price/price.go",
		"@@ -3 +3 @@ func Total(xs []int) int {",
		"-	if sum > 100 {",
		"+	if sum >= 100 {",
		"@@ -10,0 +11,2 @@ func Label() string {",
		"+	a := 1",
		"+	b := 2",
		"@@ -20,2 +22,0 @@",
		"-	gone()",
		"-	gone()",
		"diff --git a/new.go b/new.go",
		"new file mode 100644",
		"--- /dev/null",
		"+++ b/new.go",
		"@@ -0,0 +1,3 @@",
		"+package p",
		"diff --git a/old.go b/old.go",
		"deleted file mode 100644",
		"--- a/old.go",
		"+++ /dev/null",
		"@@ -1 +0,0 @@",
		"-package p",
		`diff --git "a/na\303\257ve \"x\".go" "b/na\303\257ve \"x\".go"`,
		`--- "a/na\303\257ve \"x\".go"`,
		`+++ "b/na\303\257ve \"x\".go"`,
		"@@ -7 +7 @@",
		"+x",
	}, "\n")
	root := filepath.FromSlash("/mod")
	got := parseDiff(root, []byte(out))
	var lines []string
	for file, ls := range got {
		var nums []int
		for l := range ls {
			nums = append(nums, l)
		}
		slices.Sort(nums)
		rel, _ := filepath.Rel(root, file)
		lines = append(lines, fmt.Sprintf("%s %v", filepath.ToSlash(rel), nums))
	}
	slices.Sort(lines)
	want := []string{
		"naïve \"x\".go [7]",
		"new.go [1 2 3]",
		"price/price.go [3 11 12]",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("parseDiff() =\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestChangedLines_WhateverTheUsersGitConfigSays(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	root := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	git("config", "user.email", "learner@example.com")
	git("config", "user.name", "Learner")
	// What a user's configuration may set, and the parser must not see.
	git("config", "diff.mnemonicPrefix", "true")
	git("config", "color.diff", "always")
	write("a.go", "one\ntwo\nthree\nfour\nfive\n")
	git("add", "a.go")
	git("commit", "-q", "-m", "first")
	write("a.go", "one\ntwo\nTHREE\nfour\nfive\nsix\n")
	write("new.go", "package new\n")

	changed, err := changedLines(t.Context(), root, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(root, "a.go")
	if got := changed[a]; len(got) != 2 || !got[3] || !got[6] {
		t.Errorf("changed[a.go] = %v, want lines 3 and 6", got)
	}
	if got, ok := changed[filepath.Join(root, "new.go")]; !ok || got != nil {
		t.Errorf("changed[new.go] = %v, %v; want nil (untracked: every line new)", got, ok)
	}
	if len(changed) != 2 {
		t.Errorf("changed = %v, want a.go and new.go", changed)
	}

	_, err = changedLines(t.Context(), root, "no-such-ref")
	if want := "-diff no-such-ref: not a commit of the repository at " + root; err == nil || err.Error() != want {
		t.Errorf("a bad ref: err = %v, want %q", err, want)
	}
}
