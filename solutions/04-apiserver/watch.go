package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
)

// A watch streams the store's events under the kind's prefix as JSON
// lines. startStream and writeEvent are the wire format.

// slowWatchTimeout is how long one event may take to reach a client. A
// client that reads nothing for that long is cut off, and every byte its
// watch held is freed: upstream's watch cache terminates a watcher whose
// buffer stays full (k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go),
// and the client lists and watches again.
var slowWatchTimeout = 10 * time.Second

// initialPage is how many objects a watch without a resourceVersion reads
// at a time for its initial ADDED events, so that a watch never holds more
// than one page of them.
const initialPage = 64

// startStream answers 200 and sends the headers at once: a watch client
// waits for them before it reads any event.
func startStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// writeEvent writes one event, {"type":...,"object":...}, as a line of
// its own and flushes it, so that the client sees it now rather than when
// a buffer fills. It reports false once the client is gone, or when it
// has not taken the event within slowWatchTimeout.
func writeEvent(w http.ResponseWriter, typ api.WatchEventType, obj []byte) bool {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(slowWatchTimeout))
	line := make([]byte, 0, len(obj)+40)
	line = append(line, `{"type":"`...)
	line = append(line, typ...)
	line = append(line, `","object":`...)
	line = append(line, obj...)
	line = append(line, "}\n"...)
	if _, err := w.Write(line); err != nil {
		return false
	}
	return rc.Flush() == nil
}

// watch streams {"type":..., "object":...} lines: the store's events
// under the kind's prefix, after resourceVersion. Without one, the current
// objects come first as ADDED events, so that a client needs no list.
func (s *server) watch(w http.ResponseWriter, r *http.Request, req request) {
	q := r.URL.Query()
	if st := validateListOptions(q, true); st != nil {
		writeStatus(w, st)
		return
	}
	sel, st := parseSelectors(req.kind, r)
	if st != nil {
		writeStatus(w, st)
		return
	}
	ctx := r.Context()
	var deadline time.Time
	if t := q.Get("timeoutSeconds"); t != "" {
		if n, err := strconv.Atoi(t); err == nil && n > 0 {
			var cancel func()
			ctx, cancel = context.WithTimeout(ctx, time.Duration(n)*time.Second)
			defer cancel()
			deadline, _ = ctx.Deadline()
		}
	}
	bookmarks := q.Get("allowWatchBookmarks") == "true" || q.Get("allowWatchBookmarks") == "1"
	sendInitial := q.Get("sendInitialEvents") == "true"
	pre := prefix(req.kind, req.namespace)
	rvParam := q.Get("resourceVersion")

	cur, err := storage.CurrentRevision(ctx, s.store)
	if err != nil {
		writeStatus(w, storeError(req.kind, "", err))
		return
	}
	initial := rvParam == "" || rvParam == "0" || sendInitial
	from := cur + 1
	if !initial {
		rv, err := strconv.ParseInt(rvParam, 10, 64)
		if err != nil || rv < 0 {
			writeStatus(w, badRequest(fmt.Sprintf("resourceVersion: invalid value %q: it must be a non-negative integer", rvParam)))
			return
		}
		if rv > cur {
			// A revision the store has not reached (up to the largest
			// int64, which rv+1 would overflow): upstream's watch cache
			// waits up to 3s for it, then sends this one ERROR event.
			startStream(w)
			writeEvent(w, api.WatchError, mustMarshal(resourceVersionTooLarge(rv, cur)))
			return
		}
		from = rv + 1
	}

	table := wantsTable(r)
	first := true
	send := func(typ api.WatchEventType, obj []byte) bool {
		if table && typ != api.WatchBookmark && typ != api.WatchError {
			o, err := load(req.kind, storage.KeyValue{Value: obj})
			if err == nil {
				// load took the RV from the bytes we built; keep it.
				var meta struct {
					Metadata struct {
						ResourceVersion string `json:"resourceVersion"`
					} `json:"metadata"`
				}
				_ = json.Unmarshal(obj, &meta)
				o.GetObjectMeta().ResourceVersion = meta.Metadata.ResourceVersion
				t := s.table(r, req.kind, []api.Object{o}, 0, "")
				if !first {
					t.ColumnDefinitions = nil
				}
				obj, _ = json.Marshal(t)
			}
		}
		first = false
		return writeEvent(w, typ, obj)
	}
	bookmark := func(rev int64, initialEnd bool) bool {
		obj := req.kind.New()
		setTypeMeta(req.kind, obj)
		m := obj.GetObjectMeta()
		m.ResourceVersion = strconv.FormatInt(rev, 10)
		if initialEnd {
			m.Annotations = map[string]string{"k8s.io/initial-events-end": "true"}
		}
		return send(api.WatchBookmark, mustMarshal(obj))
	}

	// The watch starts before the initial objects are read, at the
	// revision they are read at, so that nothing falls in between.
	watcher, err := s.store.Watch(ctx, pre, from)
	startStream(w)
	switch {
	case errors.Is(err, storage.ErrCompacted):
		// The events between resourceVersion and now are gone: say so
		// with 410 Expired, and the client lists again.
		send(api.WatchError, mustMarshal(expired(fmt.Sprintf("too old resource version: %d (%d)", from-1, s.compactedRevision(ctx, pre, from)))))
		return
	case errors.Is(err, storage.ErrFutureRevision):
		send(api.WatchError, mustMarshal(s.tooLargeResourceVersion(ctx, from-1)))
		return
	case err != nil:
		send(api.WatchError, mustMarshal(storeError(req.kind, "", err)))
		return
	}
	if initial {
		// One page at a time, all at the revision the watch starts
		// after: a watch holds one page, never the whole list.
		start := ""
		for {
			resp, err := s.store.Range(ctx, storage.RangeRequest{Prefix: pre, Start: start, Revision: from - 1, Limit: initialPage})
			if err != nil {
				send(api.WatchError, mustMarshal(storeError(req.kind, "", err)))
				return
			}
			for _, kv := range resp.KVs {
				if sel.matches(kv.Value) && !send(api.WatchAdded, withRV(kv)) {
					return
				}
			}
			if !resp.More || len(resp.KVs) == 0 {
				break
			}
			start = resp.KVs[len(resp.KVs)-1].Key + "\x00"
		}
	}
	last := from - 1
	if bookmarks && sendInitial {
		if !bookmark(last, true) {
			return
		}
	}
	// Bookmarks come every bookmarkEvery and, for a watch with a
	// timeout, no later than 2s before it ends (cache_watcher.go,
	// nextBookmarkTime).
	var tick <-chan time.Time
	nextBookmark := func() {
		d := s.bookmarkEvery
		if !deadline.IsZero() {
			d = min(d, time.Until(deadline)-2*time.Second)
		}
		tick = time.After(max(d, 0))
	}
	if bookmarks {
		nextBookmark()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			if !bookmark(last, false) {
				return
			}
			tick = nil
			if deadline.IsZero() || time.Until(deadline) > 2*time.Second {
				nextBookmark()
			}
		case ev, ok := <-watcher.Events():
			if !ok {
				if err := watcher.Err(); err != nil && ctx.Err() == nil {
					send(api.WatchError, mustMarshal(storeError(req.kind, "", err)))
				}
				return
			}
			last = ev.KV.ModRevision
			typ, obj := translate(ev, sel)
			if typ == "" {
				continue
			}
			if !send(typ, obj) {
				return
			}
		}
	}
}

