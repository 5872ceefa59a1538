package protoedge_test

import (
	"net/http"

	"github.com/kubekata/kubekata/harness/storage"
	store "github.com/kubekata/kubekata/solutions/03-store"
	apiserver "github.com/kubekata/kubekata/solutions/04-apiserver"
)

// The reference parts the cluster tests run (see reference in
// cluster_test.go). This is the only file here that imports solutions/.
func init() {
	reference = &struct {
		open      func(dir string) (storage.Store, error)
		apiserver func(storage.Store) http.Handler
	}{store.Open, apiserver.New}
}
