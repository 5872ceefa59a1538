// Package admission is the reference of exercise 05: the gate every
// request passes before the apiserver's handlers, as upstream's handler
// chain (k8s.io/apiserver/pkg/server/config.go, DefaultBuildHandlerChain)
// and admission plugins do it. In order:
//
//  1. read what the request asks for (requestinfo.go);
//  2. say who sent it: client certificate, bearer token, or anonymous
//     (authn.go);
//  3. switch to whom they impersonate, if they may (impersonation.go);
//  4. authorize: system:masters may do anything, everyone else what RBAC
//     allows (rbac.go);
//  5. answer a SelfSubjectAccessReview itself (accessreview.go);
//  6. admit writes: namespace lifecycle, then the mutating plugins, then
//     the validating ones, resource quota last (admission.go and one
//     file per plugin);
//  7. hand the request, with its user and request info in the context,
//     to the apiserver.
//
// A request refused at any stage never reaches the apiserver.
package admission

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/storage"
)

// gate is one pipeline: its configuration and the RBAC cache.
type gate struct {
	store    storage.Store
	tokens   tokenFile
	rbac     pipeline.Authorizer
	policies []string
}

// New returns the gate: a filter that runs every request through the
// pipeline before next. The pipeline lives until ctx is done.
func New(ctx context.Context, cfg pipeline.Config) (func(next http.Handler) http.Handler, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("admission: the config has no store")
	}
	tokens, err := parseTokens(cfg.Tokens)
	if err != nil {
		return nil, err
	}
	rbac, err := NewAuthorizer(ctx, cfg.Store)
	if err != nil {
		return nil, err
	}
	g := &gate{store: cfg.Store, tokens: tokens, rbac: rbac, policies: slices.Clone(cfg.Policies)}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { g.serve(next, w, r) })
	}, nil
}

// authorize is upstream's union of the privileged group authorizer
// (system:masters may do anything) and RBAC.
func (g *gate) authorize(ctx context.Context, a pipeline.Attributes) (pipeline.Decision, error) {
	if slices.Contains(a.User.Groups, pipeline.SystemPrivilegedGroup) {
		return pipeline.Decision{Allowed: true}, nil
	}
	return g.rbac.Authorize(ctx, a)
}

// serve runs the stages in order; each either refuses the request (and
// the rest never run) or passes it on.
func (g *gate) serve(next http.Handler, w http.ResponseWriter, r *http.Request) {
	var query url.Values
	if r.URL.RawQuery != "" {
		// Most requests have none: parse only what is there.
		query = r.URL.Query()
	}
	info := NewRequestInfo(r.Method, r.URL.Path, query)
	ctx := pipeline.WithRequestInfo(r.Context(), info)

	who, err := g.authenticate(r)
	if err != nil {
		writeUnauthorized(w)
		return
	}
	ctx = pipeline.WithUser(ctx, who)

	as, impersonating, st := g.impersonate(ctx, r, who)
	if st != nil {
		writeStatus(w, st)
		return
	}
	// The apiserver does not see the credentials and the impersonation
	// asked for: those were the gate's. As upstream's filters do, they
	// are deleted from the request itself (a copy of every header on
	// every request cost more than an RBAC decision).
	r.Header.Del("Authorization")
	if impersonating {
		ctx = pipeline.WithUser(ctx, as)
		dropImpersonationHeaders(r.Header)
	}

	attrs := pipeline.Attributes{User: as, RequestInfo: info}
	d, err := g.authorize(ctx, attrs)
	if err != nil {
		writeStatus(w, internalError(err))
		return
	}
	if !d.Allowed {
		writeStatus(w, denied(attrs, d.Reason))
		return
	}

	r = r.WithContext(ctx)
	if isAccessReview(info) {
		g.accessReview(ctx, w, r, as)
		return
	}
	if isWrite(info.Verb) && info.IsResourceRequest {
		g.admit(w, r, next, attrs)
		return
	}
	next.ServeHTTP(w, r)
}
