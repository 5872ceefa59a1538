package admission

import (
	"context"

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
	// TODO: fill in the API's defaults of a created pod where the client left them unset: restartPolicy, terminationGracePeriodSeconds, dnsPolicy, schedulerName, and each container's (defaultContainer).
	panic("not implemented: applyDefaults")
}

// defaultContainer fills one container: pull policy by tag, where its
// termination message goes, the ports' protocol, and requests equal to
// the limits it sets without requests (SetDefaults_Pod).
func defaultContainer(c *api.Container) {
	// TODO: set imagePullPolicy from the image's tag, terminationMessagePath and terminationMessagePolicy, where they are unset.
	panic("not implemented: defaultContainer")
}

// imageTag returns an image's tag as upstream's parsers.ParseImageName
// sees it: "latest" when the image names neither tag nor digest, "" when
// it names only a digest.
func imageTag(image string) string {
	// TODO: return the image's tag: what follows the last ":" after the last "/"; "latest" when there is neither tag nor digest, "" for a digest alone.
	panic("not implemented: imageTag")
}

// serviceAccount is the ServiceAccount plugin
// (plugin/pkg/admission/serviceaccount): a pod that names no
// ServiceAccount runs as "default". The kata does not refuse a pod whose
// ServiceAccount is missing: the controller that creates "default" in
// every namespace comes in exercise 07.
func serviceAccount(_ context.Context, a *attributes) *api.Status {
	// TODO: set serviceAccountName "default" on a created pod that names none (mirror pods excepted).
	panic("not implemented: serviceAccount")
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
	// TODO: add the NoExecute tolerations of the not-ready and unreachable taints for 300 seconds to a created pod, each unless the pod tolerates that taint already.
	panic("not implemented: defaultTolerationSeconds")
}
