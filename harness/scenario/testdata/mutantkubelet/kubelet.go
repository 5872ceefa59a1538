// Package mutantkubelet is the reference kubelet (solutions/13-kubelet)
// with one planted bug, chosen by $KATA_SCENARIO_MUTANT when New runs,
// so that the engine's tests can check that the kubelet's scenarios
// fail against a kubelet that lacks the behaviour they show.
//
// Each bug sits between the kubelet and what it drives: the apiserver
// (the client it is given) or the container runtime (Options.Runtime).
// It lives under testdata and is compiled only through go build
// -overlay (TestKubeletScenariosCatchPlantedBugs), as
// harness/scenario/internal/mutantkubelet: no build, vet or student
// copy sees it, and the harness never imports solutions/.
package mutantkubelet

import (
	"context"
	"os"
	"time"

	kubelet "github.com/kubekata/kubekata/solutions/13-kubelet"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// Env names the planted bug.
const Env = "KATA_SCENARIO_MUTANT"

// The planted bugs.
const (
	// NeverReady: every pod status the kubelet writes says its
	// containers are not ready, and its Ready and ContainersReady
	// conditions False, whatever the probes found.
	NeverReady = "never-ready"
	// StopLeavesProcess: StopContainer and StopPodSandbox (which stops
	// a sandbox's containers too, as containerd's does) answer done
	// without stopping anything, so a deleted pod's process runs on.
	StopLeavesProcess = "stop-leaves-process"
	// WrongPodIP: every pod status the kubelet writes gives the node's
	// address as the pod's IP.
	WrongPodIP = "wrong-pod-ip"
)

// New is the reference's New with the bug $KATA_SCENARIO_MUTANT names.
func New(c client.Interface, opts kubelets.Options) kubelets.Kubelet {
	bug := os.Getenv(Env)
	if bug == StopLeavesProcess {
		opts.Runtime = runtime{Runtime: opts.Runtime}
	}
	return kubelet.New(mutant{Interface: c, bug: bug}, opts)
}

// mutant is c with the planted bug.
type mutant struct {
	client.Interface
	bug string
}

func (m mutant) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	if p, ok := obj.(*api.Pod); ok && (m.bug == NeverReady || m.bug == WrongPodIP) {
		p = api.DeepCopy(p) // the kubelet's own object stays as it made it
		obj = p
		switch m.bug {
		case NeverReady:
			for i := range p.Status.ContainerStatuses {
				p.Status.ContainerStatuses[i].Ready = false
			}
			for i, c := range p.Status.Conditions {
				if c.Type == api.PodReady || c.Type == api.ContainersReady {
					p.Status.Conditions[i].Status = api.ConditionFalse
				}
			}
		case WrongPodIP:
			if p.Status.PodIP != "" {
				p.Status.PodIP = p.Status.HostIP
				p.Status.PodIPs = []api.PodIP{{IP: p.Status.HostIP}}
			}
		}
	}
	return m.Interface.UpdateStatus(ctx, obj)
}

// runtime is a cri.Runtime whose StopContainer and StopPodSandbox stop
// nothing.
type runtime struct {
	cri.Runtime
}

func (runtime) StopContainer(ctx context.Context, id string, timeout time.Duration) error {
	return nil
}

func (runtime) StopPodSandbox(ctx context.Context, id string) error {
	return nil
}
