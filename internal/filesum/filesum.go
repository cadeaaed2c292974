// Package filesum hashes files: the one content hash that the cache keys,
// the tree's fingerprint and the test binaries' checks are made of.
package filesum

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
)

// Of returns the SHA-256 of the file at path.
func Of(path string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, err := os.Open(path)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// Hex returns the SHA-256 of the file at path, in hex.
func Hex(path string) (string, error) {
	sum, err := Of(path)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(sum[:]), nil
}
