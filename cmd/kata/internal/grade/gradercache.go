package grade

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// The graders depend on nothing of the learner's: only on the kata's
// pristine files, the generated test sources and the toolchain. So they
// are kept between runs, in kata's user cache directory, under a key of
// all of those, and a run whose key is there copies them instead of
// building them again (linking four test binaries is most of a warm
// grade). As root that directory is root's, out of reach of the learner's
// code, which runs as nobody; as another user it is as writable to the
// learner's code as that user's build cache (doc.go says so).

// graderKeys hashes everything each grader binary is built from: the
// kata's pristine files, the toolchain and its environment, and the
// grader's own generated files (gen, by path; a grader's are those under
// its directory). The result maps exercise id to key.
func graderKeys(pristine fs.FS, gen map[string][]byte, env []string, ids []string) (map[string]string, error) {
	base := sha256.New()
	var names []string
	err := fs.WalkDir(pristine, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			names = append(names, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	for _, name := range names {
		b, err := fs.ReadFile(pristine, name)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(base, "file %q %d\n", name, len(b))
		base.Write(b)
	}
	// The toolchain: the go command on PATH, by path, size and time, and
	// the environment it runs with.
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(goBin)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(base, "go %q %d %d %s/%s\n", goBin, fi.Size(), fi.ModTime().UnixNano(), runtime.GOOS, runtime.GOARCH)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PWD=") { // the copy's path: -trimpath keeps it out
			fmt.Fprintf(base, "env %q\n", kv)
		}
	}
	sum := base.Sum(nil)
	keys := map[string]string{}
	for _, id := range ids {
		h := sha256.New()
		h.Write(sum)
		var own []string
		for name := range gen {
			if strings.HasPrefix(name, graderDir+"/"+id+"/") {
				own = append(own, name)
			}
		}
		sort.Strings(own)
		for _, name := range own {
			fmt.Fprintf(h, "gen %q %d\n", name, len(gen[name]))
			h.Write(gen[name])
		}
		keys[id] = id + "-" + hex.EncodeToString(h.Sum(nil))[:24]
	}
	return keys, nil
}

// graderCache is the directory the graders are kept in, or "" when kata's
// user has none.
func graderCache() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "kata", "graders")
}

// graderCacheKeep is how many graders the cache keeps, the most recently
// used (a grader is about 10 MB; every change to the harness makes new
// ones).
const graderCacheKeep = 16

// fromGraderCache puts the cached grader of id into bin, and says whether
// it was there.
func fromGraderCache(cache, key, bin, id string) bool {
	if cache == "" {
		return false
	}
	src := filepath.Join(cache, key, "grader.test")
	if _, err := os.Stat(src); err != nil {
		return false
	}
	if err := linkOrCopy(src, filepath.Join(bin, id+".test")); err != nil {
		return false
	}
	now := time.Now()
	_ = os.Chtimes(filepath.Join(cache, key), now, now) // recently used
	return true
}

// toGraderCache keeps a grader just built: it is copied into a fresh
// directory that is then renamed into place, so that no run sees half of
// it (a concurrent run that got there first wins). The least recently
// used graders beyond graderCacheKeep are removed.
func toGraderCache(cache, key, bin, id string) {
	if cache == "" {
		return
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return
	}
	tmp, err := os.MkdirTemp(cache, ".new-")
	if err != nil {
		return
	}
	defer os.RemoveAll(tmp)
	if err := copyFile(filepath.Join(bin, id+".test"), filepath.Join(tmp, "grader.test")); err != nil {
		return
	}
	_ = os.Rename(tmp, filepath.Join(cache, key))
	ents, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	type entry struct {
		name string
		used time.Time
	}
	var all []entry
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			all = append(all, entry{e.Name(), fi.ModTime()})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].used.After(all[j].used) })
	for i := graderCacheKeep; i < len(all); i++ {
		os.RemoveAll(filepath.Join(cache, all[i].name))
	}
}

func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	return copyFile(src, dst)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
