// Package mutantservices is the reference of exercise 14
// (solutions/14-services) with one planted bug, chosen by
// $KATA_SCENARIO_MUTANT when its allocators or its controller are made,
// so that the engine's tests can check that the Service scenarios fail
// against a part that lacks the behaviour they show.
//
// The allocator bugs sit around the reference allocators (a taken
// address is handed out again; a release frees nothing); the controller
// bug sits between the EndpointSlice controller and the apiserver, in
// the client it is given (every endpoint it writes says not ready); the
// rules bugs edit the reference's rules (no statistic match) or what
// they are given (every endpoint ready), full and partial alike, and the
// partial sync's bug drops its changed Services; the DNS bugs edit what the
// reference's Lookup is given (every Service headless) or answers (no
// SRV record; an old answer kept), and the variables bug drops Env's. It
// lives under testdata and is compiled only through go build -overlay
// (TestServicesScenariosCatchPlantedBugs), as
// harness/scenario/internal/mutantservices: no build, vet or student copy
// sees it, and the harness never imports solutions/.
package mutantservices

import (
	"context"
	"os"
	"regexp"
	"strings"
	"sync"

	services "github.com/kubekata/kubekata/solutions/14-services"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/servicenet"
)

// MutantEnv names the planted bug.
const MutantEnv = "KATA_SCENARIO_MUTANT"

// The planted bugs.
const (
	// TakenHandedOut: Allocate of a taken value succeeds, so two
	// Services may hold one address.
	TakenHandedOut = "taken-handed-out"
	// ReleaseIgnored: Release frees nothing, so a deleted Service's
	// address stays taken.
	ReleaseIgnored = "release-ignored"
	// NeverReady: every endpoint the controller writes says ready
	// false, whatever the pod's Ready condition.
	NeverReady = "never-ready"
	// FirstEndpointOnly: the rules lose their statistic matches, so the
	// first endpoint's rule takes every connection.
	FirstEndpointOnly = "first-endpoint-only"
	// UnreadyKept: the rules see every endpoint ready, so a pod whose
	// readiness fails still gets connections.
	UnreadyKept = "unready-kept"
	// ClusterIPHidden: a Service with a ClusterIP answers with its
	// endpoints' addresses, as if it were headless.
	ClusterIPHidden = "cluster-ip-hidden"
	// SRVMissing: no named port has an SRV record.
	SRVMissing = "srv-missing"
	// StaleAnswers: a name that once resolved keeps its last answer,
	// so a deleted Service keeps its name.
	StaleAnswers = "stale-answers"
	// EnvNone: containers get no service variables.
	EnvNone = "env-none"
	// PartialChangedIgnored: PartialRules is told of no changed
	// Service, so a partial sync rewrites no Service's chains: an
	// endpoint added to a Service that has some never gets
	// connections. (A new Service, or an endpoint gone, makes the
	// text fail to restore, and kube-proxy syncs in full instead.)
	PartialChangedIgnored = "partial-changed-ignored"
)

// statistic is the match that gives endpoint i of n its 1/(n-i).
var statistic = regexp.MustCompile(` -m statistic --mode random --probability \S+`)

// Rules is the reference's with the bug $KATA_SCENARIO_MUTANT names.
func Rules(svcs []api.Service, slices []api.EndpointSlice) string {
	return rulesOut(services.Rules(svcs, rulesIn(slices)))
}

// PartialRules is the reference's with the bug $KATA_SCENARIO_MUTANT
// names: the bugs of Rules, so that kube-proxy's partial syncs show them
// as its full syncs do, and PartialChangedIgnored.
func PartialRules(svcs []api.Service, slices []api.EndpointSlice, changed, existing []string) string {
	if os.Getenv(MutantEnv) == PartialChangedIgnored {
		changed = nil
	}
	return rulesOut(services.PartialRules(svcs, rulesIn(slices), changed, existing))
}

