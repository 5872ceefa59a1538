package iptables

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// lines joins its lines into a text, one per line.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// restored is fresh tables after text, which must restore.
func restored(t *testing.T, text string) *Tables {
	t.Helper()
	tb := New()
	if err := tb.Restore(text); err != nil {
		t.Fatalf("Restore(%q) = %v, want nil", text, err)
	}
	return tb
}

// base is a nat table as a full sync leaves it: a top-level chain
// jumping to a Service chain, which jumps to an endpoint's chain.
var base = lines(
	"*nat",
	":KUBE-SERVICES - [0:0]",
	":KUBE-SVC-A - [0:0]",
	":KUBE-SEP-A1 - [0:0]",
	`-A KUBE-SERVICES -m comment --comment "ns/a:p cluster IP" -d 127.96.0.1/32 -p tcp --dport 80 -j KUBE-SVC-A`,
	"-A KUBE-SVC-A -j KUBE-SEP-A1",
	"-A KUBE-SEP-A1 -p tcp -j DNAT --to-destination 127.244.0.1:8080",
	"COMMIT",
)

// Save prints each table's chains, the built-in ones first in hook
// order (with their ACCEPT policy), then the others sorted, and then the
// rules chain by chain in the same order, as iptables-save does; tables
// sorted by name.
func TestSaveFormat(t *testing.T) {
	tb := restored(t, base+lines(
		"*filter",
		":KUBE-SERVICES - [0:0]",
		":KUBE-FIREWALL - [0:0]",
		"-A KUBE-SERVICES -d 127.96.0.2/32 -p tcp --dport 80 -j REJECT",
		"-A OUTPUT -j KUBE-SERVICES",
		"-A INPUT -j KUBE-FIREWALL",
		"COMMIT",
	))
	want := lines(
		"*filter",
		":INPUT ACCEPT [0:0]",
		":FORWARD ACCEPT [0:0]",
		":OUTPUT ACCEPT [0:0]",
		":KUBE-FIREWALL - [0:0]",
		":KUBE-SERVICES - [0:0]",
		"-A INPUT -j KUBE-FIREWALL",
		"-A OUTPUT -j KUBE-SERVICES",
		"-A KUBE-SERVICES -d 127.96.0.2/32 -p tcp --dport 80 -j REJECT",
		"COMMIT",
		"*nat",
		":PREROUTING ACCEPT [0:0]",
		":INPUT ACCEPT [0:0]",
		":OUTPUT ACCEPT [0:0]",
		":POSTROUTING ACCEPT [0:0]",
		":KUBE-SEP-A1 - [0:0]",
		":KUBE-SERVICES - [0:0]",
		":KUBE-SVC-A - [0:0]",
		"-A KUBE-SEP-A1 -p tcp -j DNAT --to-destination 127.244.0.1:8080",
		`-A KUBE-SERVICES -m comment --comment "ns/a:p cluster IP" -d 127.96.0.1/32 -p tcp --dport 80 -j KUBE-SVC-A`,
		"-A KUBE-SVC-A -j KUBE-SEP-A1",
		"COMMIT",
	)
	if got := tb.Save(); got != want {
		t.Errorf("Save() =\n%s\nwant\n%s", got, want)
	}
	if got := New().Save(); got != "" {
		t.Errorf("New().Save() = %q, want \"\" (no table restored)", got)
	}
	// Saved text restores to the same tables.
	if got := restored(t, want).Save(); got != want {
		t.Errorf("Save() of the tables Restore(Save()) made =\n%s\nwant\n%s", got, want)
	}
}

