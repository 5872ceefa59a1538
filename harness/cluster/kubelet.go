package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/images"
	"github.com/kubekata/kubekata/harness/cri/process"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/servicenet"
)

// MaxNodes is the most kubelets a cluster runs: node N's pods take their
// addresses from 127.X.N.0/24.
const MaxNodes = 254

// The pod networks, 127.X.0.0/16: the first cluster on a machine takes
// 127.244 (harness/cri/process.DefaultCIDR's), the next 127.243, and so on
// down to 127.100.
const podNetFirst, podNetLast = 244, 100

// serviceNetFirst and serviceNetLast bound the service networks,
// 127.X.0.0/16, below the pod networks: 127.96.0.0/16 is the first
// (servicenet.DefaultServiceCIDR).
const serviceNetFirst, serviceNetLast = 96, 51

// ClusterDNSPort is the port of the cluster DNS server, on the service
// network's tenth address: DNS's own port 53 needs privileges a learner's
// laptop does not give, so the kata images' resolver asks this one.
const ClusterDNSPort = 1053

// Node is what the cluster gives the kubelet it runs as node-N.
type Node struct {
	// Name is node-N.
	Name string
	// Index is N, from 1.
	Index int
	// Dir is DATA/nodes/node-N: the node's runtime (Dir/runtime: its
	// containers' root directories and logs), its pods' volumes
	// (Dir/pods) and its static pod manifests (Dir/manifests).
	Dir string
	// DataDir is the cluster's data directory, whose images.json is the
	// registry every node pulls from (`kata image push` writes it).
	DataDir string
	// PodCIDR is where the node's pod IPs come from, 127.X.N.0/24 of
	// the cluster's pod network 127.X.0.0/16 (127.244 for the first
	// cluster on the machine; a cluster started beside it takes another,
	// so that no two pods share an address), as kube-controller-manager
	// gives each node a /24 of --cluster-cidr; Address, 127.X.N.1 (the
	// first host address, which the runtime never gives a pod), is the
	// node's own: its InternalIP and its pods' hostIP.
	PodCIDR, Address string
	// DNSServer is the cluster DNS server, HOST:PORT, which each
	// container hears of with its search domains (images.EnvDNSServer
	// and the others); "" when the cluster runs none.
	DNSServer string
	// ServiceEnv gives the service environment variables of a pod's
	// containers (Parts.ServiceEnv; ServicesFrom says where it comes
	// from); nil gives none.
	ServiceEnv   servicenet.EnvFunc
	ServicesFrom string
}

// newNode is node-n of a cluster in dataDir whose pod network is
// 127.x.0.0/16.
func newNode(dataDir string, x, n int) Node {
	name := fmt.Sprintf("node-%d", n)
	return Node{Name: name, Index: n, Dir: filepath.Join(dataDir, "nodes", name), DataDir: dataDir,
		PodCIDR: fmt.Sprintf("127.%d.%d.0/24", x, n), Address: fmt.Sprintf("127.%d.%d.1", x, n)}
}

// ProcessKubelet is a Parts.Kubelet: newKubelet (exercise 13's New) over
// a process runtime (harness/cri/process) whose containers are real OS
// processes running the cluster program's own binary, which must call
// images.Dispatch first in main (Main does). The runtime pulls from the
// registry in the data directory. Each container the kubelet creates gets
// the node's DNSServer and its pod's service variables (n.ServiceEnv)
// before its own (podEnv). When the kubelet's Run returns, the runtime is
// closed, which kills every container it started: no process outlives
// the cluster.
func ProcessKubelet(newKubelet kubelets.NewFunc) func(client.Interface, Node) (Component, error) {
	return func(c client.Interface, n Node) (Component, error) {
		reg, err := images.Open(n.DataDir)
		if err != nil {
			return nil, fmt.Errorf("cluster: %s: %w", n.Name, err)
		}
		if err := os.MkdirAll(filepath.Join(n.Dir, "manifests"), 0o755); err != nil {
			return nil, fmt.Errorf("cluster: %s: %w", n.Name, err)
		}
		rt, err := process.New(process.Options{Dir: filepath.Join(n.Dir, "runtime"), Images: reg, CIDR: n.PodCIDR})
		if err != nil {
			return nil, fmt.Errorf("cluster: %s: %w", n.Name, err)
		}
		pe := newPodEnv(rt, c, n.ServiceEnv, n.ServicesFrom, n.DNSServer)
		k := newKubelet(c, kubelets.Options{
			NodeName:     n.Name,
			Address:      n.Address,
			Runtime:      pe,
			RootDir:      n.Dir,
			StaticPodDir: filepath.Join(n.Dir, "manifests"),
		})
		if isNilKubelet(k) {
			_ = rt.Close()
			return nil, errors.New("New returned a nil kubelet")
		}
		return &processKubelet{k: k, rt: rt, env: pe}, nil
	}
}

// processKubelet runs a kubelet, then closes its runtime.
type processKubelet struct {
	k   kubelets.Kubelet
	rt  *process.Runtime
	env *podEnv
}

// Run fills the Services cache the containers' variables come from,
// runs the kubelet, then closes its runtime.
func (p *processKubelet) Run(ctx context.Context) error {
	defer p.rt.Close()
	ictx, cancel := context.WithCancel(ctx)
	done, err := p.env.start(ictx)
	defer func() {
		cancel()
		<-done
	}()
	if err != nil {
		return nil // stopped before the cache filled
	}
	return p.k.Run(ctx)
}

// logSource is a kubelet component whose runtime's logs the cluster
// serves as pods/log.
type logSource interface {
	runtime() cri.Runtime
}

func (p *processKubelet) runtime() cri.Runtime { return p.rt }

// isNilKubelet says whether k is nil or a nil pointer in an interface.
func isNilKubelet(k kubelets.Kubelet) bool {
	if k == nil {
		return true
	}
	c, ok := k.(Component)
	return ok && isNil(c)
}
