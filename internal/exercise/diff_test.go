package exercise

import (
	"fmt"
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
