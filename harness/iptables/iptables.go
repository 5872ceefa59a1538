// Package iptables keeps a node's iptables in memory: the tables that
// kube-proxy's rules build, changed by iptables-restore's text and
// printed as iptables-save prints them. A kata node has no kernel tables
// to write (its forwarder reads the rules instead), yet a partial sync
// (exercise 14) only means something against tables that keep what an
// earlier sync wrote; this package is those tables.
//
// Its responsibilities:
//
//  1. Restore applies a text as `iptables-restore --noflush` does: a
//     "*table" section ends with COMMIT; a ":CHAIN - [0:0]" line creates
//     the chain, or flushes it when it exists (the flush kube-proxy
//     relies on to rewrite a chain), but for a built-in chain, which
//     the line only gives a policy (iptables-restore.c flushes only
//     user-defined chains under --noflush); "-A CHAIN ..." appends a rule to a
//     chain that exists, whose -j target exists when it is a chain;
//     "-X CHAIN" deletes a chain that is empty and that no rule jumps to;
//     "-F CHAIN" flushes. The chains and rules a text does not name stay
//     as they were.
//  2. A text that fails changes nothing, and its error names the line,
//     as iptables-restore's "line N failed" does. (iptables-restore
//     commits table by table; all or nothing is simpler to reason about,
//     and kube-proxy answers any failure with a full sync anyway.)
//  3. Save prints the tables as iptables-save does: each table, its
//     chains (the built-in ones first, in the kernel's hook order, then
//     the others sorted by name, the order libiptc keeps them in,
//     libiptc.c's iptc_insert_chain), then every chain's rules in order,
//     chain by chain in that order. Two Tables that Save the same text
//     hold the same rules.
//
// Tables is not safe for concurrent use.
package iptables

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Tables are the tables of one node.
type Tables struct {
	tables map[string]*table
}

// table is one table: its chains, each chain's rules ("-A CHAIN ..."
// lines as written), and how many rules jump to each chain.
type table struct {
	chains map[string][]string
	refs   map[string]int
}

// New returns empty tables.
func New() *Tables { return &Tables{tables: map[string]*table{}} }

// builtinChains are the chains every table has from the start, which
// iptables-save declares with a policy ("ACCEPT") and -X cannot delete.
var builtinChains = map[string][]string{
	"filter": {"INPUT", "FORWARD", "OUTPUT"},
	"nat":    {"PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"},
	"mangle": {"PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"},
	"raw":    {"PREROUTING", "OUTPUT"},
}

// targets are the -j targets that are no chain (the extensions
// kube-proxy's rules use, and iptables' own verdicts).
var targets = map[string]bool{
	"ACCEPT": true, "DROP": true, "RETURN": true, "REJECT": true, "DNAT": true, "SNAT": true,
	"MASQUERADE": true, "MARK": true, "LOG": true, "REDIRECT": true, "CONNMARK": true, "NOTRACK": true,
}

func isBuiltin(table, chain string) bool {
	for _, c := range builtinChains[table] {
		if c == chain {
			return true
		}
	}
	return false
}

// get returns table name, made when missing, with its built-in chains.
func (t *Tables) get(name string) *table {
	tb := t.tables[name]
	if tb == nil {
		tb = &table{chains: map[string][]string{}, refs: map[string]int{}}
		for _, c := range builtinChains[name] {
			tb.chains[c] = nil
		}
		t.tables[name] = tb
	}
	return tb
}

// Clone returns a copy of t that changes apart from it.
func (t *Tables) Clone() *Tables {
	c := New()
	for name, tb := range t.tables {
		// A Restore copies a chain's rules before it appends to them
		// (see command), so sharing their arrays is safe.
		n := &table{chains: make(map[string][]string, len(tb.chains)), refs: make(map[string]int, len(tb.refs))}
		for k, v := range tb.chains {
			n.chains[k] = v
		}
		for k, v := range tb.refs {
			n.refs[k] = v
		}
		c.tables[name] = n
	}
	return c
}

