package servicealloc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/apiservertest"
	"github.com/kubekata/kubekata/harness/protoedge"
	"github.com/kubekata/kubekata/harness/servicealloc"
	"github.com/kubekata/kubekata/harness/servicenet"
	"github.com/kubekata/kubekata/harness/storage"
	apiserver "github.com/kubekata/kubekata/solutions/04-apiserver"
	services "github.com/kubekata/kubekata/solutions/14-services"
)

// The registry around the reference apiserver and the reference
// allocators (exercise 14's), on a /28 service range: 127.96.0.1 to
// 127.96.0.14, 14 addresses.
const cidr = "127.96.0.0/28"

type env struct {
	t          *testing.T
	h          http.Handler
	store      storage.Store
	ips, ports servicenet.Allocator
}

func newEnv(t *testing.T) *env {
	t.Helper()
	store := storage.NewMemory()
	t.Cleanup(func() { store.Close() })
	e := &env{t: t, store: store}
	e.wrap()
	return e
}

// wrap (re)makes the registry over the store with fresh allocators, as a
// restart does.
func (e *env) wrap() []string {
	e.t.Helper()
	var err error
	if e.ips, err = services.NewIPRange(cidr); err != nil {
		e.t.Fatal(err)
	}
	if e.ports, err = services.NewPortRange(servicenet.DefaultNodePortRange); err != nil {
		e.t.Fatal(err)
	}
	r, repairs, err := servicealloc.Wrap(apiserver.New(e.store), e.ips, e.ports)
	if err != nil {
		e.t.Fatalf("Wrap: %v", err)
	}
	e.h = r
	return repairs
}

