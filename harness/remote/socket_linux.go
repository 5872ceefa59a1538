package remote

import (
	"crypto/rand"
	"fmt"
)

// On Linux the sockets are abstract (a name with no file): nothing is
// left behind by a grader that dies without cleaning up, such as
// storetest's child processes, which exit or are killed mid-step. A
// "directory" is a random prefix of their names.

func socketDir() (string, error) {
	return "@kata-remote-" + rand.Text(), nil
}

func socketName(dir, name string) string { return fmt.Sprintf("%s-%s", dir, name) }

func removeSocketDir(string) {}
