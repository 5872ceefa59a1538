package images

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kubekata/kubekata/harness/cri"
)

// ProgramEnv names the environment variable that makes a binary that
// calls Dispatch run an image program instead of its own main.
const ProgramEnv = "KATA_IMAGE_PROGRAM"

// FileName is the registry's file in its directory.
const FileName = "images.json"

// Entry is what one NAME:TAG in the registry runs: a built-in program
// with its default arguments. ID is the image's reference,
// "sha256:" + hex of the SHA-256 of the program and its arguments, the
// same for every tag that runs the same thing.
type Entry struct {
	Image   string   `json:"image"`
	Program string   `json:"program"`
	Args    []string `json:"args,omitempty"`
	ID      string   `json:"id"`
}

// Registry is the local image registry kept in a data directory.
type Registry struct {
	dir string
}

// file is the registry's file as it is written.
type file struct {
	Images []Entry `json:"images"`
}

// ImageID returns the ID of an image that runs program with args.
func ImageID(program string, args []string) string {
	sum := sha256.Sum256([]byte(strings.Join(append([]string{program}, args...), "\x00")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Defaults are the images a new registry holds: versioned tags, and
// latest for the newest. Two versions of http-echo let a rolling update
// show which one answers.
func Defaults() []Entry {
	es := []Entry{
		entry("kata/http-echo:1.0", "http-echo", "-text", "hello v1"),
		entry("kata/http-echo:2.0", "http-echo", "-text", "hello v2"),
		entry("kata/http-echo:latest", "http-echo", "-text", "hello v2"),
	}
	for _, p := range []string{"sleep", "crash", "counter", "hog", "curl"} {
		es = append(es, entry("kata/"+p+":1.0", p), entry("kata/"+p+":latest", p))
	}
	sortEntries(es)
	return es
}

func entry(image, program string, args ...string) Entry {
	return Entry{Image: image, Program: program, Args: args, ID: ImageID(program, args)}
}

func sortEntries(es []Entry) {
	sort.Slice(es, func(i, j int) bool { return es[i].Image < es[j].Image })
}

// Open opens the registry in dir, creating it with the default images
// when it does not exist.
func Open(dir string) (*Registry, error) {
	if dir == "" {
		return nil, errors.New("images: no registry directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("images: %w", err)
	}
	r := &Registry{dir: abs}
	if _, err := r.load(); err != nil {
		return nil, err
	}
	return r, nil
}

// load reads the file, creating it with the default images when it is
// missing (at Open, or removed since).
func (r *Registry) load() ([]Entry, error) {
	es, err := r.read()
	if !errors.Is(err, fs.ErrNotExist) {
		return es, err
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, fmt.Errorf("images: %w", err)
	}
	// Create the file only if it is still missing: another process
	// may have created it, and pushed to it, since we looked.
	if err := r.write(Defaults(), false); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	es, err = r.read()
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("images: %w", err)
	}
	return es, err
}

// Path is the registry's file.
func (r *Registry) Path() string { return filepath.Join(r.dir, FileName) }

// read reads and checks the file. A missing file is fs.ErrNotExist;
// anything wrong with it names it.
func (r *Registry) read() ([]Entry, error) {
	data, err := os.ReadFile(r.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("images: %w", err)
	}
	corrupt := func(format string, a ...any) error {
		return fmt.Errorf("images: %s is corrupt: %s; fix it or move it away (a new one is made with the default images)", r.Path(), fmt.Sprintf(format, a...))
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, corrupt("%v", err)
	}
	if dec.More() {
		return nil, corrupt("data after the JSON object")
	}
	if f.Images == nil {
		return nil, corrupt(`no "images" list`)
	}
	seen := map[string]bool{}
	for i, e := range f.Images {
		name, err := cri.NormalizeImage(e.Image)
		if err != nil || name != e.Image || strings.Contains(name, "@") {
			return nil, corrupt("image %d: %q is not NAME:TAG", i, e.Image)
		}
		if seen[name] {
			return nil, corrupt("image %d: %s is listed twice", i, name)
		}
		seen[name] = true
		if !isProgram(e.Program) {
			return nil, corrupt("%s: unknown program %q (the programs are %s)", name, e.Program, strings.Join(Programs(), ", "))
		}
		// The ID is derived: a hand edit of the arguments changes it.
		f.Images[i].ID = ImageID(e.Program, e.Args)
	}
	sortEntries(f.Images)
	return f.Images, nil
}

// write writes es to the file atomically: a temporary file in the same
// directory, fsync, rename (or, with replace false, a hard link that
// fails with fs.ErrExist when the file exists), fsync of the directory.
func (r *Registry) write(es []Entry, replace bool) error {
	data, err := json.MarshalIndent(file{Images: es}, "", "  ")
	if err != nil {
		return fmt.Errorf("images: %w", err)
	}
	data = append(data, '\n')
	tmp, err := os.CreateTemp(r.dir, "."+FileName+".*.tmp")
	if err != nil {
		return fmt.Errorf("images: %w", err)
	}
	// The temporary name goes in every case: renamed, linked (then the
	// file has a second name) or failed.
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("images: %w", err)
	}
	name := tmp.Name()
	if replace {
		err = os.Rename(name, r.Path())
	} else {
		err = os.Link(name, r.Path())
		if err != nil && !errors.Is(err, fs.ErrExist) {
			// A file system without hard links: rename, if the
			// file is still missing.
			if _, serr := os.Lstat(r.Path()); errors.Is(serr, fs.ErrNotExist) {
				err = os.Rename(name, r.Path())
			}
		}
	}
	if err != nil {
		return fmt.Errorf("images: %w", err)
	}
	return syncDir(r.dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("images: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("images: sync %s: %w", dir, err)
	}
	return nil
}

// notFound is an image the registry does not have: its message says
// how to push it, and it wraps cri.ErrNotFound.
type notFound struct{ msg string }

func (e *notFound) Error() string { return e.msg }
func (e *notFound) Unwrap() error { return cri.ErrNotFound }

// Lookup finds NAME[:TAG] (no tag: latest), or NAME@sha256:ID; an image
// the registry does not have is an error wrapping cri.ErrNotFound.
func (r *Registry) Lookup(image string) (Entry, error) {
	name, err := cri.NormalizeImage(image)
	if err != nil {
		return Entry{}, fmt.Errorf("images: %s", strings.TrimPrefix(err.Error(), "cri: "))
	}
	es, err := r.load()
	if err != nil {
		return Entry{}, err
	}
	repo, digest, isDigest := strings.Cut(name, "@")
	for _, e := range es {
		if isDigest {
			if n, _, _ := cri.ParseImage(e.Image); n == repo && e.ID == digest {
				return e, nil
			}
			continue
		}
		if e.Image == name {
			return e, nil
		}
	}
	hint := "PROGRAM [ARGS...]"
	repoName, _, _ := cri.ParseImage(name)
	for _, e := range es {
		if n, _, _ := cri.ParseImage(e.Image); n == repoName && !isDigest {
			hint = e.Program + " " + programs[e.Program].hint
			break
		}
	}
	if isDigest {
		return Entry{}, &notFound{fmt.Sprintf("images: %s is not in the registry (%s); kata image ls lists what it has", name, r.Path())}
	}
	return Entry{}, &notFound{fmt.Sprintf("images: %s is not in the registry (%s); kata image push %s %s", name, r.Path(), name, hint)}
}

// Push adds or replaces NAME:TAG (no tag: latest), running program with
// args. The program must be one of Programs, and args must be flags it
// takes.
func (r *Registry) Push(image, program string, args []string) (Entry, error) {
	name, err := cri.NormalizeImage(image)
	if err != nil {
		return Entry{}, fmt.Errorf("images: %s", strings.TrimPrefix(err.Error(), "cri: "))
	}
	if strings.Contains(name, "@") {
		return Entry{}, fmt.Errorf("images: push %s: an image is pushed by NAME:TAG, not by digest", image)
	}
	if err := Check(program, args); err != nil {
		return Entry{}, err
	}
	es, err := r.load()
	if err != nil {
		return Entry{}, err
	}
	e := entry(name, program, slices.Clone(args)...)
	if len(e.Args) == 0 {
		e.Args = nil
	}
	i := slices.IndexFunc(es, func(x Entry) bool { return x.Image == name })
	if i >= 0 {
		es[i] = e
	} else {
		es = append(es, e)
	}
	sortEntries(es)
	if err := r.write(es, true); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// List returns every entry, sorted by image.
func (r *Registry) List() ([]Entry, error) {
	es, err := r.load()
	if err != nil {
		return nil, err
	}
	return es, nil
}