// A chain line creates a chain or flushes the one that exists; -A
// appends; what the text does not name stays; -N, -F and -X do what
// iptables does.
func TestRestoreCreatesFlushesAppends(t *testing.T) {
	tb := restored(t, base)
	if got, want := tb.Chains("nat"), []string{"INPUT", "KUBE-SEP-A1", "KUBE-SERVICES", "KUBE-SVC-A", "OUTPUT", "POSTROUTING", "PREROUTING"}; !slices.Equal(got, want) {
		t.Errorf(`Chains("nat") = %q, want %q`, got, want)
	}
	if got := tb.Chains("filter"); got != nil {
		t.Errorf(`Chains("filter") = %q, want none: the text has no *filter`, got)
	}
	// A second endpoint: KUBE-SVC-A is declared again (flushed) and
	// refilled, KUBE-SEP-A1 is not named and keeps its rule.
	if err := tb.Restore(lines(
		"*nat",
		":KUBE-SVC-A - [0:0]",
		":KUBE-SEP-A2 - [0:0]",
		"-A KUBE-SVC-A -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-A1",
		"-A KUBE-SVC-A -j KUBE-SEP-A2",
		"-A KUBE-SEP-A2 -p tcp -j DNAT --to-destination 127.244.0.2:8080",
		"COMMIT",
	)); err != nil {
		t.Fatalf("Restore(a second endpoint) = %v, want nil", err)
	}
	for _, tc := range []struct {
		chain string
		want  []string
	}{
		{"KUBE-SVC-A", []string{"-A KUBE-SVC-A -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-A1", "-A KUBE-SVC-A -j KUBE-SEP-A2"}},
		{"KUBE-SEP-A1", []string{"-A KUBE-SEP-A1 -p tcp -j DNAT --to-destination 127.244.0.1:8080"}},
		{"KUBE-SEP-A2", []string{"-A KUBE-SEP-A2 -p tcp -j DNAT --to-destination 127.244.0.2:8080"}},
		{"KUBE-SERVICES", []string{`-A KUBE-SERVICES -m comment --comment "ns/a:p cluster IP" -d 127.96.0.1/32 -p tcp --dport 80 -j KUBE-SVC-A`}},
	} {
		if got := tb.Rules("nat", tc.chain); !slices.Equal(got, tc.want) {
			t.Errorf("Rules(nat, %s) = %q, want %q", tc.chain, got, tc.want)
		}
	}
	// -N makes an empty chain, -F empties one, and a flushed chain that
	// nothing jumps to any more goes with -X.
	if err := tb.Restore(lines(
		"*nat",
		"-N KUBE-NEW",
		"-F KUBE-SVC-A",
		"-A KUBE-SVC-A -j KUBE-SEP-A2",
		":KUBE-SEP-A1 - [0:0]",
		"-X KUBE-SEP-A1",
		"COMMIT",
	)); err != nil {
		t.Fatalf("Restore(-N, -F, -X) = %v, want nil", err)
	}
	if !tb.Has("nat", "KUBE-NEW") || tb.Has("nat", "KUBE-SEP-A1") {
		t.Errorf("after -N KUBE-NEW and -X KUBE-SEP-A1: Has(KUBE-NEW) = %v, Has(KUBE-SEP-A1) = %v, want true, false",
			tb.Has("nat", "KUBE-NEW"), tb.Has("nat", "KUBE-SEP-A1"))
	}
	if got, want := tb.Rules("nat", "KUBE-SVC-A"), []string{"-A KUBE-SVC-A -j KUBE-SEP-A2"}; !slices.Equal(got, want) {
		t.Errorf("Rules(nat, KUBE-SVC-A) after -F and -A = %q, want %q", got, want)
	}
	// A built-in chain's line sets its policy and flushes nothing
	// (iptables-restore flushes only user-defined chains); -F does.
	if err := tb.Restore(lines("*nat", "-A PREROUTING -j KUBE-SERVICES", "COMMIT", "*nat", ":PREROUTING ACCEPT [0:0]", "COMMIT")); err != nil {
		t.Fatalf("Restore(a rule in PREROUTING, then its chain line) = %v, want nil", err)
	}
	if got, want := tb.Rules("nat", "PREROUTING"), []string{"-A PREROUTING -j KUBE-SERVICES"}; !slices.Equal(got, want) {
		t.Errorf("Rules(nat, PREROUTING) after :PREROUTING ACCEPT = %q, want %q", got, want)
	}
	if err := tb.Restore(lines("*nat", "-F PREROUTING", "COMMIT")); err != nil {
		t.Fatalf("Restore(-F PREROUTING) = %v, want nil", err)
	}
	if got := tb.Rules("nat", "PREROUTING"); len(got) != 0 {
		t.Errorf("Rules(nat, PREROUTING) after -F = %q, want none", got)
	}
	// Comments and blank lines are nothing.
	before := tb.Save()
	if err := tb.Restore("# Generated by iptables-save\n\n*nat\n  \nCOMMIT\n"); err != nil {
		t.Fatalf("Restore(comments, blanks, an empty table) = %v, want nil", err)
	}
	if got := tb.Save(); got != before {
		t.Errorf("Save() after an empty *nat =\n%s\nwant it unchanged:\n%s", got, before)
	}
}

