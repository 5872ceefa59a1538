package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of steps 10-13: each breaks one rule of the loop
// (kubelets.Kubelet's rules 1-12) in the reference's source
// (solutions/13-kubelet/kubelet.go, pods.go), and must fail exactly the
// steps it lists. Those of steps 14-17 are in planted_loop2_test.go.

func init() {
	const node, pods = "kubelet.go", "pods.go"
	addLoopBugs(map[string]planted.Bug{
		// Rule 2: the Lease is created but never renewed.
		"lease-not-renewed": edit(node,
			"\t\tif ctx.Err() != nil {\n\t\t\treturn\n\t\t}\n\t\tk.renewLease(ctx, &latest)",
			"\t\tif ctx.Err() != nil {\n\t\t\treturn\n\t\t}\n\t\t_ = latest",
			"10-register"),
		// Rule 3: the node's status is written at every
		// NodeStatusUpdateFrequency, changed or not.
		"node-status-written-every-time": edit(node,
			"if !changed && !lastWrite.IsZero() && now.Before(lastWrite.Add(kubelets.NodeStatusReportFrequency)) {",
			"if _ = changed; false {",
			"10-register"),
		// Rule 3: the node's status written with Update: the apiserver
		// keeps the stored status.
		"node-status-with-update": edit(node,
			"if _, err := k.c.UpdateStatus(ctx, next); err != nil {",
			"if _, err := k.c.Update(ctx, next); err != nil {",
			"10-register"),
		// Rule 7: the pod's status written with Update: the apiserver
		// keeps the stored status, and no pod ever shows what runs.
		"pod-status-with-update": edit(pods,
			"_, _ = k.c.UpdateStatus(ctx, fresh)",
			"_, _ = k.c.Update(ctx, fresh)",
			"11-run-pod", "12-restart", "13-image-pull", "14-probes", "15-terminate", "16-static-pods", "17-env-volumes"),
		// Rule 7: the pod in the informer's cache is given the new
		// status before the write.
		"cached-pod-mutated": edit(pods,
			"\tfresh.Status = st // fresh is the client's own copy",
			"\ttarget.Status = st // the cached pod itself\n\tfresh.Status = st",
			"11-run-pod", "12-restart", "13-image-pull", "14-probes", "15-terminate", "16-static-pods", "17-env-volumes"),
		// Rule 4: the image is pulled even when ImageStatus says it is
		// present (and with imagePullPolicy Never).
		"image-pulled-though-present": edit(pods,
			"case present != nil && policy != api.PullAlways:",
			"case present != nil && false:",
			"11-run-pod", "13-image-pull"),
		// Rule 4: every init container is started at each sync, not
		// only the next one, in order.
		"init-order-ignored": edit(pods,
			"if c := pod.Spec.InitContainers[i]; c.Name == acts.NextInit {",
			"if c := pod.Spec.InitContainers[len(pod.Spec.InitContainers)-1-i]; c.Name != \"\" {",
			"11-run-pod"),
		// Rule 5: the crash back-off starts over at every restart: 10s,
		// 10s, 10s.
		"crash-backoff-not-doubling": edit(pods,
			"next := k.fn.backoffNext(copyBackoff(entry), newest.FinishedAt, now)",
			"next := k.fn.backoffNext(nil, newest.FinishedAt, now)",
			"12-restart"),
		// Rules 4 and 5: the pod is synced as if its restartPolicy were
		// Always: a container of a Never or OnFailure pod that ended is
		// started again.
		"restart-with-policy-never": edit(pods,
			"acts := k.fn.actions(*api.DeepCopy(pod), api.DeepCopyValue(rt), api.DeepCopyValue(failures))",
			"acts := k.fn.actions(func() api.Pod { p := *api.DeepCopy(pod); p.Spec.RestartPolicy = api.RestartPolicyAlways; return p }(), api.DeepCopyValue(rt), api.DeepCopyValue(failures))",
			"12-restart"),
		// Rule 4: imagePullPolicy Never pulls an absent image as
		// IfNotPresent would.
		"pull-policy-never-pulls": edit(pods,
			"case policy == api.PullNever && present == nil:",
			"case policy == api.PullNever && present == nil && false:",
			"13-image-pull"),
		// Rule 4: Always is IfNotPresent: a present image is not pulled
		// again.
		"pull-policy-always-ignored": edit(pods,
			"case present != nil && policy != api.PullAlways:",
			"case present != nil:",
			"13-image-pull"),
		// Rule 4: an empty imagePullPolicy is IfNotPresent whatever the
		// tag (the apiserver's default for :latest is Always).
		"pull-policy-default-by-tag-ignored": edit(pods,
			"if _, tag, err := cri.ParseImage(c.Image); err == nil && tag == \"latest\" {",
			"if _, tag, err := cri.ParseImage(c.Image); err == nil && tag == \"never\" {",
			"13-image-pull"),
		// Rule 5: no pull back-off: a missing image is pulled again at
		// every sync, and ImagePullBackOff is never reached.
		"image-pull-backoff-never": edit(pods,
			"if entry := w.pull[c.Name]; entry != nil && k.fn.inBackoff(copyBackoff(entry), entry.LastUpdate, now) {",
			"if entry := w.pull[c.Name]; false && entry != nil {",
			"13-image-pull"),
	})
}
