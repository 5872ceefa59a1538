package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/course"
)

// The results cache lets kata next and kata list skip the exercises whose
// inputs did not change since they were last tested: go test replays
// passing packages from its own cache, but re-links and re-runs every
// failing one, and most of a learner's exercises fail until they get to
// them.
//
// An exercise's key hashes everything its result depends on: the files of
// its directory, the whole harness/ tree, go.mod and go.sum, and the go
// version and flags. The file is a convenience: missing, corrupt or stale,
// it is simply rebuilt. Results with a step that never finished (a
// timeout, a crash) are not kept, since another run may differ.
const resultsFile = ".kata/results.json"

type resultsCache struct {
	path string
	// Exercises by id.
	Exercises map[string]*cachedResult `json:"exercises"`
}

type cachedResult struct {
	Key         string       `json:"key"`
	BuildFailed bool         `json:"buildFailed,omitempty"`
	BuildOutput string       `json:"buildOutput,omitempty"`
	Steps       []cachedStep `json:"steps"`
}

type cachedStep struct {
	ID      string        `json:"id"`
	Status  gotest.Status `json:"status"`
	Message string        `json:"message,omitempty"`
}

func loadResults(root string) *resultsCache {
	c := &resultsCache{path: filepath.Join(root, resultsFile), Exercises: map[string]*cachedResult{}}
	data, err := os.ReadFile(c.path)
	if err != nil {
		return c
	}
	var saved resultsCache
	if json.Unmarshal(data, &saved) == nil && saved.Exercises != nil {
		c.Exercises = saved.Exercises
	}
	return c
}

func (c *resultsCache) save() error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".results-*.json")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if werr == nil {
		werr = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), c.path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// get returns the cached result for e under key, if there is one.
func (c *resultsCache) get(e *course.Exercise, key string) *gotest.ExerciseResult {
	cr := c.Exercises[e.ID]
	if cr == nil || cr.Key != key || len(cr.Steps) != len(e.Steps) {
		return nil
	}
	r := &gotest.ExerciseResult{Exercise: e, ImportPath: importPath(e.ExerciseDir()), BuildFailed: cr.BuildFailed, BuildOutput: cr.BuildOutput}
	for i, s := range e.Steps {
		cs := cr.Steps[i]
		if cs.ID != s.ID {
			return nil
		}
		r.Steps = append(r.Steps, gotest.StepResult{Step: s, Status: cs.Status, Message: cs.Message})
	}
	return r
}

// put remembers r under key, unless a step never finished.
func (c *resultsCache) put(r *gotest.ExerciseResult, key string) {
	cr := &cachedResult{Key: key, BuildFailed: r.BuildFailed, BuildOutput: r.BuildOutput}
	for _, s := range r.Steps {
		if s.Status == gotest.Error && !r.BuildFailed {
			delete(c.Exercises, r.Exercise.ID)
			return
		}
		cr.Steps = append(cr.Steps, cachedStep{ID: s.Step.ID, Status: s.Status, Message: s.Message})
	}
	c.Exercises[r.Exercise.ID] = cr
}

// inputKeys hashes each exercise's inputs. An exercise whose directory is
// missing gets no key (it is never cached).
func (l *learner) inputKeys(exs []*course.Exercise) (map[string]string, error) {
	common := sha256.New()
	fmt.Fprintf(common, "kata results v1\n")
	env, err := l.goEnv()
	if err != nil {
		return nil, err
	}
	for _, k := range goEnvKeys {
		fmt.Fprintf(common, "%s=%s\n", k, env[k])
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := hashFile(common, l.root, f); err != nil {
			return nil, err
		}
	}
	if err := hashTree(common, l.root, "harness"); err != nil {
		return nil, err
	}
	base := common.Sum(nil)
	keys := map[string]string{}
	for _, e := range exs {
		if !isDir(filepath.Join(l.root, e.ExerciseDir())) {
			continue
		}
		h := sha256.New()
		h.Write(base)
		fmt.Fprintf(h, "exercise %s %s\n", e.ID, e.Test)
		if err := hashTree(h, l.root, e.ExerciseDir()); err != nil {
			return nil, err
		}
		keys[e.ID] = hex.EncodeToString(h.Sum(nil))
	}
	return keys, nil
}

// goEnvKeys are the go settings a test result depends on.
var goEnvKeys = []string{"GOVERSION", "GOFLAGS", "GOOS", "GOARCH", "GOEXPERIMENT", "CGO_ENABLED"}

// goEnv reads goEnvKeys from the go command, once.
func (l *learner) goEnv() (map[string]string, error) {
	if l.goenv != nil {
		return l.goenv, nil
	}
	out, err := exec.CommandContext(l.env.Ctx, "go", append([]string{"env", "-json"}, goEnvKeys...)...).Output()
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, err
	}
	l.goenv = env
	return env, nil
}

// hashTree hashes the names and contents of the files under rel, in
// order. Files go would ignore ("." and "_" prefixes) are left out.
func hashTree(h io.Writer, root, rel string) error {
	var files []string
	err := filepath.WalkDir(filepath.Join(root, rel), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if path != filepath.Join(root, rel) && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			r, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(r))
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range files {
		if err := hashFile(h, root, f); err != nil {
			return err
		}
	}
	return nil
}

func hashFile(h io.Writer, root, rel string) error {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "file %s %d\n", rel, fi.Size())
	_, err = io.Copy(h, f)
	return err
}
