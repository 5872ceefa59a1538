package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// SystemNamespaces are the namespaces a cluster has from its first
// start. kube-apiserver's system-namespaces controller
// (pkg/controlplane/controller/systemnamespaces/system_namespaces_controller.go,
// started by the post-start hook "start-system-namespaces-controller" in
// pkg/controlplane/apiserver/server.go) creates each one that is missing
// and takes AlreadyExists as success. Its list is the option
// SystemNamespaces: kube-system, kube-public and default
// (pkg/controlplane/apiserver/options/options.go, NewOptions), to which
// kube-apiserver adds kube-node-lease (cmd/kube-apiserver/app/options;
// its options_test.go expects all four). Older releases created default
// in the bootstrap controller instead; the outcome is the same.
var SystemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// Bootstrap creates the SystemNamespaces through the apiserver's HTTP API
// at url with hc (Run's loopback client), as upstream's controllers do
// through their clients: POST
// /api/v1/namespaces, where 201 and 409 AlreadyExists are both fine (a
// restart over existing data). Upstream retries every minute and logs a
// failure; here a failure stops the start, with the server's answer.
func Bootstrap(ctx context.Context, hc *http.Client, url string) error {
	for _, ns := range SystemNamespaces {
		body, _ := json.Marshal(map[string]any{
			"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns},
		})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/api/v1/namespaces", bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("cluster: bootstrap: %w", err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return fmt.Errorf("cluster: bootstrap: creating namespace %q: %w", ns, err)
		}
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusCreated, http.StatusOK, http.StatusConflict:
			continue
		}
		var st struct{ Message string }
		text := strings.TrimSpace(string(msg))
		if json.Unmarshal(msg, &st) == nil && st.Message != "" {
			text = st.Message
		}
		return fmt.Errorf("cluster: bootstrap: POST /api/v1/namespaces %q: %s, want 201 Created or 409 AlreadyExists: %s", ns, resp.Status, text)
	}
	return nil
}
