//go:build !unix

package process

import (
	"errors"
	"runtime"

	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/images"
)

// DefaultCIDR is where pod IPs come from unless Options.CIDR says
// otherwise.
const DefaultCIDR = "127.244.0.0/16"

// Images finds what an image runs; *images.Registry is one.
type Images interface {
	Lookup(image string) (images.Entry, error)
}

// Options configure a Runtime.
type Options struct {
	Dir    string
	Images Images
	Exe    string
	CIDR   string
}

// Runtime is not available on this system.
type Runtime struct{ cri.Runtime }

// New fails: the process runtime needs process groups and signals.
func New(o Options) (*Runtime, error) {
	return nil, errors.New("process: containers as processes need a Unix system, not " + runtime.GOOS)
}

// Close does nothing.
func (r *Runtime) Close() error { return nil }
