// Package events records Events (core/v1) about objects through an API
// client, as client-go's recorders do (k8s.io/client-go/tools/record
// event.go, and tools/events for the action and reporting fields), so
// that `kubectl describe` and `kata trace` show what a component did:
// Scheduled, FailedScheduling, SuccessfulCreate...
//
// A Recorder
//
//  1. builds one Event per call: name "<involved name>.<unix nanos in
//     hex>" (makeEvent; the nanos kept strictly increasing within a
//     Recorder, so that a fake clock that does not move never makes two
//     names collide), namespace the involved object's, or "default"
//     for a cluster-scoped one; involvedObject with the kind and
//     apiVersion of the object's registered kind, its namespace, name,
//     uid and resourceVersion; type, reason, action and message as given;
//     source.component and reportingComponent the component,
//     reportingInstance the instance; firstTimestamp, lastTimestamp and
//     eventTime the Clock's now; count 1;
//  2. writes it with the client's Create on its own goroutine, never
//     blocking the caller: Event only queues it in a buffer of
//     Options.Buffer events (1000 by default, as the broadcaster's
//     maxQueuedEvents), and an event that finds the buffer full is
//     dropped and counted, as upstream's broadcaster drops (DropIfChannelFull);
//  3. retries a create that failed without an answer from the server
//     (a transport error) up to MaxTries times in all, RetryInterval
//     apart (upstream's recordToSink: 12 tries, 10s apart, the first
//     wait randomized, which the kata leaves out so that tests are
//     exact); an answer from the server (an *api.Status: AlreadyExists, Invalid, Forbidden,
//     a terminating namespace...) is final, as recordEvent treats a
//     StatusError;
//  4. drops an event whose type is neither Normal nor Warning (upstream
//     logs and drops it, ValidateEventType);
//  5. Shutdown stops taking events, makes one attempt at each event
//     already queued (no more retries: a shut-down recorder does not
//     wait 2 minutes on an unreachable apiserver), and returns when its
//     goroutine has ended. It is safe to call more than once.
//
// Dropped counts the events never written: a full buffer, after
// Shutdown, an invalid type, or a create that failed for good.
//
// The kata does not correlate or aggregate repeated events (upstream's
// EventCorrelator patches count and lastTimestamp of a similar event):
// every call writes a new Event with count 1.
package events
