package proxy

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/iptables"
)

// Table is what a new connection to each Service address gets, read from
// kube-proxy's rules.
type Table struct {
	Services []Service // sorted by IP, Port, Protocol
}

// Service is one port of one Service: an address, and where the rules
// send a new connection to it.
type Service struct {
	// Name is the Service port's name, "default/web:http" (upstream's
	// ServicePortName), from the comment of its KUBE-SERVICES rule.
	Name string
	// IP and Port are the address the rules match (-d, --dport).
	IP   string
	Port int
	// Protocol is "tcp" or "udp" (-p). Only TCP is forwarded.
	Protocol string
	// Reject: the filter table rejects connections to the address (the
	// rule kube-proxy writes for a Service with no endpoints). The nat
	// table comes first in the kernel: DNAT rewrites the destination of
	// a connection before the filter table sees it, so Reject decides
	// only when no endpoint is picked.
	Reject bool
	// Affinity is sessionAffinity ClientIP's timeout (the -m recent
	// --rcheck --seconds of the KUBE-SVC- chain); 0 is none.
	Affinity time.Duration
	// Endpoints are the KUBE-SVC- chain's endpoints, in chain order.
	Endpoints []Endpoint
}

// Endpoint is one rule of a KUBE-SVC- chain: the KUBE-SEP- chain it jumps
// to, as the address its DNAT sends the connection to.
type Endpoint struct {
	// Addr is the DNAT's --to-destination, "127.244.1.10:8080".
	Addr string
	// Probability is the rule's -m statistic --probability; 1 for an
	// unconditional rule (the last one, upstream).
	Probability float64
}

// LineError is what is wrong with one line of the rules.
type LineError struct {
	Line int    // 1-based
	Text string // the line
	Msg  string // what is wrong with it
}

func (e *LineError) Error() string {
	return fmt.Sprintf("proxy: line %d: %s\n\t%s", e.Line, e.Msg, e.Text)
}

// Chain names and prefixes of upstream's proxier.go.
const (
	servicesChain = "KUBE-SERVICES"
	markMasqChain = "KUBE-MARK-MASQ"
	svcPrefix     = "KUBE-SVC-"
	// svlPrefix: the chain of a Service with internalTrafficPolicy Local
	// (only the node's own endpoints), walked the same way.
	svlPrefix = "KUBE-SVL-"
	sepPrefix = "KUBE-SEP-"
)

// Parse reads iptables-save text, both the filter and the nat table, and
// returns what a connection to each Service address gets. It follows the
// jumps the kernel follows for a new connection from outside the pod
// network (so the hairpin KUBE-MARK-MASQ rules do not matter) and
// ignores every line it does not need, NodePorts included; a line that
// is malformed where it matters is a *LineError.
func Parse(rules string) (Table, error) {
	tables, err := readTables(rules)
	if err != nil {
		return Table{}, err
	}
	byAddr := map[svcKey]*Service{}
	// nat first: the kernel's nat table sees a new connection before its
	// filter table does (both in OUTPUT and PREROUTING then INPUT).
	if nat := tables["nat"]; nat != nil {
		if err := nat.mustDeclare(servicesChain); err != nil {
			return Table{}, err
		}
		for _, r := range nat.rulesOf(servicesChain) {
			if !strings.HasPrefix(r.jump, svcPrefix) && !strings.HasPrefix(r.jump, svlPrefix) {
				continue // the NodePort tail call, external IPs, ...
			}
			if !nat.declared(r.jump) {
				return Table{}, r.errorf("%s jumps to %s, which is not declared", r.chain, r.jump)
			}
			k, err := r.destination()
			if err != nil {
				return Table{}, err
			}
			if byAddr[k] != nil {
				// The kernel stops at the first rule that matches: a
				// second rule for the same address is never reached.
				continue
			}
			s := &Service{Name: r.serviceName(), IP: k.addr.String(), Port: k.port, Protocol: k.proto}
			if err := nat.walkService(r.jump, s); err != nil {
				return Table{}, err
			}
			byAddr[k] = s
		}
	}
	// The filter table's REJECT for a Service with no endpoints
	// (proxier.go: `"%s has no endpoints"`, -j REJECT).
	if filter := tables["filter"]; filter != nil {
		if err := filter.mustDeclare(servicesChain); err != nil {
			return Table{}, err
		}
		for _, r := range filter.rulesOf(servicesChain) {
			if r.jump != "REJECT" {
				continue
			}
			k, err := r.destination()
			if err != nil {
				return Table{}, err
			}
			if s := byAddr[k]; s != nil {
				s.Reject = true
				continue
			}
			byAddr[k] = &Service{Name: r.serviceName(), IP: k.addr.String(), Port: k.port, Protocol: k.proto, Reject: true}
		}
	}
	keys := make([]svcKey, 0, len(byAddr))
	for k := range byAddr {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b svcKey) int {
		return cmp.Or(a.addr.Compare(b.addr), cmp.Compare(a.port, b.port), cmp.Compare(a.proto, b.proto))
	})
	var t Table
	for _, k := range keys {
		t.Services = append(t.Services, *byAddr[k])
	}
	return t, nil
}