// rulesIn is what the rules bugs change in the rules' input: with
// UnreadyKept, every endpoint ready (in copies).
func rulesIn(slices []api.EndpointSlice) []api.EndpointSlice {
	if os.Getenv(MutantEnv) != UnreadyKept {
		return slices
	}
	yes := true
	slices = append([]api.EndpointSlice(nil), slices...)
	for i := range slices {
		s := api.DeepCopy(&slices[i])
		for j := range s.Endpoints {
			s.Endpoints[j].Conditions.Ready = &yes
		}
		slices[i] = *s
	}
	return slices
}

// rulesOut is what the rules bugs change in the text: with
// FirstEndpointOnly, no statistic match.
func rulesOut(text string) string {
	if os.Getenv(MutantEnv) == FirstEndpointOnly {
		text = statistic.ReplaceAllString(text, "")
	}
	return text
}

// NewIPRange is the reference's with the bug $KATA_SCENARIO_MUTANT names.
func NewIPRange(cidr string) (servicenet.Allocator, error) {
	a, err := services.NewIPRange(cidr)
	if err != nil {
		return nil, err
	}
	return allocator{Allocator: a, bug: os.Getenv(MutantEnv)}, nil
}

// NewPortRange is the reference's with the bug $KATA_SCENARIO_MUTANT
// names.
func NewPortRange(portRange string) (servicenet.Allocator, error) {
	a, err := services.NewPortRange(portRange)
	if err != nil {
		return nil, err
	}
	return allocator{Allocator: a, bug: os.Getenv(MutantEnv)}, nil
}

type allocator struct {
	servicenet.Allocator
	bug string
}

func (a allocator) Allocate(v string) error {
	if a.bug == TakenHandedOut && a.Has(v) {
		return nil
	}
	return a.Allocator.Allocate(v)
}

func (a allocator) Release(v string) error {
	if a.bug == ReleaseIgnored {
		return nil
	}
	return a.Allocator.Release(v)
}

// New is the reference's New with the bug $KATA_SCENARIO_MUTANT names.
func New(c client.Interface, opts servicenet.Options) servicenet.Controller {
	return services.New(mutant{Interface: c, bug: os.Getenv(MutantEnv)}, opts)
}

// mutant is c with the planted bug.
type mutant struct {
	client.Interface
	bug string
}

// unready is s with every endpoint not ready, under NeverReady.
func (m mutant) unready(obj api.Object) api.Object {
	s, ok := obj.(*api.EndpointSlice)
	if !ok || m.bug != NeverReady {
		return obj
	}
	s = api.DeepCopy(s)
	no := false
	for i := range s.Endpoints {
		s.Endpoints[i].Conditions.Ready = &no
	}
	return s
}

func (m mutant) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	return m.Interface.Create(ctx, m.unready(obj))
}

func (m mutant) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return m.Interface.Update(ctx, m.unready(obj))
}

// stale are the answers Lookup gave, by question, under StaleAnswers.
var stale sync.Map

// Lookup is the reference's with the bug $KATA_SCENARIO_MUTANT names.
func Lookup(q servicenet.Question, svcs []api.Service, slices []api.EndpointSlice) servicenet.Answer {
	switch os.Getenv(MutantEnv) {
	case ClusterIPHidden:
		svcs = append([]api.Service(nil), svcs...)
		for i := range svcs {
			svcs[i].Spec.ClusterIP = api.ClusterIPNone
		}
	case SRVMissing:
		if q.Type == servicenet.TypeSRV {
			return servicenet.Answer{Rcode: servicenet.NXDomain}
		}
	}
	a := services.Lookup(q, svcs, slices)
	if os.Getenv(MutantEnv) == StaleAnswers {
		key := strings.ToLower(q.Name) + " " + q.Type
		if len(a.Records) > 0 {
			stale.Store(key, a)
		} else if old, ok := stale.Load(key); ok {
			return old.(servicenet.Answer)
		}
	}
	return a
}

// Env is the reference's with the bug $KATA_SCENARIO_MUTANT names.
func Env(pod api.Pod, svcs []api.Service) []api.EnvVar {
	if os.Getenv(MutantEnv) == EnvNone {
		return nil
	}
	return services.Env(pod, svcs)
}
