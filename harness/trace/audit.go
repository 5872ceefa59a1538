package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// AuditEvent is what a trace reads of one audit log line: upstream's
// audit.k8s.io/v1 Event (k8s.io/apiserver/pkg/apis/audit/v1/types.go) at
// level Metadata, as harness/pipeline's Audit filter writes it.
type AuditEvent struct {
	Verb string
	// User is who made the request; Impersonated, when set, whom they
	// acted as (the one the trace shows).
	User, Impersonated    string
	Resource, Subresource string
	Namespace, Name       string
	Code                  int
	// Received and Done are requestReceivedTimestamp and stageTimestamp
	// (the response complete).
	Received, Done time.Time
}

// Actor is the user the request acted as.
func (a AuditEvent) Actor() string {
	if a.Impersonated != "" {
		return a.Impersonated
	}
	return a.User
}

// OK says whether the request succeeded (2xx).
func (a AuditEvent) OK() bool { return a.Code >= 200 && a.Code < 300 }

// auditLine is the JSON of a line; only what a trace needs.
type auditLine struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Verb       string `json:"verb"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ImpersonatedUser *struct {
		Username string `json:"username"`
	} `json:"impersonatedUser"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestReceivedTimestamp string `json:"requestReceivedTimestamp"`
	StageTimestamp           string `json:"stageTimestamp"`
}

// ParseAuditLine parses one line of the audit log. A line that is not an
// audit.k8s.io/v1 Event with a verb and a stageTimestamp is an error
// naming what is wrong.
func ParseAuditLine(line []byte) (AuditEvent, error) {
	var l auditLine
	if err := json.Unmarshal(bytes.TrimSpace(line), &l); err != nil {
		return AuditEvent{}, fmt.Errorf("trace: not an audit event: %v", err)
	}
	if l.Kind != "Event" || l.APIVersion != "audit.k8s.io/v1" {
		return AuditEvent{}, fmt.Errorf("trace: kind %q apiVersion %q, want Event audit.k8s.io/v1", l.Kind, l.APIVersion)
	}
	if l.Verb == "" {
		return AuditEvent{}, errors.New("trace: an audit event without a verb")
	}
	done, err := time.Parse(time.RFC3339Nano, l.StageTimestamp)
	if err != nil {
		return AuditEvent{}, fmt.Errorf("trace: stageTimestamp: %v", err)
	}
	ev := AuditEvent{Verb: l.Verb, User: l.User.Username, Done: done.UTC()}
	if received, err := time.Parse(time.RFC3339Nano, l.RequestReceivedTimestamp); err == nil {
		ev.Received = received.UTC()
	}
	if l.ImpersonatedUser != nil {
		ev.Impersonated = l.ImpersonatedUser.Username
	}
	if r := l.ObjectRef; r != nil {
		ev.Resource, ev.Subresource, ev.Namespace, ev.Name = r.Resource, r.Subresource, r.Namespace, r.Name
	}
	if l.ResponseStatus != nil {
		ev.Code = l.ResponseStatus.Code
	}
	return ev, nil
}

// ParseAudit reads an audit log, one event per line. A line that does
// not parse (a truncated write, a stray line) is skipped and counted in
// skipped; blank lines are ignored. The error is only r's.
func ParseAudit(r io.Reader) (events []AuditEvent, skipped int, err error) {
	br := bufio.NewReader(r)
	for {
		// ReadBytes, not a Scanner: a line has no length limit.
		line, rerr := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			if ev, perr := ParseAuditLine(line); perr == nil {
				events = append(events, ev)
			} else {
				skipped++
			}
		}
		if rerr == io.EOF {
			return events, skipped, nil
		}
		if rerr != nil {
			return events, skipped, fmt.Errorf("trace: reading the audit log: %w", rerr)
		}
	}
}

// Component names who acted, from a request's user: the components by
// their name (upstream's identities, system:kube-scheduler and
// system:kube-controller-manager; a kubelet is system:node:NODE, shown as
// its node), kubernetes-admin as admin, any other user as it is.
func Component(user string) string {
	switch {
	case user == "":
		return "unknown"
	case user == "kubernetes-admin":
		return "admin"
	case strings.HasPrefix(user, "system:node:"):
		return strings.TrimPrefix(user, "system:node:")
	case user == "system:kube-scheduler", user == "system:kube-controller-manager", user == "system:kube-proxy", user == "system:apiserver", user == "system:anonymous":
		return strings.TrimPrefix(user, "system:")
	case strings.HasPrefix(user, "system:serviceaccount:"):
		return "serviceaccount:" + strings.TrimPrefix(user, "system:serviceaccount:")
	}
	return user
}
