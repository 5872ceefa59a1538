package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/kubekata/kubekata/harness/api"
)

// HTTP is the Interface over an apiserver's REST API.
type HTTP struct {
	base string
	hc   *http.Client
	// UserAgent is sent with every request when set.
	UserAgent string
	// BearerToken is sent as Authorization: Bearer when set.
	BearerToken string
}

var _ Interface = (*HTTP)(nil)

// New returns a client for the apiserver at base, such as
// "http://127.0.0.1:6443". hc may be nil for http.DefaultClient.
func New(base string, hc *http.Client) *HTTP {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &HTTP{base: strings.TrimSuffix(base, "/"), hc: hc}
}

// Path is the REST path of a kind's collection or of one object:
// /api/v1/namespaces/default/pods/web, /apis/apps/v1/deployments, ...
// name may be empty for the collection; subresource may be empty.
func Path(kind api.Kind, namespace, name, subresource string) string {
	var b strings.Builder
	if kind.Group == "" {
		b.WriteString("/api/" + kind.Version)
	} else {
		b.WriteString("/apis/" + kind.Group + "/" + kind.Version)
	}
	if kind.Namespaced && namespace != "" {
		b.WriteString("/namespaces/" + url.PathEscape(namespace))
	}
	b.WriteString("/" + kind.Resource)
	if name != "" {
		b.WriteString("/" + url.PathEscape(name))
		if subresource != "" {
			b.WriteString("/" + subresource)
		}
	}
	return b.String()
}

func (c *HTTP) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	if name == "" {
		return nil, errors.New("client: Get needs a name")
	}
	obj := kind.New()
	err := c.do(ctx, http.MethodGet, Path(kind, namespace, name, ""), nil, nil, obj)
	return obj, err
}

func (c *HTTP) List(ctx context.Context, kind api.Kind, namespace string, opts ListOptions) (*ObjectList, error) {
	var l api.List[json.RawMessage]
	if err := c.do(ctx, http.MethodGet, Path(kind, namespace, "", ""), listQuery(opts, false), nil, &l); err != nil {
		return nil, err
	}
	out := &ObjectList{ResourceVersion: l.Metadata.ResourceVersion, Continue: l.Metadata.Continue}
	for _, raw := range l.Items {
		obj := kind.New()
		if err := json.Unmarshal(raw, obj); err != nil {
			return nil, fmt.Errorf("client: decoding a %s list item: %w", kind.Kind, err)
		}
		fillTypeMeta(kind, obj)
		out.Items = append(out.Items, obj)
	}
	return out, nil
}

func (c *HTTP) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	kind, err := kindOf(obj)
	if err != nil {
		return nil, err
	}
	out := kind.New()
	err = c.do(ctx, http.MethodPost, Path(kind, namespaceOf(kind, obj), "", ""), nil, withTypeMeta(kind, obj), out)
	return out, err
}

func (c *HTTP) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.put(ctx, obj, "")
}

func (c *HTTP) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.put(ctx, obj, "status")
}

func (c *HTTP) put(ctx context.Context, obj api.Object, sub string) (api.Object, error) {
	kind, err := kindOf(obj)
	if err != nil {
		return nil, err
	}
	m := obj.GetObjectMeta()
	if m.Name == "" {
		return nil, errors.New("client: Update needs a name")
	}
	out := kind.New()
	err = c.do(ctx, http.MethodPut, Path(kind, namespaceOf(kind, obj), m.Name, sub), nil, withTypeMeta(kind, obj), out)
	return out, err
}

func (c *HTTP) Finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	out, err := c.put(ctx, ns, "finalize")
	if err != nil {
		return nil, err
	}
	return out.(*api.Namespace), nil
}

func (c *HTTP) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts DeleteOptions) error {
	if name == "" {
		return errors.New("client: Delete needs a name")
	}
	opts.TypeMeta = api.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"}
	return c.do(ctx, http.MethodDelete, Path(kind, namespace, name, ""), nil, &opts, nil)
}

func (c *HTTP) Bind(ctx context.Context, namespace, pod, node string) error {
	body := map[string]any{
		"apiVersion": "v1",
		"kind":       "Binding",
		"metadata":   map[string]any{"name": pod, "namespace": namespace},
		"target":     map[string]any{"apiVersion": "v1", "kind": "Node", "name": node},
	}
	podKind := api.Kind{Version: "v1", Kind: "Pod", Resource: "pods", Namespaced: true}
	return c.do(ctx, http.MethodPost, Path(podKind, namespace, pod, "binding"), nil, body, nil)
}

func (c *HTTP) Watch(ctx context.Context, kind api.Kind, namespace string, opts ListOptions) (Watcher, error) {
	q := listQuery(opts, true)
	ctx, cancel := context.WithCancel(ctx)
	resp, err := c.send(ctx, http.MethodGet, Path(kind, namespace, "", ""), q, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		cancel()
		return nil, statusFrom(resp)
	}
	w := &httpWatcher{ch: make(chan Event), cancel: cancel, done: make(chan struct{})}
	go w.run(ctx, kind, resp.Body)
	return w, nil
}

type httpWatcher struct {
	ch     chan Event
	cancel context.CancelFunc
	once   sync.Once
	done   chan struct{}
}

