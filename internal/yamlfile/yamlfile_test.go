package yamlfile

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"Empty", "", "f.yaml:1:1: the file is empty"},
		{"OnlyComments", "# nothing\n", "f.yaml:1:1: the file holds no YAML document"},
		{"Syntax", "a: [1\n", "f.yaml:1:4: not valid YAML: sequence end token ']' not found"},
		{"Tab", "a: 1\n\tb: 2\n", "f.yaml:2:1: a tab where YAML wants spaces: indent with spaces, not tabs"},
		{"TwoDocuments", "a: 1\n---\nb: 2\n", "f.yaml:3:1: a second YAML document: put everything in one"},
		{"TooLarge", "a: " + strings.Repeat("x", MaxSize), fmt.Sprintf("f.yaml:1:1: the file has %d bytes, more than the %d this tool reads: is it the right file?", MaxSize+3, MaxSize)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.src))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Parse(%q) error = %v, want %q", tc.src, err, tc.want)
			}
		})
	}
}

func TestMap(t *testing.T) {
	n, err := Parse("f.yaml", []byte("name: x\nsteps: 3\nitems: [a, b]\nnote: |\n  two\n  lines\n"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := n.Map()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range entries {
		keys = append(keys, e.Key+"@"+e.KeyAt.Pos().String())
	}
	if got, want := len(keys), 4; got != want {
		t.Fatalf("Map() has %d entries (%v), want %d", got, keys, want)
	}
	if got, want := keys[2], "items@f.yaml:3:1"; got != want {
		t.Errorf("entry 2 = %s, want %s", got, want)
	}
	if s, err := entries[0].Value.String(); err != nil || s != "x" {
		t.Errorf("String() = %q, %v; want x", s, err)
	}
	if i, err := entries[1].Value.Int(); err != nil || i != 3 {
		t.Errorf("Int() = %d, %v; want 3", i, err)
	}
	if s, err := entries[1].Value.Text(); err != nil || s != "3" {
		t.Errorf("Text() = %q, %v; want 3", s, err)
	}
	items, err := entries[2].Value.Seq()
	if err != nil || len(items) != 2 {
		t.Fatalf("Seq() = %v, %v; want 2 items", items, err)
	}
	if s, err := entries[3].Value.String(); err != nil || s != "two\nlines\n" {
		t.Errorf("String(literal) = %q, %v", s, err)
	}
	if _, err := entries[0].Value.Int(); err == nil || err.Error() != "f.yaml:1:7: want a whole number, got a string" {
		t.Errorf("Int(string) error = %v", err)
	}
	if _, err := entries[2].Value.String(); err == nil || err.Error() != "f.yaml:3:8: want a string, got a list" {
		t.Errorf("String(list) error = %v", err)
	}
}

func TestMapErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"Duplicate", "a: 1\nb: 2\na: 3\n", `f.yaml:3:1: duplicate key "a" (first at line 1): keep one`},
		{"NotAMapping", "- a\n- b\n", "f.yaml:1:1: want a mapping of keys to values, got a list"},
		{"Scalar", "hello\n", "f.yaml:1:1: want a mapping of keys to values, got a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Parse("f.yaml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := n.Map(); err == nil || err.Error() != tc.want {
				t.Fatalf("Map() error = %v, want %q", err, tc.want)
			}
		})
	}
}

// Entries reports every duplicate key, once each, and keeps the first
// entry of each key.
func TestEntries_EveryDuplicateOnce(t *testing.T) {
	n, err := Parse("f.yaml", []byte("a: 1\nb: 2\na: 3\nb: 4\na: 5\nc: 6\n"))
	if err != nil {
		t.Fatal(err)
	}
	entries, errs := n.Entries()
	var keys []string
	for _, e := range entries {
		v, _ := e.Value.Text()
		keys = append(keys, e.Key+"="+v)
	}
	if got, want := strings.Join(keys, " "), "a=1 b=2 c=6"; got != want {
		t.Errorf("Entries() = %s, want %s", got, want)
	}
	var msgs []string
	for _, err := range errs {
		msgs = append(msgs, err.Error())
	}
	want := []string{
		`f.yaml:3:1: duplicate key "a" (first at line 1): keep one`,
		`f.yaml:4:1: duplicate key "b" (first at line 2): keep one`,
		`f.yaml:5:1: duplicate key "a" (first at line 1): keep one`,
	}
	if got := strings.Join(msgs, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("Entries() errors:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func TestCheckKeys(t *testing.T) {
	n, err := Parse("f.yaml", []byte("id: x\ntraget: Open\n"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := n.Map()
	if err != nil {
		t.Fatal(err)
	}
	err = CheckKeys(entries, "a mutant", "id", "target")
	want := `f.yaml:2:1: unknown field "traget" in a mutant (did you mean "target"?); the fields are: id, target`
	if err == nil || err.Error() != want {
		t.Fatalf("CheckKeys() error = %v, want %q", err, want)
	}
}

// Collections nested past maxDepth are refused before the parser, whose
// time grows faster than the depth, sees them: in brackets, in a flow
// collection that spans lines, or by indentation. Brackets in a scalar,
// a quote or a comment are not collections.
func TestParse_RefusesDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	var indented strings.Builder
	for i := range maxDepth + 2 {
		fmt.Fprintf(&indented, "%sk%d:\n", strings.Repeat("  ", i), i)
	}
	for name, src := range map[string]string{
		"brackets":   "a: " + deep + "\n",
		"lines":      "a:\n" + strings.Repeat("[\n", maxDepth+1),
		"indented":   indented.String(),
		"60 KB deep": "a: " + strings.Repeat("[", 30000) + "\n",
	} {
		if _, err := Parse("f.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("nested more than %d deep", maxDepth)) {
			t.Errorf("%s: Parse() error = %v, want nesting refused", name, err)
		}
	}
	fine := "why: a {b} [c] and \"[[[[\" # [[[[\nfails: [a, [b, [c]]]\ncode: |\n  if x {\n  }\n"
	if _, err := Parse("f.yaml", []byte(fine)); err != nil {
		t.Errorf("Parse(brackets in scalars) error = %v", err)
	}
}
