package handout

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/fencelab/fencelab/internal/exercise"
)

// docsDir holds the module's documents: the instructor's, but for those
// a learner reads (see keepDocs).
const docsDir = "docs"

// keepDocs leaves out the module's documents but those a learner reads:
// the exercise's story, and what the hand-out's documents link to there,
// and what those link to.
func (h *handout) keepDocs() error {
	root := filepath.Join(h.dir, docsDir)
	if _, err := os.Stat(root); err != nil {
		return nil
	}
	keep := map[string]bool{}
	var todo []string
	if h.set.Story != "" {
		todo = append(todo, path.Clean(h.set.Story))
	}
	// The hand-out's documents outside docs, then each one kept.
	err := filepath.WalkDir(h.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := h.relOf(p)
		switch {
		case d.IsDir() && (rel == docsDir || d.Name() == ".git"):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(rel, ".md"):
			todo = append(todo, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for len(todo) > 0 {
		rel := todo[0]
		todo = todo[1:]
		if keep[rel] {
			continue
		}
		keep[rel] = true
		data, err := os.ReadFile(filepath.Join(h.dir, filepath.FromSlash(rel)))
		if err != nil || !strings.HasSuffix(rel, ".md") {
			continue // not a document, or a link to nothing: brokenLinks says so
		}
		for _, l := range relativeLinks(data) {
			if target := path.Join(path.Dir(rel), l.target); target == docsDir || strings.HasPrefix(target, docsDir+"/") {
				todo = append(todo, target)
			}
		}
	}
	var gone []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if rel := h.relOf(p); !keep[rel] && !keptDir(keep, rel) {
			gone = append(gone, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, rel := range gone {
		if err := h.remove(rel); err != nil {
			return err
		}
	}
	return removeEmptyDirs(root)
}

// relOf returns the path of p, in the copy, relative to its root, with
// forward slashes.
func (h *handout) relOf(p string) string {
	rel, _ := filepath.Rel(h.dir, p)
	return filepath.ToSlash(rel)
}

// keptDir reports whether rel is in a directory that keep holds: a link
// to a directory keeps what it holds.
func keptDir(keep map[string]bool, rel string) bool {
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if keep[d] {
			return true
		}
	}
	return false
}

// removeEmptyDirs removes the directories under dir, and dir, that hold
// no file.
func removeEmptyDirs(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := removeEmptyDirs(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	if entries, err = os.ReadDir(dir); err == nil && len(entries) == 0 {
		return os.Remove(dir)
	}
	return err
}

// link is a relative link of a Markdown document: its target, without an
// anchor, and its line.
type link struct {
	target string
	line   int
}

// linkPattern matches the target of an inline Markdown link or image.
var linkPattern = regexp.MustCompile(`\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)`)

// relativeLinks returns the links of a Markdown document to files of its
// repository: not to a web address, nor to an anchor of its own.
func relativeLinks(md []byte) []link {
	var links []link
	for i, line := range strings.Split(string(md), "\n") {
		for _, m := range linkPattern.FindAllStringSubmatch(line, -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || path.IsAbs(target) {
				continue
			}
			links = append(links, link{target: target, line: i + 1})
		}
	}
	return links
}

// brokenLinks returns, as "file:line: target", every relative link of the
// Markdown documents under dir whose target is not there.
func brokenLinks(dir string) []string {
	var broken []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		for _, l := range relativeLinks(data) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), filepath.FromSlash(l.target))); err != nil {
				broken = append(broken, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), l.line, l.target))
			}
		}
		return nil
	})
	return broken
}

// predictionsReadme returns the README of a predictions assignment's
// hand-out: where to start, and the commands of the walkthrough; sheet is
// the worksheet's path, "" for none.
func predictionsReadme(set *exercise.Set, sheet string) string {
	pkg := strings.TrimPrefix(set.Package, "./")
	var b strings.Builder
	b.WriteString("# The predictions assignment\n\n")
	if set.Story != "" {
		fmt.Fprintf(&b, "Start with [%[1]s](%[1]s): the exercise, its steps and its closing\nquestions. ", set.Story)
	}
	if sheet != "" {
		fmt.Fprintf(&b, "The worksheet, [%[1]s](%[1]s), is the code review of each step.\n", sheet)
	}
	fmt.Fprintf(&b, `Before running anything, predict which tests of package %[1]s fail under
each mutant; then check yourself ([predictions/README.md](predictions/README.md)
says how).

`+"```sh"+`
go tool mutate list                                      # the mutants, one per step
go tool mutate show ID                                   # one step's review: contract, fragment, diff
go tool mutate template -learner NAME -o predictions/NAME.yaml
go tool mutate check predictions/NAME.yaml               # run the mutants, compare
go test ./%[1]s                                             # the suite
`+"```"+`

Go 1.26 or newer is all it needs. Every push is graded from your one file
under predictions/.
`, pkg)
	return b.String()
}
