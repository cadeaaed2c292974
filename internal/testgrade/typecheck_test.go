package testgrade

import (
	"errors"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/gotest"
)

// bombFile type-checks in little time and memory up to a nesting of a
// few, and doubles both with each level: go/types spells out a struct of
// 2^30 fields for it.
const bombFile = `package shelf_test

import "testing"

func dbl[T any](x T) struct{ a, b T } { return struct{ a, b T }{x, x} }

var bomb = dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(dbl(0))))))))))))))))))))))))))))))

func TestNothing(t *testing.T) { _ = bomb }
`

// A type check in a process of its own is held to its bounds: a file whose
// check would take more (a bomb of generics) is too costly, an error of
// the file's, while a file within them gets its problems, as the check in
// this process gives them.
func TestCheckBounded_ATypeCheckBombIsTooCostly(t *testing.T) {
	if testing.Short() {
		t.Skip("the bomb takes seconds to meet its bound: go test ./... (the full lane) runs it")
	}
	exports, err := gotest.ExportFiles(t.Context(), ".", "testing", "fmt")
	if err != nil {
		t.Fatal(err)
	}
	_, err = CheckBounded(t.Context(), CheckRequest{Path: "example.com/shelf_test", Name: "bomb_test.go", Src: []byte(bombFile), Exports: exports})
	if !errors.Is(err, errTooCostly) || !strings.Contains(err.Error(), "to type-check: it ") {
		t.Fatalf("CheckBounded(bomb) error = %v, want too costly to type-check", err)
	}
	t.Logf("the bomb: %v", err)
	unused := CheckRequest{Path: "example.com/shelf_test", Name: "ok_test.go", Src: []byte("package shelf_test\nimport \"fmt\"\nfunc f() { x := fmt.Sprint(1) }\n"), Exports: exports}
	got, err := CheckBounded(t.Context(), unused)
	want, _ := checkHere(unused)
	if err != nil || len(got) != 1 || got.Error() != want.Error() || !strings.Contains(got.Error(), "ok_test.go:3:12: declared and not used: x") {
		t.Errorf("CheckBounded(unused variable) = %v, %v; want %v", got, err, want)
	}
}
