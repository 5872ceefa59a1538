package admissiontest_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/admissiontest"
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/storage"
	admission "github.com/kubekata/kubekata/solutions/05-admission"
)

// The mutants of steps 07-13 (admission). Each is the reference with one
// rule broken, by a store that misleads it, by a wrapper around the
// handler behind the gate, or by a wrapper around the whole gate
// (around), and must fail exactly the steps listed. The runner is
// mutants_test.go's.
func init() {
	register(map[string]mutant{
		// Admission runs on reads: a read is refused where a create of a
		// pod in its namespace would be (a terminating or missing
		// namespace, a full quota, ...), as if the gate admitted the
		// read as a write.
		"admission-on-reads": {around: admissionOnReads,
			fails: []string{"13-writes-only"}},
		// A create the gate refused in admission still reaches the
		// apiserver (which stores it); the client sees the refusal.
		"refused-create-reaches-next": {around: refusedCreateReachesNext,
			fails: []string{"08-namespace-lifecycle", "09-limit-range", "10-resource-quota", "11-validating-policy", "12-node-restriction", "13-writes-only"}},
		// The pod defaults overwrite what the client set.
		"defaults-override-client": {around: onNext(overrideDefaults),
			fails: []string{"07-defaults"}},
		// The not-ready and unreachable tolerations are added whatever
		// the pod tolerates already.
		"tolerations-always-added": {around: onNext(alwaysAddTolerations),
			fails: []string{"07-defaults"}},
		// The pull policy from a naive reading of the image: a registry's
		// port is taken for a tag.
		"pull-policy-port-is-tag": {around: onNext(naivePullPolicy),
			fails: []string{"07-defaults"}},
		// LimitRanger's defaults replace the requests and limits a
		// container set.
		"limit-range-overrides-client": {around: onNext(limitRangeOverrides),
			fails: []string{"09-limit-range"}},
		// LimitRanger's min and max are not enforced: the store hides
		// them.
		"limit-range-bounds-ignored": {store: func(s storage.Store) storage.Store {
			return &mapStore{Store: s, prefixes: []string{"/registry/limitranges/"}, f: dropBounds}
		}, fails: []string{"09-limit-range", "10-resource-quota"}},
		// The quota is checked but its usage never written: status.used
		// is put back as it was after every create.
		"quota-not-charged": {around: quotaNotCharged,
			fails: []string{"10-resource-quota", "11-validating-policy"}},
		// The charge is given back when the apiserver refuses the create.
		"quota-refunded-on-failure": {around: quotaRefunded,
			fails: []string{"10-resource-quota"}},
		// A pod refused by an earlier plugin (LimitRanger, the policy) is
		// charged to the quotas of its namespace all the same.
		"quota-charged-for-refused-pod": {around: quotaChargedForRefused,
			fails: []string{"10-resource-quota", "11-validating-policy", "13-writes-only"}},
		// The quota is charged with a blind write, not a compare-and-swap:
		// concurrent creates that read the same usage all pass. The
		// store drops the compares on quotas, and makes the race certain
		// by holding step 10's concurrent reads of the quotas of
		// namespace race until all of them are under way.
		"quota-charge-without-compare": {store: func(s storage.Store) storage.Store {
			return &blindQuota{Store: s, open: make(chan struct{})}
		}, fails: []string{"10-resource-quota"}},
		// A namespace that is not in the store is taken for an Active
		// one.
		"missing-namespace-is-active": {store: func(s storage.Store) storage.Store { return missingNamespaceActive{s} },
			fails: []string{"08-namespace-lifecycle", "13-writes-only"}},
		// kube-public may be deleted: its DELETE skips the gate.
		"kube-public-deletable": {around: func(_ context.Context, _ pipeline.Config, filter func(http.Handler) http.Handler, next http.Handler) http.Handler {
			gate := filter(next)
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodDelete && r.URL.Path == "/api/v1/namespaces/kube-public" {
					next.ServeHTTP(w, r)
					return
				}
				gate.ServeHTTP(w, r)
			})
		}, fails: []string{"08-namespace-lifecycle"}},
		// NamespaceLifecycle refuses every write in a terminating
		// namespace, not only creates.
		"terminating-refuses-all-writes": {around: terminatingRefusesAllWrites,
			fails: []string{"08-namespace-lifecycle"}},
		// The deny-latest-tag policy runs on create only: updates and
		// patches go through a gate without it.
		"policy-skipped-on-update": {around: policySkippedOnUpdate,
			fails: []string{"11-validating-policy"}},
		// The policy judges pods only, not the pod templates of
		// workloads: a Deployment goes through a gate without it.
		"policy-ignores-templates": {around: laxWhen(func(r *http.Request) bool {
			return strings.Contains(r.URL.Path, "/deployments")
		}), fails: []string{"11-validating-policy"}},
		// The policy judges status updates too: it refuses a kubelet's
		// report on a pod made before it.
		"policy-on-status": {around: statusAsUpdate,
			fails: []string{"11-validating-policy"}},
		// A patch's PUT carries no resourceVersion: a concurrent change
		// would be overwritten.
		"patch-loses-resource-version": {around: onNext(func(_ pipeline.Config, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if info, ok := pipeline.RequestInfoFrom(r.Context()); ok && info.Verb == "patch" && r.Method == http.MethodPut {
					var obj map[string]any
					if json.Unmarshal(buffered(r), &obj) == nil {
						if md, ok := obj["metadata"].(map[string]any); ok {
							delete(md, "resourceVersion")
						}
						data, _ := json.Marshal(obj)
						r.Body = io.NopCloser(bytes.NewReader(data))
						r.ContentLength = int64(len(data))
					}
				}
				next.ServeHTTP(w, r)
			})
		}), fails: []string{"11-validating-policy"}},
		// A patch that meets a conflict is not tried again: within one
		// request, only the first PUT reaches the apiserver, and after
		// a 409 every later one gets the same 409.
		"conflict-not-retried": {around: conflictNotRetried,
			fails: []string{"11-validating-policy"}},
		// A patch is forwarded as the PATCH it was, not as a PUT of the
		// admitted object.
		"patch-forwarded-as-patch": {around: onNext(putAsPatch),
			fails: []string{"11-validating-policy", "12-node-restriction"}},
		// NodeRestriction narrows a kubelet's writes of Nodes only: its
		// pod writes go through as if an administrator sent them.
		"node-restriction-ignores-pods": {before: func(_ pipeline.Config, r *http.Request) {
			auth := r.Header.Get("Authorization")
			if (auth == "Bearer "+admissiontest.TokenNode1 || auth == "Bearer "+admissiontest.TokenNode2) && strings.Contains(r.URL.Path, "/pods/") {
				r.Header.Set("Authorization", "Bearer "+admissiontest.TokenAdmin)
			}
		}, fails: []string{"12-node-restriction"}},
		// A node is known by its name alone: a user system:node:<n> is
		// narrowed even outside the group system:nodes (the gate sees
		// the group added to its certificate).
		"node-identity-by-name-only": {before: func(_ pipeline.Config, r *http.Request) {
			if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 || len(r.TLS.VerifiedChains) == 0 {
				return
			}
			leaf := *r.TLS.PeerCertificates[0]
			if !strings.HasPrefix(leaf.Subject.CommonName, pipeline.NodeUserPrefix) || slices.Contains(leaf.Subject.Organization, pipeline.NodesGroup) {
				return
			}
			leaf.Subject.Organization = append(slices.Clone(leaf.Subject.Organization), pipeline.NodesGroup)
			tlsState := *r.TLS
			tlsState.PeerCertificates = []*x509.Certificate{&leaf}
			tlsState.VerifiedChains = [][]*x509.Certificate{{&leaf}}
			r.TLS = &tlsState
		}, fails: []string{"12-node-restriction"}},
		// NodeRestriction narrows a kubelet's pod writes only: its Node
		// writes go through as if an administrator sent them.
		"node-restriction-ignores-nodes": {before: func(_ pipeline.Config, r *http.Request) {
			auth := r.Header.Get("Authorization")
			if (auth == "Bearer "+admissiontest.TokenNode1 || auth == "Bearer "+admissiontest.TokenNode2) && strings.HasPrefix(r.URL.Path, "/api/v1/nodes") {
				r.Header.Set("Authorization", "Bearer "+admissiontest.TokenAdmin)
			}
		}, fails: []string{"12-node-restriction"}},
	})
}

