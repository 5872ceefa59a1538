// Package kubelet is exercise 13: the decisions of the kubelet, the node
// agent that runs the pods bound to its node through a container runtime
// and reports what became of them. Read README.md, then run `kata next`.
//
// Contract: harness/kubelets. Each function has its own file and a
// TODO; `kata test` says which step fails and why.
package kubelet
