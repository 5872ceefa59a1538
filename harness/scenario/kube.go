package scenario

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	patchpkg "github.com/kubekata/kubekata/harness/patch"
	"sigs.k8s.io/yaml"
)

// object is an API object as the server sent it, decoded with
// json.Number so that printing a field shows the server's digits.
type object = map[string]any

// kube talks to an apiserver over Kubernetes' REST paths with untyped
// JSON, so that get shows what the server said, fields the kata's Go
// types do not model included.
type kube struct {
	base string
	hc   *http.Client
	// token, when set, goes with every request as a bearer token
	// (`as --token`).
	token string
}

// statusError is a request the server answered with a Status.
type statusError struct {
	code    int
	reason  string
	message string
}

// Error prints the way kubectl reports a server error
// (staging/src/k8s.io/kubectl/pkg/cmd/util/helpers.go,
// StandardErrorMessage).
func (e *statusError) Error() string {
	switch e.reason {
	case "":
		return "Error from server: " + e.message
	case "Unauthorized":
		return fmt.Sprintf("error: You must be logged in to the server (%s)", e.message)
	}
	return fmt.Sprintf("Error from server (%s): %s", e.reason, e.message)
}

// newStatusError reads a reply outside 2xx: the Status's message and
// reason when the body is one, else the body as the message.
func newStatusError(code int, data []byte) *statusError {
	se := &statusError{code: code, message: strings.TrimSpace(string(data))}
	if obj, err := decodeObject(data); err == nil {
		if m, ok := obj["message"].(string); ok {
			se.message = m
		}
		se.reason, _ = obj["reason"].(string)
	}
	return se
}

func isNotFound(err error) bool {
	var se *statusError
	return errors.As(err, &se) && se.code == http.StatusNotFound
}

// ref names a collection or one object: RESOURCE, RESOURCE/NAME for a
// cluster-scoped kind, RESOURCE/NS and RESOURCE/NS/NAME for a namespaced
// one. RESOURCE is what kubectl accepts: pods, pod, po, deployments.apps.
type ref struct {
	kind      api.Kind
	namespace string
	name      string
}

func parseRef(s string) (ref, error) {
	parts := strings.Split(s, "/")
	k, ok := api.ResolveResource(parts[0])
	if !ok {
		return ref{}, fmt.Errorf("scenario: %q: the server doesn't have a resource type %q", s, parts[0])
	}
	r := ref{kind: k}
	switch {
	case k.Namespaced && len(parts) <= 3:
		if len(parts) > 1 {
			r.namespace = parts[1]
		}
		if len(parts) > 2 {
			r.name = parts[2]
		}
	case !k.Namespaced && len(parts) <= 2:
		if len(parts) > 1 {
			r.name = parts[1]
		}
	default:
		return ref{}, fmt.Errorf("scenario: %q: want RESOURCE/NAME for %s (cluster-scoped)", s, k.Resource)
	}
	if k.Namespaced && r.name != "" && r.namespace == "" {
		return ref{}, fmt.Errorf("scenario: %q: want RESOURCE/NAMESPACE/NAME", s)
	}
	return r, nil
}

// String is kubectl's TYPE/NAME ("pod/web").
func (r ref) String() string { return r.kind.Singular + "/" + r.name }

func (r ref) path() string { return client.Path(r.kind, r.namespace, r.name, "") }

// do sends one request to path (with its query) as the kube's identity,
// asking for JSON.
func (k *kube) do(ctx context.Context, method, path string, q url.Values, contentType string, body []byte) (*http.Response, error) {
	u := k.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if k.token != "" {
		req.Header.Set("Authorization", "Bearer "+k.token)
	}
	resp, err := k.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scenario: %s %s: %w", method, path, err)
	}
	return resp, nil
}

