// Package clusterdns is the cluster's DNS server: it makes exercise 14's
// Lookup (servicenet.LookupFunc) answer real DNS questions, over UDP and
// TCP, as CoreDNS's kubernetes plugin answers them in a cluster
// upstream (coredns/plugin/kubernetes: informers over Services and
// EndpointSlices, and a handler that answers for the cluster zone from
// their caches).
//
// The learner's Lookup is plain data in and out: a Question, the
// cluster's Services and EndpointSlices, an Answer of zone-file records.
// The Server does everything a name server does around it, with
// github.com/miekg/dns (the library CoreDNS is built on) for the wire
// format.
//
// The package has these responsibilities:
//
//  1. Run listens on Options.Addr, UDP and TCP on the same port (port 0
//     picks one free for both), keeps Services and EndpointSlices of all
//     namespaces in two informers, and serves until its context ends;
//     then it shuts both servers down and returns once every goroutine
//     it started has ended. It returns an error, prefixed "clusterdns: ",
//     only when it cannot start (the address is in use, ...). Addr says
//     where it listens once it does; Ready is closed once it listens and
//     both informers have synced. Before they have, every in-zone
//     question gets SERVFAIL, as CoreDNS answers before its caches fill.
//  2. One handler answers both transports. A message with an opcode other
//     than QUERY gets NOTIMP; one without exactly one question gets
//     FORMERR.
//  3. The server is authoritative for its zone (Options.Domain,
//     servicenet.ClusterDomain by default) and for nothing else: a
//     question for a name outside it (compared fully qualified and
//     lowercase), or of a class other than IN, gets REFUSED, and no
//     answer ever offers recursion (RA is never set).
//  4. A question in the zone is handed to the lookup as the client asked
//     it: the name in the client's case, the type as dig prints it
//     ("A", "SRV", "TYPE65280"). The lookup gets fresh deep copies of
//     what the caches hold, sorted by namespace and name, so that it can
//     change nothing but its own copies. The answer is authoritative (AA).
//  5. The Answer's Rcode is NOERROR or NXDOMAIN; anything else is
//     SERVFAIL, and the log says what the lookup returned. Each Record is
//     parsed as a zone file line "<name> <ttl> IN <type> <data>"; a
//     record that does not parse, whose name is not fully qualified, or
//     that has no data, makes the whole answer SERVFAIL, and the log
//     names the question, the record and the error.
//  6. The records go in the answer section. For each SRV record whose
//     target is in the zone, the lookup is asked again for the target's
//     A records, which go in the additional section (best effort: a
//     failing lookup adds nothing).
//  7. A lookup that panics gets SERVFAIL for its question; the panic is
//     logged with the question and the server keeps serving.
//  8. An answer over UDP that is larger than the client can take (the
//     UDP size of its EDNS0 OPT record, else 512 bytes) is truncated and
//     has the TC bit set, so that the client asks again over TCP, which
//     gets the whole answer (up to 64 KiB). A query with an OPT record
//     gets one back.
//  9. An NXDOMAIN answer, or a NOERROR answer with no records, carries
//     the zone's SOA in its authority section, whose minimum (and TTL) of
//     5 seconds is how long a resolver may cache the negative answer
//     (RFC 2308; CoreDNS's kubernetes plugin does the same).
//
// The log (Options.Log) gets one line per question refused or failed,
// none per question answered.
//
// What the package leaves out, on purpose: zone transfers, DNSSEC, EDNS0
// versions other than 0 (BADVERS), reverse lookups (in-addr.arpa is
// outside the zone, so REFUSED), and forwarding questions for other
// zones upstream (CoreDNS's forward plugin): a kata cluster's pods ask
// this server for cluster names only.
package clusterdns
