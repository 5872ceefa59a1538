// Package mutantgate is the reference request pipeline
// (solutions/05-admission) with one planted bug, chosen by
// $KATA_SCENARIO_MUTANT when New runs, so that the engine's tests can
// check that each scenario of exercise 05 fails against a gate that
// lacks the behaviour it shows.
//
// It lives under testdata and is compiled only through go build -overlay
// (TestScenariosCatchPlantedBugs), as
// harness/scenario/internal/mutantgate: no build, vet or student copy
// sees it, and the harness never imports solutions/.
package mutantgate

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"

	admission "github.com/kubekata/kubekata/solutions/05-admission"

	"github.com/kubekata/kubekata/harness/pipeline"
)

// Env names the planted bug.
const Env = "KATA_SCENARIO_MUTANT"

// The planted bugs.
const (
	// StoresRefused: a write the gate refuses reaches the apiserver
	// anyway (the client still gets the refusal).
	StoresRefused = "stores-refused"
	// Anonymous401: a request with no credentials is 401 instead of
	// system:anonymous.
	Anonymous401 = "anonymous-401"
	// AnyToken: a bearer token the token file does not hold is ignored
	// (the request goes on as system:anonymous) instead of 401.
	AnyToken = "any-token"
	// ClusterWideRoleBinding: what a user may read in default they may
	// read in every namespace, as if a RoleBinding granted cluster-wide.
	ClusterWideRoleBinding = "rolebinding-cluster-wide"
)

// New is the reference's New with the bug $KATA_SCENARIO_MUTANT names
// around it.
func New(ctx context.Context, cfg pipeline.Config) (func(http.Handler) http.Handler, error) {
	gate, err := admission.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	bug := os.Getenv(Env)
	return func(next http.Handler) http.Handler {
		inner := gate(next)
		switch bug {
		case StoresRefused:
			return storesRefused(inner, next)
		case Anonymous401:
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if (r.TLS == nil || len(r.TLS.VerifiedChains) == 0) && r.Header.Get("Authorization") == "" {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusUnauthorized)
					io.WriteString(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`)
					return
				}
				inner.ServeHTTP(w, r)
			})
		case AnyToken:
			known := map[string]bool{}
			for _, line := range strings.Split(string(cfg.Tokens), "\n") {
				if tok, _, _ := strings.Cut(line, ","); tok != "" {
					known["Bearer "+strings.TrimSpace(tok)] = true
				}
			}
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !known[r.Header.Get("Authorization")] {
					r.Header.Del("Authorization")
				}
				inner.ServeHTTP(w, r)
			})
		case ClusterWideRoleBinding:
			return clusterWide(gate, inner, next)
		}
		return inner
	}, nil
}

// recorder keeps the status a handler wrote, and passes the reply on
// unless it is a probe.
type recorder struct {
	http.ResponseWriter
	code  int
	probe bool
	hdr   http.Header
}

func (r *recorder) Header() http.Header {
	if r.probe {
		if r.hdr == nil {
			r.hdr = http.Header{}
		}
		return r.hdr
	}
	return r.ResponseWriter.Header()
}

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
	if !r.probe {
		r.ResponseWriter.WriteHeader(code)
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	if r.probe {
		return len(b), nil
	}
	return r.ResponseWriter.Write(b)
}

func storesRefused(inner, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			inner.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &recorder{ResponseWriter: w}
		inner.ServeHTTP(rec, r)
		if rec.code >= 400 {
			again := r.Clone(r.Context())
			again.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(&recorder{ResponseWriter: w, probe: true}, again)
		}
	})
}

var namespaced = regexp.MustCompile(`^(/api/v1|/apis/[^/]+/[^/]+)/namespaces/[^/]+/(.+)$`)

func clusterWide(gate func(http.Handler) http.Handler, inner, next http.Handler) http.Handler {
	// allows says whether the gate lets req through, serving nothing.
	allows := func(w http.ResponseWriter, req *http.Request) bool {
		allowed := false
		gate(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { allowed = true })).
			ServeHTTP(&recorder{ResponseWriter: w, probe: true}, req)
		return allowed
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := namespaced.FindStringSubmatch(r.URL.Path)
		if r.Method != http.MethodGet || m == nil || allows(w, r.Clone(r.Context())) {
			inner.ServeHTTP(w, r)
			return
		}
		inDefault := r.Clone(r.Context())
		inDefault.URL.Path = m[1] + "/namespaces/default/" + m[2]
		inDefault.URL.RawPath = ""
		if allows(w, inDefault) {
			next.ServeHTTP(w, r)
			return
		}
		inner.ServeHTTP(w, r)
	})
}
