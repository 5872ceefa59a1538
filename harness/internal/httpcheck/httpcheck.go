// Package httpcheck holds what the suites that drive an implementation
// over HTTP (apiservertest, admissiontest) share.
//
//  1. Recovering serves a handler so that a panic in the implementation
//     becomes an answer the step can report, instead of a connection
//     net/http drops after logging the panic.
package httpcheck

import (
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/kubekata/kubekata/harness/suite"
)

// PanicHeader marks an answer Recovering wrote for a panic.
const PanicHeader = "X-Kata-Panic"

// Recovering returns h, but a panic in h becomes a 500 marked with
// PanicHeader whose body says what panicked and where (the
// implementation's frame), and report is told the same text. A stub's
// "not implemented" panic says that it is the stub. http.ErrAbortHandler
// keeps its meaning: it aborts the answer.
func Recovering(h http.Handler, report func(msg string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil || p == http.ErrAbortHandler {
				if p != nil {
					panic(p)
				}
				return
			}
			msg := fmt.Sprintf("panic: %v", p)
			if where := suite.ImplementationFrame(string(debug.Stack())); where != "" {
				msg += " (at " + where + ")"
			}
			if strings.Contains(fmt.Sprint(p), "not implemented") {
				msg += ": this is the stub; replace the panic with your implementation"
			}
			report(msg)
			w.Header().Set(PanicHeader, "1")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, msg)
		}()
		h.ServeHTTP(w, r)
	})
}
