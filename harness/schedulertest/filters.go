package schedulertest

import (
	"fmt"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 02-07: Filter runs upstream's filter plugins in the order of
// pkg/scheduler/apis/config/v1/default_plugins.go (NodeUnschedulable,
// NodeName, TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit)
// and returns the first failing plugin's status with its name. Every
// NodeInfo here is written as numbers.

// filterCase is one call of Filter and what it must return.
type filterCase struct {
	what string
	pod  *api.Pod
	node *framework.NodeInfo
	want *framework.Status
}

func checkFilter(t *suite.T, impl Impl, c filterCase) {
	t.Helper()
	call := fmt.Sprintf("Filter(pod %q, node %q)", c.pod.Name, c.node.Name())
	unchanged := keep(t, call, c.pod, c.node)
	got := impl.Filter(c.pod, c.node)
	unchanged()
	if !sameStatus(got, c.want) {
		t.Errorf("%s = %s, want %s: %s", call, fmtStatus(got), fmtStatus(c.want), c.what)
	}
}

func checkFilters(t *suite.T, impl Impl, cases []filterCase) {
	t.Helper()
	need(t, "Filter", impl.Filter)
	for _, c := range cases {
		checkFilter(t, impl, c)
	}
}

// tolerate is a toleration.
func tolerate(key string, op api.TolerationOperator, value string, effect api.TaintEffect) api.Toleration {
	return api.Toleration{Key: key, Operator: op, Value: value, Effect: effect}
}

// tolerating returns pod web with tolerations ts and a small request.
func tolerating(ts ...api.Toleration) *api.Pod {
	p := newPod("web", ctr("app", "cpu", "100m", "memory", "128Mi"))
	p.Spec.Tolerations = ts
	return p
}

// tainted is an empty roomy node-1 with taints.
func tainted(taints ...api.Taint) *framework.NodeInfo {
	n := emptyInfo("node-1", roomy)
	n.Node.Spec.Taints = taints
	return n
}

func taint(key, value string, effect api.TaintEffect) api.Taint {
	return api.Taint{Key: key, Value: value, Effect: effect}
}

// Step 02: pkg/scheduler/framework/plugins/nodeunschedulable/
// node_unschedulable.go (a cordoned node, unless the pod tolerates the
// taint node.kubernetes.io/unschedulable:NoSchedule) and
// plugins/nodename/node_name.go (spec.nodeName names another node); both
// UnschedulableAndUnresolvable.
func nodeUnschedulableAndName(t *suite.T, impl Impl) {
	cordoned := func() *framework.NodeInfo {
		n := emptyInfo("node-1", roomy)
		n.Node.Spec.Unschedulable = true
		return n
	}
	named := func(nodeName string) *api.Pod {
		p := newPod("web", ctr("app", "cpu", "100m"))
		p.Spec.NodeName = nodeName
		return p
	}
	wantCordoned := fails(framework.UnschedulableAndUnresolvable, pluginNodeUnschedulable, reasonUnschedulable)
	checkFilters(t, impl, []filterCase{
		{what: "a schedulable node with room takes the pod", pod: tolerating(), node: emptyInfo("node-1", roomy), want: nil},
		{what: "a cordoned node (spec.unschedulable) takes no new pod", pod: tolerating(), node: cordoned(), want: wantCordoned},
		{what: "a pod tolerating node.kubernetes.io/unschedulable:NoSchedule goes to a cordoned node",
			pod: tolerating(tolerate(api.TaintNodeUnschedulable, api.TolerationOpExists, "", api.TaintEffectNoSchedule)), node: cordoned(), want: nil},
		{what: "a toleration of node.kubernetes.io/unschedulable with effect NoExecute does not tolerate the cordon (effect NoSchedule)",
			pod: tolerating(tolerate(api.TaintNodeUnschedulable, api.TolerationOpExists, "", api.TaintEffectNoExecute)), node: cordoned(), want: wantCordoned},
		{what: "a toleration of another key does not tolerate the cordon",
			pod: tolerating(tolerate("dedicated", api.TolerationOpExists, "", api.TaintEffectNoSchedule)), node: cordoned(), want: wantCordoned},
		{what: "a pod whose spec.nodeName is this node fits", pod: named("node-1"), node: emptyInfo("node-1", roomy), want: nil},
		{what: "a pod whose spec.nodeName names another node does not fit",
			pod: named("node-2"), node: emptyInfo("node-1", roomy), want: fails(framework.UnschedulableAndUnresolvable, pluginNodeName, reasonNodeName)},
	})
}

// Step 03: pkg/scheduler/framework/plugins/noderesources/fit.go
// fitsRequest: "Too many pods" when the node's pods plus this one exceed
// its allowed number; then, if the pod requests anything, each of cpu,
// memory and ephemeral-storage whose request exceeds allocatable minus
// requested, as separate reasons in that order. The status is
// Unschedulable, or UnschedulableAndUnresolvable when a request exceeds
// the node's whole allocatable (no eviction can make room:
// kubernetes/kubernetes#131310, PR #131345). The pod's requests are
// step 01's: init containers and overhead count.
func resourcesFit(t *suite.T, impl Impl) {
	alloc := framework.Resource{MilliCPU: 4000, Memory: 8 * gi, EphemeralStorage: 10 * gi, AllowedPodNumber: 110}
	// busy has 1 cpu, 2Gi of memory and 2Gi of ephemeral storage free.
	busy := func() *framework.NodeInfo {
		return info(newNode("node-1", alloc), alloc,
			framework.Resource{MilliCPU: 3000, Memory: 6 * gi, EphemeralStorage: 8 * gi},
			framework.Resource{MilliCPU: 3000, Memory: 6 * gi},
			withPods("node-1", 10)...)
	}
	// full holds its allowed 10 pods, with room for anything else.
	fullAlloc := framework.Resource{MilliCPU: 4000, Memory: 8 * gi, EphemeralStorage: 10 * gi, AllowedPodNumber: 10}
	full := func() *framework.NodeInfo {
		return info(newNode("node-1", fullAlloc), fullAlloc, framework.Resource{MilliCPU: 1000}, framework.Resource{MilliCPU: 1000, Memory: 2 * gi}, withPods("node-1", 10)...)
	}
	// cpuFull has no cpu free: every cpu requested.
	cpuFull := func() *framework.NodeInfo {
		return info(newNode("node-1", alloc), alloc, framework.Resource{MilliCPU: 4000}, framework.Resource{MilliCPU: 4000, Memory: 4 * 200 * mi}, withPods("node-1", 4)...)
	}
	pod := func(requests ...string) *api.Pod { return newPod("web", ctr("app", requests...)) }
	withInit := pod("cpu", "100m")
	withInit.Spec.InitContainers = []api.Container{ctr("migrate", "cpu", "1500m")}
	withOverhead := pod("cpu", "900m")
	withOverhead.Spec.Overhead = resources("cpu", "200m")

	fit := func(code framework.Code, reasons ...string) *framework.Status {
		return fails(code, pluginNodeResourcesFit, reasons...)
	}
	const un, unres = framework.Unschedulable, framework.UnschedulableAndUnresolvable
	checkFilters(t, impl, []filterCase{
		{what: "the pod's requests fit in what the node has free", pod: pod("cpu", "500m", "memory", "1Gi"), node: busy(), want: nil},
		{what: "a request equal to what is free fits", pod: pod("cpu", "1", "memory", "2Gi", "ephemeral-storage", "2Gi"), node: busy(), want: nil},
		{what: "1001m cpu does not fit in 1 cpu free", pod: pod("cpu", "1001m"), node: busy(), want: fit(un, "Insufficient cpu")},
		{what: "every insufficient resource is a reason of its own, cpu before memory",
			pod: pod("cpu", "2", "memory", "3Gi"), node: busy(), want: fit(un, "Insufficient cpu", "Insufficient memory")},
		{what: "ephemeral-storage counts too", pod: pod("ephemeral-storage", "3Gi"), node: busy(), want: fit(un, "Insufficient ephemeral-storage")},
		{what: "a node holding its allowed number of pods takes no more", pod: pod("cpu", "100m"), node: full(), want: fit(un, "Too many pods")},
		{what: "Too many pods comes before the resources", pod: pod("cpu", "3500m"), node: full(), want: fit(un, "Too many pods", "Insufficient cpu")},
		{what: "a pod that requests nothing fits a node with no cpu free", pod: pod(), node: cpuFull(), want: nil},
		{what: "a pod that requests nothing still counts as a pod", pod: pod(), node: full(), want: fit(un, "Too many pods")},
		{what: "an init container's request counts (the largest of containers and init containers)", pod: withInit, node: busy(), want: fit(un, "Insufficient cpu")},
		{what: "spec.overhead counts", pod: withOverhead, node: busy(), want: fit(un, "Insufficient cpu")},
		{what: "a request above the node's whole allocatable is UnschedulableAndUnresolvable: evicting pods cannot help",
			pod: pod("cpu", "5"), node: busy(), want: fit(unres, "Insufficient cpu")},
		{what: "one unresolvable reason makes the status UnschedulableAndUnresolvable, with every reason",
			pod: pod("cpu", "2", "memory", "9Gi"), node: busy(), want: fit(unres, "Insufficient cpu", "Insufficient memory")},
	})
}

// Step 04: pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go
// and staging/src/k8s.io/component-helpers/scheduling/corev1/
// nodeaffinity/nodeaffinity.go: spec.nodeSelector (every pair) AND the
// required node affinity (terms ORed; a term's expressions and fields
// ANDed; an empty term matches nothing; NotIn and DoesNotExist match an
// absent label; Gt and Lt compare integers; matchFields knows
// metadata.name). Preferred terms never filter.
func nodeAffinity(t *suite.T, impl Impl) {
	node := func() *framework.NodeInfo {
		n := emptyInfo("node-1", roomy)
		n.Node.Labels = map[string]string{api.LabelHostname: "node-1", "zone": "a", "disktype": "ssd", "gpu-count": "4"}
		return n
	}
	selector := func(kv ...string) *api.Pod {
		p := newPod("web", ctr("app", "cpu", "100m"))
		p.Spec.NodeSelector = map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			p.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
		return p
	}
	// required returns a pod whose required node affinity has terms.
	required := func(terms ...api.NodeSelectorTerm) *api.Pod {
		p := newPod("web", ctr("app", "cpu", "100m"))
		p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: terms},
		}}
		return p
	}
	term := func(reqs ...api.NodeSelectorRequirement) api.NodeSelectorTerm {
		return api.NodeSelectorTerm{MatchExpressions: reqs}
	}
	expr := func(key string, op api.NodeSelectorOperator, values ...string) api.NodeSelectorRequirement {
		return api.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	fieldTerm := func(op api.NodeSelectorOperator, values ...string) api.NodeSelectorTerm {
		return api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: op, Values: values}}}
	}
	both := selector("zone", "a")
	both.Spec.Affinity = required(term(expr("zone", api.NodeSelectorOpIn, "b"))).Spec.Affinity
	bothOther := selector("zone", "b")
	bothOther.Spec.Affinity = required(term(expr("zone", api.NodeSelectorOpIn, "a"))).Spec.Affinity
	preferredOnly := newPod("web", ctr("app", "cpu", "100m"))
	preferredOnly.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{{Weight: 10, Preference: term(expr("zone", api.NodeSelectorOpIn, "b"))}},
	}}

	no := fails(framework.UnschedulableAndUnresolvable, pluginNodeAffinity, reasonNodeAffinity)
	const (
		in, notIn, exists, absent = api.NodeSelectorOpIn, api.NodeSelectorOpNotIn, api.NodeSelectorOpExists, api.NodeSelectorOpDoesNotExist
		gt, lt                    = api.NodeSelectorOpGt, api.NodeSelectorOpLt
	)
	checkFilters(t, impl, []filterCase{
		{what: "nodeSelector zone=a matches the node's label", pod: selector("zone", "a"), node: node(), want: nil},
		{what: "nodeSelector zone=b does not match zone=a", pod: selector("zone", "b"), node: node(), want: no},
		{what: "every pair of the nodeSelector must match", pod: selector("zone", "a", "disktype", "hdd"), node: node(), want: no},
		{what: "a nodeSelector label the node lacks does not match", pod: selector("rack", "r1"), node: node(), want: no},
		{what: "In matches a listed value", pod: required(term(expr("zone", in, "a", "b"))), node: node(), want: nil},
		{what: "In does not match an unlisted value", pod: required(term(expr("zone", in, "b", "c"))), node: node(), want: no},
		{what: "NotIn matches an unlisted value", pod: required(term(expr("zone", notIn, "b"))), node: node(), want: nil},
		{what: "NotIn does not match a listed value", pod: required(term(expr("zone", notIn, "a"))), node: node(), want: no},
		{what: "NotIn matches a node without the label", pod: required(term(expr("rack", notIn, "r1"))), node: node(), want: nil},
		{what: "Exists matches a present label", pod: required(term(expr("disktype", exists))), node: node(), want: nil},
		{what: "Exists does not match an absent label", pod: required(term(expr("rack", exists))), node: node(), want: no},
		{what: "DoesNotExist matches an absent label", pod: required(term(expr("rack", absent))), node: node(), want: nil},
		{what: "DoesNotExist does not match a present label", pod: required(term(expr("disktype", absent))), node: node(), want: no},
		{what: "Gt compares integers: 4 > 3", pod: required(term(expr("gpu-count", gt, "3"))), node: node(), want: nil},
		{what: "Gt: 4 > 4 is false", pod: required(term(expr("gpu-count", gt, "4"))), node: node(), want: no},
		{what: "Gt compares integers, not strings: 4 > 10 is false", pod: required(term(expr("gpu-count", gt, "10"))), node: node(), want: no},
		{what: "Lt compares integers, not strings: 4 < 10", pod: required(term(expr("gpu-count", lt, "10"))), node: node(), want: nil},
		{what: "Lt: 4 < 4 is false", pod: required(term(expr("gpu-count", lt, "4"))), node: node(), want: no},
		{what: "Gt on an absent label does not match", pod: required(term(expr("rack", gt, "1"))), node: node(), want: no},
		{what: "Gt on a label that is not an integer does not match", pod: required(term(expr("zone", gt, "1"))), node: node(), want: no},
		{what: "terms are ORed: the second term matches",
			pod: required(term(expr("zone", in, "b")), term(expr("disktype", in, "ssd"))), node: node(), want: nil},
		{what: "terms are ORed: no term matches",
			pod: required(term(expr("zone", in, "b")), term(expr("disktype", in, "hdd"))), node: node(), want: no},
		{what: "a term's expressions are ANDed",
			pod: required(term(expr("zone", in, "a"), expr("disktype", in, "hdd"))), node: node(), want: no},
		{what: "an empty term matches no node", pod: required(api.NodeSelectorTerm{}), node: node(), want: no},
		{what: "an empty term beside a matching one: the other term matches",
			pod: required(api.NodeSelectorTerm{}, term(expr("zone", in, "a"))), node: node(), want: nil},
		{what: "matchFields metadata.name In the node's name", pod: required(fieldTerm(in, "node-1")), node: node(), want: nil},
		{what: "matchFields metadata.name In another name", pod: required(fieldTerm(in, "node-2")), node: node(), want: no},
		{what: "matchFields metadata.name NotIn another name", pod: required(fieldTerm(notIn, "node-2")), node: node(), want: nil},
		{what: "nodeSelector and required affinity must both match (the affinity does not)", pod: both, node: node(), want: no},
		{what: "nodeSelector and required affinity must both match (the nodeSelector does not)", pod: bothOther, node: node(), want: no},
		{what: "preferred terms never filter", pod: preferredOnly, node: node(), want: nil},
	})
}

