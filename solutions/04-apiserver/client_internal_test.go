package apiserver

import (
	"net/http/httptest"
	"testing"

	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/client/clienttest"
	"github.com/kubekata/kubekata/harness/storage"
)

// TestHTTPClient runs the client contract over the HTTP client and this
// apiserver: what a component sees through the fake is what it sees here.
func TestHTTPClient(t *testing.T) {
	clienttest.Run(t, func(t *testing.T) client.Interface {
		store := storage.NewMemory()
		srv := httptest.NewServer(New(store))
		t.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); _ = store.Close() })
		return client.New(srv.URL, srv.Client())
	})
}
