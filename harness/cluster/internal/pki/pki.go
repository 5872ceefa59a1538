// Package pki is the cluster's public key infrastructure and the files a
// cluster with the request pipeline (exercise 05) keeps in its data
// directory: who may talk to it, and how.
//
// Responsibilities:
//
//  1. The layout: DIR/pki holds the cluster's certificate authority
//     (ca.crt, ca.key), the apiserver's serving certificate and one
//     client certificate per identity; DIR/kubeconfigs holds one
//     kubeconfig per identity (the admin's is DIR/kubeconfig, as without
//     the pipeline). Keys are 0600, the directories 0700, and every
//     file is written whole or not at all (admin.WriteFileAtomic).
//  2. The CA: ECDSA P-256, self-signed, made at the first start and
//     kept across restarts (kubeadm's layout: /etc/kubernetes/pki/ca.crt),
//     so that a kubeconfig copied elsewhere keeps working.
//  3. The identities (Identities): the admin (CN kubernetes-admin, O
//     system:masters, as kubeadm's admin.conf), the components with the
//     user names upstream's bootstrap policy binds (system:kube-scheduler,
//     system:kube-controller-manager, system:kube-proxy,
//     system:node:<name> in system:nodes) and the limited user learner.
//     Their certificates are issued afresh at each start (one year, as
//     kubeadm's), from the same CA.
//  4. Kubeconfigs with the certificates embedded, and Load: the client
//     side, how a test or kata reaches the cluster as one identity.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/cluster/internal/admin"
)

// The layout of the data directory.
const (
	// Dir holds the CA and the certificates.
	Dir = "pki"
	// KubeconfigsDir holds one kubeconfig per identity but the admin.
	KubeconfigsDir = "kubeconfigs"
	// AdminKubeconfig is the admin's kubeconfig, the one kata up exports.
	AdminKubeconfig = "kubeconfig"
	// CACert and CAKey are the CA's files in Dir.
	CACert = "ca.crt"
	CAKey  = "ca.key"
	// Serving is the apiserver's certificate's base name in Dir.
	Serving = "apiserver"
)

// Identities' names that are not components.
const (
	Admin     = "admin"
	Learner   = "learner"
	Anonymous = "anonymous"
)

// Validity of what is issued: the CA ten years, the others one, as
// kubeadm's (cmd/kubeadm/app/constants/constants.go,
// CertificateValidityPeriod and CACertificateValidityPeriod).
const (
	CAValidity   = 10 * 365 * 24 * time.Hour
	CertValidity = 365 * 24 * time.Hour
)

// Identity is one user a cluster issues a client certificate to.
type Identity struct {
	// Name names its files: pki/NAME.crt, kubeconfigs/NAME.kubeconfig.
	Name string
	// User is the certificate's CommonName, the user the apiserver sees.
	User string
	// Groups are its Organizations.
	Groups []string
	// May says what the bootstrap policy lets it do, for the printout:
	// "may do anything (group system:masters)".
	May string
}

// Identities are the cluster's identities for nodes kubelets, the admin
// first.
func Identities(nodes int) []Identity {
	ids := []Identity{
		{Name: Admin, User: "kubernetes-admin", Groups: []string{"system:masters"}, May: "may do anything (group system:masters)"},
		{Name: Learner, User: "learner", May: "may edit in namespace default (ClusterRole edit, RoleBinding learner-edit), and only discover the API elsewhere"},
		{Name: "kube-scheduler", User: "system:kube-scheduler", May: "has the ClusterRole system:kube-scheduler"},
		{Name: "kube-controller-manager", User: "system:kube-controller-manager", May: "has the ClusterRole system:kube-controller-manager"},
		{Name: "kube-proxy", User: "system:kube-proxy", May: "has the ClusterRole system:node-proxier"},
	}
	if nodes < 1 {
		nodes = 1
	}
	for i := 1; i <= nodes; i++ {
		n := "node-" + strconv.Itoa(i)
		ids = append(ids, Identity{Name: n, User: "system:node:" + n, Groups: []string{"system:nodes"},
			May: "has the ClusterRole system:node, narrowed to its own node by NodeRestriction"})
	}
	return ids
}