// walkService reads the KUBE-SVC- chain svc into s, as the kernel walks
// it (writeServiceToEndpointRules in proxier.go): the session affinity
// rules first (-m recent --rcheck, one per endpoint), then one rule per
// endpoint, each but the last with -m statistic --mode random.
func (t *table) walkService(svc string, s *Service) error {
	for _, r := range t.rulesOf(svc) {
		if r.jump == markMasqChain {
			continue // masquerade: does not change where the connection goes
		}
		if strings.HasPrefix(r.jump, "KUBE-") && !t.declared(r.jump) {
			return r.errorf("%s jumps to %s, which is not declared", r.chain, r.jump)
		}
		if !strings.HasPrefix(r.jump, sepPrefix) {
			continue
		}
		addr, err := t.endpointAddr(r)
		if err != nil {
			return err
		}
		if _, ok := r.opts["--rcheck"]; ok {
			// "-m recent --name SEP --rcheck --seconds S --reap": a
			// client seen by SEP's DNAT (--set) in the last S seconds
			// goes back to it (iptables-extensions(8), recent).
			secs, ok := r.value("--seconds")
			if !ok {
				return r.errorf("-m recent --rcheck without --seconds: kube-proxy always sets sessionAffinity's timeout")
			}
			n, err := strconv.Atoi(secs)
			if err != nil || n <= 0 {
				return r.errorf("-m recent --seconds %q is not a number of seconds", secs)
			}
			if s.Affinity == 0 {
				s.Affinity = time.Duration(n) * time.Second
			}
			continue
		}
		p, err := r.probability()
		if err != nil {
			return err
		}
		s.Endpoints = append(s.Endpoints, Endpoint{Addr: addr, Probability: p})
	}
	return nil
}

// endpointAddr is where the KUBE-SEP- chain that jump jumps to sends a
// connection: its first DNAT's --to-destination.
func (t *table) endpointAddr(jump *rule) (string, error) {
	for _, r := range t.rulesOf(jump.jump) {
		if r.jump != "DNAT" {
			continue // the hairpin KUBE-MARK-MASQ rule
		}
		to, ok := r.value("--to-destination")
		if !ok {
			return "", r.errorf("DNAT without --to-destination IP:PORT")
		}
		ap, err := netip.ParseAddrPort(to)
		if err != nil || ap.Port() == 0 {
			return "", r.errorf("DNAT --to-destination %s is not IP:PORT", to)
		}
		return ap.String(), nil
	}
	return "", jump.errorf("%s jumps to %s, which has no DNAT --to-destination rule", jump.chain, jump.jump)
}

// probability is the rule's -m statistic --mode random --probability, 1
// for a rule without it. The kernel compares a random 31-bit number with
// the probability scaled to 2^31 (xt_statistic.c); a float64 draw in
// [0,1) compared with the probability is the same test.
func (r *rule) probability() (float64, error) {
	_, hasP := r.opts["--probability"]
	if !slices.Contains(r.modules, "statistic") && !hasP {
		return 1, nil
	}
	if mode, _ := r.value("--mode"); mode != "random" {
		return 0, r.errorf("-m statistic --mode %q: only --mode random --probability P is read (kube-proxy's)", mode)
	}
	v, ok := r.value("--probability")
	if !ok {
		return 0, r.errorf("-m statistic --mode random without --probability")
	}
	p, err := strconv.ParseFloat(v, 64)
	if err != nil || !(p >= 0 && p <= 1) {
		return 0, r.errorf("--probability %s is not a number between 0 and 1", v)
	}
	return p, nil
}

