package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The CA is made once, kept, ECDSA P-256, its key 0600 in a 0700
// directory; what it issues chains to it with the names and usages asked.
func TestCAKeptAndIssues(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ca, created, err := LoadOrCreateCA(dir, now)
	if err != nil || !created {
		t.Fatalf("LoadOrCreateCA(empty dir) = %v, created %v; want a new CA", err, created)
	}
	if k, ok := ca.Cert.PublicKey.(*ecdsa.PublicKey); !ok || k.Curve != elliptic.P256() || !ca.Cert.IsCA {
		t.Errorf("the CA is %T (IsCA %v), want an ECDSA P-256 CA", ca.Cert.PublicKey, ca.Cert.IsCA)
	}
	for f, want := range map[string]os.FileMode{"pki": 0o700 | os.ModeDir, "pki/ca.key": 0o600, "pki/ca.crt": 0o644} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Mode() != want {
			t.Errorf("DIR/%s: mode %v, %v; want %v", f, st.Mode(), err, want)
		}
	}
	again, created, err := LoadOrCreateCA(dir, now.Add(time.Hour))
	if err != nil || created || !again.Cert.Equal(ca.Cert) {
		t.Fatalf("LoadOrCreateCA a second time = created %v, %v, same cert %v; want the same CA loaded", created, err, err == nil && again.Cert.Equal(ca.Cert))
	}

	id, _ := Lookup("system:node:node-2")
	p, err := ca.IssueClient(id, now)
	if err != nil {
		t.Fatal(err)
	}
	cert := parse(t, p.Cert)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: ca.Pool(), CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("node-2's client certificate does not verify against the CA for client auth: %v", err)
	}
	if cert.Subject.CommonName != "system:node:node-2" || !slices.Equal(cert.Subject.Organization, []string{"system:nodes"}) {
		t.Errorf("node-2's certificate is for %q in %v, want system:node:node-2 in [system:nodes]", cert.Subject.CommonName, cert.Subject.Organization)
	}
	if got := cert.NotAfter.Sub(now); got != CertValidity {
		t.Errorf("a client certificate is valid for %v after issue, want %v", got, CertValidity)
	}
	sp, err := ca.IssueServing([]string{"localhost", "127.0.0.1", "::1", "kata.example"}, now)
	if err != nil {
		t.Fatal(err)
	}
	srv := parse(t, sp.Cert)
	for _, h := range []string{"localhost", "127.0.0.1", "::1", "kata.example"} {
		if err := srv.VerifyHostname(h); err != nil {
			t.Errorf("the serving certificate does not name %s: %v", h, err)
		}
	}
	if err := srv.VerifyHostname("other.example"); err == nil {
		t.Errorf("the serving certificate names other.example, which it was not asked for")
	}
	if _, err := srv.Verify(x509.VerifyOptions{Roots: ca.Pool(), CurrentTime: now, DNSName: "kata.example"}); err != nil {
		t.Errorf("the serving certificate does not verify against the CA: %v", err)
	}
}

// Half a CA, or one that does not parse, is refused, never replaced.
func TestCARefusedNotReplaced(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := LoadOrCreateCA(dir, time.Now()); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, Dir, CAKey)
	if err := os.Remove(key); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreateCA(dir, time.Now()); err == nil || !strings.Contains(err.Error(), "half a CA") {
		t.Errorf("LoadOrCreateCA with ca.crt but no ca.key = %v, want half a CA refused", err)
	}
	if _, err := os.Stat(key); err == nil {
		t.Errorf("LoadOrCreateCA made a new key beside the old certificate")
	}
	if err := os.WriteFile(key, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreateCA(dir, time.Now()); err == nil || !strings.Contains(err.Error(), "ca.key") {
		t.Errorf("LoadOrCreateCA with a ca.key that is no key = %v, want an error naming ca.key", err)
	}
}

// Lookup takes a file name or a user name; node numbers are any.
func TestLookup(t *testing.T) {
	for name, want := range map[string]string{"admin": "kubernetes-admin", "kubernetes-admin": "kubernetes-admin", "learner": "learner",
		"system:kube-proxy": "system:kube-proxy", "node-7": "system:node:node-7", "system:node:node-12": "system:node:node-12"} {
		if id, ok := Lookup(name); !ok || id.User != want {
			t.Errorf("Lookup(%q) = %+v, %v; want user %s", name, id, ok, want)
		}
	}
	for _, name := range []string{"mallory", "node-0", "node-01", "node-x", ""} {
		if id, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) = %+v, want none", name, id)
		}
	}
}

// A kubeconfig names its server, embeds the CA and the pair, or no
// credentials for anonymous.
func TestKubeconfig(t *testing.T) {
	kc := Kubeconfig("https://127.0.0.1:6443", []byte("CA"), "learner", Pair{Cert: []byte("C"), Key: []byte("K")})
	for _, want := range []string{"server: https://127.0.0.1:6443\n", "certificate-authority-data: Q0E=\n", "client-certificate-data: Qw==\n", "client-key-data: Sw==\n", "user: learner\n"} {
		if !strings.Contains(kc, want) {
			t.Errorf("Kubeconfig has no %q:\n%s", want, kc)
		}
	}
	if got := Server([]byte(kc)); got != "https://127.0.0.1:6443" {
		t.Errorf("Server(kubeconfig) = %q", got)
	}
	anon := Kubeconfig("https://127.0.0.1:6443", []byte("CA"), Anonymous, Pair{})
	if strings.Contains(anon, "client-") || !strings.Contains(anon, "user: {}") {
		t.Errorf("the anonymous kubeconfig carries credentials:\n%s", anon)
	}
}

func parse(t *testing.T, pemBytes []byte) *x509.Certificate {
	t.Helper()
	c, err := parseCert(pemBytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