// Restore refuses a text with one bad line, names the line, and
// changes nothing: not the chains declared or filled before it, not a
// table it made.
func TestRestoreRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		line int
		msg  string // in the error's message
	}{
		{"-X of a missing chain", lines("*nat", "-X KUBE-SVC-NONE", "COMMIT"), 2, "no such chain"},
		{"-X of a built-in chain", lines("*nat", "-X PREROUTING", "COMMIT"), 2, "built-in"},
		{"-X of a chain with rules", lines("*nat", "-X KUBE-SEP-A1", "COMMIT"), 2, "has 1 rules"},
		{"-X of a chain a rule jumps to", lines("*nat", ":KUBE-SEP-A1 - [0:0]", "-X KUBE-SEP-A1", "COMMIT"), 3, "1 rules still jump to it"},
		{"-X of a chain flushed and jumped to again", lines("*nat", ":KUBE-SVC-A - [0:0]", ":KUBE-SEP-A1 - [0:0]", "-A KUBE-SVC-A -j KUBE-SEP-A1", "-X KUBE-SEP-A1", "COMMIT"), 5, "still jump to it"},
		{"an unknown target", lines("*nat", ":KUBE-SVC-B - [0:0]", "-A KUBE-SVC-B -j KUBE-SEP-NOWHERE", "COMMIT"), 3, "KUBE-SEP-NOWHERE is no chain"},
		{"-A to an undeclared chain", lines("*nat", "-A KUBE-SVC-B -j ACCEPT", "COMMIT"), 2, "no chain KUBE-SVC-B"},
		{"-N of a chain that exists", lines("*nat", "-N KUBE-SVC-A", "COMMIT"), 2, "exists"},
		{"-F of a missing chain", lines("*nat", "-F KUBE-SVC-B", "COMMIT"), 2, "no such chain"},
		{"an unknown command", lines("*nat", "-Z KUBE-SVC-A", "COMMIT"), 2, "not a command"},
		{"an unclosed quote", lines("*nat", `-A KUBE-SVC-A -m comment --comment "open -j ACCEPT`, "COMMIT"), 2, "not closed"},
		{"a line outside a table", lines("-A KUBE-SVC-A -j ACCEPT"), 1, "outside a table"},
		{"COMMIT outside a table", lines("COMMIT"), 1, "COMMIT outside"},
		{"a table inside a table", lines("*nat", "*filter", "COMMIT"), 2, "before the COMMIT of *nat"},
		{"no COMMIT", lines("*filter", ":KUBE-SERVICES - [0:0]"), 1, "no COMMIT"},
		// The bad line comes after lines that changed the tables:
		// a new table, a flush, appends and a deletion.
		{"after changes", lines(
			"*filter",
			":KUBE-SERVICES - [0:0]",
			"-A KUBE-SERVICES -j REJECT",
			"COMMIT",
			"*nat",
			":KUBE-SVC-A - [0:0]",
			":KUBE-SEP-A1 - [0:0]",
			"-X KUBE-SEP-A1",
			":KUBE-SVC-B - [0:0]",
			"-A KUBE-SERVICES -j KUBE-SVC-B",
			"-A KUBE-SVC-B -j KUBE-SEP-B1",
			"COMMIT",
		), 11, "KUBE-SEP-B1 is no chain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := restored(t, base)
			before := tb.Save()
			err := tb.Restore(tc.text)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Restore(%q) = %v, want an *Error", tc.text, err)
			}
			if e.Line != tc.line || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("Restore(%q) = line %d, %q; want line %d, a message with %q", tc.text, e.Line, e.Msg, tc.line, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "iptables: line ") {
				t.Errorf("Restore(%q).Error() = %q, want it to start with \"iptables: line \"", tc.text, err.Error())
			}
			if got := tb.Save(); got != before {
				t.Errorf("Save() after the refused Restore(%q) =\n%s\nwant it unchanged:\n%s", tc.text, got, before)
			}
			// The refs were put back too: the chains still delete
			// once flushed, and not before.
			if err := tb.Restore(lines("*nat", "-X KUBE-SEP-A1", "COMMIT")); err == nil {
				t.Errorf("after the refused Restore, -X of KUBE-SEP-A1 (a rule and a jump) = nil, want an error")
			}
			if err := tb.Restore(lines("*nat", ":KUBE-SERVICES - [0:0]", ":KUBE-SVC-A - [0:0]", ":KUBE-SEP-A1 - [0:0]",
				"-X KUBE-SVC-A", "-X KUBE-SEP-A1", "COMMIT")); err != nil {
				t.Errorf("after the refused Restore, flushing all and deleting KUBE-SVC-A and KUBE-SEP-A1 = %v, want nil", err)
			}
		})
	}
}