// Chains are the chains of table, sorted; none for a table that has
// never been restored.
func (t *Tables) Chains(table string) []string {
	tb := t.tables[table]
	if tb == nil {
		return nil
	}
	out := make([]string, 0, len(tb.chains))
	for c := range tb.chains {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// Rules are chain's rules in table, in order, each as "-A CHAIN ...".
func (t *Tables) Rules(table, chain string) []string {
	if tb := t.tables[table]; tb != nil {
		return append([]string(nil), tb.chains[chain]...)
	}
	return nil
}

// Has reports whether table has chain.
func (t *Tables) Has(table, chain string) bool {
	tb := t.tables[table]
	if tb == nil {
		return false
	}
	_, ok := tb.chains[chain]
	return ok
}

// Save prints the tables as iptables-save does, tables sorted by name.
func (t *Tables) Save() string {
	names := make([]string, 0, len(t.tables))
	for n := range t.tables {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		tb := t.tables[n]
		// The built-in chains first, in hook order (builtinChains'),
		// then the user-defined ones, sorted.
		chains := slices.DeleteFunc(t.Chains(n), func(c string) bool { return isBuiltin(n, c) })
		chains = append(slices.Clone(builtinChains[n]), chains...)
		b.WriteString("*" + n + "\n")
		for _, c := range chains {
			policy := "-"
			if isBuiltin(n, c) {
				policy = "ACCEPT"
			}
			fmt.Fprintf(&b, ":%s %s [0:0]\n", c, policy)
		}
		for _, c := range chains {
			for _, r := range tb.chains[c] {
				b.WriteString(r)
				b.WriteByte('\n')
			}
		}
		b.WriteString("COMMIT\n")
	}
	return b.String()
}

// Error is what is wrong with one line of a text Restore refused.
type Error struct {
	Line int    // 1-based
	Text string // the line
	Msg  string // what is wrong with it
}

func (e *Error) Error() string {
	return fmt.Sprintf("iptables: line %d failed: %s\n\t%s", e.Line, e.Msg, e.Text)
}

// Restore applies text as iptables-restore --noflush does. On error t is
// as it was.
func (t *Tables) Restore(text string) (err error) {
	// Each line changes t at once; the journal keeps what it changed
	// first, to put back if a later line fails. A partial sync touches
	// a few chains of a table of thousands: copying the tables instead
	// would cost as much as a full sync.
	j := &journal{chains: map[chainKey]saved{}, refs: map[chainKey]int{}, newTables: map[string]bool{}}
	defer func() {
		if err != nil {
			j.undo(t)
		}
	}()
	var cur *table
	var curName string
	startLine := 0
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		l := strings.TrimSpace(raw)
		fail := func(format string, args ...any) error {
			return &Error{Line: n, Text: l, Msg: fmt.Sprintf(format, args...)}
		}
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "*"):
			if cur != nil {
				return fail("a table starts before the COMMIT of *%s (line %d)", curName, startLine)
			}
			curName, startLine = l[1:], n
			if curName == "" {
				return fail("a table without a name (want a line such as *nat)")
			}
			if t.tables[curName] == nil {
				j.newTables[curName] = true
			}
			cur = t.get(curName)
		case l == "COMMIT":
			if cur == nil {
				return fail("COMMIT outside a table")
			}
			cur = nil
		case cur == nil:
			return fail("a line outside a table (a table starts with a line such as *nat and ends with COMMIT)")
		case strings.HasPrefix(l, ":"):
			f := strings.Fields(l[1:])
			if len(f) == 0 {
				return fail("a chain line without a chain name (want :CHAIN - [0:0])")
			}
			if !isBuiltin(curName, f[0]) {
				cur.flush(j, curName, f[0])
			}
		default:
			words, err := Words(l)
			if err != nil {
				return fail("%v", err)
			}
			if msg := cur.command(j, curName, words, l); msg != "" {
				return fail("%s", msg)
			}
		}
	}
	if cur != nil {
		return &Error{Line: startLine, Text: "*" + curName, Msg: fmt.Sprintf("the %s table has no COMMIT", curName)}
	}
	return nil
}

// chainKey names a chain of a table.
type chainKey struct{ table, chain string }

// saved is a chain as it was before a Restore first touched it.
type saved struct {
	rules  []string
	exists bool
}

// journal is what a Restore changed, to undo it.
type journal struct {
	chains    map[chainKey]saved
	refs      map[chainKey]int
	newTables map[string]bool
}

// chain notes chain of table tb before it changes, and reports whether
// this is the first change of the Restore.
func (j *journal) chain(tb *table, table, chain string) bool {
	k := chainKey{table, chain}
	if _, ok := j.chains[k]; ok {
		return false
	}
	rules, exists := tb.chains[chain]
	j.chains[k] = saved{rules, exists}
	return true
}

// ref notes the count of rules jumping to chain before it changes.
func (j *journal) ref(tb *table, table, chain string) {
	k := chainKey{table, chain}
	if _, ok := j.refs[k]; !ok {
		j.refs[k] = tb.refs[chain]
	}
}

