// Package mutantnamespace is the reference namespace and ServiceAccount
// controllers (solutions/12-namespace) with one planted bug, chosen by
// $KATA_SCENARIO_MUTANT when New runs, so that the engine's tests can
// check that the namespace scenario fails against controllers that lack
// the behaviour it shows.
//
// Each bug sits between the controllers and the apiserver, in the client
// they are given: the controllers see no content in any one namespace, so
// they delete nothing and finalize at once; their creates of a
// ServiceAccount are dropped; their writes through the finalize
// subresource are dropped. It lives under testdata and is compiled only
// through go build -overlay (TestNamespaceScenariosCatchPlantedBugs), as
// harness/scenario/internal/mutantnamespace: no build, vet or student
// copy sees it, and the harness never imports solutions/.
package mutantnamespace

import (
	"context"
	"os"

	namespace "github.com/kubekata/kubekata/solutions/12-namespace"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/namespaces"
)

// Env names the planted bug.
const Env = "KATA_SCENARIO_MUTANT"

// The planted bugs.
const (
	// FinalizesWithContent: every List in one namespace answers empty
	// (the informers list across all namespaces and see everything), so
	// the controller deletes nothing, finds nothing left, and finalizes
	// a deleted namespace at once: its content is left behind.
	FinalizesWithContent = "finalizes-with-content"
	// NoDefaultServiceAccount: every Create of a ServiceAccount is
	// dropped (it answers as if it were done).
	NoDefaultServiceAccount = "no-default-serviceaccount"
	// NeverFinalizes: every write through the finalize subresource is
	// dropped (it answers with the namespace as sent), so an emptied
	// namespace stays Terminating.
	NeverFinalizes = "never-finalizes"
)

// New is the reference's New with the bug $KATA_SCENARIO_MUTANT names.
func New(c client.Interface, opts namespaces.Options) namespaces.Controller {
	return namespace.New(mutant{Interface: c, bug: os.Getenv(Env)}, opts)
}

// mutant is c with the planted bug.
type mutant struct {
	client.Interface
	bug string
}

func (m mutant) List(ctx context.Context, kind api.Kind, ns string, opts client.ListOptions) (*client.ObjectList, error) {
	l, err := m.Interface.List(ctx, kind, ns, opts)
	if err != nil || m.bug != FinalizesWithContent || ns == "" {
		return l, err
	}
	out := *l
	out.Items = nil
	return &out, nil
}

func (m mutant) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if _, ok := obj.(*api.ServiceAccount); ok && m.bug == NoDefaultServiceAccount {
		return obj, nil
	}
	return m.Interface.Create(ctx, obj)
}

func (m mutant) Finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	if m.bug == NeverFinalizes {
		return ns, nil
	}
	return m.Interface.Finalize(ctx, ns)
}
