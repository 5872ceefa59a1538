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

// watch streams {"type":..., "object":...} lines: the store's events
// under the kind's prefix, after resourceVersion. Without one, the current
// objects come first as ADDED events, so that a client needs no list.
func (s *server) watch(w http.ResponseWriter, r *http.Request, req request) {
	q := r.URL.Query()
	sel, st := parseSelectors(req.kind, r)
	if st != nil {
		writeStatus(w, st)
		return
	}
	ctx := r.Context()
	if t := q.Get("timeoutSeconds"); t != "" {
		if n, err := strconv.Atoi(t); err == nil && n > 0 {
			var cancel func()
			ctx, cancel = context.WithTimeout(ctx, time.Duration(n)*time.Second)
			defer cancel()
		}
	}
	bookmarks := q.Get("allowWatchBookmarks") == "true" || q.Get("allowWatchBookmarks") == "1"
	sendInitial := q.Get("sendInitialEvents") == "true"
	pre := prefix(req.kind, req.namespace)
	rvParam := q.Get("resourceVersion")

	var initial []storage.KeyValue
	var from int64
	if rvParam == "" || rvParam == "0" || sendInitial {
		resp, err := s.store.Range(ctx, storage.RangeRequest{Prefix: pre})
		if err != nil {
			writeStatus(w, storeError(req.kind, "", err))
			return
		}
		for _, kv := range resp.KVs {
			if sel.matches(kv.Value) {
				initial = append(initial, kv)
			}
		}
		from = resp.Revision + 1
	} else {
		rv, err := strconv.ParseInt(rvParam, 10, 64)
		if err != nil || rv < 0 {
			writeStatus(w, badRequest(fmt.Sprintf("resourceVersion: invalid value %q: it must be a non-negative integer", rvParam)))
			return
		}
		from = rv + 1
	}

	flusher, _ := w.(http.Flusher)
	table := wantsTable(r)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		// The client waits for the headers before it reads events.
		flusher.Flush()
	}
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
		line := make([]byte, 0, len(obj)+40)
		line = append(line, `{"type":"`...)
		line = append(line, typ...)
		line = append(line, `","object":`...)
		line = append(line, obj...)
		line = append(line, "}\n"...)
		if _, err := w.Write(line); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	sendStatus := func(st *api.Status) {
		data, _ := json.Marshal(st)
		send(api.WatchError, data)
	}
	bookmark := func(rev int64, initialEnd bool) bool {
		obj := req.kind.New()
		setTypeMeta(req.kind, obj)
		m := obj.GetObjectMeta()
		m.ResourceVersion = strconv.FormatInt(rev, 10)
		if initialEnd {
			m.Annotations = map[string]string{"k8s.io/initial-events-end": "true"}
		}
		data, _ := json.Marshal(obj)
		return send(api.WatchBookmark, data)
	}

	watcher, err := s.store.Watch(ctx, pre, from)
	switch {
	case errors.Is(err, storage.ErrCompacted):
		// The events between resourceVersion and now are gone: say so
		// with 410 Expired, and the client lists again.
		sendStatus(expired(fmt.Sprintf("too old resource version: %d (%s)", from-1, err)))
		return
	case errors.Is(err, storage.ErrFutureRevision):
		sendStatus(status(http.StatusGatewayTimeout, api.StatusReasonTimeout,
			fmt.Sprintf("Too large resource version: %d", from-1),
			&api.StatusDetails{Causes: []api.StatusCause{{Type: api.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}, RetryAfterSeconds: 1}))
		return
	case err != nil:
		sendStatus(storeError(req.kind, "", err))
		return
	}
	for _, kv := range initial {
		if !send(api.WatchAdded, withRV(kv)) {
			return
		}
	}
	last := from - 1
	if bookmarks && sendInitial {
		if !bookmark(last, true) {
			return
		}
	}
	var tick <-chan time.Time
	if bookmarks {
		t := time.NewTicker(s.bookmarkEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			if !bookmark(last, false) {
				return
			}
		case ev, ok := <-watcher.Events():
			if !ok {
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
		return api.WatchDeleted, withRV(ev.KV)
	}
	return "", nil
}