// undo puts t back as it was before the Restore.
func (j *journal) undo(t *Tables) {
	for name := range j.newTables {
		delete(t.tables, name)
	}
	for k, s := range j.chains {
		tb := t.tables[k.table]
		if tb == nil {
			continue
		}
		if s.exists {
			tb.chains[k.chain] = s.rules
		} else {
			delete(tb.chains, k.chain)
		}
	}
	for k, n := range j.refs {
		if tb := t.tables[k.table]; tb != nil {
			if n == 0 {
				delete(tb.refs, k.chain)
			} else {
				tb.refs[k.chain] = n
			}
		}
	}
}

// flush empties chain, or creates it.
func (tb *table) flush(j *journal, table, chain string) {
	j.chain(tb, table, chain)
	for _, r := range tb.chains[chain] {
		if to := jumpOf(r); to != "" {
			j.ref(tb, table, to)
			tb.refs[to]--
		}
	}
	tb.chains[chain] = nil
}

// command runs one -A, -X, -F or -N line of table name; it returns what
// is wrong, or "".
func (tb *table) command(j *journal, name string, words []Word, line string) string {
	if len(words) < 2 || words[0].Quoted {
		return "want -A, -X, -F or -N and a chain"
	}
	chain := words[1].S
	_, exists := tb.chains[chain]
	switch words[0].S {
	case "-A", "--append":
		if !exists {
			return fmt.Sprintf("no chain %s in the %s table (declare it first: :%s - [0:0])", chain, name, chain)
		}
		to := jump(words)
		if to != "" && !targets[to] {
			if _, ok := tb.chains[to]; !ok {
				return fmt.Sprintf("the target %s is no chain of the %s table and no target iptables knows", to, name)
			}
			j.ref(tb, name, to)
			tb.refs[to]++
		}
		if j.chain(tb, name, chain) {
			// The chain's array is the journal's, and perhaps a
			// Clone's: append to a copy of it.
			tb.chains[chain] = slices.Clone(tb.chains[chain])
		}
		tb.chains[chain] = append(tb.chains[chain], line)
	case "-X", "--delete-chain":
		switch {
		case !exists:
			return fmt.Sprintf("-X %s: no such chain in the %s table", chain, name)
		case isBuiltin(name, chain):
			return fmt.Sprintf("-X %s: a built-in chain cannot be deleted", chain)
		case len(tb.chains[chain]) > 0:
			return fmt.Sprintf("-X %s: the chain has %d rules (flush it first with :%s - [0:0])", chain, len(tb.chains[chain]), chain)
		case tb.refs[chain] > 0:
			return fmt.Sprintf("-X %s: %d rules still jump to it", chain, tb.refs[chain])
		}
		j.chain(tb, name, chain)
		j.ref(tb, name, chain)
		delete(tb.chains, chain)
		delete(tb.refs, chain)
	case "-F", "--flush":
		if !exists {
			return fmt.Sprintf("-F %s: no such chain in the %s table", chain, name)
		}
		tb.flush(j, name, chain)
	case "-N", "--new-chain":
		if exists {
			return fmt.Sprintf("-N %s: the chain exists", chain)
		}
		j.chain(tb, name, chain)
		tb.chains[chain] = nil
	default:
		return fmt.Sprintf("%s: not a command this restore knows (want -A, -X, -F or -N)", words[0].S)
	}
	return ""
}

// jump is the -j target of a rule's words, or "".
func jump(words []Word) string {
	for i := 0; i+1 < len(words); i++ {
		if !words[i].Quoted && (words[i].S == "-j" || words[i].S == "--jump") {
			return words[i+1].S
		}
	}
	return ""
}

// jumpOf is the chain a stored rule jumps to, or "" (a rule was stored
// only after its words split and its target was found).
func jumpOf(rule string) string {
	words, _ := Words(rule)
	if j := jump(words); j != "" && !targets[j] {
		return j
	}
	return ""
}

// Word is one word of a line, and whether it was quoted (then it is a
// value, whatever it starts with).
type Word struct {
	S      string
	Quoted bool
}

// Words splits a line on blanks as iptables-restore does: double quotes
// group words into one, and \" and \\ inside them stand for " and \
// (iptables-save quotes a comment that has blanks, escaping those).
func Words(l string) ([]Word, error) {
	var out []Word
	var b strings.Builder
	in, quoted, wasQuoted := false, false, false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case quoted && c == '\\' && i+1 < len(l) && (l[i+1] == '"' || l[i+1] == '\\'):
			b.WriteByte(l[i+1])
			i++
		case c == '"':
			quoted = !quoted
			in, wasQuoted = true, true
		case !quoted && (c == ' ' || c == '\t'):
			if in {
				out = append(out, Word{b.String(), wasQuoted})
				b.Reset()
				in, wasQuoted = false, false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("a quote (\") is not closed")
	}
	if in {
		out = append(out, Word{b.String(), wasQuoted})
	}
	return out, nil
}
