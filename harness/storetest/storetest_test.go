package storetest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/storetest"
)

// The suite runs against the in-memory store in harness/storage. Here it
// runs against broken stores, each in a child process, to show that it
// catches the bug each one has.

const mutantEnv = "STORETEST_MUTANT"

// TestStore is the suite against one mutant, in a child process of
// TestSuiteCatchesBugs.
func TestStore(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("runs as a child of TestSuiteCatchesBugs; harness/storage runs the suite against the in-memory store")
	}
	storetest.Run(t, func(dir string) (storage.Store, error) {
		return &mutant{Store: storage.NewMemory(), bug: name}, nil
	}, storetest.InMemory())
}

func TestSuiteCatchesBugs(t *testing.T) {
	for bug, want := range map[string][]string{
		"no-compares":       {"04-create", "05-compare-and-swap", "14-concurrent-cas"},
		"ignores-revision":  {"03-range", "10-compact"},
		"no-prev-kv":        {"07-watch"},
		"duplicate-events":  {"07-watch", "08-many-watchers"},
		"unbounded-watcher": {"09-slow-watcher"},
	} {
		t.Run(bug, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestStore$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), mutantEnv+"="+bug)
			out, _ := cmd.CombinedOutput()
			for _, step := range want {
				if !strings.Contains(string(out), "--- FAIL: TestStore/"+step) {
					t.Errorf("a store with bug %q passes step %s; output:\n%s", bug, step, out)
				}
			}
			if !strings.Contains(string(out), "--- PASS: TestStore/01-put-get") {
				t.Errorf("a store with bug %q fails 01-put-get, want only the steps it breaks to fail; output:\n%s", bug, out)
			}
		})
	}
}

// mutant is the in-memory store with one bug.
type mutant struct {
	storage.Store
	bug string
}

func (m *mutant) Txn(ctx context.Context, txn storage.Txn) (storage.TxnResponse, error) {
	if m.bug == "no-compares" {
		txn.If = nil
	}
	return m.Store.Txn(ctx, txn)
}

func (m *mutant) Range(ctx context.Context, req storage.RangeRequest) (storage.RangeResponse, error) {
	if m.bug == "ignores-revision" {
		req.Revision = 0
	}
	return m.Store.Range(ctx, req)
}

func (m *mutant) Watch(ctx context.Context, prefix string, from int64) (storage.Watcher, error) {
	w, err := m.Store.Watch(ctx, prefix, from)
	if err != nil || (m.bug != "no-prev-kv" && m.bug != "duplicate-events" && m.bug != "unbounded-watcher") {
		return w, err
	}
	out := &relay{inner: w, ch: make(chan storage.Event)}
	go out.run(m.bug)
	return out, nil
}

// relay forwards a watcher's events, changed by the bug, through an
// unbounded queue.
type relay struct {
	inner storage.Watcher
	ch    chan storage.Event
}

func (r *relay) Events() <-chan storage.Event { return r.ch }
func (r *relay) Err() error                   { return r.inner.Err() }

func (r *relay) run(bug string) {
	defer close(r.ch)
	var queue []storage.Event
	in := r.inner.Events()
	for in != nil || len(queue) > 0 {
		var out chan storage.Event
		var next storage.Event
		if len(queue) > 0 {
			out, next = r.ch, queue[0]
		}
		select {
		case e, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			switch bug {
			case "no-prev-kv":
				e.PrevKV = nil
				queue = append(queue, e)
			case "duplicate-events":
				queue = append(queue, e, e)
			default:
				queue = append(queue, e)
			}
		case out <- next:
			queue = queue[1:]
		}
	}
}
