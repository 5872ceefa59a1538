package grade

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A grader's key changes with anything it is built from, and only with
// that: not with the copy's path.
func TestGraderKeys(t *testing.T) {
	gen := map[string][]byte{
		graderDir + "/01-alpha/grade_test.go": []byte("package katagrade // a\n"),
		graderDir + "/02-beta/grade_test.go":  []byte("package katagrade // b\n"),
		implDir + "/01-alpha/main.go":         []byte("package main // the learner's program is not the grader's\n"),
	}
	ids := []string{"01-alpha", "02-beta"}
	key := func(gen map[string][]byte, env []string) map[string]string {
		t.Helper()
		k, err := graderKeys(pristineFS(), gen, env, ids)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	base := key(gen, goEnv("/copy/one"))
	if base["01-alpha"] == base["02-beta"] {
		t.Errorf("two graders share the key %s", base["01-alpha"])
	}
	if got := key(gen, goEnv("/copy/two")); got["01-alpha"] != base["01-alpha"] {
		t.Errorf("key of 01-alpha in another copy = %s, want %s (the path is trimmed)", got["01-alpha"], base["01-alpha"])
	}
	edited := map[string][]byte{}
	for k, v := range gen {
		edited[k] = v
	}
	edited[graderDir+"/01-alpha/grade_test.go"] = []byte("package katagrade // changed\n")
	edited[implDir+"/01-alpha/main.go"] = []byte("package main // changed\n")
	got := key(edited, goEnv("/copy/one"))
	if got["01-alpha"] == base["01-alpha"] || got["02-beta"] != base["02-beta"] {
		t.Errorf("after editing 01's grader: keys %v, want only 01-alpha's changed from %v", got, base)
	}
	if got := key(gen, append(goEnv("/copy/one"), "GOPROXY=elsewhere")); got["01-alpha"] == base["01-alpha"] {
		t.Errorf("the go environment changed, the key did not")
	}
}

// A kept grader comes back byte for byte; the cache keeps only the most
// recently used.
func TestGraderCacheRoundTrip(t *testing.T) {
	cache := t.TempDir()
	bin := t.TempDir()
	if fromGraderCache(cache, "k0", bin, "01-alpha") {
		t.Fatalf("fromGraderCache on an empty cache = true, want false")
	}
	for i := 0; i < graderCacheKeep+3; i++ {
		id := fmt.Sprintf("x%02d", i)
		if err := os.WriteFile(filepath.Join(bin, id+".test"), []byte("grader "+id), 0o755); err != nil {
			t.Fatal(err)
		}
		toGraderCache(cache, "k"+id, bin, id)
		// Older entries look older.
		old := time.Now().Add(time.Duration(i-100) * time.Minute)
		os.Chtimes(filepath.Join(cache, "k"+id), old, old)
	}
	ents, _ := os.ReadDir(cache)
	if len(ents) != graderCacheKeep {
		t.Errorf("cache holds %d entries, want %d", len(ents), graderCacheKeep)
	}
	out := t.TempDir()
	last := fmt.Sprintf("x%02d", graderCacheKeep+2)
	if !fromGraderCache(cache, "k"+last, out, "01-alpha") {
		t.Fatalf("fromGraderCache(k%s) = false, want the grader just kept", last)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "01-alpha.test")); string(b) != "grader "+last {
		t.Errorf("cached grader = %q, want %q", b, "grader "+last)
	}
	if fromGraderCache(cache, "kx00", t.TempDir(), "01-alpha") {
		t.Errorf("the least recently used grader is still kept")
	}
}

func TestIsolateContainerRefused(t *testing.T) {
	c := testCourse(t)
	_, err := Run(context.Background(), Options{Root: t.TempDir(), Pristine: pristineFS(), Course: c, Isolate: IsolateContainer})
	if !errors.Is(err, ErrNoContainer) {
		t.Errorf("Run(--isolate container) = %v, want ErrNoContainer", err)
	}
	if _, err := Run(context.Background(), Options{Root: t.TempDir(), Pristine: pristineFS(), Course: c, Isolate: "vm"}); err == nil {
		t.Errorf("Run(--isolate vm) = nil, want an error naming the levels")
	}
}