// svcKey is a Service address as the rules match it.
type svcKey struct {
	addr  netip.Addr
	port  int
	proto string
}

// destination is the one address the rule matches: -d IP or IP/32,
// --dport PORT, -p PROTO.
func (r *rule) destination() (svcKey, error) {
	want := fmt.Sprintf("want -d IP --dport PORT -p tcp before -j %s", r.jump)
	var k svcKey
	d, dport, proto := r.opts["-d"], r.opts["--dport"], r.opts["-p"]
	switch {
	case len(d.vals) == 0 || len(dport.vals) == 0 || len(proto.vals) == 0:
		return k, r.errorf("%s jumps to %s without matching one address: %s", r.chain, r.jump, want)
	case d.neg || dport.neg || proto.neg:
		return k, r.errorf("%s jumps to %s for every address but one (!): %s", r.chain, r.jump, want)
	}
	if strings.Contains(d.vals[0], "/") {
		p, err := netip.ParsePrefix(d.vals[0])
		if err != nil || !p.IsSingleIP() {
			return k, r.errorf("-d %s is not one address (IP or IP/32)", d.vals[0])
		}
		k.addr = p.Addr()
	} else {
		a, err := netip.ParseAddr(d.vals[0])
		if err != nil {
			return k, r.errorf("-d %s is not an IP address", d.vals[0])
		}
		k.addr = a
	}
	port, err := strconv.Atoi(dport.vals[0])
	if err != nil || port < 1 || port > 65535 {
		return k, r.errorf("--dport %s is not a port (1-65535)", dport.vals[0])
	}
	k.port = port
	k.proto = strings.ToLower(proto.vals[0])
	return k, nil
}

// serviceName is the first word of the rule's comment: upstream's
// comments are "ns/svc:port cluster IP" and "ns/svc:port has no
// endpoints", and a ServicePortName has no blanks.
func (r *rule) serviceName() string {
	c, _ := r.value("--comment")
	if f := strings.Fields(c); len(f) > 0 {
		return f[0]
	}
	return ""
}

// ---------------------------------------------------------------- text

// table is one table of the text: the chains it declares and its rules.
type table struct {
	name   string
	line   int            // the "*name" line
	chains map[string]int // declared chain -> its line
	rules  map[string][]*rule
}

func (t *table) declared(chain string) bool { _, ok := t.chains[chain]; return ok }

// rulesOf are chain's rules, in order.
func (t *table) rulesOf(chain string) []*rule { return t.rules[chain] }

// mustDeclare: iptables-restore refuses a rule appended to a chain the
// table has not declared (built-in chains are declared too, by
// iptables-save).
func (t *table) mustDeclare(chain string) error {
	if rs := t.rules[chain]; len(rs) > 0 && !t.declared(chain) {
		return rs[0].errorf("-A %s, but the %s table does not declare %s (want a line :%s - [0:0])", chain, t.name, chain, chain)
	}
	return nil
}

// rule is one "-A CHAIN ..." line.
type rule struct {
	line    int
	text    string
	chain   string
	jump    string            // -j TARGET
	modules []string          // each -m NAME, in order
	opts    map[string]option // the other options, the first of each name
}

// option is an option's values and whether a "!" came before it.
type option struct {
	vals []string
	neg  bool
}

func (r *rule) value(name string) (string, bool) {
	o, ok := r.opts[name]
	if !ok || len(o.vals) == 0 {
		return "", false
	}
	return o.vals[0], true
}

func (r *rule) errorf(format string, args ...any) error {
	return &LineError{Line: r.line, Text: r.text, Msg: fmt.Sprintf(format, args...)}
}

