package program

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubekata/kubekata/harness/cluster/internal/pki"
	"github.com/kubekata/kubekata/harness/cluster/internal/policy"
)

// Creds are how to reach a running cluster as one identity.
type Creds struct {
	// URL is the apiserver's address.
	URL string
	// Client sends requests as the identity: over TLS trusting the
	// cluster's CA and presenting the identity's client certificate
	// (none for "anonymous"), or plain HTTP on a cluster without the
	// pipeline. Its transport is its own: CloseIdleConnections when done.
	Client *http.Client
	// Kubeconfig is the path of the identity's kubeconfig, for kubectl.
	Kubeconfig string
}

// Identities are the names Credentials takes besides "node-N" (any N):
// admin (system:masters), learner (edit in default), anonymous (no
// credentials), and the components.
var Identities = func() []string {
	var out []string
	for _, id := range pki.Identities(1) {
		if !strings.HasPrefix(id.Name, "node-") {
			out = append(out, id.Name)
		}
	}
	return append(out, pki.Anonymous)
}()

// Credentials returns how to reach the cluster running with its data in
// dataDir as user: "admin", "learner", "anonymous", "kube-scheduler",
// "kube-controller-manager", "kube-proxy" or "node-N" (or the user name
// a component's certificate carries, "system:node:node-1"). With the
// request pipeline (exercise 05) each has its own certificate and
// kubeconfig; without it the cluster is plain HTTP on loopback, every
// identity is the same unauthenticated access, and Kubeconfig is the one
// kubeconfig. No cluster has written its kubeconfig in dataDir: an error
// wrapping ErrNoCluster.
func Credentials(dataDir, user string) (Creds, error) {
	name := user
	if user != pki.Anonymous {
		id, ok := pki.Lookup(user)
		if !ok {
			return Creds{}, fmt.Errorf("program: no identity %q; a cluster has %s and node-1..node-N", user, strings.Join(Identities, ", "))
		}
		name = id.Name
	}
	b, err := os.ReadFile(filepath.Join(dataDir, pki.AdminKubeconfig))
	if errors.Is(err, fs.ErrNotExist) {
		return Creds{}, fmt.Errorf("program: no cluster has started with its data in %s (there is no kubeconfig): %w", dataDir, ErrNoCluster)
	}
	if err != nil {
		return Creds{}, fmt.Errorf("program: %w", err)
	}
	url := pki.Server(b)
	if url == "" {
		return Creds{}, fmt.Errorf("program: %s names no server", filepath.Join(dataDir, pki.AdminKubeconfig))
	}
	if !strings.HasPrefix(url, "https://") {
		return Creds{URL: url, Client: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()},
			Kubeconfig: filepath.Join(dataDir, pki.AdminKubeconfig)}, nil
	}
	cfg, err := pki.ClientTLS(dataDir, name)
	if err != nil {
		return Creds{}, fmt.Errorf("program: credentials of %s: %w", user, err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = cfg
	return Creds{URL: url, Client: &http.Client{Transport: tr}, Kubeconfig: pki.KubeconfigPath(dataDir, name)}, nil
}

// ParseAdmissionPolicies splits kata up's --admission-policy list and
// refuses a name no cluster knows, naming the known ones.
func ParseAdmissionPolicies(list string) ([]string, error) {
	out, err := policy.Parse(list)
	if err != nil {
		return nil, fmt.Errorf("program: %w", err)
	}
	return out, nil
}
