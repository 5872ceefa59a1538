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
	"fmt"
	"maps"
	"os"
	"sync"
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
	// RestartsNotCounted: every pod status the kubelet writes says
	// restartCount 0.
	RestartsNotCounted = "restarts-not-counted"
	// ExitCodeLost: an exited container reads as exit code 0, reason
	// Completed, whatever it exited with.
	ExitCodeLost = "exit-code-lost"
	// PullFailsForever: an image whose pull failed once fails for good,
	// even once it is pushed.
	PullFailsForever = "pull-fails-forever"
	// MirrorNotRecreated: a mirror pod is created once; a create of it
	// again answers as if done, and nothing is made.
	MirrorNotRecreated = "mirror-not-recreated"
	// ContainerNameUnlabelled: containers are created without the
	// io.kubernetes.container.name label, by which a pod's log is found.
	ContainerNameUnlabelled = "container-name-unlabelled"
)

// New is the reference's New with the bug $KATA_SCENARIO_MUTANT names.
func New(c client.Interface, opts kubelets.Options) kubelets.Kubelet {
	bug := os.Getenv(Env)
	switch bug {
	case StopLeavesProcess, ExitCodeLost, PullFailsForever, ContainerNameUnlabelled:
		opts.Runtime = &runtime{Runtime: opts.Runtime, bug: bug, failed: map[string]bool{}}
	}
	return kubelet.New(&mutant{Interface: c, bug: bug, mirrors: map[string]bool{}}, opts)
}

// mutant is c with the planted bug.
type mutant struct {
	client.Interface
	bug string

	mu      sync.Mutex
	mirrors map[string]bool // the mirror pods created once, by namespace/name
}

func (m *mutant) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if p, ok := obj.(*api.Pod); ok && m.bug == MirrorNotRecreated && p.Annotations[api.MirrorPodAnnotationKey] != "" {
		key := p.Namespace + "/" + p.Name
		m.mu.Lock()
		again := m.mirrors[key]
		m.mirrors[key] = true
		m.mu.Unlock()
		if again {
			return obj, nil
		}
	}
	return m.Interface.Create(ctx, obj)
}

func (m *mutant) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	if p, ok := obj.(*api.Pod); ok && (m.bug == NeverReady || m.bug == WrongPodIP || m.bug == RestartsNotCounted) {
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
		case RestartsNotCounted:
			for i := range p.Status.ContainerStatuses {
				p.Status.ContainerStatuses[i].RestartCount = 0
			}
		}
	}
	return m.Interface.UpdateStatus(ctx, obj)
}

// runtime is a cri.Runtime with the planted bug.
type runtime struct {
	cri.Runtime
	bug string

	mu     sync.Mutex
	failed map[string]bool // the images whose pull failed
}

func (r *runtime) StopContainer(ctx context.Context, id string, timeout time.Duration) error {
	if r.bug == StopLeavesProcess {
		return nil
	}
	return r.Runtime.StopContainer(ctx, id, timeout)
}

func (r *runtime) StopPodSandbox(ctx context.Context, id string) error {
	if r.bug == StopLeavesProcess {
		return nil
	}
	return r.Runtime.StopPodSandbox(ctx, id)
}

func (r *runtime) CreateContainer(ctx context.Context, sandbox string, config *cri.ContainerConfig, sc *cri.PodSandboxConfig) (string, error) {
	if r.bug == ContainerNameUnlabelled {
		c := *config
		c.Labels = maps.Clone(config.Labels)
		delete(c.Labels, kubelets.LabelContainerName)
		config = &c
	}
	return r.Runtime.CreateContainer(ctx, sandbox, config, sc)
}

func (r *runtime) ContainerStatus(ctx context.Context, id string) (*cri.ContainerStatus, error) {
	st, err := r.Runtime.ContainerStatus(ctx, id)
	if err == nil && st != nil && r.bug == ExitCodeLost && st.State == cri.ContainerExited {
		c := *st
		c.ExitCode, c.Reason = 0, "Completed"
		st = &c
	}
	return st, err
}

func (r *runtime) PullImage(ctx context.Context, image cri.ImageSpec) (string, error) {
	if r.bug == PullFailsForever {
		r.mu.Lock()
		failed := r.failed[image.Image]
		r.mu.Unlock()
		if failed {
			return "", fmt.Errorf("mutantkubelet: pull of %s failed before, so it fails for good", image.Image)
		}
	}
	ref, err := r.Runtime.PullImage(ctx, image)
	if err != nil && r.bug == PullFailsForever {
		r.mu.Lock()
		r.failed[image.Image] = true
		r.mu.Unlock()
	}
	return ref, err
}
