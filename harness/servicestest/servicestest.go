// Package servicestest is the conformance suite of exercise 14
// (Services): the service registry's allocators, the EndpointSlice
// controller's slices and kube-proxy's rules, each a contract of
// harness/servicenet.
//
// The suite takes the implementation as an Impl, a struct of functions
// that the exercise's one-line test file fills from its package:
//
//	func TestServices(t *testing.T) { servicestest.Run(t, impl) }
//
// Its steps:
//
//  1. Steps 01-05 (alloc.go): an Allocator per range, as the apiserver's
//     service registry keeps them (pkg/registry/core/service/ipallocator,
//     portallocator and allocator/bitmap.go).
//  2. Steps 06-10 (slices.go): the EndpointSlices of a Service from its
//     pods (pkg/controller/endpointslice and
//     staging/src/k8s.io/endpointslice/reconciler.go).
//  3. Steps 11-16 (rules.go): kube-proxy's iptables rules from Services
//     and EndpointSlices (pkg/proxy/iptables/proxier.go).
//  4. Steps 17-19 (controller.go): the EndpointSlice controller's loop
//     on a fake apiserver (pkg/controller/endpointslice/endpointslice_controller.go).
//  5. Steps 20-22 (dns.go): the cluster DNS server's answers (the
//     Kubernetes DNS specification, CoreDNS's kubernetes plugin).
//  6. Step 23 (dns.go): the service environment variables of a
//     container (pkg/kubelet/envvars).
//  7. Steps 24-25 (partial.go): kube-proxy's partial sync, restored
//     with iptables-restore --noflush over the tables of the last sync
//     (harness/iptables): only the chains of the Services that changed,
//     and the deletion of the chains no Service uses
//     (pkg/proxy/iptables/proxier.go).
package servicestest

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"

	"github.com/kubekata/kubekata/harness/servicenet"
	"github.com/kubekata/kubekata/harness/suite"
)

// Impl is the implementation under test.
type Impl struct {
	// NewIPRange makes the Allocator of a service CIDR.
	NewIPRange servicenet.NewIPRangeFunc
	// NewPortRange makes the Allocator of a NodePort range.
	NewPortRange servicenet.NewPortRangeFunc
	// Slices computes a Service's EndpointSlice changes.
	Slices servicenet.SlicesFunc
	// Rules renders kube-proxy's rules.
	Rules servicenet.RulesFunc
	// PartialRules renders kube-proxy's partial sync.
	PartialRules servicenet.PartialRulesFunc
	// New makes the EndpointSlice controller.
	New servicenet.NewControllerFunc
	// Lookup answers the cluster DNS server's questions.
	Lookup servicenet.LookupFunc
	// Env gives a container's service environment variables.
	Env servicenet.EnvFunc
}

// LoopTimeout bounds each of the loop's steps (17-19): each waits for
// the controller several times.
const LoopTimeout = 45 * time.Second

// Run runs the graded steps of exercise 14-services against impl.
func Run(t *testing.T, impl Impl) {
	t.Helper()
	suite.Run(t, "14-services", Steps(impl))
}

// Steps are the graded steps, in manifest order. Run is what tests call;
// Steps is exported so that the suite's own tests can run one step alone.
func Steps(impl Impl) []suite.Step {
	step := func(id string, run func(t *suite.T, impl Impl)) suite.Step {
		return suite.Step{ID: id, Run: func(t *suite.T) { run(t, watched(t, impl)) }}
	}
	loop := func(id string, run func(t *suite.T, impl Impl)) suite.Step {
		s := step(id, run)
		s.Timeout = LoopTimeout
		return s
	}
	return []suite.Step{
		step("01-allocate-next", allocateNext),
		step("02-allocate-requested", allocateRequested),
		step("03-static-band", staticBand),
		step("04-release", release),
		step("05-node-ports", nodePorts),
		step("06-endpoints", endpoints),
		step("07-endpoint-conditions", endpointConditions),
		step("08-named-ports", namedPorts),
		step("09-slice-size", sliceSize),
		step("10-fewest-changes", fewestChanges),
		step("11-chain-names", chainNames),
		step("12-cluster-ip-rules", clusterIPRules),
		step("13-probability", probability),
		step("14-ready-endpoints", readyEndpoints),
		step("15-no-endpoints", noEndpoints),
		step("16-session-affinity", sessionAffinity),
		loop("17-controller-sync", controllerSync),
		loop("18-slice-changes", sliceChanges),
		loop("19-retry", retryWrites),
		step("20-dns-names", dnsNames),
		step("21-dns-headless", dnsHeadless),
		step("22-dns-srv", dnsSRVRecords),
		step("23-service-env", serviceEnv),
		step("24-partial-sync", partialSync),
		step("25-stale-chains", staleChains),
	}
}