// A Clone changes apart from its original, both ways, even where they
// shared a chain's rules before (an append to a chain neither flushed).
func TestCloneIndependence(t *testing.T) {
	orig := restored(t, base)
	// A chain with spare capacity: appends in one Restore grow it.
	if err := orig.Restore(lines("*nat", ":KUBE-X - [0:0]", "-A KUBE-X -j ACCEPT", "-A KUBE-X -j RETURN", "-A KUBE-X -j DROP", "COMMIT")); err != nil {
		t.Fatal(err)
	}
	before := orig.Save()
	c := orig.Clone()
	if got := c.Save(); got != before {
		t.Fatalf("Clone().Save() =\n%s\nwant the original's:\n%s", got, before)
	}
	for _, text := range []string{
		lines("*nat", "-A KUBE-X -j MARK", "-A KUBE-SERVICES -j KUBE-SVC-A", "COMMIT"),
		lines("*nat", ":KUBE-SVC-A - [0:0]", "-A KUBE-SVC-A -j ACCEPT", ":KUBE-SEP-A1 - [0:0]", "-X KUBE-SEP-A1", "COMMIT"),
		lines("*filter", ":KUBE-SERVICES - [0:0]", "COMMIT"),
	} {
		if err := c.Restore(text); err != nil {
			t.Fatalf("clone: Restore(%q) = %v", text, err)
		}
		if got := orig.Save(); got != before {
			t.Errorf("after the clone's Restore(%q), the original's Save() =\n%s\nwant it unchanged:\n%s", text, got, before)
		}
	}
	// And the other way: the original's appends leave the clone be.
	cloned := c.Save()
	if err := orig.Restore(lines("*nat", "-A KUBE-X -j LOG", "COMMIT")); err != nil {
		t.Fatal(err)
	}
	if got := c.Save(); got != cloned {
		t.Errorf("after the original's Restore, the clone's Save() =\n%s\nwant it unchanged:\n%s", got, cloned)
	}
	// The original's refs are its own: KUBE-SEP-A1, deleted in the
	// clone, still cannot go from the original.
	if err := orig.Restore(lines("*nat", ":KUBE-SEP-A1 - [0:0]", "-X KUBE-SEP-A1", "COMMIT")); err == nil {
		t.Errorf("original: -X KUBE-SEP-A1, which KUBE-SVC-A still jumps to = nil, want an error")
	}
}

// Words splits on blanks, groups a quoted value into one word (marked
// Quoted, whatever it looks like) and reads \" and \\ inside quotes.
func TestWords(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []Word
	}{
		{`-A X -m comment --comment "a b" -j Y`, []Word{{"-A", false}, {"X", false}, {"-m", false}, {"comment", false}, {"--comment", false}, {"a b", true}, {"-j", false}, {"Y", false}}},
		{`--comment "say \"hi\" \\ there"`, []Word{{"--comment", false}, {`say "hi" \ there`, true}}},
		{`--comment "-looks-like-an-option"  	 x`, []Word{{"--comment", false}, {"-looks-like-an-option", true}, {"x", false}}},
		{`--comment ""`, []Word{{"--comment", false}, {"", true}}},
		{`a"b c"d \x`, []Word{{"ab cd", true}, {`\x`, false}}}, // quotes inside a word; a backslash outside quotes is itself
		{" \t ", nil},
	} {
		got, err := Words(tc.line)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Words(%q) = %+v, %v; want %+v, nil", tc.line, got, err, tc.want)
		}
	}
	for _, l := range []string{`--comment "open`, `--comment "ends in an escaped quote\"`} {
		if got, err := Words(l); err == nil {
			t.Errorf("Words(%q) = %+v, nil; want an error (a quote not closed)", l, got)
		}
	}
}