// translate turns a store event into a watch event, as seen through the
// selectors: an object that starts matching is ADDED, one that stops
// matching is DELETED, even though neither was created or deleted.
func translate(ev storage.Event, sel selectors) (api.WatchEventType, []byte) {
	prevMatch := ev.PrevKV != nil && sel.matches(ev.PrevKV.Value)
	if ev.Type == storage.EventDelete {
		if !prevMatch {
			return "", nil
		}
		// A deleted object carries the revision of its delete.
		kv := *ev.PrevKV
		kv.ModRevision = ev.KV.ModRevision
		return api.WatchDeleted, withRV(kv)
	}
	curMatch := sel.matches(ev.KV.Value)
	switch {
	case curMatch && prevMatch:
		return api.WatchModified, withRV(ev.KV)
	case curMatch:
		return api.WatchAdded, withRV(ev.KV)
	case prevMatch:
		// What the watcher saw last, at the revision it stopped matching.
		kv := *ev.PrevKV
		kv.ModRevision = ev.KV.ModRevision
		return api.WatchDeleted, withRV(kv)
	}
	return "", nil
}

// compactedRevision finds the oldest revision a watch can start after,
// which upstream's 410 names: the smallest revision above failed that the
// store can still read (reads below the compacted revision fail).
func (s *server) compactedRevision(ctx context.Context, prefix string, failed int64) int64 {
	lo, hi := failed, failed
	if cur, err := storage.CurrentRevision(ctx, s.store); err == nil {
		hi = max(cur, failed)
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		_, err := s.store.Range(ctx, storage.RangeRequest{Prefix: prefix, Revision: mid, Limit: 1})
		if errors.Is(err, storage.ErrCompacted) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

func mustMarshal(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("apiserver: encoding %T: %v", v, err))
	}
	return data
}
