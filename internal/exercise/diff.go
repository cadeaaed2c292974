package exercise

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/text"
)

// inDiff keeps the applied mutants whose rewritten code is on a line that
// changed since the git ref (in the working tree, against ref), or in a
// file git does not track yet.
func (p *Plan) inDiff(ctx context.Context, ref string) error {
	changed, err := changedLines(ctx, p.Root, ref)
	if err != nil {
		return err
	}
	before := p.Count()
	for _, u := range p.Units {
		u.keep(func(i int) bool { return onChangedLine(changed, u.Applied[i]) })
	}
	p.note("-diff %s: %d of %s on changed lines", ref, p.Count(), text.Count(before, "mutant", "mutants"))
	return nil
}

// onChangedLine reports whether a's rewritten code is on a changed line.
func onChangedLine(changed map[string]map[int]bool, a *mutation.Applied) bool {
	lines, ok := changed[a.File]
	if !ok {
		return false
	}
	if lines == nil { // untracked: every line is new
		return true
	}
	for l := a.Start.Line; l <= max(a.End.Line, a.Start.Line); l++ {
		if lines[l] {
			return true
		}
	}
	return false
}

// hunk matches the header of a hunk of a unified diff with no context,
// whose new side starts at line c and spans d lines (1 when d is absent).
var hunk = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// parseDiff returns, by absolute path under root, the lines of the new side
// of out, a unified diff of git's with prefixes a/ and b/ and no context,
// that are added or changed. A name that git quotes (one with a double
// quote, a backslash, a control character, or, by core.quotePath's
// default, a byte that is not ASCII) is unquoted.
func parseDiff(root string, out []byte) map[string]map[int]bool {
	changed := map[string]map[int]bool{}
	var file string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "+++ "); ok {
			file = ""
			if unquoted, err := strconv.Unquote(name); err == nil && strings.HasPrefix(name, `"`) {
				name = unquoted
			}
			if rel, ok := strings.CutPrefix(name, "b/"); ok {
				file = filepath.Join(root, filepath.FromSlash(rel))
				changed[file] = map[int]bool{}
			}
			continue
		}
		m := hunk.FindStringSubmatch(line)
		if m == nil || file == "" {
			continue
		}
		start, _ := strconv.Atoi(m[1])
		n := 1
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
		}
		for l := start; l < start+n; l++ {
			changed[file][l] = true
		}
	}
	return changed
}

// changedLines returns, by absolute path, the lines of each file of the
// module that differ from ref (added or changed; nil for an untracked
// file, every line of which is new).
func changedLines(ctx context.Context, root, ref string) (map[string]map[int]bool, error) {
	git := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("-diff %s: git %s: %s", ref, strings.Join(args, " "), strings.TrimSpace(stderr.String()+" "+err.Error()))
		}
		return out, nil
	}
	if _, err := git("rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return nil, fmt.Errorf("-diff %s: not a commit of the repository at %s", ref, root)
	}
	// The prefixes, colour and driver are set here, whatever the user's
	// configuration says (diff.mnemonicPrefix, diff.noprefix, color.diff,
	// diff.external).
	out, err := git("diff", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/", "--unified=0", "--relative", ref, "--", ".")
	if err != nil {
		return nil, err
	}
	changed := parseDiff(root, out)
	untracked, err := git("ls-files", "--others", "--exclude-standard", "--full-name", "-z")
	if err != nil {
		return nil, err
	}
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	for name := range strings.SplitSeq(strings.TrimRight(string(untracked), "\x00"), "\x00") {
		if name != "" {
			changed[filepath.Join(strings.TrimSpace(string(top)), filepath.FromSlash(name))] = nil
		}
	}
	return changed, nil
}
