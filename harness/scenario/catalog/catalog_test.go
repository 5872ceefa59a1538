package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	s, err := Parse("store_survives-kill", []byte("# A write survives a crash. More words\n# on two lines.\n# needs: 03-store 04-apiserver\n\ncluster-start\n"))
	if err != nil {
		t.Fatalf("Parse = %v", err)
	}
	if s.Summary != "A write survives a crash." || !slices.Equal(s.Needs, []string{"03-store", "04-apiserver"}) {
		t.Errorf("Parse = %+v, want summary %q and needs [03-store 04-apiserver]", s, "A write survives a crash.")
	}
	s, _ = Parse("a_b", []byte("# Data survives: what was written. Then more\n# needs: 04-apiserver\n"))
	if s.Summary != "Data survives" {
		t.Errorf("Parse: summary %q, want %q (the text before the first colon)", s.Summary, "Data survives")
	}
	for name, c := range map[string]struct{ file, text, want string }{
		"bad name":    {"Store-Kill", "# x\n# needs: 03-store\n", "<area>_<behaviour>"},
		"no summary":  {"a_b", "# needs: 03-store\ncluster-start\n", "no comment"},
		"no needs":    {"a_b", "# shows x\ncluster-start\n# needs: 03-store\n", "exactly one line"},
		"two needs":   {"a_b", "# shows x\n# needs: 03-store\n# needs: 04-apiserver\n", "exactly one line"},
		"empty needs": {"a_b", "# shows x\n# needs:\n", "exactly one line"},
		"not an id":   {"a_b", "# shows x\n# needs: store\n", `needs "store"`},
	} {
		if _, err := Parse(c.file, []byte(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Parse = %v, want an error containing %q", name, err, c.want)
		}
	}
}

func TestList(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b_two.txtar", "# two\n# needs: 04-apiserver\n")
	write("a_one.txtar", "# one\n# needs: 03-store\n")
	write("notes.md", "not a scenario")
	list, err := List(dir)
	if err != nil || len(list) != 2 || list[0].Name != "a_one" || list[1].Name != "b_two" {
		t.Fatalf("List = %+v, %v; want a_one and b_two", list, err)
	}
	write("c_bad.txtar", "cluster-start\n")
	if _, err := List(dir); err == nil || !strings.Contains(err.Error(), "c_bad") {
		t.Errorf("List with a scenario without a header = %v, want an error naming c_bad", err)
	}
}