// send makes one request and decodes a JSON reply; an answer outside 2xx
// is a *statusError.
func (k *kube) send(ctx context.Context, method, path string, q url.Values, contentType string, body []byte) (object, error) {
	resp, err := k.do(ctx, method, path, q, contentType, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("scenario: %s %s: reading the reply: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, newStatusError(resp.StatusCode, data)
	}
	obj, err := decodeObject(data)
	if err != nil {
		return nil, fmt.Errorf("scenario: %s %s: %d with a body that is not a JSON object: %w", method, path, resp.StatusCode, err)
	}
	return obj, nil
}

func decodeObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj object
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// get reads one object, or a list when r names no object, narrowed by
// the label selector and the field selectors when given.
func (k *kube) get(ctx context.Context, r ref, selector string, fields ...string) (object, error) {
	var q url.Values
	if selector != "" || len(fields) > 0 && fields[0] != "" {
		if r.name != "" {
			return nil, errors.New("scenario: a label or field selector needs a collection (RESOURCE or RESOURCE/NS), not one object")
		}
		q = url.Values{}
		if selector != "" {
			q.Set("labelSelector", selector)
		}
		if len(fields) > 0 && fields[0] != "" {
			q.Set("fieldSelector", fields[0])
		}
	}
	return k.send(ctx, http.MethodGet, r.path(), q, "", nil)
}

// del deletes one object.
func (k *kube) del(ctx context.Context, r ref) error {
	_, err := k.send(ctx, http.MethodDelete, r.path(), nil, "", nil)
	return err
}

// manifestRef is where a manifest's object lives; a namespaced object
// without a namespace goes to "default", as kubectl does with the
// kubeconfig the cluster writes.
func manifestRef(obj object) (ref, error) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	k, ok := api.LookupKind(apiVersion, kind)
	if !ok {
		return ref{}, fmt.Errorf("scenario: no kind %q in version %q", kind, apiVersion)
	}
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	name, _ := meta["name"].(string)
	if name == "" {
		return ref{}, fmt.Errorf("scenario: a %s in a manifest needs metadata.name", kind)
	}
	r := ref{kind: k, name: name}
	if k.Namespaced {
		ns, _ := meta["namespace"].(string)
		if ns == "" {
			ns = "default"
			meta["namespace"] = ns
		}
		r.namespace = ns
	}
	return r, nil
}

// lastApplied is the annotation in which kubectl apply keeps the manifest
// it applied last (staging/src/k8s.io/api/core/v1/annotation_key_constants.go,
// LastAppliedConfigAnnotation).
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// apply creates the manifest's object, or brings the existing one to it,
// the way client-side kubectl apply ends up
// (staging/src/k8s.io/kubectl/pkg/cmd/apply/patcher.go): the manifest is
// kept in the last-applied annotation, and an update is a strategic merge
// patch of the manifest that also removes the map fields the previous
// manifest had and this one dropped. It says what it did as kubectl does
// ("pod/web created", "configured", "unchanged").
//
// Simplified: an element dropped from a list is not removed (upstream
// computes $patch: delete directives from the schema's merge keys).
func (k *kube) apply(ctx context.Context, obj object) (string, error) {
	r, err := manifestRef(obj)
	if err != nil {
		return "", err
	}
	manifest := cloneJSON(obj).(object)
	meta := manifest["metadata"].(map[string]any)
	if anns, ok := meta["annotations"].(map[string]any); ok {
		delete(anns, lastApplied)
		if len(anns) == 0 {
			delete(meta, "annotations")
		}
	}
	applied, err := json.Marshal(manifest)
	if err != nil {
		return "", fmt.Errorf("scenario: %w", err)
	}
	withAnnotation := cloneJSON(manifest).(object)
	wm := withAnnotation["metadata"].(map[string]any)
	anns, _ := wm["annotations"].(map[string]any)
	if anns == nil {
		anns = map[string]any{}
		wm["annotations"] = anns
	}
	anns[lastApplied] = string(applied) + "\n"

	live, err := k.send(ctx, http.MethodGet, r.path(), nil, "", nil)
	if isNotFound(err) {
		body, err := json.Marshal(withAnnotation)
		if err != nil {
			return "", fmt.Errorf("scenario: %w", err)
		}
		coll := r
		coll.name = ""
		if _, err := k.send(ctx, http.MethodPost, coll.path(), nil, "application/json", body); err != nil {
			return "", err
		}
		return r.String() + " created", nil
	}
	if err != nil {
		return "", err
	}
	var previous object
	if s, ok := nested(live, "metadata", "annotations", lastApplied).(string); ok {
		previous, _ = decodeObject([]byte(s))
	}
	patch := withAnnotation
	if previous != nil {
		patch = mergeDeletions(previous, withAnnotation).(object)
	}
	body, err := json.Marshal(patch)
	if err != nil {
		return "", fmt.Errorf("scenario: %w", err)
	}
	// As kubectl apply, decide "unchanged" against the object read, not
	// by a resourceVersion after the write: another writer (the
	// scheduler's status condition, a controller) may change the object
	// between the read and the PATCH, and that is not this apply's doing.
	if same, err := patchKeeps(live, body); err != nil {
		return "", err
	} else if same {
		return r.String() + " unchanged", nil
	}
	out, err := k.send(ctx, http.MethodPatch, r.path(), nil, string(patchpkg.Strategic), body)
	if err != nil {
		return "", err
	}
	if nested(out, "metadata", "resourceVersion") == nested(live, "metadata", "resourceVersion") {
		return r.String() + " unchanged", nil
	}
	return r.String() + " configured", nil
}

