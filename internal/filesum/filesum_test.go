package filesum

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHex_IsTheSHA256OfTheContent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Hex(path)
	if want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; err != nil || got != want {
		t.Fatalf("Hex() = %s, %v; want %s", got, err, want)
	}
	if _, err := Hex(filepath.Join(t.TempDir(), "missing")); !os.IsNotExist(err) {
		t.Fatalf("Hex(missing) error = %v, want not exist", err)
	}
}
