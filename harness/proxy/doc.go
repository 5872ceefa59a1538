// Package proxy makes exercise 14's rules real: it reads the
// iptables-save text of the tables that the learner's Rules and
// PartialRules (servicenet.RulesFunc, PartialRulesFunc) build for
// kube-proxy's iptables mode, and forwards real TCP connections by it,
// in user space, as the kernel's nat table would.
//
// Upstream, kube-proxy hands that text to iptables-restore
// (syncProxyRules in pkg/proxy/iptables/proxier.go) and the kernel
// rewrites the destination of the first packet of each new connection
// (conntrack keeps the choice for the rest of the flow). A kata cluster
// has no such privileges, but it needs none: Service addresses are
// loopback addresses (127.96.0.0/16) and pods listen on loopback
// addresses (127.244.0.0/16), and Linux routes all of 127.0.0.0/8 to lo,
// so a process can listen on a Service's address and connect to a pod's.
//
// The package has these responsibilities:
//
//  1. Parse reads the text, both tables, and follows the jumps the
//     kernel would follow for a packet from outside the pod network: nat
//     KUBE-SERVICES rules that match one destination (-d IP --dport PORT
//     -p PROTO) and jump to a KUBE-SVC- chain; that chain's rules in
//     order, each an endpoint's KUBE-SEP- chain taken with the
//     probability of its -m statistic match (the last one
//     unconditionally), after the -m recent rules of session affinity;
//     each KUBE-SEP- chain's DNAT --to-destination IP:PORT. The filter
//     table's KUBE-SERVICES REJECT rules mark the Services that have no
//     endpoints. The result is a Table: for each Service address, what a
//     new connection to it gets. A line that is malformed where it
//     matters (a jump to a chain that is never declared, a probability
//     that is not a number, a DNAT without an IP:PORT) is an error that
//     names its line; every line the walk does not need is ignored.
//  2. Pick is the kernel's walk of a KUBE-SVC- chain: rule after rule,
//     each matching with its probability (iptables' statistic module,
//     --mode random), the first match winning. With upstream's
//     probabilities, 1/(n-i) for endpoint i of n, each endpoint gets 1/n
//     of the connections.
//  3. A Forwarder listens on the address of each TCP Service of the
//     Table it was last given (Apply), and for each connection it
//     accepts picks an endpoint as Pick does, connects to it and copies
//     bytes both ways until both sides are done. A Service with no
//     endpoint to pick (the filter table's REJECT) gets its connections
//     reset at once: upstream's REJECT answers the first packet with
//     ICMP port unreachable, which a client sees as "connection
//     refused"; a reset is the nearest a listening socket can answer,
//     and the listener keeps the address claimed while the Service
//     exists. Session affinity (ClientIP) sends a client's next
//     connections where its last went, as the recent module's --rcheck
//     --seconds does.
//  4. Apply changes what a Forwarder forwards without disturbing what
//     stays: a Service that stays keeps its listener and gets its new
//     endpoints in place; connections already forwarded go on to the
//     endpoint they reached, as conntrack keeps established flows when
//     kube-proxy rewrites the rules. An address it cannot listen on does
//     not stop the others; it is reported, and tried again at the next
//     Apply.
//  5. Close stops everything: listeners, connections, and every
//     goroutine the Forwarder started, before it returns.
//  6. A Loop is kube-proxy in a kata cluster: it watches Services and
//     EndpointSlices (two informers), and on every change (a burst
//     coalesces into one sync) syncs the node's tables (package
//     iptables), then parses their iptables-save and applies it to its
//     Forwarder. Its syncs are partial, as upstream's since 1.28: the
//     learner's PartialRules, told which Services changed since the last
//     sync (a Service's own events; an EndpointSlice's, by its
//     kubernetes.io/service-name label, before and after an update),
//     restored over the tables the last sync left. The first sync is
//     full (the learner's Rules into fresh tables), and so is a sync
//     whose PartialRules panic or write a text that does not restore
//     (upstream's needFullSync after a failed iptables-restore). Rules
//     that fail or tables that do not parse leave the Forwarder as it
//     was; the loop says why, once until the trouble changes. Rules says
//     the tables' iptables-save (kata proxy rules).
//
// What the package leaves out, on purpose: UDP (kept in the Table,
// never forwarded), NodePorts (KUBE-NODEPORTS and KUBE-EXT- chains),
// masquerade marks (a forwarded connection always comes from the
// forwarder's own address, as with kube-proxy's old userspace mode),
// and the hairpin rules that only matter inside the pod network.
package proxy