// ------------------------------------------------------------ around

// onNext wraps only the handler behind the gate.
func onNext(wrap func(cfg pipeline.Config, next http.Handler) http.Handler) func(context.Context, pipeline.Config, func(http.Handler) http.Handler, http.Handler) http.Handler {
	return func(_ context.Context, cfg pipeline.Config, filter func(http.Handler) http.Handler, next http.Handler) http.Handler {
		return filter(wrap(cfg, next))
	}
}

// buffered reads r's body and gives r a fresh copy of it; it returns
// the body.
func buffered(r *http.Request) []byte {
	if r.Body == nil {
		return nil
	}
	data, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(data))
	r.ContentLength = int64(len(data))
	return data
}

// clone is r with a fresh copy of body.
func clone(r *http.Request, body []byte) *http.Request {
	c := r.Clone(r.Context())
	c.Body = io.NopCloser(bytes.NewReader(body))
	c.ContentLength = int64(len(body))
	return c
}

func copyRecorded(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// refusal is a 403 or 404 the gate answered itself in admission: not
// RBAC's ("cannot ..."), not authentication's.
func refusal(rec *httptest.ResponseRecorder) (string, bool) {
	if rec.Header().Get(admissiontest.NextHeader) != "" || (rec.Code != http.StatusForbidden && rec.Code != http.StatusNotFound) {
		return "", false
	}
	var st api.Status
	if json.Unmarshal(rec.Body.Bytes(), &st) != nil || strings.Contains(st.Message, " cannot ") {
		return "", false
	}
	return st.Message, true
}

// podCreate says whether r creates a pod, and in which namespace.
func podCreate(r *http.Request) (string, bool) {
	info := admission.NewRequestInfo(r.Method, r.URL.Path, r.URL.Query())
	return info.Namespace, info.Verb == "create" && info.Resource == "pods" && info.Subresource == ""
}

func admissionOnReads(_ context.Context, cfg pipeline.Config, filter func(http.Handler) http.Handler, next http.Handler) http.Handler {
	gate := filter(next)
	probeGate := filter(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) }))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := admission.NewRequestInfo(r.Method, r.URL.Path, r.URL.Query())
		if info.IsResourceRequest && info.Namespace != "" && (info.Verb == "get" || info.Verb == "list" || info.Verb == "watch") {
			pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"read"},"spec":{"containers":[{"name":"app","image":"busybox:1.36"}]}}`
			probe := httptest.NewRequestWithContext(r.Context(), http.MethodPost, "/api/v1/namespaces/"+info.Namespace+"/pods", strings.NewReader(pod))
			probe.Header.Set("Content-Type", "application/json")
			probe.Header.Set("Authorization", "Bearer "+admissiontest.TokenAdmin)
			rec := httptest.NewRecorder()
			probeGate.ServeHTTP(rec, probe)
			if _, ok := refusal(rec); ok {
				copyRecorded(w, rec)
				return
			}
		}
		gate.ServeHTTP(w, r)
	})
}

type reachedKey struct{}

func refusedCreateReachesNext(_ context.Context, _ pipeline.Config, filter func(http.Handler) http.Handler, next http.Handler) http.Handler {
	gate := filter(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := r.Context().Value(reachedKey{}).(*bool); ok {
			*p = true
		}
		next.ServeHTTP(w, r)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := buffered(r)
		reached := false
		rec := httptest.NewRecorder()
		gate.ServeHTTP(rec, clone(r, body).WithContext(context.WithValue(r.Context(), reachedKey{}, &reached)))
		if _, ok := refusal(rec); ok && !reached && r.Method == http.MethodPost {
			next.ServeHTTP(httptest.NewRecorder(), clone(r, body))
		}
		copyRecorded(w, rec)
	})
}

// editPod runs f on the pod of a POST of pods (no subresource) before
// next gets it.
func editPod(next http.Handler, f func(pod map[string]any, r *http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := podCreate(r); ok {
			var pod map[string]any
			if json.Unmarshal(buffered(r), &pod) == nil {
				f(pod, r)
				data, _ := json.Marshal(pod)
				r.Body = io.NopCloser(bytes.NewReader(data))
				r.ContentLength = int64(len(data))
			}
		}
		next.ServeHTTP(w, r)
	})
}

func overrideDefaults(_ pipeline.Config, next http.Handler) http.Handler {
	return editPod(next, func(pod map[string]any, _ *http.Request) {
		spec, _ := pod["spec"].(map[string]any)
		if spec == nil {
			return
		}
		spec["restartPolicy"], spec["terminationGracePeriodSeconds"], spec["dnsPolicy"] = "Always", 30, "ClusterFirst"
		spec["schedulerName"], spec["serviceAccountName"] = "default-scheduler", "default"
		for _, c := range containersOf(spec) {
			c["terminationMessagePath"], c["terminationMessagePolicy"] = "/dev/termination-log", "File"
		}
	})
}

func containersOf(spec map[string]any) []map[string]any {
	var out []map[string]any
	for _, field := range []string{"initContainers", "containers"} {
		list, _ := spec[field].([]any)
		for _, c := range list {
			if m, ok := c.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func alwaysAddTolerations(_ pipeline.Config, next http.Handler) http.Handler {
	return editPod(next, func(pod map[string]any, _ *http.Request) {
		spec, _ := pod["spec"].(map[string]any)
		if spec == nil {
			return
		}
		tols, _ := spec["tolerations"].([]any)
		for _, key := range []string{"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"} {
			found := false
			for _, t := range tols {
				m, _ := t.(map[string]any)
				if m["key"] == key && m["operator"] == "Exists" && m["effect"] == "NoExecute" && m["tolerationSeconds"] == float64(300) {
					found = true
				}
			}
			if !found {
				tols = append(tols, map[string]any{"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300})
			}
		}
		spec["tolerations"] = tols
	})
}

func limitRangeOverrides(cfg pipeline.Config, next http.Handler) http.Handler {
	return editPod(next, func(pod map[string]any, r *http.Request) {
		ns, _ := podCreate(r)
		resp, err := cfg.Store.Range(r.Context(), storage.RangeRequest{Prefix: "/registry/limitranges/" + ns + "/"})
		if err != nil {
			return
		}
		spec, _ := pod["spec"].(map[string]any)
		for _, kv := range resp.KVs {
			var lr api.LimitRange
			if json.Unmarshal(kv.Value, &lr) != nil {
				continue
			}
			for _, item := range lr.Spec.Limits {
				if item.Type != api.LimitTypeContainer {
					continue
				}
				for _, c := range containersOf(spec) {
					res, _ := c["resources"].(map[string]any)
					if res == nil {
						res = map[string]any{}
						c["resources"] = res
					}
					for field, defaults := range map[string]api.ResourceList{"limits": item.Default, "requests": item.DefaultRequest} {
						m, _ := res[field].(map[string]any)
						if m == nil {
							m = map[string]any{}
							res[field] = m
						}
						for name, q := range defaults {
							m[string(name)] = q.String()
						}
					}
				}
			}
		}
	})
}

// dropBounds removes min and max from a stored LimitRange.
func dropBounds(_ string, value []byte) []byte {
	var lr map[string]any
	if json.Unmarshal(value, &lr) != nil {
		return value
	}
	spec, _ := lr["spec"].(map[string]any)
	limits, _ := spec["limits"].([]any)
	for _, l := range limits {
		if m, ok := l.(map[string]any); ok {
			delete(m, "min")
			delete(m, "max")
		}
	}
	out, err := json.Marshal(lr)
	if err != nil {
		return value
	}
	return out
}

// quotas reads the quotas of ns.
func quotas(ctx context.Context, s storage.Store, ns string) []storage.KeyValue {
	resp, err := s.Range(ctx, storage.RangeRequest{Prefix: "/registry/resourcequotas/" + ns + "/"})
	if err != nil {
		return nil
	}
	return resp.KVs
}

func quotaNotCharged(_ context.Context, cfg pipeline.Config, filter func(http.Handler) http.Handler, next http.Handler) http.Handler {
	gate := filter(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ns, ok := podCreate(r)
		if !ok {
			gate.ServeHTTP(w, r)
			return
		}
		before := quotas(r.Context(), cfg.Store, ns)
		gate.ServeHTTP(w, r)
		for _, old := range before {
			if cur, err := cfg.Store.Get(r.Context(), old.Key); err == nil && !bytes.Equal(cur.Value, old.Value) {
				_, _ = storage.CompareAndSwap(r.Context(), cfg.Store, old.Key, old.Value, cur.ModRevision)
			}
		}
	})
}

func quotaChargedForRefused(_ context.Context, cfg pipeline.Config, filter func(http.Handler) http.Handler, next http.Handler) http.Handler {
	gate := filter(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ns, ok := podCreate(r)
		if !ok {
			gate.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		gate.ServeHTTP(rec, r)
		if msg, refused := refusal(rec); refused && !strings.Contains(msg, "exceeded quota") {
			for _, kv := range quotas(r.Context(), cfg.Store, ns) {
				var q api.ResourceQuota
				if json.Unmarshal(kv.Value, &q) != nil {
					continue
				}
				if q.Status.Used == nil {
					q.Status.Used = api.ResourceList{}
				}
				for _, name := range []api.ResourceName{"pods", "count/pods"} {
					if _, counted := q.Spec.Hard[name]; counted {
						used := q.Status.Used[name]
						used.Add(api.MustParse("1"))
						q.Status.Used[name] = used
					}
				}
				data, _ := json.Marshal(q)
				_, _ = storage.CompareAndSwap(r.Context(), cfg.Store, kv.Key, data, kv.ModRevision)
			}
		}
		copyRecorded(w, rec)
	})
}

// missingNamespaceActive answers a Get of a namespace that is not
// stored with an Active one.
type missingNamespaceActive struct{ storage.Store }

func (s missingNamespaceActive) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	kv, err := s.Store.Get(ctx, key)
	name, isNS := strings.CutPrefix(key, "/registry/namespaces/")
	if err == nil || !isNS {
		return kv, err
	}
	data, _ := json.Marshal(api.Namespace{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: api.ObjectMeta{Name: name}, Status: api.NamespaceStatus{Phase: api.NamespaceActive}})
	rev, _ := storage.CurrentRevision(ctx, s.Store)
	return storage.KeyValue{Key: key, Value: data, CreateRevision: rev, ModRevision: rev, Version: 1}, nil
}

func terminatingRefusesAllWrites(_ context.Context, cfg pipeline.Config, filter func(http.Handler) http.Handler, next http.Handler) http.Handler {
	gate := filter(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := admission.NewRequestInfo(r.Method, r.URL.Path, r.URL.Query())
		write := info.Verb == "update" || info.Verb == "patch" || info.Verb == "delete"
		if info.IsResourceRequest && write && info.Namespace != "" {
			var ns api.Namespace
			if kv, err := cfg.Store.Get(r.Context(), "/registry/namespaces/"+info.Namespace); err == nil &&
				json.Unmarshal(kv.Value, &ns) == nil && ns.Status.Phase == api.NamespaceTerminating {
				msg := fmt.Sprintf("%s %q is forbidden: unable to create new content in namespace %s because it is being terminated", info.Resource, info.Name, info.Namespace)
				st := api.Status{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: api.StatusFailure, Message: msg,
					Reason: api.StatusReasonForbidden, Code: http.StatusForbidden, Details: &api.StatusDetails{Name: info.Name, Kind: info.Resource}}
				data, _ := json.Marshal(st)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusForbidden)
				_, _ = w.Write(data)
				return
			}
		}
		gate.ServeHTTP(w, r)
	})
}

// laxWhen sends the requests lax picks through the reference built
// without the validating policies.
func laxWhen(lax func(r *http.Request) bool) func(context.Context, pipeline.Config, func(http.Handler) http.Handler, http.Handler) http.Handler {
	return func(ctx context.Context, cfg pipeline.Config, filter func(http.Handler) http.Handler, next http.Handler) http.Handler {
		gate := filter(next)
		noPolicies := cfg
		noPolicies.Policies = nil
		laxFilter, err := admission.New(ctx, noPolicies)
		if err != nil {
			panic(fmt.Sprintf("admissiontest_test: the reference without policies: %v", err))
		}
		laxGate := laxFilter(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if lax(r) {
				laxGate.ServeHTTP(w, r)
				return
			}
			gate.ServeHTTP(w, r)
		})
	}
}

var policySkippedOnUpdate = laxWhen(func(r *http.Request) bool {
	return r.Method == http.MethodPut || r.Method == http.MethodPatch
})

// putAsPatch turns the PUT a gate sends for a PATCH back into a PATCH:
// a gate that forwards the patch as it came. (It cannot give back the
// client's body; it sends the admitted object as a merge patch.)
func putAsPatch(_ pipeline.Config, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info, ok := pipeline.RequestInfoFrom(r.Context()); ok && info.Verb == "patch" && r.Method == http.MethodPut {
			r = r.Clone(r.Context())
			r.Method = http.MethodPatch
			r.Header.Set("Content-Type", "application/merge-patch+json")
		}
		next.ServeHTTP(w, r)
	})
}

// blindQuota drops every compare on a quota from transactions, and
// holds the answers of the first raceClients reads of the quotas of
// namespace race until all of them have been read (or 2s have passed),
// so that every concurrent create decides on the same usage.
type blindQuota struct {
	storage.Store
	mu      sync.Mutex
	arrived int
	open    chan struct{}
}

// raceClients is how many concurrent creates step 10 sends to
// namespace race.
const raceClients = 8

func (s *blindQuota) Range(ctx context.Context, req storage.RangeRequest) (storage.RangeResponse, error) {
	resp, err := s.Store.Range(ctx, req)
	if req.Prefix == "/registry/resourcequotas/race/" {
		s.mu.Lock()
		s.arrived++
		if s.arrived == raceClients {
			close(s.open)
		}
		s.mu.Unlock()
		timer := time.NewTimer(2 * time.Second)
		select {
		case <-s.open:
		case <-ctx.Done():
		case <-timer.C:
		}
		timer.Stop()
	}
	return resp, err
}

func (s *blindQuota) Txn(ctx context.Context, txn storage.Txn) (storage.TxnResponse, error) {
	var keep []storage.Compare
	for _, c := range txn.If {
		if !strings.HasPrefix(c.Key, "/registry/resourcequotas/") {
			keep = append(keep, c)
		}
	}
	txn.If = keep
	return s.Store.Txn(ctx, txn)
}

// naivePullPolicy recomputes the pull policy of every container that
// does not say Never from the text after the image's last colon.
func naivePullPolicy(_ pipeline.Config, next http.Handler) http.Handler {
	return editPod(next, func(pod map[string]any, _ *http.Request) {
		spec, _ := pod["spec"].(map[string]any)
		for _, c := range containersOf(spec) {
			image, _ := c["image"].(string)
			if c["imagePullPolicy"] == "Never" || strings.Contains(image, "@") {
				continue
			}
			policy := "IfNotPresent"
			if i := strings.LastIndex(image, ":"); i < 0 || image[i+1:] == "latest" {
				policy = "Always"
			}
			c["imagePullPolicy"] = policy
		}
	})
}

type conflictKey struct{}

func conflictNotRetried(_ context.Context, _ pipeline.Config, filter func(http.Handler) http.Handler, next http.Handler) http.Handler {
	gate := filter(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, _ := r.Context().Value(conflictKey{}).(*httptest.ResponseRecorder)
		if seen != nil && seen.Code == http.StatusConflict {
			copyRecorded(w, seen)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if seen != nil && rec.Code == http.StatusConflict {
			*seen = *rec
		}
		copyRecorded(w, rec)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := httptest.NewRecorder()
		gate.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), conflictKey{}, seen)))
	})
}

func quotaRefunded(_ context.Context, cfg pipeline.Config, filter func(http.Handler) http.Handler, next http.Handler) http.Handler {
	gate := filter(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ns, ok := podCreate(r)
		if !ok {
			gate.ServeHTTP(w, r)
			return
		}
		before := quotas(r.Context(), cfg.Store, ns)
		rec := httptest.NewRecorder()
		gate.ServeHTTP(rec, r)
		if rec.Header().Get(admissiontest.NextHeader) != "" && rec.Code >= 300 {
			for _, old := range before {
				if cur, err := cfg.Store.Get(r.Context(), old.Key); err == nil {
					_, _ = storage.CompareAndSwap(r.Context(), cfg.Store, old.Key, old.Value, cur.ModRevision)
				}
			}
		}
		copyRecorded(w, rec)
	})
}

type statusPathKey struct{}

// statusAsUpdate admits an administrator's update of a pod's status as
// an update of the pod (so that the policy judges it), and forwards it
// to its own path.
func statusAsUpdate(_ context.Context, _ pipeline.Config, filter func(http.Handler) http.Handler, next http.Handler) http.Handler {
	gate := filter(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if path, ok := r.Context().Value(statusPathKey{}).(string); ok {
			r = r.Clone(r.Context())
			r.URL.Path = path
		}
		next.ServeHTTP(w, r)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only the administrator's: a kubelet's would be refused by RBAC
		// (it may update pods/status, not pods) before the policy.
		admin := r.Header.Get("Authorization") == "Bearer "+admissiontest.TokenAdmin
		if admin && r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/pods/") && strings.HasSuffix(r.URL.Path, "/status") {
			path := r.URL.Path
			r = r.WithContext(context.WithValue(r.Context(), statusPathKey{}, path))
			r.URL.Path = strings.TrimSuffix(path, "/status")
		}
		gate.ServeHTTP(w, r)
	})
}
