package mutation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The top-level tests of a package, as go test -list . prints them, read
// from its test files without building anything.
func TestTopLevel_NamesWithoutBuilding(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.26\n",
		"m.go":   "package m\n\nfunc Two() int { return 2 }\n",
		"m_test.go": `package m

import (
	"fmt"
	"testing"
)

func TestB(t *testing.T) { t.Run("sub", func(t *testing.T) {}) }
func TestA(t *testing.T) {}
func Test(t *testing.T) {}
func Testable() {}
func TestMain(m *testing.M) { m.Run() }
func BenchmarkC(b *testing.B) {}
func FuzzD(f *testing.F) {}
func ExampleTwo() {
	fmt.Println(Two())
	// Output: 2
}
func Example_noOutput() { fmt.Println(Two()) }
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte("package m_test\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	names, err := TopLevel(dir)
	if err != nil {
		t.Fatalf("TopLevel() error = %v", err)
	}
	if got, want := strings.Join(names, ","), "ExampleTwo,FuzzD,Test,TestA,TestB,TestX"; got != want {
		t.Fatalf("TopLevel() = %s, want %s", got, want)
	}
}