// need stops the step when the test file left a function out.
func need(t *suite.T, name string, fn any) {
	t.Helper()
	if v := reflect.ValueOf(fn); !v.IsValid() || v.IsNil() {
		t.Fatalf("servicestest: Impl.%s is nil: the test file must pass your %s function", name, name)
	}
}

// watched is impl with Slices, Rules, PartialRules, Lookup and Env checked for
// changing their input: the inputs of the controller, the proxy, the DNS
// server and the kubelet are an informer's cache, which every other
// reader shares, so a change there is a bug wherever
// it happens (upstream's informers hand out shared pointers, and their
// readers must copy before they write).
func watched(t *suite.T, impl Impl) Impl {
	if impl.Slices != nil {
		slicesFn := impl.Slices
		impl.Slices = func(svc api.Service, pods []api.Pod, existing []api.EndpointSlice) servicenet.Changes {
			before := snapshot(svc, pods, existing)
			out := slicesFn(svc, pods, existing)
			if after := snapshot(svc, pods, existing); after != before {
				t.Errorf("Slices(service %s/%s, %d pods, %d slices) changed its input: never write to the Service, the pods or the existing slices; copy what you change", svc.Namespace, svc.Name, len(pods), len(existing))
			}
			return out
		}
	}
	if impl.Rules != nil {
		rulesFn := impl.Rules
		impl.Rules = func(services []api.Service, slices []api.EndpointSlice) string {
			before := snapshot(services, slices)
			out := rulesFn(services, slices)
			if after := snapshot(services, slices); after != before {
				t.Errorf("Rules(%d services, %d slices) changed its input: never write to the Services or the slices; copy what you change", len(services), len(slices))
			}
			return out
		}
	}
	if impl.PartialRules != nil {
		partialFn := impl.PartialRules
		impl.PartialRules = func(services []api.Service, slices []api.EndpointSlice, changed, existing []string) string {
			before := snapshot(services, slices, changed, existing)
			out := partialFn(services, slices, changed, existing)
			if after := snapshot(services, slices, changed, existing); after != before {
				t.Errorf("PartialRules(%d services, %d slices, %d changed, %d existing chains) changed its input: never write to the Services, the slices, changed or existing; copy what you change", len(services), len(slices), len(changed), len(existing))
			}
			return out
		}
	}
	if impl.Lookup != nil {
		lookupFn := impl.Lookup
		impl.Lookup = func(q servicenet.Question, services []api.Service, slices []api.EndpointSlice) servicenet.Answer {
			before := snapshot(services, slices)
			out := lookupFn(q, services, slices)
			if after := snapshot(services, slices); after != before {
				t.Errorf("Lookup(%s %s, %d services, %d slices) changed its input: never write to the Services or the slices; copy what you change", q.Name, q.Type, len(services), len(slices))
			}
			return out
		}
	}
	if impl.Env != nil {
		envFn := impl.Env
		impl.Env = func(pod api.Pod, services []api.Service) []api.EnvVar {
			before := snapshot(pod, services)
			out := envFn(pod, services)
			if after := snapshot(pod, services); after != before {
				t.Errorf("Env(pod %s/%s, %d services) changed its input: never write to the pod or the Services; copy what you change", pod.Namespace, pod.Name, len(services))
			}
			return out
		}
	}
	return impl
}

// snapshot is the JSON of vs, which shows any change a caller could see.
func snapshot(vs ...any) string {
	b, err := json.Marshal(vs)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	return string(b)
}
