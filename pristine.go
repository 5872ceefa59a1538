// Package kubekata holds the kata's pristine files, built into every kata
// binary: the exercises as shipped (stubs, READMEs and test files), the
// harness, and go.mod and go.sum.
//
// kata reset restores a learner's exercise from these copies, and kata
// grade compares a learner's test and harness files against them. They are
// as pristine as the tree the binary was built from: `go run ./cmd/kata`
// rebuilds from the working tree, edits included, so a binary meant to
// hold the originals is built before any exercise is edited
// (`go build -o kata ./cmd/kata`) or from an untouched checkout.
//
// go:embed leaves out files whose names start with "." or "_" (an
// editor's lock and swap files among them), so these copies do too;
// testdata directories are included. solutions/ is not embedded: a
// student copy has none, and the binary must not carry the answers. Nor
// is the kata's own command (cmd/kata and its internal packages): grading
// runs this binary, never the copy's, and reset restores exercises only.
package kubekata

import (
	"embed"
	"io/fs"
)

// Files holds exercises/, harness/, go.mod and go.sum, and the scenarios
// of testdata/scenarios (kata grade runs the capstone's from here), with
// paths relative to the module root ("exercises/01-reconcile/reconcile.go").
//
//go:embed exercises harness go.mod go.sum testdata/scenarios
var Files embed.FS

// Exercise returns the pristine files of exercises/<id>, rooted at that
// directory.
func Exercise(id string) (fs.FS, error) {
	return fs.Sub(Files, "exercises/"+id)
}

// Harness returns the pristine harness/ tree, rooted at harness/.
func Harness() fs.FS {
	sub, err := fs.Sub(Files, "harness")
	if err != nil {
		panic(err) // "harness" is a valid path; Sub cannot fail
	}
	return sub
}

// ReadFile reads one pristine file by its slash-separated path from the
// module root, such as "exercises/01-reconcile/reconcile_test.go".
func ReadFile(path string) ([]byte, error) { return Files.ReadFile(path) }
