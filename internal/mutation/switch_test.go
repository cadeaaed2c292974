package mutation

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// allocsSource is a package whose hot paths allocate nothing, beside a
// test that counts their allocations, as hash and parser packages do.
var allocsSource = map[string]string{
	"go.mod": "module example.com/allocs\n\ngo 1.22\n",
	"h.go": `package allocs

const prime = 31

// Sum adds the bytes of b, with a running multiplier.
func Sum(b []byte) uint64 {
	var h uint64 = 7
	for i, c := range b {
		if i > 0 && c != 0 {
			h = h*prime + uint64(c)
		} else {
			h -= uint64(c)
		}
	}
	return h
}

// Digest keeps a running sum of what is written to it.
type Digest struct {
	buf [8]byte
	n   int
	s   uint64
}

// Write adds p.
func (d *Digest) Write(p []byte) (int, error) {
	for _, c := range p {
		d.buf[d.n%8] = c
		d.n++
		d.s = d.s*prime + uint64(c)
	}
	return len(p), nil
}

// Append appends the digest to b.
func (d *Digest) Append(b []byte) []byte {
	s := d.s
	return append(b, byte(s>>56), byte(s>>48), byte(s>>40), byte(s>>32), byte(s>>24), byte(s>>16), byte(s>>8), byte(s))
}

// Label names n.
func Label(n int) string {
	if n < 0 {
		return "negative"
	}
	return "natural"
}
`,
	"h_test.go": `package allocs

import (
	"os"
	"testing"
)

func TestAllocs(t *testing.T) {
	var d Digest
	b := make([]byte, 0, 8)
	n := testing.AllocsPerRun(100, func() {
		d.Write([]byte("abc"))
		b = d.Append(b[:0])
		_ = Sum(b)
		_ = Label(len(b))
	})
	if n != 0 {
		t.Errorf("%v allocations per run, want 0 (MUTATE_ACTIVE=%q, MUTATE_COVER=%q)", n, os.Getenv("MUTATE_ACTIVE"), os.Getenv("MUTATE_COVER"))
	}
}
`,
}

// With no mutant active a switched build behaves as the reference does,
// down to its allocations: what a test that counts them sees (a switch's
// helpers inline and let nothing escape). So it does while it records the
// sites that the test reaches, once each has been recorded.
func TestSwitch_AllocatesAsTheReferenceDoes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a package's tests with the go command")
	}
	dir := t.TempDir()
	for name, src := range allocsSource {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms := p.Generate()
	sw, err := p.Switch(ms, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Included) < 10 || len(sw.Excluded) > 0 {
		t.Fatalf("switched %d of %d mutants, left out %v: the test shows too little", len(sw.Included), len(ms), sw.Excluded)
	}
	for path, src := range sw.Files {
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, env := range [][]string{
		{SwitchEnv + "="},
		{SwitchEnv + "=", CoverEnv + "=" + filepath.Join(t.TempDir(), "reached")},
	} {
		cmd := exec.Command("go", "test", "-count=1", "-run=TestAllocs", ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append(env, "GOFLAGS=-mod=mod")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go test with %s: %v\n%s", strings.Join(env, " "), err, out)
		}
	}
}