// longNames are the long spellings of the options iptables-save prints
// short.
var longNames = map[string]string{
	"--append":           "-A",
	"--destination":      "-d",
	"--dst":              "-d",
	"--source":           "-s",
	"--src":              "-s",
	"--protocol":         "-p",
	"--jump":             "-j",
	"--match":            "-m",
	"--destination-port": "--dport",
}

// tablesRead are the tables Parse reads; the others (mangle, raw, ...)
// are skipped whole.
var tablesRead = map[string]bool{"nat": true, "filter": true}

// readTables splits the text into tables, as iptables-restore reads it:
// "*name", then ":CHAIN POLICY [packets:bytes]" lines and "-A CHAIN ..."
// rules, then COMMIT; "#" lines are comments.
func readTables(text string) (map[string]*table, error) {
	tables := map[string]*table{}
	var cur *table
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		l := strings.TrimSpace(raw)
		lineErr := func(format string, args ...any) error {
			return &LineError{Line: n, Text: l, Msg: fmt.Sprintf(format, args...)}
		}
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "*"):
			if cur != nil {
				return nil, lineErr("a table starts before the COMMIT of *%s (line %d)", cur.name, cur.line)
			}
			name := l[1:]
			if tables[name] != nil {
				return nil, lineErr("*%s a second time (first at line %d)", name, tables[name].line)
			}
			cur = &table{name: name, line: n, chains: map[string]int{}, rules: map[string][]*rule{}}
			tables[name] = cur
		case l == "COMMIT":
			if cur == nil {
				return nil, lineErr("COMMIT outside a table")
			}
			cur = nil
		case cur == nil:
			return nil, lineErr("a line outside a table (a table starts with a line such as *nat and ends with COMMIT)")
		case !tablesRead[cur.name]:
		case strings.HasPrefix(l, ":"):
			f := strings.Fields(l[1:])
			if len(f) == 0 {
				return nil, lineErr("a chain line without a chain name (want :CHAIN - [0:0])")
			}
			cur.chains[f[0]] = n
		case strings.HasPrefix(l, "-A ") || strings.HasPrefix(l, "--append "):
			r, err := readRule(n, l)
			if err != nil {
				return nil, err
			}
			cur.rules[r.chain] = append(cur.rules[r.chain], r)
		default:
			// -N, -X, -F and the like: nothing a walk needs.
		}
	}
	if cur != nil {
		return nil, &LineError{Line: cur.line, Text: "*" + cur.name, Msg: fmt.Sprintf("the %s table has no COMMIT", cur.name)}
	}
	for _, t := range tables {
		if !tablesRead[t.name] {
			delete(tables, t.name)
		}
	}
	return tables, nil
}

// readRule reads one "-A CHAIN ..." line into its options. An option
// takes the words after it up to the next option ("--rcheck" takes
// none, "--comment" takes one, quoted or not); "!" negates the option
// after it.
func readRule(n int, l string) (*rule, error) {
	r := &rule{line: n, text: l, opts: map[string]option{}}
	words, err := iptables.Words(l)
	if err != nil {
		return nil, r.errorf("%v", err)
	}
	neg := false
	for i := 0; i < len(words); {
		w := words[i]
		i++
		if !w.Quoted && w.S == "!" {
			neg = true
			continue
		}
		if w.Quoted || !strings.HasPrefix(w.S, "-") {
			continue // a stray value: nothing the walk reads
		}
		name := w.S
		if short, ok := longNames[name]; ok {
			name = short
		}
		var vals []string
		for i < len(words) && (words[i].Quoted || (!strings.HasPrefix(words[i].S, "-") && words[i].S != "!")) {
			vals = append(vals, words[i].S)
			i++
		}
		switch name {
		case "-A":
			if len(vals) > 0 && r.chain == "" {
				r.chain = vals[0]
			}
		case "-j":
			if len(vals) > 0 {
				r.jump = vals[0]
			}
		case "-m":
			r.modules = append(r.modules, vals...)
		default:
			if _, seen := r.opts[name]; !seen {
				r.opts[name] = option{vals: vals, neg: neg}
			}
		}
		neg = false
	}
	if r.chain == "" {
		return nil, r.errorf("-A without a chain name")
	}
	return r, nil
}
