package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
)

// A watch streams the store's events under the kind's prefix as JSON
// lines. startStream and writeEvent, the wire format, are given, and so
// are compactedRevision and mustMarshal below.

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
	// TODO: check the query with validateListOptions(q, true), then stream the kind's changes after resourceVersion as watch events (the current objects first, a page at a time, when there is none) until the client goes away; a resourceVersion beyond the store's is one ERROR event with a 504 Status, compacted history one with a 410 Status, and BOOKMARK events come when the client allows them.
	panic("not implemented: watch")
}

// translate turns a store event into a watch event, as seen through the
// selectors: an object that starts matching is ADDED, one that stops
// matching is DELETED, even though neither was created or deleted.
func translate(ev storage.Event, sel selectors) (api.WatchEventType, []byte) {
	// TODO: turn a store event into a watch event type and object as seen through sel, judged on both the new and the previous value; return an empty type when the watcher should not see it.
	panic("not implemented: translate")
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
