#!/bin/sh
# Gradescope's setup.sh for the tests assignment (docs/course.md, "Tests
# as the assignment"). go tool mutate handout -gradescope FILE.zip -tests
# STARTER packs the autograder's zip: this repository, the grader's, with
# the chaffs and wheats; this file and run_autograder at its root; and
# the learners' starter in .autograder/. Gradescope runs it once, as
# root, when it builds the autograder's image, in /autograder/source
# (AUTOGRADER says where else).
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

# The tool, built once; a build that fails says so here.
if ! go tool -n mutate >/dev/null; then
  echo "setup.sh: go tool mutate does not build (go says why, above)" >&2
  exit 1
fi

# A first grading, of the starter: it fills the build cache that every
# submission's builds start from (the package and its dependencies,
# built as a learner's file is), and it shows the grader works here: the
# chaffs and wheats load, and learners' tests can run in sandboxes (of
# namespaces, or of Landlock where the container refuses them). It exits
# 0 or 1 with a grade; 2 when nothing could be graded, and says why.
go tool mutate check -q .autograder/starter_test.go
case $? in
0 | 1) ;;
*) echo "setup.sh: go tool mutate check cannot grade the starter here (it says why, above): learners' files would earn 0" >&2; exit 1 ;;
esac
