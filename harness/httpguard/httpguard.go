package httpguard

import (
	"encoding/json"
	"fmt"
	"mime"
	"net"
	"net/http"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/patch"
)

// BodyTypes are the media types of object bodies (POST, PUT, DELETE).
var BodyTypes = []string{"application/json", "application/yaml"}

// PatchTypes are the media types of PATCH bodies.
var PatchTypes = func() []string {
	out := make([]string, len(patch.Types))
	for i, t := range patch.Types {
		out[i] = string(t)
	}
	return out
}()

// UnsupportedMediaType is upstream's 415 Status, listing the media types
// that are accepted.
func UnsupportedMediaType(accepted []string) *api.Status {
	return &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  "the body of the request was in an unknown format - accepted media types include: " + strings.Join(accepted, ", "),
		Reason:   api.StatusReasonUnsupportedMediaType,
		Code:     http.StatusUnsupportedMediaType,
	}
}

// CheckBody returns the media type of r's body (without parameters), or
// the 415 Status when it is not one of accepted. A request whose body is
// empty has nothing to check and gets "". A body without a Content-Type
// is the first accepted type, as upstream reads it, unless a browser sent
// it (see the package comment).
func CheckBody(r *http.Request, accepted []string) (string, *api.Status) {
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return "", nil
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" && len(accepted) > 0 && !fromBrowser(r) {
		return accepted[0], nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", UnsupportedMediaType(accepted)
	}
	for _, a := range accepted {
		if mt == a {
			return mt, nil
		}
	}
	return "", UnsupportedMediaType(accepted)
}

// fromBrowser says a web browser sent r: browsers, and only they, add
// Origin to every request whose method is not GET or HEAD, and
// Sec-Fetch-Site to every request (the Fetch standard).
func fromBrowser(r *http.Request) bool {
	return r.Header.Get("Origin") != "" || r.Header.Get("Sec-Fetch-Site") != ""
}

// CheckHost returns nil when r's Host names this server: a loopback name
// or address, the local address the connection arrived on, or one of
// hosts (names or addresses, without a port). Otherwise it returns the
// 421 Status.
func CheckHost(r *http.Request, hosts []string) *api.Status {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	ok := host == "localhost"
	if ip := net.ParseIP(host); ip != nil {
		ok = ok || ip.IsLoopback()
		if la, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr); la != nil {
			if lh, _, err := net.SplitHostPort(la.String()); err == nil {
				if lip := net.ParseIP(lh); lip != nil && lip.Equal(ip) {
					ok = true
				}
			}
		}
	}
	for _, h := range hosts {
		if host != "" && strings.EqualFold(strings.TrimSuffix(h, "."), host) {
			ok = true
		}
	}
	if ok && host != "" {
		return nil
	}
	return &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message: fmt.Sprintf("misdirected request: host %q is not this apiserver's (it answers to localhost, loopback addresses, its own address and the hosts it was started with); a web page that re-resolved its own name to this machine sends such requests",
			r.Host),
		Code: http.StatusMisdirectedRequest,
	}
}

// Wrap returns h behind CheckHost (with hosts) and, for requests that
// write (POST, PUT, PATCH, DELETE), CheckBody with BodyTypes or, for
// PATCH, PatchTypes.
func Wrap(h http.Handler, hosts ...string) http.Handler {
	hosts = append([]string(nil), hosts...)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if st := CheckHost(r, hosts); st != nil {
			writeStatus(w, st)
			return
		}
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodDelete:
			if _, st := CheckBody(r, BodyTypes); st != nil {
				writeStatus(w, st)
				return
			}
		case http.MethodPatch:
			if _, st := CheckBody(r, PatchTypes); st != nil {
				writeStatus(w, st)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

func writeStatus(w http.ResponseWriter, st *api.Status) {
	data, _ := json.Marshal(st)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(st.Code))
	_, _ = w.Write(append(data, '\n'))
}
