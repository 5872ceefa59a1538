package grade

import (
	"slices"
	"testing"
)

func TestDropDependents(t *testing.T) {
	files := map[string][]byte{
		// uses the runner of a dropped file of its test package: dropped
		"harness/xtest/core_test.go": []byte("package xtest_test\n\nvar _ = register\n"),
		// uses what core_test.go declared: dropped in a second round
		"harness/xtest/more_test.go": []byte("package xtest_test\n\nfunc init() { _ = coreMutants }\n"),
		// same directory, other test package: kept
		"harness/xtest/inner_test.go": []byte("package xtest\n\nvar register = 1\n"),
		// a field named like the runner is not a use: kept
		"harness/xtest/field_test.go": []byte("package xtest_test\n\nfunc f(x struct{ register int }) int { return x.register }\n"),
		// another directory: kept
		"harness/ytest/core_test.go": []byte("package ytest_test\n\nvar _ = register\n"),
		// not a test file: kept, whatever it says
		"harness/xtest/x.go": []byte("package xtest\n"),
	}
	files["harness/xtest/core_test.go"] = append(files["harness/xtest/core_test.go"], []byte("var coreMutants = 2\n")...)
	dropped := map[string][]byte{
		"harness/xtest/mutants_test.go": []byte("package xtest_test\n\nimport _ \"m/solutions/x\"\n\nfunc register() {}\n"),
	}
	var why []string
	dropDependents(files, dropped, func(rel, reason string) { why = append(why, rel+": "+reason) })
	slices.Sort(why)
	want := []string{
		"harness/xtest/core_test.go: uses register from a dropped test file",
		"harness/xtest/more_test.go: uses coreMutants from a dropped test file",
	}
	if !slices.Equal(why, want) {
		t.Errorf("dropDependents dropped:\n%q\nwant\n%q", why, want)
	}
	for _, kept := range []string{"harness/xtest/inner_test.go", "harness/xtest/field_test.go", "harness/ytest/core_test.go", "harness/xtest/x.go"} {
		if _, ok := files[kept]; !ok {
			t.Errorf("dropDependents dropped %s, want it kept", kept)
		}
	}
	if len(files) != 4 {
		t.Errorf("files left = %d, want 4", len(files))
	}
}
