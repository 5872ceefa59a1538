package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cluster/internal/admin"
	"github.com/kubekata/kubekata/harness/cluster/internal/pki"
	"github.com/kubekata/kubekata/harness/pipeline"
)

// AuditLogFile is the audit log's name in the data directory.
const AuditLogFile = "audit.log"

// AuditLogMaxBytes is the audit log's size beyond which a start moves it
// to audit.log.1 (replacing the one before) and begins a new one.
const AuditLogMaxBytes = 100 << 20

// LearnerBinding is the RoleBinding that grants the user learner the
// ClusterRole edit in namespace default.
const LearnerBinding = "learner-edit"

// gate is what a cluster with the request pipeline keeps: its CA, the
// apiserver's serving certificate, the identities' certificates, and the
// loopback token with which Run bootstraps the cluster.
type gate struct {
	dataDir string
	ca      *pki.CA
	serving tls.Certificate
	hosts   []string
	ids     []pki.Identity
	pairs   map[string]pki.Pair
	// token authenticates Run's own requests as system:apiserver in
	// system:masters, as upstream's loopback client
	// (k8s.io/apiserver/pkg/server/config.go, LoopbackClientConfig);
	// random at each start, never written to disk.
	token  string
	tokens []byte
}

// newGate makes (or reloads) the CA in DIR/pki and issues the serving
// certificate for listen's host and loopback, and one client certificate
// per identity.
func newGate(dataDir, listen string, nodes int, now time.Time) (*gate, error) {
	ca, _, err := pki.LoadOrCreateCA(dataDir, now)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	g := &gate{dataDir: dataDir, ca: ca, hosts: servingHosts(listen), ids: pki.Identities(nodes), pairs: map[string]pki.Pair{}}
	sp, err := ca.IssueServing(g.hosts, now)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if err := pki.WritePair(dataDir, pki.Serving, sp); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if g.serving, err = sp.TLS(); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	for _, id := range g.ids {
		p, err := ca.IssueClient(id, now)
		if err != nil {
			return nil, fmt.Errorf("cluster: %w", err)
		}
		if err := pki.WritePair(dataDir, id.Name, p); err != nil {
			return nil, fmt.Errorf("cluster: %w", err)
		}
		g.pairs[id.Name] = p
	}
	if g.token, err = admin.NewToken(); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	uid, err := admin.NewToken()
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	// Upstream's token file: token,user,uid,"group1,group2"
	// (k8s.io/apiserver/plugin/pkg/authenticator/token/tokenfile).
	g.tokens = fmt.Appendf(nil, "%s,%s,%s,%s\n", g.token, pipeline.APIServerUser, uid[:32], pipeline.SystemPrivilegedGroup)
	return g, nil
}

// servingHosts are the names the serving certificate holds: loopback,
// and listen's host; for an unspecified address (0.0.0.0, ::) the
// machine's name and its addresses.
func servingHosts(listen string) []string {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	add := func(h string) {
		for _, x := range hosts {
			if x == h {
				return
			}
		}
		hosts = append(hosts, h)
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		host = listen
	}
	ip := net.ParseIP(host)
	switch {
	case host == "" || ip != nil && ip.IsUnspecified():
		if name, err := os.Hostname(); err == nil && name != "" {
			add(strings.ToLower(name))
		}
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok && !n.IP.IsLinkLocalUnicast() {
					add(n.IP.String())
				}
			}
		}
	case ip != nil:
		add(ip.String())
	default:
		add(strings.ToLower(host))
	}
	return hosts
}

// serverTLS is the listener's TLS: the serving certificate, and a client
// certificate verified against the CA when the client presents one
// (upstream's --client-ca-file; a client without one is authenticated
// otherwise, or is anonymous). HTTP/1.1 only.
func (g *gate) serverTLS() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{g.serving},
		ClientAuth:   tls.VerifyClientCertIfGiven,
		ClientCAs:    g.ca.Pool(),
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"http/1.1"},
	}
}

// transport trusts the CA and presents cert (none when nil).
func (g *gate) transport(cert *tls.Certificate) *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: g.ca.Pool(), MinVersion: tls.VersionTLS12}
	if cert != nil {
		tr.TLSClientConfig.Certificates = []tls.Certificate{*cert}
	}
	return tr
}

// loopback is the client Run uses itself: the loopback token.
func (g *gate) loopback() *http.Client {
	return &http.Client{Transport: &bearer{token: g.token, next: g.transport(nil)}}
}

// clientFor is the client of the identity called name.
func (g *gate) clientFor(name string) (*http.Client, error) {
	p, ok := g.pairs[name]
	if !ok {
		return nil, fmt.Errorf("cluster: no identity %q", name)
	}
	cert, err := p.TLS()
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return &http.Client{Transport: g.transport(&cert)}, nil
}

