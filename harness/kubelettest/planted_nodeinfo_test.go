package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of the node's status.nodeInfo (rule 1, step
// 10-register): each breaks one part of it in the reference's
// solutions/13-kubelet/kubelet.go and must fail exactly that step.

func init() {
	const node = "kubelet.go"
	addLoopBugs(map[string]planted.Bug{
		// nodeInfo never set: the Node shows no versions, OS or machine
		// (kubectl get nodes -o wide: VERSION and CONTAINER-RUNTIME empty).
		"nodeinfo-not-set": edit(node,
			"\tinfo := &st.NodeInfo\n",
			"\tinfo := &api.NodeSystemInfo{}\n",
			"10-register"),
		// The runtime's version without its name: "0.1.0", not
		// "fakeRuntime://0.1.0".
		"runtime-version-without-name": edit(node,
			`k.runtimeVersion = v.RuntimeName + "://" + v.RuntimeVersion`,
			`k.runtimeVersion = v.RuntimeVersion`,
			"10-register"),
		// A Version that fails holds the registration up: the Node is
		// created only once the runtime answers, on the clock.
		"runtime-version-blocks-registration": edit(node,
			"\tk.askRuntimeVersion(ctx)\n\tnow := k.clock.Now()\n\twant := k.initialNode(now)\n",
			"\tk.askRuntimeVersion(ctx)\n\tif k.runtimeVersion == \"\" {\n\t\treturn nil, errors.New(\"kubelet: the runtime has no version yet\")\n\t}\n\tnow := k.clock.Now()\n\twant := k.initialNode(now)\n",
			"10-register"),
		// Version asked at registration only: one that failed leaves
		// containerRuntimeVersion empty for good.
		"runtime-version-not-asked-again": edit(node,
			"\tk.askRuntimeVersion(ctx)\n\tnow := k.clock.Now()\n\tst := k.nodeStatus(n.Status, now)\n",
			"\tnow := k.clock.Now()\n\tst := k.nodeStatus(n.Status, now)\n",
			"10-register"),
		// The answer not kept: Version asked again at every node status.
		"runtime-version-not-kept": edit(node,
			`if k.runtimeVersion != "" {`,
			`if k.runtimeVersion != "" && false {`,
			"10-register"),
	})
}
