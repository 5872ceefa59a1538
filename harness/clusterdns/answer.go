package clusterdns

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/miekg/dns"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/servicenet"
)

// The SOA of the zone, as CoreDNS's kubernetes plugin writes it
// (plugin/kubernetes/kubernetes.go and plugin/pkg/dnsutil): a negative
// answer may be cached for negTTL seconds.
const (
	negTTL     = 5
	soaRefresh = 7200
	soaRetry   = 1800
	soaExpire  = 86400
	soaSerial  = 1
)

// serveDNS is the handler of both servers.
func (s *Server) serveDNS(w dns.ResponseWriter, req *dns.Msg) {
	_, udp := w.LocalAddr().(*net.UDPAddr)
	m := s.answer(req, udp)
	if err := w.WriteMsg(m); err != nil {
		s.logf("writing the answer to %s: %v", w.RemoteAddr(), err)
	}
}

// answer is the reply to req, received over UDP or TCP.
func (s *Server) answer(req *dns.Msg, udp bool) *dns.Msg {
	m := new(dns.Msg)
	if req.Opcode != dns.OpcodeQuery {
		s.logf("opcode %s not implemented", opcodeString(req.Opcode))
		return m.SetRcode(req, dns.RcodeNotImplemented)
	}
	if len(req.Question) != 1 {
		s.logf("a query with %d questions: want exactly one", len(req.Question))
		return m.SetRcodeFormatError(req)
	}
	m.SetReply(req)
	defer fit(m, req, udp)

	q := req.Question[0]
	question := servicenet.Question{Name: q.Name, Type: dns.Type(q.Qtype).String()}
	if q.Qclass != dns.ClassINET {
		s.logf("refused %s %s %s: only class IN is served", q.Name, dns.Class(q.Qclass), question.Type)
		m.Rcode = dns.RcodeRefused
		return m
	}
	if !dns.IsSubDomain(s.zone, strings.ToLower(q.Name)) {
		s.logf("refused %s %s: not in zone %s", q.Name, question.Type, s.zone)
		m.Rcode = dns.RcodeRefused
		return m
	}
	cs := s.caches.Load()
	if cs == nil || !cs.synced.Load() {
		m.Rcode = dns.RcodeServerFailure // as CoreDNS answers before its caches fill
		return m
	}

	ans, err := s.ask(cs, question)
	if err == nil {
		err = s.fill(m, cs, question, ans)
	}
	if err != nil {
		s.logf("%v", err)
		m.Answer, m.Ns, m.Extra = nil, nil, nil
		m.Rcode = dns.RcodeServerFailure
		return m
	}
	m.Authoritative = true
	if m.Rcode == dns.RcodeNameError || len(m.Answer) == 0 {
		m.Ns = []dns.RR{s.soa()}
	}
	return m
}

// fill puts ans, the lookup's answer to q, into m.
func (s *Server) fill(m *dns.Msg, cs *caches, q servicenet.Question, ans servicenet.Answer) error {
	switch ans.Rcode {
	case servicenet.NoError:
		m.Rcode = dns.RcodeSuccess
	case servicenet.NXDomain:
		m.Rcode = dns.RcodeNameError
	default:
		return fmt.Errorf("lookup(%s %s) returned Rcode %q: want %q or %q", q.Name, q.Type, ans.Rcode, servicenet.NoError, servicenet.NXDomain)
	}
	for _, r := range ans.Records {
		rr, err := toRR(r)
		if err != nil {
			return fmt.Errorf("lookup(%s %s) returned record %s: %w", q.Name, q.Type, recordString(r), err)
		}
		m.Answer = append(m.Answer, rr)
	}
	m.Extra = append(m.Extra, s.targets(cs, q, m.Answer)...)
	return nil
}

