//go:build unix

package process

// PID returns the process id of a container's first process, 0 if it
// never started or is unknown.
func (r *Runtime) PID(containerID string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.containers[containerID]; ok {
		return c.pid
	}
	return 0
}
