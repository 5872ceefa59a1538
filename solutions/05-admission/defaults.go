package admission

import (
	"context"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
)

// The mutating plugins that fill in what a pod left out, on create only
// (a pod's spec is immutable after, so an update has nothing to fill).

// pod returns the new pod of a pod create, nil for anything else.
func (a *attributes) createdPod() *api.Pod {
	if a.operation() != "create" || !a.is("pods") {
		return nil
	}
	pod, _ := a.obj.(*api.Pod)
	return pod
}

// applyDefaults sets the API's defaults for a pod
// (pkg/apis/core/v1/defaults.go, SetDefaults_PodSpec and
// SetDefaults_Container). Upstream applies them while decoding; the
// gate applies them before the other plugins read the pod, which is the
// same point in the chain.
func applyDefaults(_ context.Context, a *attributes) *api.Status {
	pod := a.createdPod()
	if pod == nil {
		return nil
	}
	s := &pod.Spec
	if s.RestartPolicy == "" {
		s.RestartPolicy = "Always"
	}
	if s.TerminationGracePeriodSeconds == nil {
		grace := int64(30)
		s.TerminationGracePeriodSeconds = &grace
	}
	if s.DNSPolicy == "" {
		s.DNSPolicy = "ClusterFirst"
	}
	if s.SchedulerName == "" {
		s.SchedulerName = "default-scheduler"
	}
	if s.EnableServiceLinks == nil {
		links := true
		s.EnableServiceLinks = &links
	}
	for _, cs := range [][]api.Container{s.InitContainers, s.Containers} {
		for i := range cs {
			defaultContainer(&cs[i])
		}
	}
	return nil
}

// defaultContainer fills one container: pull policy by tag, where its
// termination message goes, the ports' protocol, and requests equal to
// the limits it sets without requests (SetDefaults_Pod).
func defaultContainer(c *api.Container) {
	if c.ImagePullPolicy == "" {
		if tag := imageTag(c.Image); tag == "latest" {
			c.ImagePullPolicy = "Always"
		} else {
			c.ImagePullPolicy = "IfNotPresent"
		}
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = "/dev/termination-log"
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = "File"
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = "TCP"
		}
	}
	for k, v := range c.Resources.Limits {
		if c.Resources.Requests == nil {
			c.Resources.Requests = api.ResourceList{}
		}
		if _, ok := c.Resources.Requests[k]; !ok {
			c.Resources.Requests[k] = v
		}
	}
}

// imageTag returns an image's tag as upstream's parsers.ParseImageName
// sees it: "latest" when the image names neither tag nor digest, "" when
// it names only a digest.
func imageTag(image string) string {
	ref, _, hasDigest := strings.Cut(image, "@")
	// A tag follows the last colon after the last slash (a colon before
	// it is a registry's port).
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[i+1:]
	}
	if hasDigest {
		return ""
	}
	return "latest"
}

// serviceAccount is the ServiceAccount plugin
// (plugin/pkg/admission/serviceaccount): a pod that names no
// ServiceAccount runs as "default". The kata does not refuse a pod whose
// ServiceAccount is missing: the controller that creates "default" in
// every namespace comes in exercise 07.
func serviceAccount(_ context.Context, a *attributes) *api.Status {
	pod := a.createdPod()
	if pod == nil || isMirrorPod(pod) {
		return nil
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = "default"
	}
	return nil
}

// isMirrorPod reports whether a kubelet created the pod for a static pod.
func isMirrorPod(pod *api.Pod) bool {
	_, ok := pod.Annotations[api.MirrorPodAnnotationKey]
	return ok
}

// The taints the node lifecycle controller puts on a node that is not
// ready or not reachable, and how long a pod stays on it by default
// (plugin/pkg/admission/defaulttolerationseconds).
const (
	taintNodeNotReady        = "node.kubernetes.io/not-ready"
	taintNodeUnreachable     = "node.kubernetes.io/unreachable"
	defaultTolerationSecs    = int64(300)
	taintEffectNoExecute     = "NoExecute"
	tolerationOperatorExists = "Exists"
)

// defaultTolerationSeconds lets a pod stay 300s on a node that is not
// ready or unreachable, unless it already tolerates that taint (a
// toleration with no key or no effect tolerates it too).
func defaultTolerationSeconds(_ context.Context, a *attributes) *api.Status {
	pod := a.createdPod()
	if pod == nil {
		return nil
	}
	notReady, unreachable := false, false
	for _, t := range pod.Spec.Tolerations {
		noExecute := t.Effect == taintEffectNoExecute || t.Effect == ""
		if noExecute && (t.Key == taintNodeNotReady || t.Key == "") {
			notReady = true
		}
		if noExecute && (t.Key == taintNodeUnreachable || t.Key == "") {
			unreachable = true
		}
	}
	for _, add := range []struct {
		key       string
		tolerated bool
	}{{taintNodeNotReady, notReady}, {taintNodeUnreachable, unreachable}} {
		if add.tolerated {
			continue
		}
		secs := defaultTolerationSecs
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, api.Toleration{
			Key: add.key, Operator: tolerationOperatorExists, Effect: taintEffectNoExecute, TolerationSeconds: &secs,
		})
	}
	return nil
}