// Lookup finds the identity called name (its Name, "node-3", or its
// User, "system:node:node-3"), whatever the number of nodes.
func Lookup(name string) (Identity, bool) {
	if n, ok := strings.CutPrefix(name, "system:node:"); ok {
		name = n
	}
	if n, ok := strings.CutPrefix(name, "node-"); ok {
		if i, err := strconv.Atoi(n); err == nil && i >= 1 && strconv.Itoa(i) == n {
			return Identities(i)[len(Identities(i))-1], true
		}
		return Identity{}, false
	}
	for _, id := range Identities(1) {
		if id.Name == name || id.User == name {
			return id, true
		}
	}
	return Identity{}, false
}

// CA is the cluster's certificate authority.
type CA struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	// PEM is Cert, PEM-encoded.
	PEM []byte
}

// LoadOrCreateCA reads DIR/pki/ca.{crt,key}, or makes them when neither
// exists (created says so). Half a CA (one file without the other) or a
// file that does not parse is an error: the kata never replaces a CA that
// kubeconfigs elsewhere may trust.
func LoadOrCreateCA(dataDir string, now time.Time) (ca *CA, created bool, err error) {
	dir := filepath.Join(dataDir, Dir)
	certFile, keyFile := filepath.Join(dir, CACert), filepath.Join(dir, CAKey)
	certPEM, cerr := os.ReadFile(certFile)
	keyPEM, kerr := os.ReadFile(keyFile)
	switch {
	case cerr == nil && kerr == nil:
		ca, err := parseCA(certPEM, keyPEM)
		if err != nil {
			return nil, false, fmt.Errorf("pki: %s: %w", dir, err)
		}
		return ca, false, nil
	case errors.Is(cerr, fs.ErrNotExist) && errors.Is(kerr, fs.ErrNotExist):
	case cerr != nil && !errors.Is(cerr, fs.ErrNotExist):
		return nil, false, fmt.Errorf("pki: %w", cerr)
	case kerr != nil && !errors.Is(kerr, fs.ErrNotExist):
		return nil, false, fmt.Errorf("pki: %w", kerr)
	default:
		return nil, false, fmt.Errorf("pki: %s holds half a CA (%s without %s, or the other way round); move the directory away to make a new CA", dir, CACert, CAKey)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("pki: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, false, fmt.Errorf("pki: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "kubekata-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(CAValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, false, fmt.Errorf("pki: %w", err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM, err = encodeKey(key)
	if err != nil {
		return nil, false, err
	}
	// The key first: a cert without its key is refused above, but a
	// key without its cert is too, so either order is safe to retry by
	// hand; the key first keeps the secret out of a half-made state.
	if err := admin.WriteFileAtomic(keyFile, keyPEM, 0o600); err != nil {
		return nil, false, fmt.Errorf("pki: %w", err)
	}
	if err := admin.WriteFileAtomic(certFile, certPEM, 0o644); err != nil {
		return nil, false, fmt.Errorf("pki: %w", err)
	}
	ca, err = parseCA(certPEM, keyPEM)
	if err != nil {
		return nil, false, fmt.Errorf("pki: %w", err)
	}
	return ca, true, nil
}

func parseCA(certPEM, keyPEM []byte) (*CA, error) {
	cert, err := parseCert(certPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CACert, err)
	}
	kb, _ := pem.Decode(keyPEM)
	if kb == nil {
		return nil, fmt.Errorf("%s holds no PEM key", CAKey)
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CAKey, err)
	}
	if !cert.IsCA || !key.PublicKey.Equal(cert.PublicKey) {
		return nil, fmt.Errorf("%s is not a CA whose key is %s", CACert, CAKey)
	}
	return &CA{Cert: cert, Key: key, PEM: certPEM}, nil
}

func parseCert(b []byte) (*x509.Certificate, error) {
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "CERTIFICATE" {
		return nil, errors.New("no PEM certificate")
	}
	return x509.ParseCertificate(blk.Bytes)
}

func encodeKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail on the platforms Go supports
	}
	return n
}

// Pair is a certificate and its key, PEM-encoded.
type Pair struct {
	Cert, Key []byte
}

