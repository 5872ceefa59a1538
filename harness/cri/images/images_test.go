package images

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/kubekata/kubekata/harness/cri"
)

func open(t *testing.T, dir string) *Registry {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(%q) = %v", dir, err)
	}
	return r
}

func TestOpenCreatesDefaults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "cluster")
	r := open(t, dir)
	st, err := os.Stat(filepath.Join(dir, "images.json"))
	if err != nil {
		t.Fatalf("Open(%q) made no images.json: %v", dir, err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("images.json mode = %v, want -rw-r--r--", st.Mode().Perm())
	}
	got, err := r.List()
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	var names []string
	for _, e := range got {
		names = append(names, e.Image)
	}
	want := []string{
		"kata/counter:1.0", "kata/counter:latest", "kata/crash:1.0", "kata/crash:latest", "kata/curl:1.0", "kata/curl:latest",
		"kata/hog:1.0", "kata/hog:latest", "kata/http-echo:1.0", "kata/http-echo:2.0", "kata/http-echo:latest",
		"kata/sleep:1.0", "kata/sleep:latest",
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("List() of a new registry = %q, want %q", names, want)
	}
	v1, _ := r.Lookup("kata/http-echo:1.0")
	v2, _ := r.Lookup("kata/http-echo:2.0")
	latest, _ := r.Lookup("kata/http-echo")
	if !reflect.DeepEqual(v1.Args, []string{"-text", "hello v1"}) || !reflect.DeepEqual(v2.Args, []string{"-text", "hello v2"}) {
		t.Errorf("http-echo 1.0, 2.0 args = %q, %q; want -text \"hello v1\", -text \"hello v2\"", v1.Args, v2.Args)
	}
	if latest.ID != v2.ID || latest.Image != "kata/http-echo:latest" || v1.ID == v2.ID {
		t.Errorf("http-echo IDs: 1.0 %s, 2.0 %s, latest %s (%s); want latest = 2.0 != 1.0", v1.ID, v2.ID, latest.ID, latest.Image)
	}
	// Opening again keeps what is there.
	if _, err := r.Push("kata/x:1", "sleep", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := open(t, dir).Lookup("kata/x:1"); err != nil {
		t.Errorf("Lookup(kata/x:1) after a second Open = %v, want the pushed image", err)
	}
}

func TestImageID(t *testing.T) {
	sum := sha256.Sum256([]byte("http-echo\x00-text\x00hello v2"))
	want := "sha256:" + hex.EncodeToString(sum[:])
	if got := ImageID("http-echo", []string{"-text", "hello v2"}); got != want {
		t.Errorf(`ImageID("http-echo", -text "hello v2") = %s, want %s`, got, want)
	}
	sum = sha256.Sum256([]byte("sleep"))
	if got, want := ImageID("sleep", nil), "sha256:"+hex.EncodeToString(sum[:]); got != want {
		t.Errorf(`ImageID("sleep", nil) = %s, want %s`, got, want)
	}
}

func TestLookup(t *testing.T) {
	dir := t.TempDir()
	r := open(t, dir)
	sleep, err := r.Lookup("kata/sleep")
	if err != nil || sleep.Image != "kata/sleep:latest" || sleep.Program != "sleep" {
		t.Errorf("Lookup(kata/sleep) = %+v, %v; want kata/sleep:latest running sleep", sleep, err)
	}
	byDigest, err := r.Lookup("kata/sleep@" + sleep.ID)
	if err != nil || byDigest.ID != sleep.ID {
		t.Errorf("Lookup(kata/sleep@%s) = %+v, %v; want the sleep image", sleep.ID, byDigest, err)
	}
	for _, bad := range []string{"", "Kata/Sleep", "kata/sleep:", "a b"} {
		if _, err := r.Lookup(bad); err == nil || cri.IsNotFound(err) || !strings.HasPrefix(err.Error(), "images: invalid image name") {
			t.Errorf("Lookup(%q) = %v, want an invalid image name error, not NotFound", bad, err)
		}
	}
	path := filepath.Join(dir, "images.json")
	for image, want := range map[string]string{
		"kata/http-echo:3.0":  "images: kata/http-echo:3.0 is not in the registry (" + path + "); kata image push kata/http-echo:3.0 http-echo -text ...",
		"kata/web":            "images: kata/web:latest is not in the registry (" + path + "); kata image push kata/web:latest PROGRAM [ARGS...]",
		"kata/sleep@sha256:0": "images: kata/sleep@sha256:0 is not in the registry (" + path + "); kata image ls lists what it has",
	} {
		_, err := r.Lookup(image)
		if !cri.IsNotFound(err) || err.Error() != want {
			t.Errorf("Lookup(%q) = %v, want NotFound %q", image, err, want)
		}
	}
}

func TestPush(t *testing.T) {
	dir := t.TempDir()
	r, other := open(t, dir), open(t, dir)
	e, err := r.Push("kata/http-echo:3.0", "http-echo", []string{"-text", "hello v3"})
	want := Entry{Image: "kata/http-echo:3.0", Program: "http-echo", Args: []string{"-text", "hello v3"}, ID: ImageID("http-echo", []string{"-text", "hello v3"})}
	if err != nil || !reflect.DeepEqual(e, want) {
		t.Fatalf("Push(kata/http-echo:3.0) = %+v, %v; want %+v", e, err, want)
	}
	// Another Registry on the same directory (another process) sees it.
	if got, err := other.Lookup("kata/http-echo:3.0"); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Lookup(kata/http-echo:3.0) in a second Registry = %+v, %v; want %+v", got, err, want)
	}
	// No tag is latest; a push replaces the tag.
	if _, err := r.Push("kata/http-echo", "http-echo", []string{"-text", "hello v3"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := other.Lookup("kata/http-echo:latest"); got.ID != want.ID {
		t.Errorf("Lookup(kata/http-echo:latest) after Push(kata/http-echo) = %s, want %s", got.ID, want.ID)
	}
	es, _ := other.List()
	n := 0
	for _, e := range es {
		if e.Image == "kata/http-echo:latest" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("List() has kata/http-echo:latest %d times after replacing it, want 1", n)
	}
	// Empty args are no args.
	if e, _ := r.Push("kata/idle:1", "sleep", []string{}); e.Args != nil || e.ID != ImageID("sleep", nil) {
		t.Errorf("Push(kata/idle:1, sleep, []) = %+v, want no args", e)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the registry directory holds %d files after pushes, want only images.json", len(entries))
	}

	before, _ := os.ReadFile(filepath.Join(dir, "images.json"))
	for _, c := range []struct {
		image, program string
		args           []string
		want           string
	}{
		{"kata/x:1", "nginx", nil, `images: unknown program "nginx"; the programs are: counter, crash, curl, hog, http-echo, sleep`},
		{"kata/x:1", "http-echo", []string{"-txt", "x"}, "images: http-echo: flag provided but not defined: -txt"},
		{"kata/x:1", "crash", []string{"-code", "300"}, "images: crash: -code 300: want 0 to 255"},
		{"Kata/X:1", "sleep", nil, `images: invalid image name "Kata/X:1"`},
		{"kata/x@sha256:00", "sleep", nil, "images: push kata/x@sha256:00: an image is pushed by NAME:TAG, not by digest"},
	} {
		if _, err := r.Push(c.image, c.program, c.args); err == nil || err.Error() != c.want {
			t.Errorf("Push(%q, %q, %q) = %v, want %q", c.image, c.program, c.args, err, c.want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "images.json")); string(after) != string(before) {
		t.Errorf("a refused Push changed images.json")
	}
}

func TestCorruptFile(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON":        `{"images": [`,
		"no list":         `{}`,
		"unknown field":   `{"images": [], "extra": 1}`,
		"trailing data":   `{"images": []} {}`,
		"bad name":        `{"images": [{"image": "Kata/X:1", "program": "sleep"}]}`,
		"no tag":          `{"images": [{"image": "kata/x", "program": "sleep"}]}`,
		"unknown program": `{"images": [{"image": "kata/x:1", "program": "nginx"}]}`,
		"twice":           `{"images": [{"image": "kata/x:1", "program": "sleep"}, {"image": "kata/x:1", "program": "crash"}]}`,
	} {
		t.Run(strings.ReplaceAll(name, " ", "-"), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "images.json")
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			want := "images: " + path + " is corrupt: "
			if _, err := Open(dir); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Open on %s = %v, want an error starting %q", name, err, want)
			}
			r := &Registry{dir: dir}
			if _, err := r.Push("kata/y:1", "sleep", nil); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Push on %s = %v, want an error starting %q", name, err, want)
			}
			if _, err := r.Lookup("kata/sleep"); err == nil || cri.IsNotFound(err) {
				t.Errorf("Lookup on %s = %v, want the corrupt-file error, not NotFound", name, err)
			}
			if got, _ := os.ReadFile(path); string(got) != content {
				t.Errorf("images.json after Open and Push = %q, want it untouched: %q", got, content)
			}
		})
	}
}

