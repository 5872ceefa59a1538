package httpguard

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
)

// served is what the wrapped handler saw: it must see nothing refused.
type recorder struct{ calls int }

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.calls++
	w.WriteHeader(http.StatusOK)
}

func do(t *testing.T, h http.Handler, method, host, ct, body string, local net.Addr) (int, api.Status) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, "http://"+host+"/api/v1/namespaces/default/pods", rd)
	req.Host = host
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if local != nil {
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	var st api.Status
	if w.Code != http.StatusOK {
		if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil {
			t.Fatalf("%s %s (Host %q): the %d body %q is not a Status: %v", method, req.URL.Path, host, w.Code, w.Body, err)
		}
	}
	return w.Code, st
}

func TestHost(t *testing.T) {
	local := &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 6443}
	tests := []struct {
		host string
		want int
	}{
		{"127.0.0.1:6443", http.StatusOK},
		{"127.1.2.3", http.StatusOK},
		{"[::1]:6443", http.StatusOK},
		{"localhost:6443", http.StatusOK},
		{"LOCALHOST.", http.StatusOK},
		{"192.0.2.10:6443", http.StatusOK},                       // the address the connection arrived on
		{"kata.example:6443", http.StatusOK},                     // listed
		{"attacker.example:6443", http.StatusMisdirectedRequest}, // DNS rebinding
		{"localhost.attacker.example", http.StatusMisdirectedRequest},
		{"192.0.2.11:6443", http.StatusMisdirectedRequest},
		{"", http.StatusMisdirectedRequest},
	}
	for _, tt := range tests {
		rec := &recorder{}
		h := Wrap(rec, "kata.example")
		code, st := do(t, h, http.MethodGet, tt.host, "", "", local)
		if code != tt.want {
			t.Errorf("GET with Host %q = %d (%s), want %d", tt.host, code, st.Message, tt.want)
		}
		if code != http.StatusOK {
			if rec.calls != 0 {
				t.Errorf("GET with Host %q: the handler was called, want it kept from the request", tt.host)
			}
			if st.Kind != "Status" || st.Status != api.StatusFailure || st.Code != http.StatusMisdirectedRequest || !strings.Contains(st.Message, "misdirected request") {
				t.Errorf("GET with Host %q: Status = %+v, want a Failure Status with code 421 saying misdirected request", tt.host, st)
			}
		}
	}
}

// TestBody: the media types a browser can send cross-site without a
// preflight are refused; upstream's 415 Status lists the accepted types.
func TestBody(t *testing.T) {
	const pod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}}`
	tests := []struct {
		method, ct, body string
		want             int
		accepted         string
	}{
		{http.MethodPost, "application/json", pod, http.StatusOK, ""},
		{http.MethodPost, "application/json; charset=utf-8", pod, http.StatusOK, ""},
		{http.MethodPost, "application/yaml", "kind: Pod", http.StatusOK, ""},
		{http.MethodPost, "text/plain", pod, http.StatusUnsupportedMediaType, "application/json, application/yaml"},
		{http.MethodPost, "text/plain;charset=UTF-8", pod, http.StatusUnsupportedMediaType, "application/json, application/yaml"},
		{http.MethodPost, "application/x-www-form-urlencoded", pod, http.StatusUnsupportedMediaType, "application/json, application/yaml"},
		{http.MethodPost, "multipart/form-data; boundary=x", pod, http.StatusUnsupportedMediaType, "application/json, application/yaml"},
		{http.MethodPost, "application/xml", "<pod/>", http.StatusUnsupportedMediaType, "application/json, application/yaml"},
		{http.MethodPost, "", pod, http.StatusOK, ""}, // read as JSON, as upstream does
		{http.MethodPut, "", pod, http.StatusOK, ""},
		{http.MethodPatch, "", `{}`, http.StatusOK, ""}, // the handler decides: no patch type
		{http.MethodPut, "text/plain", pod, http.StatusUnsupportedMediaType, "application/json, application/yaml"},
		{http.MethodDelete, "text/plain", `{}`, http.StatusUnsupportedMediaType, "application/json, application/yaml"},
		{http.MethodDelete, "", "", http.StatusOK, ""}, // no body, nothing to check
		{http.MethodGet, "text/plain", "x", http.StatusOK, ""},
		{http.MethodPatch, "application/merge-patch+json", `{}`, http.StatusOK, ""},
		{http.MethodPatch, "application/strategic-merge-patch+json", `{}`, http.StatusOK, ""},
		{http.MethodPatch, "application/json-patch+json", `[]`, http.StatusOK, ""},
		{http.MethodPatch, "application/json", `{}`, http.StatusUnsupportedMediaType,
			"application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json"},
		{http.MethodPatch, "text/plain", `{}`, http.StatusUnsupportedMediaType,
			"application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json"},
	}
	for _, tt := range tests {
		rec := &recorder{}
		code, st := do(t, Wrap(rec), tt.method, "127.0.0.1:6443", tt.ct, tt.body, nil)
		if code != tt.want {
			t.Errorf("%s with Content-Type %q = %d (%s), want %d", tt.method, tt.ct, code, st.Message, tt.want)
			continue
		}
		if code == http.StatusOK {
			if rec.calls != 1 {
				t.Errorf("%s with Content-Type %q: the handler was called %d times, want 1", tt.method, tt.ct, rec.calls)
			}
			continue
		}
		if rec.calls != 0 {
			t.Errorf("%s with Content-Type %q: the handler was called, want it kept from the request", tt.method, tt.ct)
		}
		want := "the body of the request was in an unknown format - accepted media types include: " + tt.accepted
		if st.Reason != api.StatusReasonUnsupportedMediaType || st.Code != 415 || st.Message != want {
			t.Errorf("%s with Content-Type %q: Status = reason %q code %d message %q, want UnsupportedMediaType 415 %q", tt.method, tt.ct, st.Reason, st.Code, st.Message, want)
		}
	}
}

// TestBrowserWithoutContentType: a page's fetch with an untyped body
// sends no Content-Type, but Origin and Sec-Fetch-Site.
func TestBrowserWithoutContentType(t *testing.T) {
	for _, hdr := range [][2]string{{"Origin", "https://attacker.example"}, {"Sec-Fetch-Site", "cross-site"}} {
		rec := &recorder{}
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:6443/api/v1/namespaces/default/pods", strings.NewReader(`{"kind":"Pod"}`))
		req.Header.Set(hdr[0], hdr[1])
		w := httptest.NewRecorder()
		Wrap(rec).ServeHTTP(w, req)
		if w.Code != http.StatusUnsupportedMediaType || rec.calls != 0 {
			t.Errorf("POST without Content-Type, with %s: %s = %d (handler called %d times), want 415 and the handler not called", hdr[0], hdr[1], w.Code, rec.calls)
		}
	}
}

// TestOverHTTP runs Wrap behind a real listener: the connection's own
// address is accepted, a rebinding name is not.
func TestOverHTTP(t *testing.T) {
	srv := httptest.NewServer(Wrap(&recorder{}))
	defer srv.Close()
	for _, c := range []struct {
		host string
		want int
	}{{"", http.StatusOK}, {"attacker.example", http.StatusMisdirectedRequest}} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/version", nil)
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("GET %s/version with Host %q = %d, want %d", srv.URL, req.Host, resp.StatusCode, c.want)
		}
	}
}