// TLS is the pair as a tls.Certificate.
func (p Pair) TLS() (tls.Certificate, error) { return tls.X509KeyPair(p.Cert, p.Key) }

// IssueClient issues a client certificate for id.
func (ca *CA) IssueClient(id Identity, now time.Time) (Pair, error) {
	return ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: id.User, Organization: id.Groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, now)
}

// IssueServing issues the apiserver's serving certificate for hosts
// (names or IP addresses).
func (ca *CA) IssueServing(hosts []string, now time.Time) (Pair, error) {
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return ca.issue(tmpl, now)
}

func (ca *CA) issue(tmpl *x509.Certificate, now time.Time) (Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Pair{}, fmt.Errorf("pki: %w", err)
	}
	tmpl.SerialNumber = serial()
	tmpl.NotBefore = now.Add(-time.Hour)
	tmpl.NotAfter = now.Add(CertValidity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		return Pair{}, fmt.Errorf("pki: %w", err)
	}
	kp, err := encodeKey(key)
	if err != nil {
		return Pair{}, err
	}
	return Pair{Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), Key: kp}, nil
}

// WritePair writes DIR/pki/NAME.crt (0644) and NAME.key (0600).
func WritePair(dataDir, name string, p Pair) error {
	dir := filepath.Join(dataDir, Dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	if err := admin.WriteFileAtomic(filepath.Join(dir, name+".key"), p.Key, 0o600); err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	if err := admin.WriteFileAtomic(filepath.Join(dir, name+".crt"), p.Cert, 0o644); err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	return nil
}

// KubeconfigPath is where the kubeconfig of the identity called name is:
// DIR/kubeconfig for the admin, DIR/kubeconfigs/NAME.kubeconfig for the
// others (anonymous included: it trusts the CA and presents nothing).
func KubeconfigPath(dataDir, name string) string {
	if name == Admin {
		return filepath.Join(dataDir, AdminKubeconfig)
	}
	return filepath.Join(dataDir, KubeconfigsDir, name+".kubeconfig")
}

// Kubeconfig is a kubeconfig for the apiserver at url that trusts caPEM
// and presents p as user (p zero: no credentials), with the context
// kubekata (namespace default) current.
func Kubeconfig(url string, caPEM []byte, user string, p Pair) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n")
	if len(caPEM) > 0 {
		b.WriteString("    certificate-authority-data: " + base64.StdEncoding.EncodeToString(caPEM) + "\n")
	}
	b.WriteString("    server: " + url + "\n  name: kubekata\n")
	b.WriteString("contexts:\n- context:\n    cluster: kubekata\n    namespace: default\n    user: " + user + "\n  name: kubekata\n")
	b.WriteString("current-context: kubekata\nusers:\n- name: " + user + "\n  user:")
	if len(p.Cert) == 0 {
		b.WriteString(" {}\n")
		return b.String()
	}
	b.WriteString("\n    client-certificate-data: " + base64.StdEncoding.EncodeToString(p.Cert) + "\n")
	b.WriteString("    client-key-data: " + base64.StdEncoding.EncodeToString(p.Key) + "\n")
	return b.String()
}

// Server is the server a kubeconfig this package (or harness/cluster)
// wrote points at, "" when none.
func Server(kubeconfig []byte) string {
	for _, l := range strings.Split(string(kubeconfig), "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), "server: "); ok {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// ClientTLS is the TLS configuration that trusts DIR's CA and presents
// the certificate of the identity called name (none for Anonymous).
func ClientTLS(dataDir, name string) (*tls.Config, error) {
	dir := filepath.Join(dataDir, Dir)
	caPEM, err := os.ReadFile(filepath.Join(dir, CACert))
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("pki: %s holds no certificate", filepath.Join(dir, CACert))
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if name == Anonymous {
		return cfg, nil
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key"))
	if err != nil {
		return nil, fmt.Errorf("pki: the certificate of %s: %w", name, err)
	}
	cfg.Certificates = []tls.Certificate{cert}
	return cfg, nil
}

// Pool is a pool holding only ca.
func (ca *CA) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	return pool
}
