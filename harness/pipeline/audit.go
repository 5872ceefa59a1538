package pipeline

import (
	"bufio"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// AuditIDHeader carries a request's audit ID, as upstream's
// (k8s.io/apiserver/pkg/endpoints/filters/with_auditid.go): a client may
// send one, and the response always says it.
const AuditIDHeader = "Audit-ID"

// AuditEvent is one line of the audit log: upstream's audit.k8s.io/v1
// Event (k8s.io/apiserver/pkg/apis/audit/v1/types.go) at level Metadata,
// which leaves out the request and response bodies.
type AuditEvent struct {
	Kind                     string            `json:"kind"`
	APIVersion               string            `json:"apiVersion"`
	Level                    string            `json:"level"`
	AuditID                  string            `json:"auditID"`
	Stage                    string            `json:"stage"`
	RequestURI               string            `json:"requestURI"`
	Verb                     string            `json:"verb"`
	User                     AuditUser         `json:"user"`
	ImpersonatedUser         *AuditUser        `json:"impersonatedUser,omitempty"`
	SourceIPs                []string          `json:"sourceIPs,omitempty"`
	UserAgent                string            `json:"userAgent,omitempty"`
	ObjectRef                *AuditObjectRef   `json:"objectRef,omitempty"`
	ResponseStatus           *AuditStatus      `json:"responseStatus,omitempty"`
	RequestReceivedTimestamp string            `json:"requestReceivedTimestamp"`
	StageTimestamp           string            `json:"stageTimestamp"`
	Annotations              map[string]string `json:"annotations,omitempty"`
}

// AuditUser is upstream's authentication/v1 UserInfo as an event
// carries it: every field omitted when empty, so a request that never
// authenticated (a 401) has "user":{}.
type AuditUser struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

func auditUser(u UserInfo) AuditUser {
	return AuditUser{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
}

// AuditObjectRef is upstream's ObjectReference: what the request was
// about.
type AuditObjectRef struct {
	Resource    string `json:"resource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
	APIGroup    string `json:"apiGroup,omitempty"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

// AuditStatus is the part of the response's metav1.Status upstream
// records at level Metadata: its code.
type AuditStatus struct {
	Metadata struct{} `json:"metadata"`
	Code     int      `json:"code"`
}

// microTime is metav1.MicroTime's JSON form
// (k8s.io/apimachinery/pkg/apis/meta/v1/micro_time.go, RFC3339Micro).
const microTime = "2006-01-02T15:04:05.000000Z07:00"

// maxUserAgent bounds the user agent an event keeps, as upstream
// (k8s.io/apiserver/pkg/audit/request.go, maxUserAgentLength).
const maxUserAgent = 1024

// Audit returns a filter that gives each request an audit Record
// (WithRecord) for the chain after it to fill, and once the response is
// complete writes one AuditEvent to w as a line of JSON: stage
// ResponseComplete, the user (and whom they impersonated) and the
// RequestInfo the chain said, the response's code. now is the clock.
//
// Writes to w are serialized, one whole line each. The response writer
// the next handler gets still flushes (a watch streams through it) and
// can be hijacked. An event that cannot be written is dropped: the
// request is not failed for it (upstream's log backend does the same
// and counts the error).
func Audit(w io.Writer, now func() time.Time) func(http.Handler) http.Handler {
	var mu sync.Mutex
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			received := now()
			id := r.Header.Get(AuditIDHeader)
			if id == "" || len(id) > 64 {
				id = newUUID()
			}
			rw.Header().Set(AuditIDHeader, id)
			ctx, rec := WithRecord(r.Context())
			aw := &auditWriter{ResponseWriter: rw}
			defer func() {
				ev := event(r, rec, id, aw.code(), received, now())
				b, err := json.Marshal(ev)
				if err != nil {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				_, _ = w.Write(append(b, '\n'))
			}()
			next.ServeHTTP(aw, r.WithContext(ctx))
		})
	}
}

// event is the AuditEvent of a request, from what its Record learned.
func event(r *http.Request, rec *Record, id string, code int, received, done time.Time) AuditEvent {
	ev := AuditEvent{
		Kind: "Event", APIVersion: "audit.k8s.io/v1", Level: "Metadata", AuditID: id,
		Stage: "ResponseComplete", RequestURI: r.URL.RequestURI(),
		Verb:                     strings.ToLower(r.Method),
		SourceIPs:                sourceIPs(r),
		UserAgent:                r.UserAgent(),
		ResponseStatus:           &AuditStatus{Code: code},
		RequestReceivedTimestamp: received.UTC().Format(microTime),
		StageTimestamp:           done.UTC().Format(microTime),
	}
	if len(ev.UserAgent) > maxUserAgent {
		ev.UserAgent = ev.UserAgent[:maxUserAgent] + "...TRUNCATED"
	}
	user, imp := rec.User()
	if user != nil {
		ev.User = auditUser(*user)
	}
	if imp != nil {
		iu := auditUser(*imp)
		ev.ImpersonatedUser = &iu
	}
	if info := rec.RequestInfo(); info != nil {
		ev.Verb = info.Verb
		if info.IsResourceRequest {
			ev.ObjectRef = &AuditObjectRef{Resource: info.Resource, Namespace: info.Namespace, Name: info.Name,
				APIGroup: info.APIGroup, APIVersion: info.APIVersion, Subresource: info.Subresource}
		}
	}
	return ev
}

// sourceIPs are the client's addresses, as upstream's utilnet.SourceIPs
// (k8s.io/apimachinery/pkg/util/net/http.go): X-Forwarded-For's, then
// X-Real-Ip, then the connection's remote address, each once.
func sourceIPs(r *http.Request) []string {
	var ips []string
	add := func(s string) {
		ip := net.ParseIP(strings.TrimSpace(s))
		if ip == nil {
			return
		}
		for _, x := range ips {
			if x == ip.String() {
				return
			}
		}
		ips = append(ips, ip.String())
	}
	for _, s := range strings.Split(r.Header.Get("X-Forwarded-For"), ",") {
		add(s)
	}
	add(r.Header.Get("X-Real-Ip"))
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	add(host)
	return ips
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// auditWriter remembers the response's code and passes the rest on,
// Flush and Hijack included.
type auditWriter struct {
	http.ResponseWriter
	mu     sync.Mutex
	status int
}

func (a *auditWriter) WriteHeader(code int) {
	a.mu.Lock()
	if a.status == 0 {
		a.status = code
	}
	a.mu.Unlock()
	a.ResponseWriter.WriteHeader(code)
}

func (a *auditWriter) Write(b []byte) (int, error) {
	a.mu.Lock()
	if a.status == 0 {
		a.status = http.StatusOK
	}
	a.mu.Unlock()
	return a.ResponseWriter.Write(b)
}

// code is the response's status code; 200 for a handler that wrote
// nothing, as net/http answers it.
func (a *auditWriter) code() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.status == 0 {
		return http.StatusOK
	}
	return a.status
}

func (a *auditWriter) Flush() {
	a.mu.Lock()
	if a.status == 0 {
		a.status = http.StatusOK
	}
	a.mu.Unlock()
	_ = http.NewResponseController(a.ResponseWriter).Flush()
}

func (a *auditWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := a.ResponseWriter.(http.Hijacker); ok {
		a.mu.Lock()
		if a.status == 0 {
			a.status = http.StatusSwitchingProtocols
		}
		a.mu.Unlock()
		return h.Hijack()
	}
	return nil, nil, errors.New("pipeline: the response writer cannot be hijacked")
}

// Unwrap lets http.ResponseController reach the writer beneath.
func (a *auditWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }
