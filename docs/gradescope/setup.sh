#!/bin/sh
# Gradescope's setup.sh for a predictions assignment (docs/course.md,
# "Gradescope"): the autograder's zip is this repository with this file
# and run_autograder at its root. It runs once, when Gradescope builds the
# autograder's image.
AUTOGRADER=${AUTOGRADER:-/autograder}
cd "$AUTOGRADER/source" || exit 1

# Go, as go.mod asks, unless the image has it.
if ! command -v go >/dev/null; then
  curl -fsSL https://go.dev/dl/go1.26.8.linux-amd64.tar.gz | tar -C /usr/local -xz || exit 1
  export PATH=/usr/local/go/bin:$PATH
fi
go mod download || exit 1

# The kill matrix, once: the course's suite against the catalog's mutants.
# run_autograder grades every submission against it, and runs nothing.
# Where the image's builder gives no user namespaces (Docker's default
# seccomp profile refuses them) the test binaries run in Landlock
# sandboxes.
go tool mutate run -q -json > results.json
case $? in
0) ;;
1 | 3) echo "setup.sh: a mutant survives the suite, or times out: the exercise is not ready" >&2; exit 1 ;;
*) exit 1 ;; # mutate said why
esac
