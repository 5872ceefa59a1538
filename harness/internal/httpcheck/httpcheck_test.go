package httpcheck

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRecoveringAnswersAPanic(t *testing.T) {
	var reported []string
	h := Recovering(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("not implemented: Serve")
	}), func(msg string) { reported = append(reported, msg) })
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusInternalServerError || rec.Header().Get(PanicHeader) == "" {
		t.Fatalf("a handler that panics: code %d, %s %q, want 500 and the header set", rec.Code, PanicHeader, rec.Header().Get(PanicHeader))
	}
	body := rec.Body.String()
	if !strings.HasPrefix(body, "panic: not implemented: Serve") || !strings.Contains(body, "this is the stub") {
		t.Fatalf("a stub's panic: body %q, want the panic and that it is the stub", body)
	}
	if len(reported) != 1 || reported[0] != body {
		t.Fatalf("report got %q, want the body %q once", reported, body)
	}
}

func TestRecoveringKeepsAbort(t *testing.T) {
	h := Recovering(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic(http.ErrAbortHandler)
	}), func(string) { t.Error("report called for http.ErrAbortHandler") })
	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Fatalf("recovered %v, want http.ErrAbortHandler to go on", p)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
}
