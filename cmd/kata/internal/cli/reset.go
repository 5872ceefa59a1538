package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	kubekata "github.com/kubekata/kubekata"
	"github.com/kubekata/kubekata/harness/course"
)

func init() {
	register("reset", &command{
		summary: "restore an exercise's original stub, keeping a backup of your files",
		usage:   "reset [--yes] EXERCISE",
		run:     runReset,
	})
}

// backupDir is where reset keeps the learner's files, under the root.
const backupDir = ".kata/backup"

// pristineExercise returns the kata's own copy of an exercise; tests
// replace it.
var pristineExercise = kubekata.Exercise

func runReset(env *Env, args []string) error {
	fs := flags(env, "reset")
	yes := fs.Bool("yes", false, "do not ask for confirmation")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errUsage
	}
	l, err := newLearner(env)
	if err != nil {
		return err
	}
	e, err := l.exercise(pos[0])
	if err != nil {
		return err
	}
	orig, err := pristineFiles(e)
	if err != nil {
		return err
	}
	dir := filepath.Join(l.root, e.ExerciseDir())
	mine, err := readTree(dir)
	if err != nil {
		return err
	}
	if sameFiles(orig, mine) {
		l.out.printf("%s is already the original stub; nothing to reset.\n", e.ExerciseDir())
		return nil
	}

	if !*yes {
		l.out.printf("This puts back the original %s, replacing your files (a backup is kept under %s/).\nReset %s? [y/N] ",
			e.ExerciseDir(), backupDir, e.ID)
		answer, _ := bufio.NewReader(env.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			l.out.println()
			return errors.New("reset cancelled; nothing changed")
		}
	}

	backup := ""
	if len(mine) > 0 {
		if backup, err = writeBackup(l.root, e.ID, mine); err != nil {
			return err
		}
	}
	if err := restore(dir, orig, mine); err != nil {
		return fmt.Errorf("%w (your files are safe in %s)", err, backup)
	}
	state, _ := loadHints(l.root)
	state.forget(e.ID)
	_ = state.save() // a stale hint level is harmless

	l.out.printf("%s %s is back to its original stub.\n", l.out.green.Sprint("Reset:"), e.ExerciseDir())
	if backup != "" {
		l.out.printf("Your files are in %s/\n", backup)
	}
	return nil
}

// pristineFiles reads the kata's own copy of an exercise and checks that
// it really is the stub: a kata binary built with `go run` from an edited
// checkout carries the edited files instead.
func pristineFiles(e *course.Exercise) (map[string][]byte, error) {
	fsys, err := pristineExercise(e.ID)
	var files map[string][]byte
	if err == nil {
		files, err = readFS(fsys)
	}
	if err == nil && len(files) == 0 {
		err = errors.New("no files")
	}
	if err != nil {
		return nil, fmt.Errorf("this kata binary has no original copy of %s (%v); get the exercise from the kata's repository", e.ExerciseDir(), err)
	}
	for _, f := range e.Files {
		if !bytes.Contains(files[f], []byte("not implemented")) {
			return nil, fmt.Errorf("the copy of %s built into this kata binary is not the original stub: the binary was built from your edited files (`go run ./cmd/kata` rebuilds from the working tree). "+
				"Build kata from an untouched checkout, or restore the file with git (`git log -- %s` shows its first version)",
				e.ExerciseDir()+"/"+f, e.ExerciseDir()+"/"+f)
		}
	}
	return files, nil
}

func readFS(fsys fs.FS) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := fs.ReadFile(fsys, path)
		files[path] = data
		return err
	})
	return files, err
}

// readTree reads the regular files under dir (none if it is missing),
// leaving out the ones go:embed would.
func readTree(dir string) (map[string][]byte, error) {
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return map[string][]byte{}, nil
	}
	files, err := readFS(os.DirFS(dir))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	for name := range files {
		if hiddenFromEmbed(name) {
			delete(files, name) // an editor's swap or lock file: not ours to touch
		}
	}
	return files, nil
}

// hiddenFromEmbed says whether go:embed leaves a path out: any element
// starting with "." or "_".
func hiddenFromEmbed(name string) bool {
	for _, elem := range strings.Split(name, "/") {
		if strings.HasPrefix(elem, ".") || strings.HasPrefix(elem, "_") {
			return true
		}
	}
	return false
}

func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

// writeBackup copies the learner's files to .kata/backup/<id>-<time>/ and
// returns that directory relative to the root.
func writeBackup(root, id string, files map[string][]byte) (string, error) {
	stamp := time.Now().Format("20060102-150405")
	rel := fmt.Sprintf("%s/%s-%s", backupDir, id, stamp)
	for i := 2; ; i++ {
		if _, err := os.Stat(filepath.Join(root, rel)); os.IsNotExist(err) {
			break
		}
		rel = fmt.Sprintf("%s/%s-%s-%d", backupDir, id, stamp, i)
	}
	for _, name := range sortedKeys(files) {
		path := filepath.Join(root, rel, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", fmt.Errorf("backing up %s: %w", id, err)
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return "", fmt.Errorf("backing up %s: %w", id, err)
		}
	}
	return rel, nil
}

// restore writes the original files into dir and removes the files the
// learner added (they are in the backup).
func restore(dir string, orig, mine map[string][]byte) error {
	for _, name := range sortedKeys(orig) {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("restoring %s: %w", name, err)
		}
		if err := os.WriteFile(path, orig[name], 0o644); err != nil {
			return fmt.Errorf("restoring %s: %w", name, err)
		}
	}
	for _, name := range sortedKeys(mine) {
		if _, ok := orig[name]; !ok {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
				return fmt.Errorf("removing %s: %w", name, err)
			}
		}
	}
	return nil
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