// Step 05: pkg/scheduler/framework/plugins/tainttoleration/
// taint_toleration.go Filter, pkg/apis/core/v1/helper/helpers.go
// FindMatchingUntoleratedTaint and staging/src/k8s.io/api/core/v1/
// toleration.go ToleratesTaint: the first taint, in the node's order,
// with effect NoSchedule or NoExecute that no toleration tolerates. A
// toleration with an empty effect matches every effect; an empty key
// with Exists matches every key; Exists ignores the value; Equal (or no
// operator) needs the same value.
func taintToleration(t *suite.T, impl Impl) {
	const (
		noSchedule, noExecute, prefer = api.TaintEffectNoSchedule, api.TaintEffectNoExecute, api.TaintEffectPreferNoSchedule
		exists, equal                 = api.TolerationOpExists, api.TolerationOpEqual
	)
	gpu := taint("dedicated", "gpu", noSchedule)
	no := func(key, value string) *framework.Status {
		return fails(framework.UnschedulableAndUnresolvable, pluginTaintToleration, untolerated(key, value))
	}
	checkFilters(t, impl, []filterCase{
		{what: "an untolerated NoSchedule taint repels the pod", pod: tolerating(), node: tainted(gpu), want: no("dedicated", "gpu")},
		{what: "a toleration with the same key, value and effect tolerates it",
			pod: tolerating(tolerate("dedicated", equal, "gpu", noSchedule)), node: tainted(gpu), want: nil},
		{what: "Equal needs the same value", pod: tolerating(tolerate("dedicated", equal, "cpu", noSchedule)), node: tainted(gpu), want: no("dedicated", "gpu")},
		{what: "no operator means Equal", pod: tolerating(tolerate("dedicated", "", "gpu", noSchedule)), node: tainted(gpu), want: nil},
		{what: "Exists ignores the value", pod: tolerating(tolerate("dedicated", exists, "", noSchedule)), node: tainted(gpu), want: nil},
		{what: "an empty key with Exists tolerates every taint", pod: tolerating(tolerate("", exists, "", "")),
			node: tainted(gpu, taint("evict", "now", noExecute)), want: nil},
		{what: "another effect does not tolerate", pod: tolerating(tolerate("dedicated", equal, "gpu", noExecute)), node: tainted(gpu), want: no("dedicated", "gpu")},
		{what: "an empty effect tolerates every effect", pod: tolerating(tolerate("dedicated", equal, "gpu", "")), node: tainted(gpu), want: nil},
		{what: "an untolerated NoExecute taint repels the pod as NoSchedule does",
			pod: tolerating(), node: tainted(taint("evict", "now", noExecute)), want: no("evict", "now")},
		{what: "a PreferNoSchedule taint never filters", pod: tolerating(), node: tainted(taint("spot", "true", prefer)), want: nil},
		{what: "a taint without a value shows an empty value in the reason",
			pod: tolerating(), node: tainted(taint("maintenance", "", noSchedule)), want: no("maintenance", "")},
		{what: "the first untolerated NoSchedule or NoExecute taint in the node's order is the reason",
			pod:  tolerating(tolerate("a", exists, "", noSchedule)),
			node: tainted(taint("a", "1", noSchedule), taint("b", "2", prefer), taint("c", "3", noExecute), taint("d", "4", noSchedule)),
			want: no("c", "3")},
		{what: "an empty key with Exists and effect NoSchedule tolerates NoSchedule taints only",
			pod: tolerating(tolerate("", exists, "", noSchedule)), node: tainted(taint("x", "1", noSchedule), taint("y", "", noExecute)), want: no("y", "")},
	})
}