// writeKubeconfigs writes one kubeconfig per identity, and one for
// anonymous, all but the admin's; Run writes the admin's last.
func (g *gate) writeKubeconfigs(url string) error {
	dir := filepath.Join(g.dataDir, pki.KubeconfigsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	for _, id := range g.ids {
		if id.Name == pki.Admin {
			continue
		}
		if err := admin.WriteFileAtomic(pki.KubeconfigPath(g.dataDir, id.Name), []byte(pki.Kubeconfig(url, g.ca.PEM, id.Name, g.pairs[id.Name])), 0o600); err != nil {
			return fmt.Errorf("cluster: writing the kubeconfig of %s: %w", id.Name, err)
		}
	}
	if err := admin.WriteFileAtomic(pki.KubeconfigPath(g.dataDir, pki.Anonymous), []byte(pki.Kubeconfig(url, g.ca.PEM, pki.Anonymous, pki.Pair{})), 0o600); err != nil {
		return fmt.Errorf("cluster: writing the anonymous kubeconfig: %w", err)
	}
	return nil
}

// adminKubeconfig is the admin's kubeconfig.
func (g *gate) adminKubeconfig(url string) []byte {
	return []byte(pki.Kubeconfig(url, g.ca.PEM, pki.Admin, g.pairs[pki.Admin]))
}

// announce prints the identities and their kubeconfigs.
func (g *gate) announce(w io.Writer, listen string) {
	fmt.Fprintf(w, "kata up: TLS with the cluster's own CA (%s); every request is authenticated, authorized with RBAC and admitted by exercise 05's pipeline\n",
		filepath.Join(g.dataDir, pki.Dir, pki.CACert))
	fmt.Fprintf(w, "kata up: the audit log (one JSON line per request: who did what) is %s\n", filepath.Join(g.dataDir, AuditLogFile))
	fmt.Fprintf(w, "kata up: a kubeconfig per identity (kubectl --kubeconfig FILE ...):\n")
	width := len(pki.Anonymous)
	for _, id := range g.ids {
		width = max(width, len(id.Name))
	}
	for _, id := range g.ids {
		fmt.Fprintf(w, "    %-*s  %s\n    %-*s  user %s %s\n", width, id.Name, pki.KubeconfigPath(g.dataDir, id.Name), width, "", id.User, id.May)
	}
	fmt.Fprintf(w, "    %-*s  %s\n    %-*s  no credentials: user system:anonymous may only discover the API (kubectl asks for a user name with it; curl --cacert %s shows it)\n",
		width, pki.Anonymous, pki.KubeconfigPath(g.dataDir, pki.Anonymous), width, "", filepath.Join(g.dataDir, pki.Dir, pki.CACert))
	fmt.Fprintf(w, "kata up: try kubectl --kubeconfig %s get pods -n kube-system (403 Forbidden, as upstream), and kubectl auth can-i list pods -n kube-system with it\n",
		pki.KubeconfigPath(g.dataDir, pki.Learner))
	if host, _, err := net.SplitHostPort(listen); err == nil && !isLoopbackHost(host) {
		fmt.Fprintf(w, "kata up: listening beyond loopback: from another machine, copy a kubeconfig and set its server to https://%s (the certificate names %s)\n",
			net.JoinHostPort("HOST", portOf(listen)), strings.Join(g.hosts, ", "))
	}
}

func portOf(hostport string) string {
	_, p, _ := net.SplitHostPort(hostport)
	return p
}

// bearer sends a bearer token with every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// isLoopbackHost says whether host is localhost or a loopback address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// openAuditLog opens DIR/audit.log to append (0600), first moving a log
// beyond AuditLogMaxBytes to audit.log.1.
func openAuditLog(dataDir string) (*os.File, error) {
	name := filepath.Join(dataDir, AuditLogFile)
	if st, err := os.Stat(name); err == nil && st.Size() > AuditLogMaxBytes {
		if err := os.Rename(name, name+".1"); err != nil {
			return nil, fmt.Errorf("cluster: rotating the audit log: %w", err)
		}
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cluster: the audit log: %w", err)
	}
	return f, nil
}

// BootstrapPolicy writes pipeline.BootstrapPolicy's ClusterRoles and
// ClusterRoleBindings through the apiserver, then the RoleBinding
// learner-edit (ClusterRole edit for the user learner in default), each
// created unless it exists. Upstream's post-start hook
// "rbac/bootstrap-roles" (plugin/pkg/auth/authorizer/rbac/bootstrappolicy,
// pkg/registry/rbac/rest/storage_rbac.go) also reconciles one that
// exists; here an existing one is kept as it is, so a learner's edit
// survives a restart.
func BootstrapPolicy(ctx context.Context, c *client.HTTP) error {
	roles, bindings := pipeline.BootstrapPolicy()
	var objs []api.Object
	for i := range roles {
		objs = append(objs, &roles[i])
	}
	for i := range bindings {
		objs = append(objs, &bindings[i])
	}
	objs = append(objs, &api.RoleBinding{
		ObjectMeta: api.ObjectMeta{Name: LearnerBinding, Namespace: "default"},
		Subjects:   []api.Subject{{Kind: "User", APIGroup: api.GroupRBAC, Name: pki.Learner}},
		RoleRef:    api.RoleRef{APIGroup: api.GroupRBAC, Kind: "ClusterRole", Name: "edit"},
	})
	for _, o := range objs {
		if _, err := c.Create(ctx, o); err != nil && !client.IsAlreadyExists(err) {
			m := o.GetObjectMeta()
			what := m.Name
			if m.Namespace != "" {
				what = m.Namespace + "/" + m.Name
			}
			if client.IsInvalid(err) {
				// A learner's apiserver that checks every name as a
				// DNS subdomain refuses "system:node".
				return fmt.Errorf("cluster: bootstrap: creating %T %s: %w (RBAC names may hold ':', as upstream checks them only as path segments: pkg/apis/rbac/validation/validation.go)", o, what, err)
			}
			return fmt.Errorf("cluster: bootstrap: creating %T %s: %w", o, what, err)
		}
	}
	return nil
}

var errBeyondLoopback = errors.New("cluster: listening beyond loopback needs the request pipeline (exercise 05): without it anyone who can reach the port can do anything")