// patchKeeps reports whether the strategic merge patch leaves live as it
// is, so that apply need not send it.
func patchKeeps(live object, body []byte) (bool, error) {
	doc, err := json.Marshal(live)
	if err != nil {
		return false, fmt.Errorf("scenario: %w", err)
	}
	out, err := patchpkg.Apply(patchpkg.Strategic, doc, body)
	if err != nil {
		// The apiserver answers a patch that does not apply; let it.
		return false, nil
	}
	patched, err := decodeObject(out)
	if err != nil {
		return false, fmt.Errorf("scenario: %w", err)
	}
	return reflect.DeepEqual(patched, live), nil
}

// replace writes the manifest as it is with PUT, as kubectl replace does:
// a resourceVersion in it must still be the stored one.
func (k *kube) replace(ctx context.Context, obj object) (string, error) {
	r, err := manifestRef(obj)
	if err != nil {
		return "", err
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return "", fmt.Errorf("scenario: %w", err)
	}
	if _, err := k.send(ctx, http.MethodPut, r.path(), nil, "application/json", body); err != nil {
		return "", err
	}
	return r.String() + " replaced", nil
}

// mergeDeletions adds to patch a null for every map key previous had and
// patch does not, recursively through maps both have.
func mergeDeletions(previous, patch any) any {
	pm, ok1 := previous.(map[string]any)
	nm, ok2 := patch.(map[string]any)
	if !ok1 || !ok2 {
		return patch
	}
	for k, pv := range pm {
		nv, ok := nm[k]
		if !ok {
			nm[k] = nil
			continue
		}
		nm[k] = mergeDeletions(pv, nv)
	}
	return nm
}

// nested reads a field by its path, or nil.
func nested(obj any, path ...string) any {
	for _, p := range path {
		m, ok := obj.(map[string]any)
		if !ok {
			return nil
		}
		obj = m[p]
	}
	return obj
}

func cloneJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = cloneJSON(x)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = cloneJSON(x)
		}
		return l
	}
	return v
}

// parseManifests reads one or more YAML (or JSON) documents separated by
// "---" lines; empty documents are skipped, a List's items are unpacked.
func parseManifests(data []byte) ([]object, error) {
	var docs []object
	var cur bytes.Buffer
	n := 0
	flush := func() error {
		n++
		if len(bytes.TrimSpace(cur.Bytes())) == 0 {
			cur.Reset()
			return nil
		}
		j, err := yaml.YAMLToJSON(cur.Bytes())
		cur.Reset()
		if err != nil {
			return fmt.Errorf("scenario: document %d: %w", n, err)
		}
		if string(j) == "null" {
			return nil
		}
		obj, err := decodeObject(j)
		if err != nil {
			return fmt.Errorf("scenario: document %d is not an object: %w", n, err)
		}
		if kind, _ := obj["kind"].(string); kind == "List" {
			items, _ := obj["items"].([]any)
			for i, it := range items {
				m, ok := it.(map[string]any)
				if !ok {
					return fmt.Errorf("scenario: document %d: item %d is not an object", n, i)
				}
				docs = append(docs, m)
			}
			return nil
		}
		if obj["apiVersion"] == nil || obj["kind"] == nil {
			return fmt.Errorf("scenario: document %d: apiVersion and kind must be set", n)
		}
		docs = append(docs, obj)
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimRight(line, " \t") == "---" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, errors.New("scenario: the manifest holds no object")
	}
	return docs, nil
}