// Step 06: pkg/scheduler/framework/plugins/nodeports/node_ports.go and
// HostPortInfo.CheckConflict (pkg/scheduler/framework/types.go): a wanted
// host port conflicts with a used one of the same protocol and port when
// the IPs are equal or either is 0.0.0.0 (a missing IP); a missing
// protocol is TCP. Unschedulable.
func nodePorts(t *suite.T, impl Impl) {
	node := func() *framework.NodeInfo {
		proxy := newPod("proxy", ctr("proxy", "cpu", "100m", "memory", "64Mi"))
		proxy.Spec.NodeName = "node-1"
		proxy.Spec.Containers[0].Ports = []api.ContainerPort{
			{ContainerPort: 8080, HostPort: 8080},
			{ContainerPort: 9000, HostPort: 9000, HostIP: "10.0.0.1"},
			{ContainerPort: 53, HostPort: 53, Protocol: api.ProtocolUDP},
		}
		n := info(newNode("node-1", roomy), roomy, cpuMem(100, 64*mi), cpuMem(100, 64*mi), proxy)
		n.UsedPorts = []framework.HostPort{
			{IP: "0.0.0.0", Protocol: "TCP", Port: 8080},
			{IP: "10.0.0.1", Protocol: "TCP", Port: 9000},
			{IP: "0.0.0.0", Protocol: "UDP", Port: 53},
		}
		return n
	}
	wants := func(ps ...api.ContainerPort) *api.Pod {
		p := newPod("web", ctr("app", "cpu", "100m"))
		p.Spec.Containers[0].Ports = ps
		return p
	}
	port := func(hostPort int32, protocol api.Protocol, hostIP string) api.ContainerPort {
		return api.ContainerPort{ContainerPort: 80, HostPort: hostPort, Protocol: protocol, HostIP: hostIP}
	}
	taken := fails(framework.Unschedulable, pluginNodePorts, reasonNodePorts)
	checkFilters(t, impl, []filterCase{
		{what: "hostPort 8080 (TCP, any IP) is taken", pod: wants(port(8080, "", "")), node: node(), want: taken},
		{what: "hostPort 8080 UDP is free (another protocol)", pod: wants(port(8080, api.ProtocolUDP, "")), node: node(), want: nil},
		{what: "hostPort 8081 is free", pod: wants(port(8081, api.ProtocolTCP, "")), node: node(), want: nil},
		{what: "9000 on 10.0.0.2 is free: 9000 is taken on 10.0.0.1 only", pod: wants(port(9000, "", "10.0.0.2")), node: node(), want: nil},
		{what: "9000 on 10.0.0.1 is taken", pod: wants(port(9000, "", "10.0.0.1")), node: node(), want: taken},
		{what: "9000 on every IP (no hostIP) conflicts with 9000 on 10.0.0.1", pod: wants(port(9000, "", "")), node: node(), want: taken},
		{what: "9000 on 0.0.0.0 conflicts with 9000 on 10.0.0.1", pod: wants(port(9000, "", "0.0.0.0")), node: node(), want: taken},
		{what: "8080 on 10.0.0.5 conflicts with 8080 used on every IP", pod: wants(port(8080, "", "10.0.0.5")), node: node(), want: taken},
		{what: "53/UDP on 127.0.0.1 conflicts with 53/UDP on every IP", pod: wants(port(53, api.ProtocolUDP, "127.0.0.1")), node: node(), want: taken},
		{what: "53 without a protocol is TCP: free", pod: wants(port(53, "", "")), node: node(), want: nil},
		{what: "a container port without hostPort takes no host port", pod: wants(api.ContainerPort{ContainerPort: 8080}), node: node(), want: nil},
		{what: "one taken port among free ones is enough", pod: wants(port(8081, "", ""), port(8080, "", "")), node: node(), want: taken},
	})
}