func TestHandEditedFile(t *testing.T) {
	dir := t.TempDir()
	content := `{"images": [{"image": "kata/web:1", "program": "http-echo", "args": ["-text", "edited"], "id": "sha256:stale"}]}`
	if err := os.WriteFile(filepath.Join(dir, "images.json"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := open(t, dir).Lookup("kata/web:1")
	if want := ImageID("http-echo", []string{"-text", "edited"}); err != nil || e.ID != want {
		t.Errorf("Lookup(kata/web:1) of a hand-edited entry = %+v, %v; want ID %s (derived, not read)", e, err, want)
	}
}

func TestRemovedFileIsRecreated(t *testing.T) {
	dir := t.TempDir()
	r := open(t, dir)
	if err := os.Remove(filepath.Join(dir, "images.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Lookup("kata/sleep:1.0"); err != nil {
		t.Errorf("Lookup(kata/sleep:1.0) after images.json was removed = %v, want the defaults again", err)
	}
}

// TestConcurrentPush pushes from many registries on one directory, as
// processes would, while others read: every read parses, and the last
// writer wins whole.
func TestConcurrentPush(t *testing.T) {
	dir := t.TempDir()
	open(t, dir)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			r := &Registry{dir: dir}
			for i := range 10 {
				if _, err := r.Push(fmt.Sprintf("kata/w%d:%d", w, i), "sleep", []string{"-for", fmt.Sprintf("%ds", i)}); err != nil {
					errs <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			r := &Registry{dir: dir}
			for range 20 {
				if _, err := r.Lookup("kata/sleep:1.0"); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Push/Lookup: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "images.json"))
	var f file
	if err != nil || json.Unmarshal(data, &f) != nil || len(f.Images) < len(Defaults())+1 {
		t.Errorf("images.json after concurrent pushes = %q (%v), want the defaults and the last push", data, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the registry directory holds %d files after concurrent pushes, want only images.json", len(entries))
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(""); err == nil {
		t.Errorf(`Open("") = nil error, want one`)
	}
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(f); err == nil || !strings.HasPrefix(err.Error(), "images: ") || errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(a file) = %v, want an images: error", err)
	}
}

// TestImportsStayLight: the kata command imports this package, so it
// imports only the standard library and harness/cri.
func TestImportsStayLight(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") && path != "github.com/kubekata/kubekata/harness/cri" {
				t.Errorf("%s imports %s, want only the standard library and harness/cri", name, path)
			}
		}
	}
}

func BenchmarkLookup(b *testing.B) {
	r, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := r.Lookup("kata/http-echo:2.0"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPush(b *testing.B) {
	r, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := r.Push("kata/web:1", "http-echo", []string{"-text", "hi"}); err != nil {
			b.Fatal(err)
		}
	}
}