// do sends one request and returns the code and the body.
func (e *env) do(method, path, contentType, body string) (int, []byte) {
	e.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

const svcs = "/api/v1/namespaces/default/services"

// create POSTs a Service and wants code.
func (e *env) create(body string, code int) (*api.Service, *api.Status) {
	e.t.Helper()
	got, b := e.do(http.MethodPost, svcs, "application/json", body)
	if got != code {
		e.t.Fatalf("POST %s %s = %d, want %d: %s", svcs, body, got, code, b)
	}
	return decode(e.t, b)
}

func decode(t *testing.T, b []byte) (*api.Service, *api.Status) {
	t.Helper()
	var kind struct{ Kind string }
	if err := json.Unmarshal(b, &kind); err != nil {
		t.Fatalf("response %q: %v", b, err)
	}
	if kind.Kind == "Status" {
		var st api.Status
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		return nil, &st
	}
	var s api.Service
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s, nil
}

func svc(name, extra string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":%q},"spec":{"selector":{"app":%q},"ports":[{"name":"http","port":80,"targetPort":8080}]%s}}`, name, name, extra)
}

func (e *env) wantHeld(ip string, want bool) {
	e.t.Helper()
	if got := e.ips.Has(ip); got != want {
		e.t.Errorf("ips.Has(%q) = %v, want %v", ip, got, want)
	}
}

func (e *env) wantPortHeld(p int32, want bool) {
	e.t.Helper()
	if got := e.ports.Has(fmt.Sprint(p)); got != want {
		e.t.Errorf("ports.Has(%d) = %v, want %v", p, got, want)
	}
}

func wantStatus(t *testing.T, st *api.Status, code int32, reason api.StatusReason, msg string) {
	t.Helper()
	if st == nil {
		t.Fatalf("got a Service, want a Status %d %q", code, msg)
	}
	if st.Code != code || st.Reason != reason || st.Message != msg {
		t.Errorf("Status = %d %s %q, want %d %s %q", st.Code, st.Reason, st.Message, code, reason, msg)
	}
}

// A Service gets the next free address and the fields upstream's
// registry sets; one asked for is honoured, or refused with upstream's
// 422 when taken or out of the range; headless and ExternalName get none.
func TestCreateAllocatesClusterIP(t *testing.T) {
	e := newEnv(t)
	web, _ := e.create(svc("web", ""), http.StatusCreated)
	ip := web.Spec.ClusterIP
	if ip == "" || !strings.HasPrefix(ip, "127.96.0.") || !slices.Equal(web.Spec.ClusterIPs, []string{ip}) {
		t.Fatalf("POST web: clusterIP %q clusterIPs %q, want an address of %s in both", ip, web.Spec.ClusterIPs, cidr)
	}
	if !slices.Equal(web.Spec.IPFamilies, []api.IPFamily{"IPv4"}) || web.Spec.IPFamilyPolicy == nil || *web.Spec.IPFamilyPolicy != "SingleStack" {
		t.Errorf("POST web: ipFamilies %v ipFamilyPolicy %v, want [IPv4] SingleStack", web.Spec.IPFamilies, web.Spec.IPFamilyPolicy)
	}
	e.wantHeld(ip, true)

	free := e.ips.Free()
	_, st := e.create(svc("db", `,"clusterIP":"`+ip+`"`), http.StatusUnprocessableEntity)
	wantStatus(t, st, 422, api.StatusReasonInvalid,
		`Service "db" is invalid: spec.clusterIPs: Invalid value: []string{"`+ip+`"}: failed to allocate IP `+ip+`: provided IP is already allocated`)
	if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != "spec.clusterIPs" || st.Details.Kind != "Service" || st.Details.Name != "db" {
		t.Errorf("422 details = %+v, want kind Service, name db, one cause on spec.clusterIPs", st.Details)
	}
	_, st = e.create(svc("far", `,"clusterIP":"10.0.0.1"`), http.StatusUnprocessableEntity)
	wantStatus(t, st, 422, api.StatusReasonInvalid,
		`Service "far" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.1"}: failed to allocate IP 10.0.0.1: the provided IP (10.0.0.1) is not in the valid range. The range of valid IPs is `+cidr)
	asked, _ := e.create(svc("asked", `,"clusterIP":"127.96.0.12"`), http.StatusCreated)
	if asked.Spec.ClusterIP != "127.96.0.12" {
		t.Errorf("POST asked with clusterIP 127.96.0.12: got %q", asked.Spec.ClusterIP)
	}
	head, _ := e.create(svc("head", `,"clusterIP":"None"`), http.StatusCreated)
	if head.Spec.ClusterIP != "None" || !slices.Equal(head.Spec.ClusterIPs, []string{"None"}) {
		t.Errorf("POST head (headless): clusterIP %q clusterIPs %q, want None", head.Spec.ClusterIP, head.Spec.ClusterIPs)
	}
	ext, _ := e.create(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"ext"},"spec":{"type":"ExternalName","externalName":"example.com"}}`, http.StatusCreated)
	if ext.Spec.ClusterIP != "" {
		t.Errorf("POST ext (ExternalName): clusterIP %q, want none", ext.Spec.ClusterIP)
	}
	if got := e.ips.Free(); got != free-1 {
		t.Errorf("Free() = %d after the refused, headless and ExternalName Services and asked, want %d (only asked took one)", got, free-1)
	}
}

// A full range is upstream's 500; a create the apiserver refuses gives its
// address back, and so does a dry run.
func TestCreateFullRefusedAndDryRun(t *testing.T) {
	e := newEnv(t)
	e.create(svc("web", ""), http.StatusCreated)
	free := e.ips.Free()
	_, st := e.create(svc("web", ""), http.StatusConflict) // AlreadyExists
	if st == nil || st.Reason != api.StatusReasonAlreadyExists {
		t.Errorf("POST web again: %+v, want AlreadyExists", st)
	}
	if got := e.ips.Free(); got != free {
		t.Errorf("Free() = %d after a refused create, want %d", got, free)
	}
	e.consistent()
	for i := 0; e.ips.Free() > 0; i++ {
		e.create(svc(fmt.Sprintf("s%d", i), ""), http.StatusCreated)
	}
	_, st = e.create(svc("full", ""), http.StatusInternalServerError)
	wantStatus(t, st, 500, api.StatusReasonInternalError, "Internal error occurred: failed to allocate a serviceIP: range is full")
	e.consistent()
}

// A dry run keeps what the store keeps: nothing if the apiserver knows
// dryRun, the Service if it stored it anyway (exercise 04's does not
// know it).
func TestDryRunFollowsTheStore(t *testing.T) {
	e := newEnv(t)
	e.create(svc("web", `,"type":"NodePort"`), http.StatusCreated)
	code, b := e.do(http.MethodPost, svcs+"?dryRun=All", "application/json", svc("dry", `,"type":"NodePort"`))
	if code != http.StatusCreated {
		t.Fatalf("POST dry?dryRun=All = %d: %s", code, b)
	}
	if dry, _ := decode(t, b); dry.Spec.ClusterIP == "" {
		t.Errorf("POST dry?dryRun=All: no clusterIP, want the one it would get")
	}
	e.consistent()
	if code, b := e.do(http.MethodPut, svcs+"/web?dryRun=All", "application/json", svc("web", "")); code != http.StatusOK {
		t.Fatalf("PUT web?dryRun=All type ClusterIP = %d: %s", code, b)
	}
	e.consistent()
	if code, b := e.do(http.MethodDelete, svcs+"/web?dryRun=All", "", ""); code != http.StatusOK {
		t.Fatalf("DELETE web?dryRun=All = %d: %s", code, b)
	}
	e.consistent()
}

// consistent checks that the allocators hold exactly what the stored
// Services hold.
func (e *env) consistent() {
	e.t.Helper()
	code, b := e.do(http.MethodGet, "/api/v1/services", "", "")
	if code != http.StatusOK {
		e.t.Fatalf("GET /api/v1/services = %d: %s", code, b)
	}
	var list struct{ Items []api.Service }
	if err := json.Unmarshal(b, &list); err != nil {
		e.t.Fatal(err)
	}
	ips, ports := 0, 0
	for _, s := range list.Items {
		if ip := s.Spec.ClusterIP; ip != "" && ip != "None" {
			ips++
			if !e.ips.Has(ip) {
				e.t.Errorf("Service %s holds %s, which the allocator says is free", s.Name, ip)
			}
		}
		for _, p := range s.Spec.Ports {
			if p.NodePort != 0 {
				ports++
				if !e.ports.Has(fmt.Sprint(p.NodePort)) {
					e.t.Errorf("Service %s holds nodePort %d, which the allocator says is free", s.Name, p.NodePort)
				}
			}
		}
	}
	if got := e.ips.Free(); got != 14-ips {
		e.t.Errorf("ips.Free() = %d with %d addresses stored, want %d", got, ips, 14-ips)
	}
	if got := e.ports.Free(); got != 2768-ports {
		e.t.Errorf("ports.Free() = %d with %d nodePorts stored, want %d", got, ports, 2768-ports)
	}
}

// NodePort Services get a port each (one asked for honoured, a taken one
// refused with upstream's 422); TCP and UDP on one port share theirs.
func TestCreateAllocatesNodePorts(t *testing.T) {
	e := newEnv(t)
	np, _ := e.create(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"np"},"spec":{"type":"NodePort","selector":{"app":"np"},"ports":[
		{"name":"http","port":80,"nodePort":30080},{"name":"dns","port":53,"protocol":"UDP"},{"name":"dns-tcp","port":53,"protocol":"TCP"}]}}`, http.StatusCreated)
	ps := np.Spec.Ports
	if len(ps) != 3 || ps[0].NodePort != 30080 || ps[1].NodePort == 0 || ps[1].NodePort != ps[2].NodePort {
		t.Fatalf("POST np: nodePorts %v, want 30080 for http and one shared by dns and dns-tcp", ps)
	}
	e.wantPortHeld(30080, true)
	e.wantPortHeld(ps[1].NodePort, true)
	_, st := e.create(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"np2"},"spec":{"type":"NodePort","ports":[{"port":81},{"port":80,"nodePort":30080}]}}`, http.StatusUnprocessableEntity)
	wantStatus(t, st, 422, api.StatusReasonInvalid, `Service "np2" is invalid: spec.ports[1].nodePort: Invalid value: 30080: provided port is already allocated`)
	if free := e.ports.Free(); free != 2768-2 {
		t.Errorf("ports.Free() = %d after np2 was refused, want %d (np's two; the one np2's port 81 took given back)", free, 2768-2)
	}
}

// An update keeps what it leaves out, refuses a new ClusterIP, and
// allocates or frees nodePorts as the type changes; PUT and PATCH alike.
func TestUpdateKeepsAndChanges(t *testing.T) {
	e := newEnv(t)
	web, _ := e.create(svc("web", ""), http.StatusCreated)
	ip := web.Spec.ClusterIP
	put := func(body string, code int) (*api.Service, *api.Status) {
		t.Helper()
		got, b := e.do(http.MethodPut, svcs+"/web", "application/json", body)
		if got != code {
			t.Fatalf("PUT web %s = %d, want %d: %s", body, got, code, b)
		}
		return decode(t, b)
	}
	patchWeb := func(ct, body string, code int) (*api.Service, *api.Status) {
		t.Helper()
		got, b := e.do(http.MethodPatch, svcs+"/web", ct, body)
		if got != code {
			t.Fatalf("PATCH web %s = %d, want %d: %s", body, got, code, b)
		}
		return decode(t, b)
	}
	// kubectl replace with a manifest that never had a clusterIP.
	got, _ := put(svc("web", ""), http.StatusOK)
	if got.Spec.ClusterIP != ip {
		t.Errorf("PUT web without clusterIP: clusterIP %q, want %q kept", got.Spec.ClusterIP, ip)
	}
	_, st := put(svc("web", `,"clusterIP":"127.96.0.13"`), http.StatusUnprocessableEntity)
	wantStatus(t, st, 422, api.StatusReasonInvalid, `Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"127.96.0.13"}: may not change once set`)
	e.wantHeld("127.96.0.13", false)

	got, _ = patchWeb("application/merge-patch+json", `{"spec":{"type":"NodePort"}}`, http.StatusOK)
	np := got.Spec.Ports[0].NodePort
	if got.Spec.ClusterIP != ip || np == 0 {
		t.Fatalf("PATCH web type NodePort: clusterIP %q nodePort %d, want %q and a nodePort", got.Spec.ClusterIP, np, ip)
	}
	e.wantPortHeld(np, true)
	got, _ = patchWeb("application/strategic-merge-patch+json", `{"metadata":{"labels":{"tier":"front"}}}`, http.StatusOK)
	if got.Spec.Ports[0].NodePort != np || got.Labels["tier"] != "front" {
		t.Errorf("PATCH web labels: nodePort %d labels %v, want %d kept and tier=front", got.Spec.Ports[0].NodePort, got.Labels, np)
	}
	// A PUT without the nodePort keeps it (by the port's name).
	got, _ = put(svc("web", `,"type":"NodePort"`), http.StatusOK)
	if got.Spec.Ports[0].NodePort != np {
		t.Errorf("PUT web NodePort without nodePort: %d, want %d kept", got.Spec.Ports[0].NodePort, np)
	}
	got, _ = patchWeb("application/merge-patch+json", `{"spec":{"type":"ClusterIP"}}`, http.StatusOK)
	if got.Spec.Ports[0].NodePort != 0 {
		t.Errorf("PATCH web type ClusterIP: nodePort %d, want none", got.Spec.Ports[0].NodePort)
	}
	e.wantPortHeld(np, false)
	got, _ = patchWeb("application/merge-patch+json", `{"spec":{"type":"ExternalName","externalName":"example.com","clusterIP":null,"clusterIPs":null,"ipFamilies":null,"ipFamilyPolicy":null,"selector":null}}`, http.StatusOK)
	if got.Spec.ClusterIP != "" {
		t.Errorf("PATCH web type ExternalName: clusterIP %q, want none", got.Spec.ClusterIP)
	}
	e.wantHeld(ip, false)
	e.consistent()
}

// Deleting a Service frees what it held, unless finalizers keep it: then
// the update that removes the last one does.
func TestDeleteReleases(t *testing.T) {
	e := newEnv(t)
	web, _ := e.create(svc("web", `,"type":"NodePort"`), http.StatusCreated)
	kept, _ := e.create(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"kept","finalizers":["example.com/hold"]},"spec":{"ports":[{"port":80}]}}`, http.StatusCreated)
	if code, b := e.do(http.MethodDelete, svcs+"/web", "", ""); code != http.StatusOK {
		t.Fatalf("DELETE web = %d: %s", code, b)
	}
	e.wantHeld(web.Spec.ClusterIP, false)
	e.wantPortHeld(web.Spec.Ports[0].NodePort, false)

	if code, b := e.do(http.MethodDelete, svcs+"/kept", "", ""); code != http.StatusOK {
		t.Fatalf("DELETE kept = %d: %s", code, b)
	}
	e.wantHeld(kept.Spec.ClusterIP, true)
	if code, b := e.do(http.MethodPatch, svcs+"/kept", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`); code != http.StatusOK {
		t.Fatalf("PATCH kept finalizers null = %d: %s", code, b)
	}
	if code, _ := e.do(http.MethodGet, svcs+"/kept", "", ""); code != http.StatusNotFound {
		t.Fatalf("GET kept after its last finalizer went = %d, want 404", code)
	}
	e.wantHeld(kept.Spec.ClusterIP, false)
	e.consistent()
}

// A restart takes what the stored Services hold before it hands out
// anything.
func TestRestartRepairs(t *testing.T) {
	e := newEnv(t)
	var held []string
	for _, name := range []string{"a", "b", "c"} {
		s, _ := e.create(svc(name, `,"type":"NodePort"`), http.StatusCreated)
		held = append(held, s.Spec.ClusterIP)
	}
	if repairs := e.wrap(); len(repairs) != 0 {
		t.Errorf("Wrap over a consistent store: repairs %q, want none", repairs)
	}
	for _, ip := range held {
		e.wantHeld(ip, true)
	}
	if got := e.ports.Free(); got != 2768-3 {
		t.Errorf("ports.Free() after a restart = %d, want %d", got, 2768-3)
	}
	d, _ := e.create(svc("d", ""), http.StatusCreated)
	if slices.Contains(held, d.Spec.ClusterIP) {
		t.Errorf("after a restart, d got %s, held by another Service", d.Spec.ClusterIP)
	}
}

// Creates at once each get their own address.
func TestConcurrentCreatesDistinct(t *testing.T) {
	e := newEnv(t)
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		got []string
	)
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest(http.MethodPost, svcs, strings.NewReader(svc(fmt.Sprintf("c%d", i), "")))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			e.h.ServeHTTP(rec, req)
			var s api.Service
			_ = json.Unmarshal(rec.Body.Bytes(), &s)
			mu.Lock()
			got = append(got, fmt.Sprintf("%d %s", rec.Code, s.Spec.ClusterIP))
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(got)
	if len(slices.Compact(slices.Clone(got))) != 10 || !strings.HasPrefix(got[0], "201 127.96.0.") {
		t.Errorf("10 creates at once: %q, want 10 × 201, each a different address", got)
	}
}

// kubectl, the real one, sees upstream's answers.
func TestKubectl(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH")
	}
	e := newEnv(t)
	srv := httptest.NewServer(protoedge.Wrap(e.h)) // kubectl create sends protobuf
	defer srv.Close()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(apiservertest.Kubeconfig(srv.URL, "default")), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(stdin string, args ...string) (string, error) {
		cmd := exec.Command(kubectl, args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "HOME="+dir, "KUBECACHEDIR="+filepath.Join(dir, "cache"))
		cmd.Stdin = strings.NewReader(stdin)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return strings.TrimSpace(out.String()), err
	}
	if out, err := run("", "create", "service", "clusterip", "web", "--tcp=80:8080"); err != nil || out != "service/web created" {
		t.Fatalf("kubectl create service clusterip web = %q, %v", out, err)
	}
	ip, err := run("", "get", "service", "web", "-o", "jsonpath={.spec.clusterIP}")
	if err != nil || !strings.HasPrefix(ip, "127.96.0.") {
		t.Fatalf("kubectl get service web -o jsonpath={.spec.clusterIP} = %q, %v", ip, err)
	}
	out, err := run(svc("db", `,"clusterIP":"`+ip+`"`), "apply", "-f", "-")
	want := `The Service "db" is invalid: spec.clusterIPs: Invalid value: []string{"` + ip + `"}: failed to allocate IP ` + ip + `: provided IP is already allocated`
	if err == nil || !strings.Contains(out, want) {
		t.Errorf("kubectl apply of db asking for web's address = %q, %v; want it to fail with %q", out, err, want)
	}
	if out, err := run("", "delete", "service", "web"); err != nil {
		t.Fatalf("kubectl delete service web = %q, %v", out, err)
	}
	if e.ips.Has(ip) {
		t.Errorf("after kubectl delete service web, ips.Has(%q) = true, want it free", ip)
	}
}