// Step 07: the filters run in upstream's order
// (pkg/scheduler/apis/config/v1/default_plugins.go) and Filter returns
// the first failure (pkg/scheduler/framework/runtime/framework.go
// RunFilterPlugins): for each neighbouring pair, a node failing both
// reports the earlier; a node failing only the later reports it.
func filterOrder(t *suite.T, impl Impl) {
	// A node failing any set of the six plugins for pod web.
	type failing struct{ cordoned, name, taint, affinity, ports, resources bool }
	node := func(f failing) *framework.NodeInfo {
		alloc := framework.Resource{MilliCPU: 2000, Memory: 4 * gi, EphemeralStorage: 10 * gi, AllowedPodNumber: 110}
		requested := cpuMem(0, 0)
		if f.resources {
			requested = cpuMem(1500, 0)
		}
		n := info(newNode("node-1", alloc), alloc, requested, requested, withPods("node-1", 1)...)
		n.Node.Labels["zone"] = "a"
		n.Node.Spec.Unschedulable = f.cordoned
		if f.taint {
			n.Node.Spec.Taints = []api.Taint{taint("dedicated", "db", api.TaintEffectNoSchedule)}
		}
		if f.affinity {
			n.Node.Labels["zone"] = "b"
		}
		if f.ports {
			n.Pods[0].Spec.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 8080, HostPort: 8080}}
			n.UsedPorts = []framework.HostPort{{IP: "0.0.0.0", Protocol: "TCP", Port: 8080}}
		}
		return n
	}
	// pod web asks for node-1 (or node-2 when the name must fail), zone
	// a, host port 8080 and 1 cpu.
	pod := func(f failing) *api.Pod {
		p := newPod("web", ctr("app", "cpu", "1", "memory", "128Mi"))
		p.Spec.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 80, HostPort: 8080}}
		p.Spec.NodeSelector = map[string]string{"zone": "a"}
		p.Spec.NodeName = "node-1"
		if f.name {
			p.Spec.NodeName = "node-2"
		}
		return p
	}
	var (
		cordoned  = fails(framework.UnschedulableAndUnresolvable, pluginNodeUnschedulable, reasonUnschedulable)
		name      = fails(framework.UnschedulableAndUnresolvable, pluginNodeName, reasonNodeName)
		taints    = fails(framework.UnschedulableAndUnresolvable, pluginTaintToleration, untolerated("dedicated", "db"))
		affinity  = fails(framework.UnschedulableAndUnresolvable, pluginNodeAffinity, reasonNodeAffinity)
		ports     = fails(framework.Unschedulable, pluginNodePorts, reasonNodePorts)
		resources = fails(framework.Unschedulable, pluginNodeResourcesFit, "Insufficient cpu")
	)
	cases := []struct {
		what string
		f    failing
		want *framework.Status
	}{
		{"a node failing nothing", failing{}, nil},
		{"NodeUnschedulable runs before NodeName", failing{cordoned: true, name: true}, cordoned},
		{"NodeName runs before TaintToleration", failing{name: true, taint: true}, name},
		{"TaintToleration runs before NodeAffinity", failing{taint: true, affinity: true}, taints},
		{"NodeAffinity runs before NodePorts", failing{affinity: true, ports: true}, affinity},
		{"NodePorts runs before NodeResourcesFit", failing{ports: true, resources: true}, ports},
		{"NodeResourcesFit alone", failing{resources: true}, resources},
		{"NodePorts alone", failing{ports: true}, ports},
		{"NodeAffinity alone", failing{affinity: true}, affinity},
		{"TaintToleration alone", failing{taint: true}, taints},
		{"NodeName alone", failing{name: true}, name},
		{"a node failing all six reports the first, NodeUnschedulable", failing{true, true, true, true, true, true}, cordoned},
		{"a node failing all but NodeUnschedulable reports NodeName", failing{false, true, true, true, true, true}, name},
	}
	need(t, "Filter", impl.Filter)
	for _, c := range cases {
		checkFilter(t, impl, filterCase{what: c.what, pod: pod(c.f), node: node(c.f), want: c.want})
	}

	// NodeResourcesFit's own reasons come in upstream's order.
	alloc := framework.Resource{MilliCPU: 2000, Memory: 4 * gi, EphemeralStorage: 10 * gi, AllowedPodNumber: 1}
	full := info(newNode("node-1", alloc), alloc, framework.Resource{MilliCPU: 1500, Memory: 3 * gi, EphemeralStorage: 9 * gi}, cpuMem(1500, 3*gi), withPods("node-1", 1)...)
	greedy := newPod("web", ctr("app", "cpu", "1", "memory", "2Gi", "ephemeral-storage", "2Gi"))
	checkFilter(t, impl, filterCase{
		what: "NodeResourcesFit's reasons in upstream's order: pods, cpu, memory, ephemeral-storage",
		pod:  greedy, node: full,
		want: fails(framework.Unschedulable, pluginNodeResourcesFit, "Too many pods", "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage"),
	})
}
