package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubekata/kubekata/harness/course"
)

// findRoot walks up from dir to the kata's module root: the directory whose
// go.mod declares course.ModulePath.
func findRoot(dir string) (string, error) {
	// Clean first: $PWD (which os.Getwd returns) may hold "..", and the
	// parent of "a/b/.." is not "a".
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("kata: %w", err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && declaresModule(string(data)) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("kata: not inside a kubekata checkout (no go.mod for " + course.ModulePath + " here or above); cd into the kata and try again")
		}
		d = parent
	}
}

func declaresModule(gomod string) bool {
	for _, line := range strings.Split(gomod, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" && strings.Trim(f[1], `"`) == course.ModulePath {
			return true
		}
	}
	return false
}

// importPath is the Go import path of a directory relative to the root.
func importPath(rel string) string {
	return fmt.Sprintf("%s/%s", course.ModulePath, filepath.ToSlash(rel))
}
