//go:build !linux

package grade

// nonDumpable does nothing outside Linux, where /proc/<pid>/fd does not
// exist in that form.
func nonDumpable() {}