func (w *httpWatcher) ResultChan() <-chan Event { return w.ch }

// Stop ends the watch and waits for its reader to finish, so that no
// goroutine outlives it.
func (w *httpWatcher) Stop() {
	w.once.Do(w.cancel)
	<-w.done
}

func (w *httpWatcher) run(ctx context.Context, kind api.Kind, body io.ReadCloser) {
	defer close(w.done)
	defer close(w.ch)
	defer body.Close()
	dec := json.NewDecoder(body)
	for {
		var we api.WatchEvent
		if err := dec.Decode(&we); err != nil {
			return
		}
		ev := Event{Type: we.Type}
		if we.Type == api.WatchError {
			var st api.Status
			if err := json.Unmarshal(we.Object, &st); err != nil {
				st = api.Status{Status: api.StatusFailure, Message: "client: undecodable watch error: " + err.Error()}
			}
			ev.Status = &st
		} else {
			obj := kind.New()
			if err := json.Unmarshal(we.Object, obj); err != nil {
				ev = Event{Type: api.WatchError, Status: &api.Status{Status: api.StatusFailure, Message: fmt.Sprintf("client: decoding a %s watch event: %v", kind.Kind, err)}}
			} else {
				fillTypeMeta(kind, obj)
				ev.Object = obj
			}
		}
		select {
		case w.ch <- ev:
		case <-ctx.Done():
			return
		}
	}
}

func listQuery(opts ListOptions, watch bool) url.Values {
	q := url.Values{}
	if opts.LabelSelector != "" {
		q.Set("labelSelector", opts.LabelSelector)
	}
	if opts.FieldSelector != "" {
		q.Set("fieldSelector", opts.FieldSelector)
	}
	if opts.Limit > 0 {
		q.Set("limit", strconv.FormatInt(opts.Limit, 10))
	}
	if opts.Continue != "" {
		q.Set("continue", opts.Continue)
	}
	if opts.ResourceVersion != "" {
		q.Set("resourceVersion", opts.ResourceVersion)
	}
	if watch {
		q.Set("watch", "1")
		if opts.AllowWatchBookmarks {
			q.Set("allowWatchBookmarks", "true")
		}
	}
	return q
}

func (c *HTTP) send(ctx context.Context, method, path string, q url.Values, body any) (*http.Response, error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("client: encoding %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	if c.BearerToken != "" {
		req.Header.Set("Authorization", "Bearer "+c.BearerToken)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: %w", method, path, err)
	}
	return resp, nil
}

// do sends a request and decodes a 2xx answer into out (if not nil), or
// returns the server's Status as the error.
func (c *HTTP) do(ctx context.Context, method, path string, q url.Values, body, out any) error {
	resp, err := c.send(ctx, method, path, q, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return statusFrom(resp)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("client: decoding the answer to %s %s: %w", method, path, err)
	}
	return nil
}

// statusFrom turns an error answer into an *api.Status, inventing one
// (as upstream's client does) when the body is not a Status.
func statusFrom(resp *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var st api.Status
	if err := json.Unmarshal(data, &st); err == nil && st.Kind == "Status" {
		if st.Code == 0 {
			st.Code = int32(resp.StatusCode)
		}
		return &st
	}
	reason := api.StatusReasonUnknown
	switch resp.StatusCode {
	case http.StatusNotFound:
		reason = api.StatusReasonNotFound
	case http.StatusConflict:
		reason = api.StatusReasonConflict
	case http.StatusBadRequest:
		reason = api.StatusReasonBadRequest
	case http.StatusMethodNotAllowed:
		reason = api.StatusReasonMethodNotAllowed
	case http.StatusGone:
		reason = api.StatusReasonGone
	case http.StatusUnprocessableEntity:
		reason = api.StatusReasonInvalid
	case http.StatusInternalServerError:
		reason = api.StatusReasonInternalError
	}
	msg := strings.TrimSpace(string(data))
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure, Code: int32(resp.StatusCode), Reason: reason,
		Message: fmt.Sprintf("the server responded with the status code %d but did not return more information: %s", resp.StatusCode, msg),
	}
}

// namespaceOf is the object's namespace, "default" when a namespaced
// object leaves it empty (as kubectl and the fake do).
func namespaceOf(kind api.Kind, obj api.Object) string {
	ns := obj.GetObjectMeta().Namespace
	if kind.Namespaced && ns == "" {
		return "default"
	}
	return ns
}

func kindOf(obj api.Object) (api.Kind, error) {
	if obj == nil {
		return api.Kind{}, errors.New("client: nil object")
	}
	k, ok := api.KindOf(obj)
	if !ok {
		return api.Kind{}, fmt.Errorf("client: %T is not a registered kind", obj)
	}
	return k, nil
}

// withTypeMeta sets apiVersion and kind so that the server can check them
// against the path.
func withTypeMeta(kind api.Kind, obj api.Object) api.Object {
	fillTypeMeta(kind, obj)
	return obj
}

func fillTypeMeta(kind api.Kind, obj api.Object) {
	tm := obj.GetTypeMeta()
	if tm.Kind == "" {
		tm.Kind = kind.Kind
	}
	if tm.APIVersion == "" {
		tm.APIVersion = kind.APIVersion()
	}
}
