package admissiontest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/storage"
)

// Benchmarks of exercise 05. The exercise's and the solution's
// bench_test.go call these in one line each:
//
//	func BenchmarkAuthorize1000(b *testing.B) { admissiontest.BenchAuthorize(b, NewAuthorizer, 1000) }

// benchNamespaces is how many namespaces the benchmark's Roles spread over.
const benchNamespaces = 10

// benchCase is one question and its answer.
type benchCase struct {
	attrs pipeline.Attributes
	want  bool
}

// BenchAuthorize measures one Authorize call of the authorizer
// newAuthorizer returns over a store holding the bootstrap policy and
// roles Roles, each bound by a RoleBinding to a user of its own, spread
// over 10 namespaces. The questions alternate: a user reads pods in
// their namespace (allowed), in the next namespace (denied), and deletes
// one (denied). Every answer is checked, so a wrong authorizer fails the
// benchmark instead of looking fast.
func BenchAuthorize(b *testing.B, newAuthorizer func(context.Context, storage.Store) (pipeline.Authorizer, error), roles int) {
	b.Helper()
	if roles < 1 {
		b.Fatalf("BenchAuthorize: roles = %d, want at least 1", roles)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := storage.NewMemory()
	defer store.Close()
	if err := Seed(ctx, store); err != nil {
		b.Fatal(err)
	}
	for i := range roles {
		ns := fmt.Sprintf("ns-%d", i%benchNamespaces)
		if _, err := putObject(ctx, store, newRole(ns, fmt.Sprintf("role-%d", i),
			policyRule(readVerbs, coreGroup, list("pods", "configmaps")),
			policyRule(list("get"), coreGroup, list("secrets"), fmt.Sprintf("secret-%d", i)))); err != nil {
			b.Fatal(err)
		}
		if _, err := putObject(ctx, store, newRoleBinding(ns, fmt.Sprintf("binding-%d", i), "Role", fmt.Sprintf("role-%d", i),
			user(fmt.Sprintf("user-%d", i)))); err != nil {
			b.Fatal(err)
		}
	}
	az, err := newAuthorizer(ctx, store)
	if err != nil {
		b.Fatalf("NewAuthorizer(ctx, store) = %v, want an authorizer", err)
	}
	if az == nil {
		b.Fatalf("NewAuthorizer(ctx, store) = nil, nil; want an authorizer")
	}
	cases := benchCases(roles)
	// The authorizer sees the store soon, not at once: wait (with a
	// deadline) until it allows the last user.
	lastUser := pipeline.UserInfo{Name: fmt.Sprintf("user-%d", roles-1), Groups: list(pipeline.AllAuthenticated)}
	last := benchCase{resourceAttrs(lastUser, "list", "", fmt.Sprintf("ns-%d", (roles-1)%benchNamespaces), "pods", "", ""), true}
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		d, err := az.Authorize(ctx, last.attrs)
		if err == nil && d.Allowed {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("Authorize(%s) = %+v, %v; want allowed within 10s of NewAuthorizer over %d Roles", describeAttrs(last.attrs), d, err, roles)
		}
		<-tick.C
	}
	runBench(b, az, cases)
}

// BenchAllowAll is the baseline: the same loop over the same questions
// with an authorizer that allows everything and checks nothing.
func BenchAllowAll(b *testing.B) {
	b.Helper()
	cases := benchCases(1000)
	for i := range cases {
		cases[i].want = true
	}
	runBench(b, allowAll{}, cases)
}

type allowAll struct{}

func (allowAll) Authorize(context.Context, pipeline.Attributes) (pipeline.Decision, error) {
	return pipeline.Decision{Allowed: true}, nil
}

// benchCases are the questions, three per user for up to 100 users
// spread over all the Roles.
func benchCases(roles int) []benchCase {
	step := max(1, roles/100)
	var cases []benchCase
	for i := 0; i < roles; i += step {
		u := pipeline.UserInfo{Name: fmt.Sprintf("user-%d", i), Groups: list(pipeline.AllAuthenticated)}
		ns := fmt.Sprintf("ns-%d", i%benchNamespaces)
		other := fmt.Sprintf("ns-%d", (i+1)%benchNamespaces)
		cases = append(cases,
			benchCase{resourceAttrs(u, "list", "", ns, "pods", "", ""), true},
			benchCase{resourceAttrs(u, "list", "", other, "pods", "", ""), other == ns},
			benchCase{resourceAttrs(u, "delete", "", ns, "pods", "", "web"), false},
		)
	}
	return cases
}

func runBench(b *testing.B, az pipeline.Authorizer, cases []benchCase) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		c := cases[i%len(cases)]
		i++
		d, err := az.Authorize(ctx, c.attrs)
		if err != nil {
			b.Fatalf("Authorize(%s) = %v, want a decision", describeAttrs(c.attrs), err)
		}
		if d.Allowed != c.want {
			b.Fatalf("Authorize(%s).Allowed = %v, want %v", describeAttrs(c.attrs), d.Allowed, c.want)
		}
	}
}
