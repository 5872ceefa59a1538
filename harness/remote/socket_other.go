//go:build !linux

package remote

import (
	"fmt"
	"os"
	"path/filepath"
)

// Elsewhere the sockets are files in a directory of their own.

func socketDir() (string, error) {
	dir, err := os.MkdirTemp("", "kata-remote-")
	if err != nil {
		return "", fmt.Errorf("remote: %w", err)
	}
	return dir, nil
}

func socketName(dir, name string) string { return filepath.Join(dir, name+".sock") }

func removeSocketDir(dir string) { _ = os.RemoveAll(dir) }
