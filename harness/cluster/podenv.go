package cluster

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/images"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/servicenet"
)

// dnsNdots is the ndots the kubelet writes into a pod's resolv.conf
// (options ndots:5, pkg/kubelet/network/dns/dns.go): a name with fewer
// dots is tried with the search domains first.
const dnsNdots = "5"

// podEnv is a node's runtime as the kubelet's container starts see it:
// CreateContainer puts, before the container's own variables (which win
// over them), the service environment variables exercise 14's Env gives
// for its pod, and where the cluster DNS server is with the pod's search
// domains. Upstream's kubelet does both itself (makeEnvironmentVariables
// in pkg/kubelet/kubelet_pods.go; the resolv.conf it writes from
// --cluster-dns and --cluster-domain); here the harness does it around
// exercise 13's kubelet, whose contract says nothing of Services, and
// hands the DNS server to the kata images through the environment, as a
// pod's process on loopback has no resolv.conf of its own.
type podEnv struct {
	cri.Runtime
	c client.Interface
	// env is exercise 14's Env; nil gives no service variables.
	env servicenet.EnvFunc
	// from names where env comes from, for messages.
	from string
	// dns is the cluster DNS server, HOST:PORT; "" gives no DNS
	// variables.
	dns string
	// services is the Services cache Env reads, synced before the
	// kubelet starts (upstream's kubelet waits for its service lister
	// before it builds a container's variables).
	services *informer.Informer
}

// newPodEnv wraps rt; run must run until the kubelet has stopped.
func newPodEnv(rt cri.Runtime, c client.Interface, env servicenet.EnvFunc, from, dns string) *podEnv {
	p := &podEnv{Runtime: rt, c: c, env: env, from: from, dns: dns}
	if env != nil {
		p.services = informer.New(c, client.For[*api.Service](c).Kind(), "", informer.Options{})
	}
	return p
}

// start runs the Services informer and waits for its first list; the
// informer stops with ctx, and done is closed once it has.
func (p *podEnv) start(ctx context.Context) (done <-chan struct{}, err error) {
	d := make(chan struct{})
	if p.services == nil {
		close(d)
		return d, nil
	}
	go func() {
		defer close(d)
		_ = p.services.Run(ctx)
	}()
	if err := p.services.WaitForSync(ctx); err != nil {
		return d, err
	}
	return d, nil
}

// CreateContainer adds the variables, then creates the container.
func (p *podEnv) CreateContainer(ctx context.Context, podSandboxID string, config *cri.ContainerConfig, sandboxConfig *cri.PodSandboxConfig) (string, error) {
	if config == nil || sandboxConfig == nil {
		return p.Runtime.CreateContainer(ctx, podSandboxID, config, sandboxConfig)
	}
	vars, err := p.vars(ctx, sandboxConfig.Metadata)
	if err != nil {
		return "", err
	}
	if len(vars) == 0 {
		return p.Runtime.CreateContainer(ctx, podSandboxID, config, sandboxConfig)
	}
	c := *config
	c.Envs = append(vars, expandEnvs(config.Envs, vars)...)
	c.Command = expandAll(config.Command, vars)
	c.Args = expandAll(config.Args, vars)
	return p.Runtime.CreateContainer(ctx, podSandboxID, &c, sandboxConfig)
}

// The kubelet expands $(NAME) in a container's command, args and env
// values from the service variables too (makeEnvironmentVariables'
// mapping, pkg/kubelet/kubelet_pods.go); exercise 13's kubelet knows
// only the container's own variables and leaves a $(NAME) it does not
// know as it is (expansion.Expand), so what it left is expanded here,
// from the variables added. (A $$(NAME) the kubelet already turned into
// $(NAME) is expanded too: upstream would have kept it.)

// expandAll expands each of ss.
func expandAll(ss []string, vars []cri.KeyValue) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = expandVars(s, vars)
	}
	return out
}

// expandEnvs expands the values of envs.
func expandEnvs(envs []cri.KeyValue, vars []cri.KeyValue) []cri.KeyValue {
	out := make([]cri.KeyValue, len(envs))
	for i, kv := range envs {
		out[i] = cri.KeyValue{Key: kv.Key, Value: expandVars(kv.Value, vars)}
	}
	return out
}

// expandVars replaces each $(NAME) of s that vars defines with its
// value, and leaves every other text as it is.
func expandVars(s string, vars []cri.KeyValue) string {
	if !strings.Contains(s, "$(") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "$(")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], ')')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		name := s[i+2 : i+j]
		value, ok := "", false
		for _, kv := range vars {
			if kv.Key == name {
				value, ok = kv.Value, true
			}
		}
		b.WriteString(s[:i])
		if ok {
			b.WriteString(value)
		} else {
			b.WriteString(s[i : i+j+1])
		}
		s = s[i+j+1:]
	}
}

// vars are the variables of the pod m names.
func (p *podEnv) vars(ctx context.Context, m cri.PodSandboxMetadata) ([]cri.KeyValue, error) {
	var out []cri.KeyValue
	if p.dns != "" {
		// The search path of a pod's resolv.conf: its namespace's
		// Services, every Service, the cluster.
		d := servicenet.ClusterDomain
		out = append(out,
			cri.KeyValue{Key: images.EnvDNSServer, Value: p.dns},
			cri.KeyValue{Key: images.EnvDNSSearch, Value: strings.Join([]string{m.Namespace + ".svc." + d, "svc." + d, d}, " ")},
			cri.KeyValue{Key: images.EnvDNSNdots, Value: dnsNdots})
	}
	if p.env == nil {
		return out, nil
	}
	// The pod itself, for spec.enableServiceLinks; one the cache of the
	// kubelet has and the apiserver no longer has (a static pod's
	// mirror not yet written) gets the namespace's Services.
	pod := api.Pod{ObjectMeta: api.ObjectMeta{Namespace: m.Namespace, Name: m.Name, UID: api.UID(m.UID)}}
	if got, err := client.For[*api.Pod](p.c).Get(ctx, m.Namespace, m.Name); err == nil {
		pod = *got
	} else if !client.IsNotFound(err) {
		return nil, fmt.Errorf("cluster: service environment of pod %s/%s: %w", m.Namespace, m.Name, err)
	}
	var svcs []api.Service
	for _, o := range p.services.List() {
		svcs = append(svcs, *api.DeepCopy(o.(*api.Service)))
	}
	env, err := p.callEnv(pod, svcs)
	if err != nil {
		return nil, err
	}
	for _, v := range env {
		out = append(out, cri.KeyValue{Key: v.Name, Value: v.Value})
	}
	return out, nil
}

// callEnv calls the learner's Env; a panic is an error of the
// container's start, not the end of the node.
func (p *podEnv) callEnv(pod api.Pod, svcs []api.Service) (env []api.EnvVar, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cluster: %s: Env(pod %s/%s) panicked: %v", from(p.from, "the service environment"), pod.Namespace, pod.Name, r)
		}
	}()
	return p.env(pod, svcs), nil
}
