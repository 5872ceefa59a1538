// Package services gives Services their addresses and their rules, the
// way three parts of Kubernetes do: the apiserver's service registry
// allocates a virtual IP (and NodePorts) for each Service; the
// EndpointSlice controller lists the pods behind it; kube-proxy turns
// both into the iptables rules that send a connection for the virtual
// IP to one of those pods. README.md says what to build, step by step.
package services