// targets are the A records of the SRV records' targets in the zone, for
// the additional section: best effort, a target whose lookup fails adds
// nothing.
func (s *Server) targets(cs *caches, q servicenet.Question, answer []dns.RR) []dns.RR {
	var extra []dns.RR
	seen := map[string]bool{}
	for _, rr := range answer {
		srv, ok := rr.(*dns.SRV)
		if !ok {
			continue
		}
		target := strings.ToLower(srv.Target)
		if seen[target] || !dns.IsSubDomain(s.zone, target) {
			continue
		}
		seen[target] = true
		tq := servicenet.Question{Name: srv.Target, Type: servicenet.TypeA}
		ans, err := s.ask(cs, tq)
		if err != nil {
			s.logf("the additional records of %s %s: %v", q.Name, q.Type, err)
			continue
		}
		if ans.Rcode != servicenet.NoError {
			continue
		}
		for _, r := range ans.Records {
			if a, err := toRR(r); err == nil && a.Header().Rrtype == dns.TypeA {
				extra = append(extra, a)
			}
		}
	}
	return extra
}

// ask calls the lookup with fresh copies of the caches; a panic is its
// error.
func (s *Server) ask(cs *caches, q servicenet.Question) (ans servicenet.Answer, err error) {
	svcs, slices := cs.copies()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("lookup(%s %s) panicked: %v", q.Name, q.Type, p)
		}
	}()
	return s.lookup(q, svcs, slices), nil
}

// copies are deep copies of what the caches hold, sorted by namespace and
// name: a lookup may change them without changing the caches.
func (cs *caches) copies() ([]api.Service, []api.EndpointSlice) {
	objs := cs.svcs.List()
	svcs := make([]api.Service, 0, len(objs))
	for _, o := range objs {
		svcs = append(svcs, *api.DeepCopy(o.(*api.Service)))
	}
	objs = cs.slices.List()
	slices := make([]api.EndpointSlice, 0, len(objs))
	for _, o := range objs {
		slices = append(slices, *api.DeepCopy(o.(*api.EndpointSlice)))
	}
	return svcs, slices
}

// toRR parses r as the zone file line "<name> <ttl> IN <type> <data>".
func toRR(r servicenet.Record) (dns.RR, error) {
	if !dns.IsFqdn(r.Name) {
		return nil, errors.New("the name is not fully qualified (no final dot)")
	}
	if strings.TrimSpace(r.Data) == "" {
		return nil, errors.New("no data")
	}
	rr, err := dns.NewRR(fmt.Sprintf("%s %d IN %s %s", r.Name, r.TTL, r.Type, r.Data))
	if err != nil {
		return nil, err
	}
	if rr == nil {
		return nil, errors.New("no record")
	}
	if t := dns.Type(rr.Header().Rrtype).String(); t != r.Type {
		return nil, fmt.Errorf("parses as a record of type %s", t)
	}
	return rr, nil
}

// recordString is r as the log shows it.
func recordString(r servicenet.Record) string {
	return fmt.Sprintf("{Name:%s Type:%s TTL:%d Data:%q}", r.Name, r.Type, r.TTL, r.Data)
}

// soa is the zone's SOA record, for the authority section of negative
// answers.
func (s *Server) soa() dns.RR {
	return &dns.SOA{
		Hdr:     dns.RR_Header{Name: s.zone, Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: negTTL},
		Ns:      "ns.dns." + s.zone,
		Mbox:    "hostmaster." + s.zone,
		Serial:  soaSerial,
		Refresh: soaRefresh,
		Retry:   soaRetry,
		Expire:  soaExpire,
		Minttl:  negTTL,
	}
}

// fit gives m an OPT record when req has one, and truncates it to what
// the client takes: over UDP the size of req's OPT record, or 512 bytes
// without one; over TCP a whole DNS message.
func fit(m, req *dns.Msg, udp bool) {
	size := dns.MaxMsgSize
	opt := req.IsEdns0()
	if udp {
		size = dns.MinMsgSize
		if opt != nil && int(opt.UDPSize()) > size {
			size = int(opt.UDPSize())
		}
	}
	if opt != nil {
		m.SetEdns0(udpBufSize, opt.Do())
	}
	m.Truncate(size)
}

// opcodeString is op as dig prints it.
func opcodeString(op int) string {
	if s, ok := dns.OpcodeToString[op]; ok {
		return s
	}
	return fmt.Sprintf("OPCODE%d", op)
}
