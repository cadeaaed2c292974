#!/bin/sh
# Gradescope's setup.sh for the predictions assignment (docs/course.md,
# "Gradescope"). go tool mutate handout -gradescope FILE.zip packs the
# autograder's zip: this repository, with this file and run_autograder at
# its root. Gradescope runs it once, as root, when it builds the
# autograder's image, in /autograder/source (AUTOGRADER says where else).
AUTOGRADER=${AUTOGRADER:-/autograder}
cd "$AUTOGRADER/source" || exit 1

# Go, unless the image has it: go.mod asks for 1.26 or newer.
GO_RELEASE=go1.26.8
if ! command -v go >/dev/null; then
  command -v curl >/dev/null || { apt-get update -q && apt-get install -y -q curl ca-certificates; } || exit 1
  curl -fsSL "https://go.dev/dl/$GO_RELEASE.linux-$(dpkg --print-architecture).tar.gz" | tar -C /usr/local -xz || exit 1
  export PATH=/usr/local/go/bin:$PATH
fi
go mod download || exit 1

# The tool, built once; a build that fails says so here, and is not read
# as the verdict of the run below.
if ! go tool -n mutate >/dev/null; then
  echo "setup.sh: go tool mutate does not build (go says why, above)" >&2
  exit 1
fi

# The kill matrix, once: the course's suite against the catalog's mutants.
# run_autograder grades every submission against it, and runs nothing.
# Where the image's builder gives no user namespaces (Docker's default
# seccomp profile refuses them) the test binaries run in Landlock
# sandboxes.
go tool mutate run -q -json > results.json
case $? in
0) ;;
1 | 3) echo "setup.sh: a mutant survives the suite, or times out: the exercise is not ready (go tool mutate run shows which)" >&2; exit 1 ;;
*) echo "setup.sh: go tool mutate run could not run the mutants (it says why, above)" >&2; exit 1 ;;
esac
