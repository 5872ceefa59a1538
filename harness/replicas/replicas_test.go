package replicas

import "testing"

func TestPlan(t *testing.T) {
	for _, c := range []struct {
		p     Plan
		empty bool
		s     string
	}{
		{Plan{}, true, "{Create: 0, Delete: []}"},
		{Plan{Delete: []string{}}, true, "{Create: 0, Delete: []}"},
		{Plan{Create: 2}, false, "{Create: 2, Delete: []}"},
		{Plan{Delete: []string{"web-a", "web-b"}}, false, "{Create: 0, Delete: [web-a web-b]}"},
	} {
		if got := c.p.Empty(); got != c.empty {
			t.Errorf("%v.Empty() = %v, want %v", c.p, got, c.empty)
		}
		if got := c.p.String(); got != c.s {
			t.Errorf("String() = %q, want %q", got, c.s)
		}
	}
}
