package test2json

// GoVersion is the Go release whose cmd/internal/test2json this package
// is: it converts what the testing package of that release prints. A test
// binary of another release may print what it does not know.
const GoVersion = "go1.26"
