package apiserver

import (
	"net/http"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
)

// A watch streams the store's events under the kind's prefix as JSON
// lines. startStream and writeEvent, the wire format, are given.

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
// a buffer fills. It reports false once the client is gone.
func writeEvent(w http.ResponseWriter, typ api.WatchEventType, obj []byte) bool {
	line := make([]byte, 0, len(obj)+40)
	line = append(line, `{"type":"`...)
	line = append(line, typ...)
	line = append(line, `","object":`...)
	line = append(line, obj...)
	line = append(line, "}\n"...)
	if _, err := w.Write(line); err != nil {
		return false
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return true
}

// watch streams {"type":..., "object":...} lines: the store's events
// under the kind's prefix, after resourceVersion. Without one, the current
// objects come first as ADDED events, so that a client needs no list.
func (s *server) watch(w http.ResponseWriter, r *http.Request, req request) {
	// TODO: stream the kind's changes after resourceVersion as watch events (the current objects first when there is none) until the client goes away; send an ERROR event with a 410 Status when that history is compacted, and BOOKMARK events when the client allows them.
	panic("not implemented: watch")
}

// translate turns a store event into a watch event, as seen through the
// selectors: an object that starts matching is ADDED, one that stops
// matching is DELETED, even though neither was created or deleted.
func translate(ev storage.Event, sel selectors) (api.WatchEventType, []byte) {
	// TODO: turn a store event into a watch event type and object as seen through sel; return an empty type when the watcher should not see it.
	panic("not implemented: translate")
}
